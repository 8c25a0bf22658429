//! The checked-in generated clients compile, and behave like the run-time registry.
//!
//! Parity: for each client, the generated registry and a registry built at run time from the
//! config (`toolforge::sql::tools::database_tools` over the spec the generator compiles now)
//! expose identical definitions and give identical results for the same calls on the same
//! database.

#![allow(dead_code)]

#[path = "../generated/awkward_names/mod.rs"]
mod awkward_names;
#[path = "../generated/code_rag/mod.rs"]
mod code_rag;
#[path = "../generated/computed_fields/mod.rs"]
mod computed_fields;
#[path = "../generated/document_rag/mod.rs"]
mod document_rag;
#[path = "../generated/lr_coderag/mod.rs"]
mod lr_coderag;

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::sql::Database;
use toolforge::{Dialect, ToolRegistry};

fn runtime_registry(config: &str, db: Database) -> Arc<ToolRegistry> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(config);
    let compiled = toolforge_generator::compile_file(&path, &Default::default()).unwrap();
    let mut builder = ToolRegistry::standard().unwrap();
    for tool in toolforge::sql::tools::database_tools(Arc::new(compiled.spec), db) {
        builder.add(tool).unwrap();
    }
    builder.build()
}

/// Sample calls: every tool, valid and invalid arguments, every entity.
fn calls(spec: &toolforge::spec::SchemaSpec) -> Vec<(String, Value)> {
    let mut calls = vec![
        ("get_schema".to_string(), json!({})),
        ("get_schema".to_string(), json!({"include_tips": false})),
        (
            "query_entities".to_string(),
            json!({"entity_type": "NoSuchEntity"}),
        ),
        ("query_entities".to_string(), json!({"entity_type": 3})),
    ];
    for entity in &spec.entities {
        let name = &entity.name;
        let first = &entity.fields[0].name;
        calls.push(("describe_entity".into(), json!({"entity_name": name})));
        calls.push((
            "query_entities".into(),
            json!({"entity_type": name, "limit": 2}),
        ));
        calls.push((
            "query_entities".into(),
            json!({"entity_type": name, "order_by": {"field": first, "direction": "DESC"}}),
        ));
        calls.push((
            "query_entities".into(),
            json!({"entity_type": name, "conditions": [{"field": "nope", "operator": "=", "value": 1}]}),
        ));
        for computed in &entity.computed_fields {
            calls.push((
                "query_entities".into(),
                json!({"entity_type": name, "order_by": {"field": computed.name}}),
            ));
        }
        calls.push((
            "get_entity_by_id".into(),
            json!({"entity_type": name, "id_value": format!("{name}-1")}),
        ));
        calls.push((
            "get_entities_by_ids".into(),
            json!({"entity_type": name, "ids": [format!("{name}-1"), format!("{name}-2"), "missing"]}),
        ));
        calls.push((
            "glob_search".into(),
            json!({"entity_type": name, "field": entity.unique_field, "pattern": "*-1"}),
        ));
    }
    for rel in &spec.relationships {
        calls.push((
            "explore_relationships".into(),
            json!({"start_entity_type": rel.source, "relationship_type": rel.rel_type, "direction": "outgoing"}),
        ));
        calls.push((
            "explore_relationships".into(),
            json!({"start_entity_type": rel.target, "relationship_type": rel.rel_type, "direction": "both"}),
        ));
    }
    calls
}

/// Two records per entity (unique field only, plus strings), one edge per relationship.
fn load(db: &Database, spec: &toolforge::spec::SchemaSpec) {
    db.import(spec, |import| {
        for entity in &spec.entities {
            for i in 1..=2 {
                let mut data = serde_json::Map::new();
                for field in &entity.fields {
                    let value = match field.ty {
                        toolforge::spec::FieldType::String
                        | toolforge::spec::FieldType::Datetime => {
                            if field.name == entity.unique_field {
                                json!(format!("{}-{i}", entity.name))
                            } else {
                                json!(format!("{} {i}", field.name))
                            }
                        }
                        toolforge::spec::FieldType::Number => json!(i * 10),
                        toolforge::spec::FieldType::Boolean => json!(i == 1),
                        toolforge::spec::FieldType::Enum => json!(field.values[0]),
                        toolforge::spec::FieldType::StringArray => json!(["a", "b"]),
                        toolforge::spec::FieldType::NumberArray => json!([1, 2]),
                    };
                    data.insert(field.name.clone(), value);
                }
                import.entity(&entity.name, &data)?;
            }
        }
        for rel in &spec.relationships {
            let from = toolforge::sql::EndPoint {
                entity: rel.source.clone(),
                id: format!("{}-1", rel.source),
            };
            let to = toolforge::sql::EndPoint {
                entity: rel.target.clone(),
                id: format!("{}-2", rel.target),
            };
            import.relationship(&rel.rel_type, &from, &to, &serde_json::Map::new())?;
        }
        Ok(())
    })
    .unwrap();
}

macro_rules! parity_test {
    ($test:ident, $module:ident, $config:literal) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $test() {
            let dir = tempfile::tempdir().unwrap();
            let db = Database::open(dir.path().join("db.sqlite")).unwrap();
            $module::apply_schema(&db).unwrap();
            let spec = $module::spec();
            load(&db, spec);

            let generated = $module::setup_tool_registry(db.clone()).unwrap();
            let runtime = runtime_registry($config, db.clone());

            // The generated spec is the spec the generator compiles today.
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join($config);
            let compiled = toolforge_generator::compile_file(&path, &Default::default()).unwrap();
            assert_eq!(**spec, compiled.spec);

            // Identical definitions for every runtime tool, in every dialect.
            for tool in runtime.tools() {
                let name = &tool.definition().name;
                let ours = generated
                    .get(name)
                    .unwrap_or_else(|| panic!("generated registry lacks {name}"));
                assert_eq!(ours.definition(), tool.definition(), "definition of {name}");
            }
            for dialect in [
                Dialect::Mcp,
                Dialect::OpenAiChat,
                Dialect::OpenAiResponses,
                Dialect::Anthropic,
            ] {
                let ours: Vec<Value> = generated
                    .definitions_for(dialect)
                    .into_iter()
                    .filter(|d| runtime.definitions_for(dialect).contains(d))
                    .collect();
                assert_eq!(
                    ours,
                    runtime.definitions_for(dialect),
                    "{dialect:?} definitions"
                );
            }

            // Identical results (or errors) for the same calls.
            let calls = calls(spec);
            assert!(calls.len() > 10);
            for (tool, arguments) in calls {
                let a = generated
                    .call(&tool, arguments.clone())
                    .await
                    .map_err(|e| e.to_json());
                let b = runtime
                    .call(&tool, arguments.clone())
                    .await
                    .map_err(|e| e.to_json());
                assert_eq!(a, b, "{tool} {arguments}");
            }
        }
    };
}

parity_test!(
    parity_awkward_names,
    awkward_names,
    "fixtures/awkward-names.yaml"
);
parity_test!(
    parity_code_rag,
    code_rag,
    "corpus/ragforge__examples__code-rag__ragforge.config.yaml"
);
parity_test!(
    parity_computed_fields,
    computed_fields,
    "corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml"
);
parity_test!(
    parity_document_rag,
    document_rag,
    "corpus/ragforge__examples__document-rag__ragforge.config.yaml"
);
parity_test!(
    parity_lr_coderag,
    lr_coderag,
    "corpus/ragforge__examples__generated-from-lr-coderag.yaml"
);
