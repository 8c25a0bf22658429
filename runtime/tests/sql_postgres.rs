//! The database tools on a real PostgreSQL server (`TOOLFORGE_TEST_POSTGRES_URL`, see
//! `scripts/with-postgres`) answer exactly as on SQLite over the same seeded data: every tool,
//! every operator, paging, not-found and argument errors. `db init` is idempotent, an import
//! is one transaction, deadlines stop statements inside the server, and hostile arguments
//! change nothing. Without a server each test says it was skipped.
#![cfg(feature = "postgres")]

use crate::pg_support;
use crate::sql_fixtures;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use sql_fixtures::{code_rag_spec, jsonl, seed_lines, seeded};
use toolforge::sql::tools::database_tools;
use toolforge::sql::{Database, DbError};
use toolforge::{CallLimits, ErrorCode, Tool, ToolContext, ToolRegistry};

/// A seeded PostgreSQL database named after `test`, or `None` when no server is given.
fn seeded_postgres(test: &str) -> Option<(Database, String, Arc<toolforge::spec::SchemaSpec>)> {
    let base = pg_support::url(&format!("sql_postgres::{test}"))?;
    let (db, url) = pg_support::fresh(&base, test);
    let spec = Arc::new(code_rag_spec());
    db.init(&spec).expect("init");
    db.import_jsonl(&spec, jsonl(&seed_lines()).as_bytes())
        .expect("seed import");
    Some((db, url, spec))
}

/// Calls of every tool, over every operator, with paging and errors.
fn calls() -> Vec<(&'static str, Value)> {
    let q = |conditions: Value| json!({"entity_type": "Scope", "conditions": conditions});
    let mut calls = vec![
        ("get_schema", json!({})),
        ("get_schema", json!({"include_computed": true})),
        ("describe_entity", json!({"entity_type": "Scope"})),
        ("query_entities", json!({"entity_type": "Scope"})),
        ("query_entities", json!({"entity_type": "File"})),
        (
            "query_entities",
            json!({"entity_type": "Scope", "limit": 2}),
        ),
        (
            "query_entities",
            json!({"entity_type": "Scope", "limit": 2, "offset": 2}),
        ),
        (
            "query_entities",
            json!({"entity_type": "Scope", "offset": 100}),
        ),
        ("query_entities", json!({"entity_type": "Scopes"})),
        (
            "query_entities",
            json!({"entity_type": "Scope", "order_by": {"field": "tags"}}),
        ),
    ];
    for field in [
        "name",
        "startLine",
        "line_count",
        "char_count",
        "is_large",
        "kind",
        "created_at",
        "is_exported",
        "file",
    ] {
        for direction in ["ASC", "DESC"] {
            calls.push((
                "query_entities",
                json!({"entity_type": "Scope", "order_by": {"field": field, "direction": direction}}),
            ));
        }
    }
    let conditions = [
        json!([{"field": "name", "operator": "=", "value": "parseConfig"}]),
        json!([{"field": "name", "operator": "!=", "value": "parseConfig"}]),
        json!([{"field": "startLine", "operator": ">", "value": 10}]),
        json!([{"field": "startLine", "operator": "<=", "value": 10.5}]),
        json!([{"field": "line_count", "operator": ">=", "value": 3}]),
        json!([{"field": "line_count", "operator": "<", "value": 2.5}]),
        json!([{"field": "char_count", "operator": ">", "value": 5}]),
        json!([{"field": "is_large", "operator": "=", "value": false}]),
        json!([{"field": "is_exported", "operator": "=", "value": true}]),
        json!([{"field": "is_exported", "operator": "!=", "value": true}]),
        json!([{"field": "is_exported", "operator": "IN", "value": [true, false]}]),
        json!([{"field": "docstring", "operator": "=", "value": null}]),
        json!([{"field": "file", "operator": "=", "value": null}]),
        json!([{"field": "file", "operator": "!=", "value": null}]),
        json!([{"field": "name", "operator": "CONTAINS", "value": "Config"}]),
        json!([{"field": "name", "operator": "STARTS WITH", "value": "parse"}]),
        json!([{"field": "name", "operator": "ENDS WITH", "value": "Config"}]),
        json!([{"field": "name", "operator": "ENDS WITH", "value": "a much longer text than any name"}]),
        json!([{"field": "name", "operator": "IN", "value": ["parseConfig", "nothing"]}]),
        json!([{"field": "name", "operator": "IN", "value": []}]),
        json!([{"field": "name", "operator": "REGEX", "value": "^[a-z]+[A-Z]"}]),
        json!([{"field": "name", "operator": "REGEX", "value": "(?i)CONFIG"}]),
        json!([{"field": "name", "operator": "REGEX", "value": "(unclosed"}]),
        json!([{"field": "name", "operator": "GLOB", "value": "parse*"}]),
        json!([{"field": "name", "operator": "GLOB", "value": "*[A-Z]?*"}]),
        json!([{"field": "name", "operator": "GLOB", "value": "[^p]*"}]),
        json!([{"field": "name", "operator": "GLOB", "value": "[unclosed"}]),
        json!([{"field": "file", "operator": "GLOB", "value": "src/*.ts"}]),
        json!([{"field": "tags", "operator": "CONTAINS", "value": "parser"}]),
        json!([{"field": "tags", "operator": "=", "value": ["parser", "config"]}]),
        json!([{"field": "kind", "operator": "=", "value": "function"}]),
        json!([{"field": "kind", "operator": "=", "value": "lambda"}]),
        json!([{"field": "kind", "operator": ">", "value": "class"}]),
        json!([{"field": "created_at", "operator": ">", "value": "2024-01-01"}]),
        json!([{"field": "created_at", "operator": "<", "value": "2024-05-01T14:00:00+02:00"}]),
        json!([{"field": "created_at", "operator": "CONTAINS", "value": "2024"}]),
        json!([{"field": "startLine", "operator": "CONTAINS", "value": "1"}]),
        json!([{"field": "startLine", "operator": "=", "value": "ten"}]),
        json!([{"field": "name", "operator": "CONTAINS", "value": "a"}, {"field": "startLine", "operator": ">", "value": 0}]),
    ];
    for condition in conditions {
        calls.push(("query_entities", q(condition.clone())));
        if let Some(first) = condition.as_array().and_then(|c| c.first()) {
            calls.push((
                "glob_search",
                json!({"entity_type": "Scope", "field": first["field"], "pattern": "*a*"}),
            ));
        }
    }
    calls.extend([
        ("glob_search", json!({"entity_type": "Scope", "field": "name", "pattern": "*Config"})),
        ("glob_search", json!({"entity_type": "File", "field": "path", "pattern": "src/?.ts", "limit": 1})),
        ("get_entity_by_id", json!({"entity_type": "Scope", "id_value": "s1"})),
        ("get_entity_by_id", json!({"entity_type": "File", "id_value": "src/a.ts"})),
        ("get_entity_by_id", json!({"entity_type": "Scope", "id_value": "missing"})),
        ("get_entities_by_ids", json!({"entity_type": "Scope", "ids": ["s2", "s1", "missing", "s1"]})),
        ("get_entities_by_ids", json!({"entity_type": "Scope", "ids": ["s1", "s2", "s3"], "with_children": true})),
        ("get_entities_by_ids", json!({"entity_type": "Scope", "ids": ["s1", "s2"], "fields": ["name", "line_count"], "offset": 1})),
        ("get_entities_by_ids", json!({"entity_type": "File", "ids": ["src/a.ts"], "with_children": true})),
    ]);
    for direction in ["outgoing", "incoming", "both"] {
        calls.push((
            "explore_relationships",
            json!({"start_entity_type": "Scope", "relationship_type": "CONSUMES", "direction": direction}),
        ));
        calls.push((
            "explore_relationships",
            json!({"start_entity_type": "Scope", "relationship_type": "CONSUMES", "direction": direction,
                   "start_conditions": [{"field": "name", "operator": "STARTS WITH", "value": "p"}], "limit": 1, "offset": 1}),
        ));
        calls.push((
            "explore_relationships",
            json!({"start_entity_type": "Scope", "relationship_type": "DEFINED_IN", "direction": direction, "target_entity_type": "File"}),
        ));
    }
    calls.push((
        "explore_relationships",
        json!({"start_entity_type": "Scope", "relationship_type": "NOPE"}),
    ));
    calls
}

/// An answer as compared across backends: the value, or the error's code and message.
fn outcome(result: Result<Value, toolforge::ToolError>) -> Value {
    match result {
        Ok(value) => value,
        Err(error) => json!({"error": error.code, "message": error.message}),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_as_on_sqlite() {
    let Some((pg, _url, spec)) = seeded_postgres("tools") else {
        return;
    };
    let (_dir, sqlite_spec, sqlite) = seeded();
    let sqlite_tools = database_tools(sqlite_spec, sqlite);
    let pg_tools = database_tools(spec, pg);
    let find = |tools: &[Arc<dyn Tool>], name: &str| {
        tools
            .iter()
            .find(|t| t.definition().name == name)
            .cloned()
            .unwrap()
    };
    let mut answered = 0;
    for (name, arguments) in calls() {
        let expected = outcome(
            find(&sqlite_tools, name)
                .call(arguments.clone(), &ToolContext::new())
                .await,
        );
        let found = outcome(
            find(&pg_tools, name)
                .call(arguments.clone(), &ToolContext::new())
                .await,
        );
        assert_eq!(found, expected, "{name} {arguments}");
        answered += usize::from(expected.get("error").is_none());
    }
    assert!(answered > 60, "only {answered} calls had answers");
}

#[test]
fn init_is_idempotent_and_reports_differences() {
    let Some((db, url, spec)) = seeded_postgres("init") else {
        return;
    };
    let again = db.init(&spec).unwrap();
    assert!(again.created.is_empty(), "{:?}", again.created);
    assert_eq!(again.unchanged.len(), 10, "{:?}", again.unchanged);
    assert!(db.check_schema(&spec).unwrap().is_empty());
    assert!(toolforge::sql::schema_gaps(&db, &spec).unwrap().is_empty());
    // A column the config does not have is reported, and init changes nothing.
    pg_support::batch(&url, "ALTER TABLE file ADD COLUMN extra TEXT");
    let before = pg_support::dump(&url);
    match db.init(&spec) {
        Err(DbError::SchemaMismatch(differences)) => {
            let text: Vec<String> = differences.iter().map(|d| d.to_string()).collect();
            assert_eq!(
                text,
                ["table \"file\": column \"extra\" (text) is not in the config"]
            );
        }
        other => panic!("expected a schema mismatch, got {other:?}"),
    }
    assert_eq!(before, pg_support::dump(&url));
    // A missing table is a gap the CLI reports as such.
    pg_support::batch(&url, "DROP TABLE scope__has_parent__scope");
    let gaps = toolforge::sql::schema_gaps(&db, &spec).unwrap();
    assert!(
        gaps.iter()
            .any(|g| g.to_string() == "table \"scope__has_parent__scope\": does not exist"),
        "{gaps:?}"
    );
}

#[test]
fn an_import_is_one_transaction() {
    let Some((db, url, spec)) = seeded_postgres("import") else {
        return;
    };
    let before = pg_support::dump(&url);
    let lines = [
        json!({"entity": "File", "data": {"path": "src/new.ts", "language": "ts"}}),
        json!({"entity": "Scope", "data": {"uuid": "s9", "kind": "lambda"}}),
    ];
    let error = db
        .import_jsonl(&spec, jsonl(&lines).as_bytes())
        .unwrap_err();
    assert_eq!(error.line, Some(2), "{error}");
    assert_eq!(error.field.as_deref(), Some("data.kind"), "{error}");
    let lines = [
        json!({"entity": "File", "data": {"path": "src/new.ts", "language": "ts"}}),
        json!({"relationship": "DEFINED_IN", "from": {"entity": "Scope", "id": "nobody"}, "to": {"entity": "File", "id": "src/new.ts"}}),
    ];
    let error = db
        .import_jsonl(&spec, jsonl(&lines).as_bytes())
        .unwrap_err();
    assert_eq!(
        (error.line, error.field.as_deref()),
        (Some(2), Some("from.id")),
        "{error}"
    );
    // Values are stored as given or refused: an empty id, a number no 32-bit float holds.
    for (bad, field, message) in [
        (
            json!({"entity": "Scope", "data": {"uuid": ""}}),
            "data.uuid",
            "is empty",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "s9", "embedding": [1, 1e39, 2]}}),
            "data.embedding",
            "beyond what a vector holds",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "s9", "name": "a\u{0}b"}}),
            "data.name",
            "holds a NUL character",
        ),
    ] {
        let lines = [
            json!({"entity": "File", "data": {"path": "src/new.ts", "language": "ts"}}),
            bad,
        ];
        let error = db
            .import_jsonl(&spec, jsonl(&lines).as_bytes())
            .unwrap_err();
        assert_eq!(
            (error.line, error.field.as_deref()),
            (Some(2), Some(field)),
            "{error}"
        );
        assert!(error.message.contains(message), "{error}");
    }
    assert_eq!(before, pg_support::dump(&url), "nothing was imported");
    // Upserts keep the fields not given; arrays and booleans round-trip.
    let lines = [
        json!({"entity": "Scope", "data": {"uuid": "s1", "tags": ["x", "é"], "is_exported": false}}),
    ];
    let stats = db.import_jsonl(&spec, jsonl(&lines).as_bytes()).unwrap();
    assert_eq!(stats.entities, 1);
    let tools = database_tools(spec, db);
    let tool = tools
        .iter()
        .find(|t| t.definition().name == "get_entity_by_id")
        .unwrap();
    let answer = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(tool.call(
            json!({"entity_type": "Scope", "id_value": "s1"}),
            &ToolContext::new(),
        ))
        .unwrap();
    assert_eq!(answer["record"]["tags"], json!(["x", "é"]));
    assert_eq!(answer["record"]["is_exported"], json!(false));
    assert_eq!(answer["record"]["name"], json!("parseConfig"));
}

#[test]
fn a_read_only_handle_refuses_writes() {
    let Some((_db, url, spec)) = seeded_postgres("read_only") else {
        return;
    };
    let db = Database::open_read_only(&url).unwrap();
    assert!(matches!(db.init(&spec), Err(DbError::ReadOnly)));
    let error = db
        .import_jsonl(&spec, jsonl(&seed_lines()).as_bytes())
        .unwrap_err();
    assert!(error.message.contains("read-only"), "{error}");
}

/// The spec with a computed field `slow` whose PostgreSQL form runs for minutes.
fn with_slow_field(spec: &toolforge::spec::SchemaSpec) -> Arc<toolforge::spec::SchemaSpec> {
    with_counting_field(spec, "slow", 1_000_000_000)
}

/// The spec with a computed field `name` whose PostgreSQL form counts to `to` (about 0.1 s a
/// million).
fn with_counting_field(
    spec: &toolforge::spec::SchemaSpec,
    name: &str,
    to: u64,
) -> Arc<toolforge::spec::SchemaSpec> {
    with_computed_field(
        spec,
        name,
        &format!("(SELECT count(*) FROM generate_series(1, {to}))"),
    )
}

/// The spec with a number field `name` computed on PostgreSQL as `postgres_sql`.
fn with_computed_field(
    spec: &toolforge::spec::SchemaSpec,
    name: &str,
    postgres_sql: &str,
) -> Arc<toolforge::spec::SchemaSpec> {
    let mut spec = spec.clone();
    spec.entities[0].computed_fields.push(
        serde_json::from_value(json!({
            "name": name, "type": "number", "source": "a test field",
            "sql": "(SELECT 1)",
            "postgres_sql": postgres_sql
        }))
        .unwrap(),
    );
    Arc::new(spec)
}

/// Waits (up to 5 s) until no statement of another connection runs on `url`; how many still
/// run.
async fn statements_left(url: &str) -> usize {
    let mut running = usize::MAX;
    for _ in 0..50 {
        running = pg_support::running_statements(url);
        if running == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    running
}

/// A registry of `spec`'s tools over `db`, calls of `tool` limited to `millis` (none: no
/// limit).
fn limited(
    spec: &Arc<toolforge::spec::SchemaSpec>,
    db: &Database,
    tool: &str,
    millis: Option<u64>,
) -> Arc<ToolRegistry> {
    toolforge::sql::tools::register_database_tools(
        ToolRegistry::standard().unwrap(),
        spec.clone(),
        db.clone(),
    )
    .unwrap()
    .with_tool_limits(
        tool,
        CallLimits::default().timeout(millis.map(Duration::from_millis)),
    )
    .unwrap()
    .build()
}

/// `registry`'s `query_entities` over the slow field ([`with_slow_field`]) times out, and the
/// server is left with no statement of it running.
async fn the_slow_call_is_stopped_in_the_server(registry: &ToolRegistry, url: &str) {
    let slow = json!({"entity_type": "Scope", "order_by": {"field": "slow"}});
    let error = registry
        .call("query_entities", slow)
        .await
        .expect_err("the slow call cannot finish within its limit");
    assert_eq!(error.code, ErrorCode::Timeout, "{error}");
    // The server stops the statement itself (statement_timeout), although the call's future
    // is gone.
    assert_eq!(
        statements_left(url).await,
        0,
        "the slow statement still runs"
    );
}

#[test]
fn the_deadline_stops_the_statement_in_the_server() {
    let Some((db, url, spec)) = seeded_postgres("deadline") else {
        return;
    };
    let fast = toolforge::sql::registry(spec.clone(), db.clone()).unwrap();
    let registry = limited(&with_slow_field(&spec), &db, "query_entities", Some(50));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let started = std::time::Instant::now();
        the_slow_call_is_stopped_in_the_server(&registry, &url).await;
        // The server stopped the statement: the connections answer the next calls at once.
        for _ in 0..db.reader_count() * 2 {
            let answer = fast
                .call(
                    "get_entity_by_id",
                    json!({"entity_type": "Scope", "id_value": "s1"}),
                )
                .await
                .expect("a fast call after the timeout");
            assert_eq!(answer["record"]["name"], "parseConfig");
        }
        assert!(started.elapsed() < Duration::from_secs(20));
    });
}

/// A read connection keeps the `statement_timeout` a call gave it, and the next call sends
/// its own only when it differs: whatever the calls before it had, each statement runs under
/// its own call's limit, neither cut short by a shorter one nor freed of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_call_runs_under_its_own_statement_timeout() {
    let Some((db, url, plain)) = seeded_postgres("own_timeout") else {
        return;
    };
    // Each call reads every computed field of its spec: one spec for each speed.
    let slow_spec = with_slow_field(&plain);
    let spec = with_counting_field(&plain, "a_while", 6_000_000);
    // Calls one after another share one connection: opened by a first call, then given
    // 150 ms by quick lookups.
    let lookup = json!({"entity_type": "Scope", "id_value": "s1"});
    limited(&plain, &db, "get_entity_by_id", None)
        .call("get_entity_by_id", lookup.clone())
        .await
        .expect("a first lookup");
    let short = limited(&plain, &db, "get_entity_by_id", Some(150));
    for _ in 0..4 {
        short
            .call("get_entity_by_id", lookup.clone())
            .await
            .expect("a quick lookup");
    }
    // A call without a limit runs a statement longer than that to its end.
    let unlimited = limited(&spec, &db, "query_entities", None);
    let a_while = json!({"entity_type": "Scope", "order_by": {"field": "a_while"}, "limit": 1});
    unlimited
        .call("query_entities", a_while)
        .await
        .expect("a call without a limit is not stopped by an earlier call's");
    // And a limited call after it is stopped at its own limit, in the server too.
    let limited_call = limited(&slow_spec, &db, "query_entities", Some(50));
    the_slow_call_is_stopped_in_the_server(&limited_call, &url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_cancels_its_statement_in_the_server() {
    let Some((db, url, spec)) = seeded_postgres("dropped_call") else {
        return;
    };
    let fast = toolforge::sql::registry(spec.clone(), db.clone()).unwrap();
    // No deadline: only the caller giving up can stop the slow statement.
    let registry = toolforge::sql::registry(with_slow_field(&spec), db.clone()).unwrap();
    let slow = json!({"entity_type": "Scope", "order_by": {"field": "slow"}});
    let call = registry.call("query_entities", slow);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), call)
            .await
            .is_err(),
        "the slow call cannot finish within 300 ms"
    );
    assert_eq!(
        statements_left(&url).await,
        0,
        "the abandoned statement still runs on the server"
    );
    // The pool serves the next calls (the cancelled call's connection was closed, not
    // returned), as many as it has connections and more.
    for _ in 0..db.reader_count() * 2 {
        let answer = fast
            .call(
                "get_entity_by_id",
                json!({"entity_type": "Scope", "id_value": "s1"}),
            )
            .await
            .expect("a call after the cancelled one");
        assert_eq!(answer["record"]["name"], "parseConfig");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_read_through_the_same_queries() {
    let Some((pg, _url, spec)) = seeded_postgres("records") else {
        return;
    };
    let (_dir, _, sqlite) = seeded();
    // The records API runs the engine's query builder: the same page on both backends.
    for db in [&pg, &sqlite] {
        let spec = db.spec_for(&spec);
        let entity = spec.entity("Scope").unwrap();
        assert_eq!(entity.computed_fields.len(), 3);
    }
    assert_eq!(pg.dialect(), toolforge::sql::SqlDialect::Postgres);
    assert_eq!(sqlite.dialect(), toolforge::sql::SqlDialect::Sqlite);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batched_upserts_keep_import_order() {
    let Some((pg, _url, spec)) = seeded_postgres("batches") else {
        return;
    };
    let (_dir, sqlite_spec, sqlite) = seeded();
    // 2,500 files (more than one batch), each written twice with different column sets and
    // values, interleaved with scopes, so batches break on keys, shapes and sizes.
    let mut lines = Vec::new();
    // 1,500 files in long runs (batches large enough for COPY), then half of them again.
    for i in 0..1_500 {
        lines
            .push(json!({"entity": "File", "data": {"path": format!("g{i}"), "language": "bulk"}}));
    }
    for i in (0..1_500).step_by(2) {
        lines.push(
            json!({"entity": "File", "data": {"path": format!("g{i}"), "language": "bulk2"}}),
        );
    }
    for i in 0..2_500 {
        lines.push(
            json!({"entity": "File", "data": {"path": format!("f{i}"), "language": "first"}}),
        );
        if i % 7 == 0 {
            lines.push(
                json!({"entity": "File", "data": {"path": format!("f{i}"), "language": "second"}}),
            );
            lines.push(json!({"entity": "Scope", "data": {"uuid": format!("x{i}"), "name": format!("n{i}")}}));
            lines.push(
                json!({"entity": "Scope", "data": {"uuid": format!("x{i}"), "startLine": i}}),
            );
        }
    }
    for db in [&pg, &sqlite] {
        let stats = db.import_jsonl(&spec, jsonl(&lines).as_bytes()).unwrap();
        assert_eq!(stats.entities, lines.len());
    }
    let pg_tools = database_tools(spec, pg);
    let sqlite_tools = database_tools(sqlite_spec, sqlite);
    for arguments in [
        json!({"entity_type": "File", "conditions": [{"field": "language", "operator": "=", "value": "second"}], "limit": 100, "offset": 200}),
        json!({"entity_type": "File", "order_by": {"field": "language", "direction": "DESC"}, "limit": 100}),
        json!({"entity_type": "File", "conditions": [{"field": "language", "operator": "=", "value": "bulk2"}], "order_by": {"field": "path"}, "limit": 100, "offset": 600}),
        json!({"entity_type": "File", "conditions": [{"field": "language", "operator": "=", "value": "bulk"}], "order_by": {"field": "path", "direction": "DESC"}, "limit": 100}),
        json!({"entity_type": "Scope", "conditions": [{"field": "name", "operator": "STARTS WITH", "value": "n1"}], "order_by": {"field": "startLine"}, "limit": 100}),
    ] {
        let call = |tools: &[Arc<dyn Tool>]| {
            let tool = tools
                .iter()
                .find(|t| t.definition().name == "query_entities")
                .cloned()
                .unwrap();
            let arguments = arguments.clone();
            async move { tool.call(arguments, &ToolContext::new()).await.unwrap() }
        };
        let expected = call(&sqlite_tools).await;
        assert!(expected["total"].as_u64().unwrap() > 0, "{arguments}");
        assert_eq!(call(&pg_tools).await, expected, "{arguments}");
    }
}

#[test]
fn a_row_the_server_refuses_in_a_large_batch_is_named_by_its_line() {
    let Some((db, url, spec)) = seeded_postgres("copy_refused") else {
        return;
    };
    let before = pg_support::dump(&url);
    // 300 files in one batch (sent with COPY); PostgreSQL refuses a unique value too long for
    // its B-tree index (about 2.7 kB, and this one does not compress), which the import cannot
    // know beforehand.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let long: String = (0..9_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from_digit((state % 36) as u32, 36).unwrap()
        })
        .collect();
    let lines: Vec<Value> = (0..300)
        .map(|i| {
            let path = if i == 170 {
                long.clone()
            } else {
                format!("c{i}")
            };
            json!({"entity": "File", "data": {"path": path, "language": "ts"}})
        })
        .collect();
    let error = db
        .import_jsonl(&spec, jsonl(&lines).as_bytes())
        .unwrap_err();
    assert_eq!(error.line, Some(171), "{error}");
    assert!(error.message.contains("refused"), "{error}");
    assert_eq!(before, pg_support::dump(&url), "nothing was imported");

    // The batch is still on its way when a later line turns out malformed: the first error
    // in the file is the one reported.
    let mut text = jsonl(&lines);
    text.push_str(&format!(
        "{}\n{{\"entity\": \"File\", \"data\": \n",
        json!({"entity": "Scope", "data": {"uuid": "after", "name": "n"}})
    ));
    let error = db.import_jsonl(&spec, text.as_bytes()).unwrap_err();
    assert_eq!(error.line, Some(171), "{error}");
    assert_eq!(before, pg_support::dump(&url), "nothing was imported");
    // Without the refused row, the malformed line is the first error.
    let text = text.replace(&long, "c170");
    let error = db.import_jsonl(&spec, text.as_bytes()).unwrap_err();
    assert_eq!(error.line, Some(302), "{error}");
    assert_eq!(before, pg_support::dump(&url), "nothing was imported");

    // Deep in a long run (copied while it is read, after a first batch went through), and
    // after rows whose keys exist (the run is upserted instead): still the right line.
    for (first, refused) in [(0, 2_500), (0, 1_100), (1_000, 1_800)] {
        let lines: Vec<Value> = (first..3_000)
            .map(|i| {
                let path = if i == refused {
                    long.clone()
                } else {
                    format!("c{i}")
                };
                json!({"entity": "File", "data": {"path": path, "language": "ts"}})
            })
            .collect();
        let mut text = String::new();
        if first > 0 {
            // Keys taken earlier in the same import.
            text.push_str(&jsonl(
                &(0..first + 100)
                    .map(|i| json!({"entity": "File", "data": {"path": format!("c{i}")}}))
                    .collect::<Vec<_>>(),
            ));
            text.push_str(&format!(
                "{}\n",
                json!({"entity": "Scope", "data": {"uuid": "between", "name": "n"}})
            ));
        }
        let offset = text.lines().count();
        text.push_str(&jsonl(&lines));
        let error = db.import_jsonl(&spec, text.as_bytes()).unwrap_err();
        assert_eq!(
            error.line,
            Some(offset + refused - first + 1),
            "{first} {refused}: {error}"
        );
        assert_eq!(before, pg_support::dump(&url), "nothing was imported");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_connections_are_read_only() {
    let Some((db, url, spec)) = seeded_postgres("writes_refused") else {
        return;
    };
    pg_support::batch(&url, "CREATE SEQUENCE probe");
    // A computed field whose PostgreSQL form tries to write (advance a sequence).
    let mut spec = (*spec).clone();
    spec.entities[0].computed_fields.push(
        serde_json::from_value(json!({
            "name": "probe", "type": "number", "source": "a write",
            "sql": "(SELECT 1)", "postgres_sql": "(SELECT nextval('probe'))"
        }))
        .unwrap(),
    );
    let tools = database_tools(Arc::new(spec), db);
    let tool = tools
        .iter()
        .find(|t| t.definition().name == "query_entities")
        .unwrap();
    let error = tool
        .call(json!({"entity_type": "Scope"}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::ExecutionFailed, "{error}");
    assert_eq!(error.details.unwrap()["postgres_error"], "25006");
    assert!(!error.message.contains("nextval"), "{}", error.message);
}

#[test]
fn pool_size_in_the_url_bounds_the_read_connections() {
    let Some((seeding, url, spec)) = seeded_postgres("pool_size") else {
        return;
    };
    drop(seeding);
    std::thread::sleep(Duration::from_millis(300));
    let db = Database::open(format!("{url}?pool_size=3")).expect("open with pool_size");
    assert_eq!(db.reader_count(), 3);
    // Calls at once take at most that many connections, and all of them answer.
    let registry = toolforge::sql::registry(spec, db).expect("registry");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let answers = runtime.block_on(async {
        let calls = (0..12).map(|_| {
            let registry = registry.clone();
            tokio::spawn(async move {
                registry
                    .call(
                        "query_entities",
                        json!({"entity_type": "Scope", "limit": 5}),
                    )
                    .await
            })
        });
        join_all(calls).await
    });
    assert!(answers.iter().all(|answer| answer.is_ok()), "{answers:?}");
    let (base, _) = url.rsplit_once('/').unwrap();
    let name = url.rsplit('/').next().unwrap();
    let open = pg_support::query_text(
        &format!("{base}/postgres"),
        &format!("SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}'"),
    );
    let open: usize = open.trim().parse().unwrap();
    // The seeding handle is gone; the calls' handle opened at most its 3 readers.
    assert!(open <= 3, "{open} connections open with pool_size=3");
    // A bad value names the parameter and its range.
    let error = Database::open(format!("{url}?pool_size=0"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("pool_size=0") && error.contains("1 to 1000"),
        "{error}"
    );
}

/// A read of a quiet server may use PostgreSQL's parallel workers; one that starts while
/// another read of the same server runs goes without them (`max_parallel_workers_per_gather =
/// 0`), and a read alone after a quiet second has the server's setting back. `parallel=always`
/// leaves every read the server's setting, `parallel=never` none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_workers_go_to_reads_of_a_quiet_server() {
    let Some((seeding, url, plain)) = seeded_postgres("parallel") else {
        return;
    };
    drop(seeding);
    let server_setting = pg_support::query_text(&url, "SHOW max_parallel_workers_per_gather");
    assert_ne!(
        server_setting, "0",
        "the test needs parallel workers allowed"
    );
    let server_setting: f64 = server_setting.parse().unwrap();
    let probe_spec = with_computed_field(
        &plain,
        "workers",
        "(SELECT current_setting('max_parallel_workers_per_gather')::int)",
    );
    let slow_spec = with_counting_field(&plain, "a_while", 10_000_000);
    let probe = json!({"entity_type": "Scope", "limit": 1});
    // The setting a read runs with alone, beside a slow read of `db`, and after a quiet second.
    let workers = |db: Database| {
        let probes = limited(&probe_spec, &db, "query_entities", None);
        let slow = limited(&slow_spec, &db, "query_entities", None);
        let (probe, url) = (probe.clone(), url.clone());
        async move {
            let read = |probes: Arc<ToolRegistry>| {
                let probe = probe.clone();
                async move {
                    let answer = probes.call("query_entities", probe).await.expect("probe");
                    answer["results"][0]["workers"].as_f64().expect("workers")
                }
            };
            let alone = read(probes.clone()).await;
            let busy = tokio::spawn(async move {
                slow.call(
                    "query_entities",
                    json!({"entity_type": "Scope", "order_by": {"field": "a_while"}, "limit": 1}),
                )
                .await
                .expect("the slow read")
            });
            for _ in 0..100 {
                if pg_support::running_statements(&url) > 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            assert!(
                !busy.is_finished(),
                "the slow read ended too soon to overlap"
            );
            let beside = read(probes.clone()).await;
            busy.await.unwrap();
            tokio::time::sleep(Duration::from_millis(1_100)).await;
            let alone_again = read(probes).await;
            (alone, beside, alone_again)
        }
    };
    let db = Database::open(url.clone()).expect("open");
    assert_eq!(
        workers(db).await,
        (server_setting, 0.0, server_setting),
        "by default, parallel workers only while the server is quiet"
    );
    let always = Database::open(format!("{url}?parallel=always")).expect("open");
    assert_eq!(
        workers(always).await,
        (server_setting, server_setting, server_setting),
        "parallel=always"
    );
    let never = Database::open(format!("{url}?parallel=never")).expect("open");
    assert_eq!(workers(never).await, (0.0, 0.0, 0.0), "parallel=never");
    let error = Database::open(format!("{url}?parallel=often"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("parallel=often") && error.contains("`always`"),
        "{error}"
    );
}

async fn join_all<T>(handles: impl Iterator<Item = tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.expect("the call task"));
    }
    out
}
