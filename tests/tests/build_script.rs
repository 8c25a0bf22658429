//! The build.rs door: `toolforge_generator::Builder` in `build.rs` + `include_generated!()`.

mod tools {
    toolforge::include_generated!();
}

use serde_json::json;
use toolforge::sql::Database;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_build_script_module_serves_the_same_tools_plus_custom_ones() {
    use toolforge::{ToolContext, ToolError, ToolHandler};

    /// Counts servers.
    #[derive(toolforge::Tool)]
    struct CountServers {}

    impl ToolHandler for CountServers {
        type Output = usize;
        async fn run(self, context: &ToolContext) -> Result<usize, ToolError> {
            let db = context.extension::<Database>().unwrap();
            Ok(tools::records::HttpServer::query().all(db).await?.len())
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("db.sqlite")).unwrap();
    tools::apply_schema(&db).unwrap();
    let server = tools::records::HttpServer {
        api_key: "k1".into(),
        r#type: Some("web".into()),
        self_: Some("me".into()),
        order: Some(2.0),
        r#match: Some(true),
        select: Some("all".into()),
        r#where: Some(tools::records::HttpServerWhere::Here),
        tags: Some(vec!["a".into()]),
        r#loop: Some(toolforge::sql::places::Point {
            latitude: 48.8566,
            longitude: 2.3522,
        }),
        order_plus_one: None,
    };
    tools::records::HttpServer::upsert(&db, &[server]).unwrap();
    let registry = tools::setup_tool_registry_with(db.clone(), |builder| {
        builder.register(CountServers::into_tool())
    })
    .unwrap();
    assert_eq!(registry.call("count_servers", json!({})).await.unwrap(), 1);
    let found = registry
        .call(
            "query_entities",
            json!({"entity_type": "HTTPServer", "order_by": {"field": "orderPlusOne"}}),
        )
        .await
        .unwrap();
    assert_eq!(found["results"][0]["orderPlusOne"], 3);
    assert_eq!(found["results"][0]["self"], "me");
    let fetched = tools::records::HttpServer::get(&db, "k1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(fetched.order_plus_one, Some(3.0));
    assert_eq!(
        fetched.r#loop,
        Some(toolforge::sql::places::Point {
            latitude: 48.8566,
            longitude: 2.3522,
        })
    );
    // The statements after the header are those of the checked-in client's `schema.sql`.
    assert_eq!(
        tools::SCHEMA_SQL.split_once("\n\n").unwrap().1,
        include_str!("../generated/awkward_names/schema.sql")
            .split_once("\n\n")
            .unwrap()
            .1
    );
}

#[test]
fn the_build_script_asks_cargo_to_rerun_when_the_config_changes() {
    // Cargo keeps what a build script printed in `output`, next to its `OUT_DIR`.
    let output = std::path::Path::new(env!("OUT_DIR"))
        .parent()
        .expect("OUT_DIR has a parent")
        .join("output");
    let printed = std::fs::read_to_string(&output).expect("the build script's output");
    assert!(
        printed
            .lines()
            .any(|line| line == "cargo:rerun-if-changed=fixtures/awkward-names.yaml"),
        "{printed}"
    );
}
