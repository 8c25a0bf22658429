//! Declared tools in the trusted `sql:` form, on SQLite and PostgreSQL: answers equal the same
//! statement run by hand (differential), pages follow `limit` / `offset`, `validate` reports
//! statements that do not prepare at their key, hostile statements are refused and change
//! nothing, row rules still apply, and a tool without a statement for the backend is refused.

use crate::pg_support;

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::{ErrorCode, ToolRegistry};
use toolforge_generator::{CompileOptions, SqliteCheck, compile_str};

const CONFIG: &str = include_str!("../fixtures/declared/sql_tools.yaml");

fn options() -> CompileOptions {
    CompileOptions::default()
        .check_sqlite(SqliteCheck(Arc::new(toolforge::sql::check_sqlite_reads)))
}

fn spec_of(config: &str) -> SchemaSpec {
    compile_str(config, "library.yaml", &options())
        .unwrap_or_else(|errors| panic!("{}", errors.render()))
        .spec
}

fn loans() -> String {
    let mut lines = String::new();
    let statuses = ["open", "returned"];
    for i in 0..40 {
        let branch = ["north", "south", "east"][i % 3];
        let line = json!({"entity": "Loan", "data": {
            "id": format!("l{i:02}"),
            "member_id": format!("m{}", i % 3),
            "title": format!("{}{}", "t".repeat(1 + i % 7), i),
            "status": statuses[i % 4 / 3],
            "due_at": format!("2024-{:02}-{:02}T00:00:00Z", 1 + i % 12, 1 + i % 27),
            "fee": (i % 9) as f64 * 1.5,
            "branch": branch,
        }});
        lines.push_str(&format!("{line}\n"));
    }
    lines
}

fn seed(db: &Database, spec: &SchemaSpec) {
    db.init(spec).unwrap();
    db.import_jsonl(spec, loans().as_bytes()).unwrap();
}

/// Calls `tool` and checks the answer against its `outputSchema`.
async fn call(registry: &ToolRegistry, tool: &str, arguments: Value) -> Value {
    let answer = registry
        .call(tool, arguments.clone())
        .await
        .unwrap_or_else(|error| panic!("{tool} {arguments}: {error:?}"));
    let definition = registry.get(tool).unwrap().definition();
    let schema = definition.output_schema.clone().unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let problems: Vec<String> = validator
        .iter_errors(&answer)
        .map(|error| error.to_string())
        .collect();
    assert!(problems.is_empty(), "{tool} {arguments}: {problems:?}");
    answer
}

/// Rows of `sql` run by hand on SQLite, as JSON objects.
fn by_hand(db: &Database, sql: &str, params: Vec<toolforge::sql::SqlValue>) -> Vec<Value> {
    let sql = sql.to_owned();
    db.read_blocking(move |conn| {
        let mut statement = conn.prepare(&sql).unwrap();
        let names: Vec<String> = statement.column_names().map(str::to_owned).collect();
        let mut rows = statement
            .query(toolforge::sql::sqlite::rusqlite::params_from_iter(
                params.iter(),
            ))
            .unwrap();
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            let mut object = serde_json::Map::new();
            for (i, name) in names.iter().enumerate() {
                let value: toolforge::sql::SqlValue = row.get(i).unwrap();
                let value = match value {
                    toolforge::sql::SqlValue::Integer(n) => json!(n),
                    toolforge::sql::SqlValue::Real(x) => json!(x),
                    toolforge::sql::SqlValue::Text(t) => json!(t),
                    _ => Value::Null,
                };
                object.insert(name.clone(), value);
            }
            out.push(Value::Object(object));
        }
        out
    })
    .unwrap()
}

fn loan_count(db: &Database) -> i64 {
    db.read_blocking(|conn| {
        conn.query_row("SELECT count(*) FROM loan", [], |row| row.get(0))
            .unwrap()
    })
    .unwrap()
}

#[tokio::test]
async fn sql_tools_answer_like_the_statement_run_by_hand_on_sqlite() {
    let spec = Arc::new(spec_of(CONFIG));
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    seed(&db, &spec);
    let registry = toolforge::sql::registry(spec.clone(), db.clone()).unwrap();
    for before in ["2024-03-01", "2024-09-01", "2031-01-01"] {
        let answer = call(&registry, "busiest_branches", json!({"before": before})).await;
        let expected = by_hand(
            &db,
            "SELECT branch, count(*) AS loans, sum(fee) AS fees FROM loan \
             WHERE due_at < ?1 GROUP BY branch ORDER BY loans DESC, branch",
            vec![toolforge::sql::SqlValue::Text(format!(
                "{before}T00:00:00Z"
            ))],
        );
        assert_eq!(answer["rows"], Value::Array(expected), "{before}");
        assert_eq!(answer["columns"], json!(["branch", "loans", "fees"]));
    }
    // The default (`now`) sees every loan.
    let all = call(&registry, "busiest_branches", json!({})).await;
    let total: i64 = all["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["loans"].as_i64().unwrap())
        .sum();
    assert_eq!(total, 40);
    // Pages: `limit` / `offset` walk the same rows as LIMIT / OFFSET by hand.
    for (min_fee, parts) in [(0.0, 1), (4.5, 2), (100.0, 1)] {
        let expected = by_hand(
            &db,
            "SELECT id, fee, status, fee * 1.0 / ?2 AS share FROM loan WHERE fee >= ?1 ORDER BY id",
            vec![
                toolforge::sql::SqlValue::Real(min_fee),
                toolforge::sql::SqlValue::Integer(parts),
            ],
        );
        let mut seen = Vec::new();
        let mut offset = json!(0);
        while let Some(at) = offset.as_u64() {
            let answer = call(
                &registry,
                "fees_from",
                json!({"min_fee": min_fee, "parts": parts, "limit": 4, "offset": at}),
            )
            .await;
            assert_eq!(answer["offset"], json!(at));
            seen.extend(answer["rows"].as_array().unwrap().iter().cloned());
            offset = answer["next_offset"].clone();
            assert!(seen.len() <= expected.len());
        }
        assert_eq!(seen, expected, "{min_fee} {parts}");
    }
    // The tool's `limit` caps a page; a larger one is refused.
    let page = call(&registry, "fees_from", json!({"min_fee": 0})).await;
    assert_eq!(page["returned"], 10);
    assert_eq!(page["has_more"], true);
    assert_eq!(page["truncated_by"]["limit"], "limit");
    let error = registry
        .call("fees_from", json!({"min_fee": 0, "limit": 11}))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    // Values are bound, never spliced: a quote is data.
    let answer = call(
        &registry,
        "sqlite_only_titles",
        json!({"pattern": "t' OR '1'='1"}),
    )
    .await;
    assert_eq!(answer["rows"], json!([]));
    let answer = call(
        &registry,
        "sqlite_only_titles",
        json!({"pattern": "ttttttt*"}),
    )
    .await;
    assert_eq!(answer["rows"][0], json!({"id": "l06", "title": "TTTTTTT6"}));
}

#[tokio::test]
async fn the_answer_cap_cuts_rows_and_says_so() {
    let spec = Arc::new(spec_of(CONFIG));
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    seed(&db, &spec);
    let registry = toolforge::sql::registry_builder(spec, db)
        .unwrap()
        .with_max_answer_bytes(700)
        .with_max_rows(3)
        .build();
    let answer = registry
        .call("fees_from", json!({"min_fee": 0}))
        .await
        .unwrap();
    assert!(answer["returned"].as_u64().unwrap() <= 3, "{answer}");
    assert_eq!(answer["has_more"], true);
    assert!(answer.to_string().len() <= 700);
}

#[test]
fn sql_tools_are_listed_read_only_with_their_row_schema_in_every_dialect() {
    let spec = spec_of(CONFIG);
    let definitions = toolforge::sql::registry_definitions(&spec);
    let tool = definitions
        .iter()
        .find(|d| d.name == "busiest_branches")
        .unwrap();
    assert!(tool.is_read_only());
    assert_eq!(
        tool.input_schema["properties"]["before"]["default"],
        json!("now")
    );
    let rows = &tool.output_schema.as_ref().unwrap()["properties"]["rows"];
    assert_eq!(rows["items"]["type"], "object");
    for dialect in [
        toolforge::dialect::Dialect::Mcp,
        toolforge::dialect::Dialect::OpenAiChat,
        toolforge::dialect::Dialect::OpenAiResponses,
        toolforge::dialect::Dialect::Anthropic,
        toolforge::dialect::Dialect::Gemini,
    ] {
        let exported = toolforge::dialect::export(tool, dialect);
        assert!(
            exported.to_string().contains("busiest_branches"),
            "{dialect:?}"
        );
    }
    // The spec a generated module embeds carries the statements.
    let text = serde_json::to_string(&spec).unwrap();
    let back: SchemaSpec = serde_json::from_str(&text).unwrap();
    assert_eq!(back.declared_tools, spec.declared_tools);
    assert_eq!(
        back.declared_tools[0]
            .sql
            .as_ref()
            .unwrap()
            .sqlite
            .as_deref(),
        Some(
            "SELECT branch, count(*) AS loans, sum(fee) AS fees FROM loan WHERE due_at < ?1 \
             GROUP BY branch ORDER BY loans DESC, branch"
        )
    );
    assert!(
        back.declared_tools[0]
            .sql
            .as_ref()
            .unwrap()
            .postgres
            .as_deref()
            .unwrap()
            .contains("due_at < CAST(?1 AS TEXT)")
    );
}

/// The fixture with the statement of `busiest_branches` for SQLite replaced by `sql`.
fn with_sqlite_statement(sql: &str) -> String {
    let original = "sqlite: \"SELECT branch, count(*) AS loans, sum(fee) AS fees FROM loan WHERE due_at < :before GROUP BY branch ORDER BY loans DESC, branch\"";
    assert!(CONFIG.contains(original));
    CONFIG.replacen(original, &format!("sqlite: {}", json!(sql)), 1)
}

#[test]
fn validate_reports_statements_that_do_not_prepare_at_their_key() {
    let cases = [
        (
            "SELECT branch FROM loans WHERE due_at < :before",
            "no such table: loans",
        ),
        (
            "SELECT branchh FROM loan WHERE due_at < :before",
            "no such column: branchh",
        ),
        (
            "SELECT branch FROM loan WHERE due_at < :before GROUP BY ORDER",
            "syntax error",
        ),
        (
            "SELECT * FROM loan WHERE due_at < :befor",
            "`:befor` is not a declared parameter",
        ),
        ("SELECT branch FROM loan", "never used"),
        ("DELETE FROM loan WHERE due_at < :before", "only reads"),
        ("DROP TABLE loan -- :before", "only reads"),
        ("ATTACH 'other.db' AS o -- :before", "only reads"),
        ("PRAGMA query_only=0 -- :before", "only reads"),
        ("SELECT 1 WHERE :before; DELETE FROM loan", "one statement"),
        (
            "SELECT * FROM main.loan WHERE due_at < :before",
            "qualified by a schema",
        ),
        (
            "WITH gone AS (SELECT 1) DELETE FROM loan WHERE due_at < :before RETURNING id",
            "not a read",
        ),
        (
            "WITH gone AS (DELETE FROM loan WHERE due_at < :before RETURNING id) SELECT * FROM gone",
            "syntax error",
        ),
    ];
    for (sql, words) in cases {
        let config = with_sqlite_statement(sql);
        let errors = compile_str(&config, "library.yaml", &options()).unwrap_err();
        let error = errors
            .items()
            .iter()
            .find(|d| d.message.contains(words))
            .unwrap_or_else(|| panic!("{sql}: {}", errors.render()));
        let expected_path = if words == "never used" {
            "toolforge.declared_tools[0].parameters.before"
        } else {
            "toolforge.declared_tools[0].sql.sqlite"
        };
        assert_eq!(error.path, expected_path, "{sql}");
        let line = if words == "never used" { 27 } else { 24 };
        assert_eq!(error.line, line, "{sql}: {}", errors.render());
    }
    // Without a SQLite check (the generator alone), a statement that only SQLite can judge
    // passes; what the scanner sees is still an error.
    let config = with_sqlite_statement("SELECT branchh FROM loan WHERE due_at < :before");
    assert!(compile_str(&config, "library.yaml", &CompileOptions::default()).is_ok());
    // `sql:` excludes `entity`, `where` and `order_by`.
    let config = CONFIG.replacen(
        "    - name: fees_from\n",
        "    - name: fees_from\n      entity: Loan\n      where: \"fee > 1\"\n",
        1,
    );
    let errors = compile_str(&config, "library.yaml", &options()).unwrap_err();
    let paths: Vec<&str> = errors.items().iter().map(|d| d.path.as_str()).collect();
    assert!(
        paths.contains(&"toolforge.declared_tools[1].entity"),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"toolforge.declared_tools[1].where"),
        "{paths:?}"
    );
}

/// Hostile statements written straight into the spec (past the generator's checks), each
/// behind a tool of a generated-module registry: every call is refused and nothing changes.
#[tokio::test]
async fn hostile_statements_are_refused_at_run_time_and_change_nothing_on_sqlite() {
    let spec = spec_of(CONFIG);
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    seed(&db, &spec);
    let hostile = [
        (
            "INSERT INTO loan (id, member_id) VALUES ('x', ?1)",
            "INSERT",
        ),
        ("DELETE FROM loan WHERE ?1 IS NOT NULL", "DELETE"),
        ("DROP TABLE loan", "not a read"),
        ("ATTACH 'elsewhere.db' AS other", "ATTACH"),
        ("PRAGMA query_only=0", "PRAGMA"),
        ("PRAGMA main.query_only", "PRAGMA"),
        (
            "WITH x AS (SELECT 1) DELETE FROM loan WHERE ?1 IS NOT NULL RETURNING id",
            "DELETE",
        ),
        ("SELECT 1; DELETE FROM loan", "DELETE"),
        ("SELECT 1; SELECT 2", "more than one statement"),
        ("BEGIN IMMEDIATE", "transaction"),
        ("UPDATE loan SET fee = 0 RETURNING id", "UPDATE"),
        ("CREATE TEMP TABLE t AS SELECT 1", "not a read"),
    ];
    for (sql, words) in hostile {
        let mut spec = spec.clone();
        spec.declared_tools[0].sql.as_mut().unwrap().sqlite = Some(sql.to_owned());
        let spec = Arc::new(spec);
        // A registry bound to the database refuses to start, naming the tool.
        let error = toolforge::sql::registry(spec.clone(), db.clone()).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("busiest_branches"), "{sql}: {text}");
        assert!(text.contains(words), "{sql}: {text}");
        // A generated module's registry (no check at build) refuses the call.
        let mut builder = ToolRegistry::standard().unwrap().with_extension(db.clone());
        for tool in toolforge::sql::tools::context_database_tools(spec.clone()) {
            builder.add(tool).unwrap();
        }
        let registry = builder.build();
        let error = registry
            .call("busiest_branches", json!({"before": "2030-01-01"}))
            .await
            .unwrap_err();
        assert!(error.message.contains(words), "{sql}: {error:?}");
        assert!(error.message.contains("refused"), "{sql}: {error:?}");
        assert_eq!(loan_count(&db), 40, "{sql}");
        // The connection is still read-only for the next call.
        let fine = registry
            .call("fees_from", json!({"min_fee": 0, "limit": 1}))
            .await
            .unwrap();
        assert_eq!(fine["returned"], 1);
    }
}

const RULE: &str = "  access:\n    Loan: \"branch = :context.branch\"\n";

#[tokio::test]
async fn row_rules_apply_to_sql_tools() {
    let config = format!("{CONFIG}{RULE}");
    let spec = spec_of(&config);
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    seed(&db, &spec);
    let spec = Arc::new(spec);
    for branch in ["north", "south"] {
        let registry = toolforge::sql::registry_builder(spec.clone(), db.clone())
            .unwrap()
            .with_context(toolforge::ToolContext::new().with_value("branch", branch))
            .build();
        let answer = call(&registry, "busiest_branches", json!({})).await;
        assert_eq!(
            answer["rows"],
            json!([{"branch": branch, "loans": 13 + i64::from(branch == "north"),
                "fees": answer["rows"][0]["fees"]}])
        );
        let page = call(&registry, "fees_from", json!({"min_fee": 0, "limit": 10})).await;
        // By hand on a connection of its own (the pool's have the rule's views).
        let direct = Database::open(dir.path().join("library.db")).unwrap();
        let expected = by_hand(
            &direct,
            "SELECT id, fee, status, fee * 1.0 / 1 AS share FROM loan \
             WHERE fee >= 0 AND branch = ?1 ORDER BY id LIMIT 10",
            vec![toolforge::sql::SqlValue::Text(branch.to_owned())],
        );
        assert_eq!(expected.len(), 10);
        assert_eq!(page["rows"], Value::Array(expected));
    }
    // Without the context value, nothing is seen.
    let registry = toolforge::sql::registry(spec.clone(), db.clone()).unwrap();
    let answer = call(&registry, "busiest_branches", json!({})).await;
    assert_eq!(answer["rows"], json!([]));
    // Reading around the rule's view is refused at run time too (the generator refuses
    // `main.loan` before).
    let mut around = (*spec).clone();
    around.declared_tools[0].sql.as_mut().unwrap().sqlite =
        Some("SELECT branch, count(*) AS loans FROM main.loan WHERE ?1 IS NOT NULL".into());
    let mut builder = ToolRegistry::standard()
        .unwrap()
        .with_context(toolforge::ToolContext::new().with_value("branch", "north"))
        .with_extension(db.clone());
    for tool in toolforge::sql::tools::context_database_tools(Arc::new(around)) {
        builder.add(tool).unwrap();
    }
    let error = builder
        .build()
        .call("busiest_branches", json!({}))
        .await
        .unwrap_err();
    assert!(error.message.contains("around the row rule"), "{error:?}");
}

#[tokio::test]
async fn a_read_only_registry_keeps_sql_tools() {
    let spec = Arc::new(spec_of(CONFIG));
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    seed(&db, &spec);
    let full = toolforge::sql::registry(spec.clone(), db.clone()).unwrap();
    let read_only = toolforge::sql::registry_builder(spec, db)
        .unwrap()
        .read_only()
        .build();
    assert_eq!(
        read_only.names().collect::<Vec<_>>(),
        full.names().collect::<Vec<_>>()
    );
    let answer = call(&read_only, "busiest_branches", json!({})).await;
    assert_eq!(answer["rows"].as_array().unwrap().len(), 3);
    // Inside `batch` too, with the same answer.
    let batch = read_only
        .call(
            "batch",
            json!({"calls": [{"tool": "busiest_branches", "args": {}}]}),
        )
        .await
        .unwrap();
    assert_eq!(batch["results"][0]["result"], answer);
}

/// Numbers compared as numbers (SQLite's integer sum and PostgreSQL's double are equal).
fn numbers_as_f64(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64().unwrap()),
        Value::Array(items) => Value::Array(items.iter().map(numbers_as_f64).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), numbers_as_f64(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[tokio::test]
async fn sql_tools_answer_alike_on_sqlite_and_postgres() {
    let Some(base) =
        pg_support::url("declared_sql_tools::sql_tools_answer_alike_on_sqlite_and_postgres")
    else {
        return;
    };
    let spec = Arc::new(spec_of(CONFIG));
    let dir = tempfile::tempdir().unwrap();
    let sqlite = Database::open(dir.path().join("library.db")).unwrap();
    seed(&sqlite, &spec);
    let (pg, _url) = pg_support::fresh(&base, "declared_sql");
    seed(&pg, &spec);
    let on_sqlite = toolforge::sql::registry(spec.clone(), sqlite).unwrap();
    let on_postgres = toolforge::sql::registry(spec.clone(), pg.clone()).unwrap();
    let mut calls = Vec::new();
    for before in ["2024-03-01", "2024-09-01T12:00:00Z", "2031-01-01"] {
        calls.push(("busiest_branches", json!({"before": before})));
    }
    for (min_fee, parts, offset) in [(0.0, 1, 0), (0.0, 3, 8), (4.5, 2, 0), (100.0, 1, 0)] {
        calls.push((
            "fees_from",
            json!({"min_fee": min_fee, "parts": parts, "limit": 5, "offset": offset}),
        ));
    }
    let mut non_empty = 0;
    for (tool, arguments) in calls {
        let a = call(&on_sqlite, tool, arguments.clone()).await;
        let b = call(&on_postgres, tool, arguments.clone()).await;
        assert_eq!(numbers_as_f64(&a), numbers_as_f64(&b), "{tool} {arguments}");
        non_empty += usize::from(a["returned"].as_u64().unwrap() > 0);
    }
    assert!(non_empty >= 5, "the calls should find rows");
    // A tool with a SQLite statement only is refused on PostgreSQL, with a clear error.
    let error = on_postgres
        .call("sqlite_only_titles", json!({"pattern": "t*"}))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::Unavailable);
    assert!(
        error.message.contains("no `postgres` statement"),
        "{error:?}"
    );
}

#[tokio::test]
async fn hostile_statements_are_refused_and_change_nothing_on_postgres() {
    let Some(base) = pg_support::url(
        "declared_sql_tools::hostile_statements_are_refused_and_change_nothing_on_postgres",
    ) else {
        return;
    };
    let spec = spec_of(CONFIG);
    let (pg, url) = pg_support::fresh(&base, "declared_sql_hostile");
    seed(&pg, &spec);
    let count = || {
        let pg = pg.clone();
        async move {
            let registry = toolforge::sql::registry(Arc::new(spec_of(CONFIG)), pg).unwrap();
            let answer = registry.call("busiest_branches", json!({})).await.unwrap();
            answer["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| row["loans"].as_i64().unwrap())
                .sum::<i64>()
        }
    };
    assert_eq!(count().await, 40);
    // (statement, whether the server refuses it when the registry starts, and when called:
    // the check at start binds nulls, so a `WHERE` on a parameter keeps some from running)
    let hostile = [
        (
            "DELETE FROM loan WHERE CAST(?1 AS TEXT) IS NOT NULL RETURNING id",
            true,
            true,
        ),
        (
            "WITH gone AS (DELETE FROM loan RETURNING id) SELECT * FROM gone WHERE CAST(?1 AS TEXT) IS NOT NULL",
            true,
            true,
        ),
        // Runs, inside a read-only transaction that is rolled back: the setting does not stay.
        (
            "SELECT set_config('default_transaction_read_only', 'off', false) WHERE CAST(?1 AS TEXT) IS NOT NULL",
            false,
            false,
        ),
        (
            "SELECT set_config('transaction_read_only', 'off', false) WHERE CAST(?1 AS TEXT) IS NOT NULL",
            false,
            true,
        ),
        ("SELECT 1; DELETE FROM loan", true, true),
        (
            "INSERT INTO loan (id, member_id) VALUES ('x', CAST(?1 AS TEXT)) RETURNING id",
            true,
            true,
        ),
        (
            "SELECT * FROM loan WHERE CAST(?1 AS TEXT) IS NOT NULL FOR UPDATE",
            true,
            true,
        ),
    ];
    for (sql, refused, refused_when_called) in hostile {
        let mut spec = spec.clone();
        spec.declared_tools[0].sql.as_mut().unwrap().postgres = Some(sql.to_owned());
        let spec = Arc::new(spec);
        // Where the statement does not prepare, the registry refuses to start, naming the tool.
        match toolforge::sql::registry(spec.clone(), pg.clone()) {
            Err(error) => {
                assert!(refused, "{sql}: {error}");
                assert!(
                    error.to_string().contains("busiest_branches"),
                    "{sql}: {error}"
                );
            }
            Ok(_) => assert!(!refused, "{sql} should not start"),
        }
        // A generated module's registry (no check at build) runs it: refused or harmless.
        let mut builder = ToolRegistry::standard().unwrap().with_extension(pg.clone());
        for tool in toolforge::sql::tools::context_database_tools(spec.clone()) {
            builder.add(tool).unwrap();
        }
        let registry = builder.build();
        for _ in 0..2 {
            let answer = registry
                .call("busiest_branches", json!({"before": "2030-01-01"}))
                .await;
            assert_eq!(answer.is_err(), refused_when_called, "{sql}: {answer:?}");
        }
        // A write tried after it still fails: the connections stay read-only.
        let mut writer = spec_of(CONFIG);
        writer.declared_tools[1].sql.as_mut().unwrap().postgres = Some(
            "SELECT id, fee, status, CAST(?2 AS BIGINT) AS share FROM loan \
             WHERE fee >= CAST(?1 AS DOUBLE PRECISION) FOR UPDATE"
                .to_owned(),
        );
        let mut builder = ToolRegistry::standard().unwrap().with_extension(pg.clone());
        for tool in toolforge::sql::tools::context_database_tools(Arc::new(writer)) {
            builder.add(tool).unwrap();
        }
        let error = builder
            .build()
            .call("fees_from", json!({"min_fee": 0}))
            .await
            .unwrap_err();
        assert!(
            error.message.contains("read-only transaction"),
            "{sql}: {error:?}"
        );
        assert!(error.message.contains("refused"), "{sql}: {error:?}");
        assert_eq!(count().await, 40, "{sql}");
    }
    // Nothing was written, seen from outside.
    pg_support::batch(
        &url,
        "DO $$ BEGIN IF (SELECT count(*) FROM loan) <> 40 THEN RAISE EXCEPTION 'changed'; END IF; END $$;",
    );
    // A statement that does not prepare on the server stops the registry, naming the tool.
    let mut bad = spec.clone();
    bad.declared_tools[1].sql.as_mut().unwrap().postgres = Some(
        "SELECT id FROM loans WHERE fee >= CAST(?1 AS DOUBLE PRECISION) AND CAST(?2 AS BIGINT) > 0"
            .into(),
    );
    let error = toolforge::sql::registry(Arc::new(bad), pg.clone()).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("fees_from"), "{text}");
    assert!(text.contains("sql.postgres"), "{text}");
}

/// Text inside each backend's quoting forms (SQLite's `[name]`, PostgreSQL's `$$...$$`,
/// `$tag$...$tag$` and `E'...'`) is neither a parameter, a placeholder nor the end of the
/// statement: both backends answer the literal text, and the parameter outside still binds.
#[tokio::test]
async fn quoted_text_in_sql_tools_is_left_alone_on_both_backends() {
    let Some(base) = pg_support::url(
        "declared_sql_tools::quoted_text_in_sql_tools_is_left_alone_on_both_backends",
    ) else {
        return;
    };
    let original = "postgres: \"SELECT branch, count(*) AS loans, sum(fee) AS fees FROM loan WHERE due_at < :before GROUP BY branch ORDER BY loans DESC, branch\"";
    assert!(CONFIG.contains(original));
    let postgres = "SELECT $$?1 :before; x$$ AS a, $t$it's ?2$t$ AS b, E'it\\'s ?3' AS c, \
                    branch, count(*) AS loans FROM loan WHERE due_at < :before \
                    GROUP BY branch ORDER BY loans DESC, branch";
    let sqlite = "SELECT '?1 :before; x' AS a, 'it''s ?2' AS b, 'it''s ?3' AS c, \
                  [branch], count(*) AS loans FROM loan WHERE due_at < :before \
                  GROUP BY [branch] ORDER BY loans DESC, [branch]";
    let config = with_sqlite_statement(sqlite).replacen(
        original,
        &format!("postgres: {}", json!(postgres)),
        1,
    );
    let spec = Arc::new(spec_of(&config));
    let dir = tempfile::tempdir().unwrap();
    let sqlite_db = Database::open(dir.path().join("library.db")).unwrap();
    seed(&sqlite_db, &spec);
    let (pg, _url) = pg_support::fresh(&base, "declared_sql_quoted");
    seed(&pg, &spec);
    let arguments = json!({"before": "2031-01-01"});
    let on_sqlite = toolforge::sql::registry(spec.clone(), sqlite_db).unwrap();
    let on_postgres = toolforge::sql::registry(spec.clone(), pg).unwrap();
    let a = call(&on_sqlite, "busiest_branches", arguments.clone()).await;
    let b = call(&on_postgres, "busiest_branches", arguments).await;
    assert_eq!(numbers_as_f64(&a), numbers_as_f64(&b));
    let first = &b["rows"][0];
    assert_eq!(
        (&first["a"], &first["b"], &first["c"]),
        (
            &json!("?1 :before; x"),
            &json!("it's ?2"),
            &json!("it's ?3")
        ),
        "{b}"
    );
    assert!(b["returned"].as_u64().unwrap() > 0, "{b}");
}
