//! The config-macro door: `toolforge_config_macro::include_config!` expands a config into the
//! same module as a build script, at compile time.

mod tools {
    toolforge_config_macro::include_config!(
        "corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml"
    );
}

use serde_json::json;
use toolforge::sql::Database;

const CONFIG: &str =
    "corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml";

fn compiled_spec() -> toolforge::spec::SchemaSpec {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CONFIG);
    toolforge_generator::compile_file(&path, &Default::default())
        .unwrap()
        .spec
}

#[test]
fn the_macro_embeds_the_spec_the_generator_compiles() {
    assert_eq!(**tools::spec(), compiled_spec());
    let ddl = toolforge::sql::ddl::schema_sql(&compiled_spec()).unwrap();
    assert_eq!(tools::SCHEMA_SQL, ddl.trim_end());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_macro_module_registers_the_engine_definitions_and_runs_records_and_tools() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("db.sqlite")).unwrap();
    tools::apply_schema(&db).unwrap();
    let scope = |uuid: &str, start: f64, end: f64| tools::records::Scope {
        uuid: uuid.into(),
        name: Some(format!("scope {uuid}")),
        file: Some("lib.rs".into()),
        r#type: Some("function".into()),
        start_line: Some(start),
        end_line: Some(end),
        source: Some("fn f() {}".into()),
        line_count: None,
        is_large: None,
        char_count: None,
        change_count: None,
    };
    let stats =
        tools::records::Scope::upsert(&db, &[scope("a", 1.0, 10.0), scope("b", 1.0, 300.0)])
            .unwrap();
    assert_eq!(stats.entities, 2);

    let registry = tools::setup_tool_registry_with(db.clone(), Ok).unwrap();
    let mut generated: Vec<_> = registry.definitions().into_iter().cloned().collect();
    let mut expected = toolforge::sql::registry_definitions(&compiled_spec());
    generated.sort_by(|a, b| a.name.cmp(&b.name));
    expected.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(generated, expected);

    let large = tools::records::Scope::query()
        .eq(tools::records::ScopeField::IsLarge, true)
        .all(&db)
        .await
        .unwrap();
    assert_eq!(large.len(), 1);
    assert_eq!(large[0].uuid, "b");
    assert_eq!(large[0].line_count, Some(300.0));

    let found = registry
        .call(
            "query_entities",
            json!({"entity_type": "Scope", "order_by": {"field": "line_count", "direction": "DESC"}}),
        )
        .await
        .unwrap();
    assert_eq!(found["results"][0]["uuid"], "b");
    assert_eq!(found["total"], 2);
}
