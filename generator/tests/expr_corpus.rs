//! Every computed field of the real ragforge configs compiles, or (Cypher that needs what the
//! config does not declare) is reported as untranslatable with a hint.

use std::path::Path;

use serde_yaml::Value;
use toolforge::spec::{
    EntitySpec, FieldSpec, FieldType, RelationshipSpec, SchemaSpec, ToolOptions,
};
use toolforge_generator::__private::expr::{
    ComputedBody, ComputedSource, ExprErrorKind, compile_computed_fields,
};

fn field_type(name: &str) -> FieldType {
    match name {
        "number" => FieldType::Number,
        "boolean" => FieldType::Boolean,
        "datetime" => FieldType::Datetime,
        "enum" => FieldType::Enum,
        "array<string>" => FieldType::StringArray,
        "array<number>" => FieldType::NumberArray,
        _ => FieldType::String,
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_sequence)
        .map_or(&[], Vec::as_slice)
}

/// A minimal storage schema of a config: fields, unique field, outgoing/incoming edges.
fn schema_of(config: &Value) -> SchemaSpec {
    let mut entities = Vec::new();
    let mut relationships: Vec<RelationshipSpec> = Vec::new();
    for entity in list(config, "entities") {
        let name = text(entity, "name").unwrap_or("Entity").to_owned();
        let unique = text(entity, "unique_field").unwrap_or("uuid").to_owned();
        let mut fields: Vec<FieldSpec> = list(entity, "searchable_fields")
            .iter()
            .map(|field| FieldSpec {
                column: None,
                name: text(field, "name").unwrap_or("field").to_owned(),
                ty: field_type(text(field, "type").unwrap_or("string")),
                description: None,
                indexed: false,
                unique: false,
                values: Vec::new(),
            })
            .collect();
        if !fields.iter().any(|field| field.name == unique) {
            fields.push(FieldSpec {
                column: None,
                name: unique.clone(),
                ty: FieldType::String,
                description: None,
                indexed: false,
                unique: true,
                values: Vec::new(),
            });
        }
        for rel in list(entity, "relationships") {
            let rel_type = text(rel, "type").unwrap_or("REL").to_owned();
            let target = text(rel, "target").unwrap_or("Entity").to_owned();
            let (source, target) = match text(rel, "direction") {
                Some("incoming") => (target, name.clone()),
                _ => (name.clone(), target),
            };
            if !relationships
                .iter()
                .any(|r| r.rel_type == rel_type && r.source == source && r.target == target)
            {
                let table = format!(
                    "{}__{}__{}",
                    source.to_lowercase(),
                    rel_type.to_lowercase(),
                    target.to_lowercase()
                );
                relationships.push(RelationshipSpec {
                    mapping: None,
                    rel_type,
                    source,
                    target,
                    table,
                    description: None,
                    properties: Vec::new(),
                });
            }
        }
        entities.push(EntitySpec {
            source: None,
            table: name.to_lowercase(),
            name,
            description: None,
            unique_field: unique,
            display_name_field: None,
            query_field: None,
            content_field: None,
            example_display_fields: Vec::new(),
            fields,
            computed_fields: Vec::new(),
            vector_indexes: Vec::new(),
            hierarchy: None,
            full_text: None,
            change_tracking: None,
        });
    }
    SchemaSpec {
        name: "corpus".to_owned(),
        description: None,
        entities,
        relationships,
        tools: ToolOptions::default(),
        mcp: Default::default(),
        embedding: None,
        change_log: None,
        declared_tools: Vec::new(),
        access: Vec::new(),
    }
}

#[test]
fn every_corpus_computed_field_compiles_or_is_explained() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut compiled = Vec::new();
    let mut untranslatable = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let config: Value = serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let schema = schema_of(&config);
        for entity in list(&config, "entities") {
            let entity_name = text(entity, "name").unwrap();
            let sources: Vec<ComputedSource> = list(entity, "computed_fields")
                .iter()
                .map(|field| ComputedSource {
                    name: text(field, "name").unwrap(),
                    declared_type: text(field, "type").unwrap_or("string"),
                    body: match (text(field, "expression"), text(field, "cypher")) {
                        (Some(expression), _) => ComputedBody::Expression(expression),
                        (None, Some(cypher)) => ComputedBody::Cypher(cypher),
                        _ => ComputedBody::Sql(text(field, "sql").unwrap_or("")),
                    },
                })
                .collect();
            for (source, result) in
                sources
                    .iter()
                    .zip(compile_computed_fields(&schema, entity_name, &sources))
            {
                match (source.body, result) {
                    (_, Ok(field)) => compiled.push((source.name.to_owned(), field.sql)),
                    (ComputedBody::Cypher(_), Err(error))
                        if error.kind == ExprErrorKind::UntranslatableCypher =>
                    {
                        assert!(error.hint.is_some());
                        untranslatable.push((source.name.to_owned(), error.message));
                    }
                    (_, Err(error)) => panic!("{}: {}: {error:?}", path.display(), source.name),
                }
            }
        }
    }
    assert!(compiled.contains(&(
        "line_count".to_owned(),
        r#"("n"."endLine" - "n"."startLine" + 1)"#.to_owned()
    )));
    assert!(compiled.contains(&(
        "is_large".to_owned(),
        r#"("n"."endLine" - "n"."startLine" + 1 > 100)"#.to_owned()
    )));
    assert!(compiled.contains(&(
        "char_count".to_owned(),
        r#"length("n"."source")"#.to_owned()
    )));
    // `(n)-[:HAS_CHANGE]->(c:Change)` reads the change log: every field compiles.
    assert!(untranslatable.is_empty(), "{untranslatable:?}");
    assert!(compiled.contains(&(
        "change_count".to_owned(),
        r#"(SELECT count(*) FROM "toolforge_changes" AS c WHERE c."entity" = 'Scope' AND c."record_id" = "n"."uuid")"#.to_owned()
    )), "{compiled:?}");
}
