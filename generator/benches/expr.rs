//! Speed of the computed-field expression compiler.
//!
//! `cargo bench -p toolforge-generator --bench expr`

use toolforge::spec::{
    EntitySpec, FieldSpec, FieldType, RelationshipSpec, SchemaSpec, ToolOptions,
};
use toolforge_generator::__private::expr::{ComputedBody, ComputedSource, compile_computed_fields};

fn main() {
    divan::main();
}

fn field(name: &str, ty: FieldType) -> FieldSpec {
    FieldSpec {
        column: None,
        name: name.to_owned(),
        ty,
        description: None,
        indexed: false,
        unique: name == "uuid",
        values: Vec::new(),
    }
}

fn entity(name: &str, fields: Vec<FieldSpec>) -> EntitySpec {
    EntitySpec {
        source: None,
        name: name.to_owned(),
        table: name.to_lowercase(),
        description: None,
        unique_field: "uuid".to_owned(),
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
    }
}

fn schema() -> SchemaSpec {
    let mut scope_fields = vec![
        field("uuid", FieldType::String),
        field("name", FieldType::String),
        field("startLine", FieldType::Number),
        field("endLine", FieldType::Number),
        field("source", FieldType::String),
        field("created_at", FieldType::Datetime),
    ];
    scope_fields.extend((0..20).map(|index| field(&format!("metric{index}"), FieldType::Number)));
    SchemaSpec {
        name: "bench".to_owned(),
        description: None,
        entities: vec![
            entity("Scope", scope_fields),
            entity(
                "Change",
                vec![
                    field("uuid", FieldType::String),
                    field("timestamp", FieldType::Datetime),
                ],
            ),
        ],
        relationships: vec![RelationshipSpec {
            mapping: None,
            rel_type: "HAS_CHANGE".to_owned(),
            source: "Scope".to_owned(),
            target: "Change".to_owned(),
            table: "scope__has_change__change".to_owned(),
            description: None,
            properties: Vec::new(),
        }],
        tools: ToolOptions::default(),
        mcp: Default::default(),
        embedding: None,
        change_log: None,
        declared_tools: Vec::new(),
        access: Vec::new(),
    }
}

/// The computed fields of the corpus' computed-fields example.
#[divan::bench]
fn corpus_fields(bencher: divan::Bencher) {
    let schema = schema();
    let fields = [
        ComputedSource {
            name: "line_count",
            declared_type: "number",
            body: ComputedBody::Expression("endLine - startLine + 1"),
        },
        ComputedSource {
            name: "is_large",
            declared_type: "boolean",
            body: ComputedBody::Expression("(endLine - startLine + 1) > 100"),
        },
        ComputedSource {
            name: "char_count",
            declared_type: "number",
            body: ComputedBody::Expression("source.length"),
        },
        ComputedSource {
            name: "change_count",
            declared_type: "number",
            body: ComputedBody::Cypher(
                "OPTIONAL MATCH (n)-[:HAS_CHANGE]->(c:Change)\nRETURN count(c)",
            ),
        },
    ];
    bencher.bench(|| {
        compile_computed_fields(
            divan::black_box(&schema),
            "Scope",
            divan::black_box(&fields),
        )
    });
}

/// 200 computed fields, each using the previous one and several stored fields.
#[divan::bench]
fn chain_of_200(bencher: divan::Bencher) {
    let schema = schema();
    let names: Vec<String> = (0..200).map(|index| format!("c{index}")).collect();
    let bodies: Vec<String> = (0..200)
        .map(|index| match index {
            0 => "metric0 * 2 + coalesce(metric1, 0) / 3".to_owned(),
            _ => format!(
                "abs(metric{} - metric{}) + round(days_between(created_at, now())) * 0 + c{} % 7",
                index % 20,
                (index + 3) % 20,
                index - 1
            ),
        })
        .collect();
    let fields: Vec<ComputedSource> = (0..200)
        .map(|index| ComputedSource {
            name: &names[index],
            declared_type: "number",
            body: ComputedBody::Expression(&bodies[index]),
        })
        .collect();
    bencher.bench(|| {
        compile_computed_fields(
            divan::black_box(&schema),
            "Scope",
            divan::black_box(&fields),
        )
    });
}
