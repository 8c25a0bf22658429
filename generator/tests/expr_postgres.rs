//! Compiled computed fields give the same values on PostgreSQL as on SQLite: every expression
//! is compiled once, its SQLite form run over SQLite rows and its PostgreSQL form over the
//! same rows on a real server (`TOOLFORGE_TEST_POSTGRES_URL`, see `scripts/with-postgres`).
//! Without a server the test says it was skipped.

use crate::expr_fixture;

use std::io::Write;

use rusqlite::Connection;
use rusqlite::types::Value;

/// The same rows in the types toolforge gives these fields on PostgreSQL.
const POSTGRES_ROWS: &str = r#"
    DROP SCHEMA public CASCADE; CREATE SCHEMA public;
    CREATE TABLE "scope" ("uuid" TEXT COLLATE "C" NOT NULL UNIQUE, "name" TEXT COLLATE "C",
        "type" TEXT COLLATE "C", "startLine" DOUBLE PRECISION, "endLine" DOUBLE PRECISION,
        "source" TEXT COLLATE "C", "docstring" TEXT COLLATE "C", "tags" JSONB, "weights" JSONB,
        "exported" BOOLEAN, "created_at" TEXT COLLATE "C", "updated_at" TEXT COLLATE "C");
    CREATE TABLE "change" ("uuid" TEXT COLLATE "C" NOT NULL UNIQUE, "timestamp" TEXT COLLATE "C",
        "lines_added" DOUBLE PRECISION, "author" TEXT COLLATE "C");
    CREATE TABLE "scope__has_change__change" ("source_id" TEXT COLLATE "C" NOT NULL,
        "target_id" TEXT COLLATE "C" NOT NULL, PRIMARY KEY ("source_id", "target_id"));
    CREATE TABLE "scope__consumes__scope" ("source_id" TEXT COLLATE "C" NOT NULL,
        "target_id" TEXT COLLATE "C" NOT NULL, PRIMARY KEY ("source_id", "target_id"));
    INSERT INTO "scope" VALUES
        ('a', 'getUser', 'function', 10, 14, 'fn get_user() {}', NULL, '["api","db"]', '[1,2.5]', TRUE,
         '2020-02-29T12:00:00Z', '2024-02-28T11:00:00Z'),
        ('b', 'Parser', 'class', 1, 200, 'struct Parser;', 'Parses.', '[]', '[]', FALSE,
         '2023-01-01T00:00:00Z', NULL);
    INSERT INTO "change" VALUES ('c1', '2024-01-01T00:00:00Z', 5, 'ann'), ('c2', '2024-03-01T00:00:00Z', 7, NULL);
    INSERT INTO "scope__has_change__change" VALUES ('a', 'c1'), ('a', 'c2'), ('a', 'gone');
    INSERT INTO "scope__consumes__scope" VALUES ('a', 'b'), ('b', 'b');
"#;

/// Every function and operator of the language, as `(declared type, expression)`.
const EXPRESSIONS: &[(&str, &str)] = &[
    ("number", "endLine - startLine + 1"),
    ("number", "endLine / 4"),
    ("number", "endLine / 0"),
    ("number", "endLine % 4"),
    ("number", "endLine % 0"),
    ("number", "endLine - (startLine - 1)"),
    ("number", "- -startLine"),
    ("number", "round(endLine / 3, 2)"),
    ("number", "round(endLine / 3)"),
    ("number", "abs(startLine - endLine)"),
    ("number", "greatest(startLine, 12)"),
    ("number", "least(startLine, 12)"),
    ("boolean", "(endLine - startLine + 1) > 100"),
    ("boolean", "(startLine < 3) = exported"),
    ("boolean", "NOT exported AND type = 'class'"),
    ("boolean", "docstring IS NULL OR false"),
    ("boolean", "docstring IS NOT NULL AND true"),
    ("boolean", "contains(name, 'User')"),
    ("boolean", "starts_with(name, 'get')"),
    ("boolean", "starts_with(name, '')"),
    ("boolean", "ends_with(name, 'User')"),
    ("boolean", "ends_with(name, 'xgetUser')"),
    ("boolean", "ends_with(name, '')"),
    ("string", "coalesce(docstring, 'none')"),
    ("string", "docstring || '!'"),
    ("string", "name.lower()"),
    ("string", "upper(name)"),
    ("string", "trim('  ' || name || ' ')"),
    ("number", "source.length"),
    ("number", "tags.length"),
    ("boolean", "contains(tags, 'db')"),
    ("boolean", "contains(tags, 'web')"),
    ("boolean", "contains(weights, 2.5)"),
    ("number", "days_between(created_at, updated_at)"),
    ("number", "days_between(updated_at, created_at)"),
    ("number", "years_between(created_at, updated_at)"),
    ("number", "years_between(updated_at, created_at)"),
    ("boolean", "created_at < now()"),
    ("boolean", "days_between(created_at, now()) > 365"),
    ("number", "count(HAS_CHANGE)"),
    ("number", "count(HAS_CHANGE.author)"),
    ("number", "sum(HAS_CHANGE.lines_added)"),
    ("number", "avg(HAS_CHANGE.lines_added)"),
    ("datetime", "max(HAS_CHANGE.timestamp)"),
    ("number", "count(CONSUMES)"),
    ("number", "count(<-CONSUMES)"),
    ("boolean", "count(HAS_CHANGE) > 1 AND exported"),
];

/// A value both backends can give, read loosely: numbers as `f64`, booleans as 0 / 1.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Null,
    Number(f64),
    Text(String),
}

fn from_sqlite(value: Value) -> Seen {
    match value {
        Value::Null => Seen::Null,
        Value::Integer(n) => Seen::Number(n as f64),
        Value::Real(n) => Seen::Number(n),
        Value::Text(text) => Seen::Text(text),
        Value::Blob(_) => Seen::Text("<blob>".into()),
    }
}

fn from_json(value: serde_json::Value) -> Seen {
    match value {
        serde_json::Value::Null => Seen::Null,
        serde_json::Value::Bool(flag) => Seen::Number(if flag { 1.0 } else { 0.0 }),
        serde_json::Value::Number(n) => Seen::Number(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(text) => Seen::Text(text),
        other => Seen::Text(other.to_string()),
    }
}

fn close(a: &Seen, b: &Seen) -> bool {
    match (a, b) {
        (Seen::Number(x), Seen::Number(y)) => (x - y).abs() < 1e-9,
        _ => a == b,
    }
}

#[test]
fn every_expression_gives_the_same_value_on_postgres() {
    let Ok(url) = std::env::var("TOOLFORGE_TEST_POSTGRES_URL") else {
        eprintln!(
            "skipped every_expression_gives_the_same_value_on_postgres: TOOLFORGE_TEST_POSTGRES_URL is not set (run it under scripts/with-postgres)"
        );
        return;
    };
    if let Ok(log) = std::env::var("TOOLFORGE_POSTGRES_TEST_LOG") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        // One write for the whole line (other test processes append to the same file).
        file.write_all(b"expr_postgres::every_expression_gives_the_same_value_on_postgres\n")
            .unwrap();
    }
    let sqlite = Connection::open_in_memory().unwrap();
    sqlite.execute_batch(expr_fixture::SQLITE_ROWS).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let task = tokio::spawn(connection);
        // One schema per test process, so parallel runs on one server do not meet.
        let schema = format!("expr_{}", std::process::id());
        client
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; SET search_path = {schema}"
            ))
            .await
            .unwrap();
        client
            .batch_execute(&POSTGRES_ROWS.replace(
                "DROP SCHEMA public CASCADE; CREATE SCHEMA public;",
                "",
            ))
            .await
            .unwrap();
        let mut differences = Vec::new();
        let mut own_form = 0;
        for (declared, expression) in EXPRESSIONS {
            let compiled = expr_fixture::compile(declared, expression)
                .unwrap_or_else(|error| panic!("{expression}: {error:?}"));
            own_form += usize::from(compiled.postgres_sql.is_some());
            let postgres_sql = compiled.postgres_sql.as_deref().unwrap_or(&compiled.sql);
            for uuid in ["a", "b"] {
                let expected = from_sqlite(
                    sqlite
                        .query_row(
                            &format!(r#"SELECT {} FROM "scope" AS n WHERE n."uuid" = ?1"#, compiled.sql),
                            [uuid],
                            |row| row.get(0),
                        )
                        .unwrap_or_else(|error| panic!("SQLite, {expression}: {error}")),
                );
                let query = format!(
                    r#"SELECT CAST(to_jsonb({postgres_sql}) AS TEXT) FROM "scope" AS n WHERE n."uuid" = $1"#
                );
                let row = client
                    .query_one(&query, &[&uuid])
                    .await
                    .unwrap_or_else(|error| panic!("PostgreSQL, {expression}: {query}: {error}"));
                let text: Option<String> = row.get(0);
                let found = match text {
                    Some(text) => from_json(serde_json::from_str(&text).unwrap()),
                    None => Seen::Null,
                };
                if !close(&expected, &found) {
                    differences.push(format!(
                        "{expression} on {uuid}: SQLite {expected:?}, PostgreSQL {found:?} ({postgres_sql})"
                    ));
                }
            }
        }
        client
            .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
            .await
            .unwrap();
        drop(client);
        let _ = task.await;
        assert!(differences.is_empty(), "{}", differences.join("\n"));
        // Division, %, booleans, dates, arrays and the string functions have their own
        // PostgreSQL spelling.
        assert!(own_form >= 20, "only {own_form} expressions have a PostgreSQL form");
    });
}
