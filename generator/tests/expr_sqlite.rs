//! Compiled computed fields run in SQLite and give the values the language promises.

use crate::expr_fixture;

use rusqlite::Connection;
use rusqlite::types::Value;
use toolforge_generator::__private::expr::{ComputedBody, ComputedSource, compile_computed_fields};

fn database() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(expr_fixture::SQLITE_ROWS).unwrap();
    db
}

/// The value of `expression` (declared `declared`) for the scope `uuid`.
fn eval(db: &Connection, declared: &str, expression: &str, uuid: &str) -> Value {
    let compiled = expr_fixture::compile(declared, expression)
        .unwrap_or_else(|error| panic!("{expression}: {error:?}"));
    let query = format!(
        r#"SELECT {} FROM "scope" AS n WHERE n."uuid" = ?1"#,
        compiled.sql
    );
    db.query_row(&query, [uuid], |row| row.get(0))
        .unwrap_or_else(|error| panic!("{query}: {error}"))
}

fn int(value: i64) -> Value {
    Value::Integer(value)
}

fn text(value: &str) -> Value {
    Value::Text(value.to_owned())
}

#[test]
fn arithmetic_and_real_division() {
    let db = database();
    assert_eq!(eval(&db, "number", "endLine - startLine + 1", "a"), int(5));
    assert_eq!(eval(&db, "number", "endLine / 4", "a"), Value::Real(3.5));
    assert_eq!(eval(&db, "number", "endLine / 0", "a"), Value::Null);
    assert_eq!(eval(&db, "number", "endLine % 4", "a"), int(2));
    assert_eq!(
        eval(&db, "number", "endLine - (startLine - 1)", "a"),
        int(5)
    );
    assert_eq!(eval(&db, "number", "- -startLine", "a"), int(10));
    assert_eq!(
        eval(&db, "number", "round(endLine / 3, 2)", "a"),
        Value::Real(4.67)
    );
}

#[test]
fn booleans_are_zero_and_one() {
    let db = database();
    assert_eq!(
        eval(&db, "boolean", "(endLine - startLine + 1) > 100", "a"),
        int(0)
    );
    assert_eq!(
        eval(&db, "boolean", "(endLine - startLine + 1) > 100", "b"),
        int(1)
    );
    assert_eq!(
        eval(&db, "boolean", "NOT exported AND type = 'class'", "b"),
        int(1)
    );
    assert_eq!(
        eval(&db, "boolean", "docstring IS NULL OR false", "a"),
        int(1)
    );
    assert_eq!(
        eval(&db, "boolean", "(startLine < 3) = exported", "b"),
        int(0)
    );
}

#[test]
fn strings_and_nulls() {
    let db = database();
    assert_eq!(
        eval(&db, "string", "coalesce(docstring, 'none')", "a"),
        text("none")
    );
    assert_eq!(eval(&db, "string", "docstring || '!'", "a"), Value::Null);
    assert_eq!(
        eval(
            &db,
            "string",
            "concat(name, ':', docstring, startLine)",
            "a"
        ),
        text("getUser:10")
    );
    assert_eq!(eval(&db, "number", "source.length", "a"), int(16));
    assert_eq!(eval(&db, "string", "name.lower()", "a"), text("getuser"));
    assert_eq!(eval(&db, "boolean", "contains(name, 'User')", "a"), int(1));
    assert_eq!(
        eval(&db, "boolean", "starts_with(name, 'get')", "a"),
        int(1)
    );
    assert_eq!(eval(&db, "boolean", "starts_with(name, '')", "a"), int(1));
    assert_eq!(eval(&db, "boolean", "ends_with(name, 'User')", "a"), int(1));
    assert_eq!(
        eval(&db, "boolean", "ends_with(name, 'xgetUser')", "a"),
        int(0)
    );
    assert_eq!(eval(&db, "boolean", "ends_with(name, '')", "a"), int(1));
    assert_eq!(eval(&db, "boolean", "ends_with(name, 'get')", "a"), int(0));
    assert_eq!(eval(&db, "number", "greatest(startLine, 12)", "a"), int(12));
}

#[test]
fn arrays() {
    let db = database();
    assert_eq!(eval(&db, "number", "tags.length", "a"), int(2));
    assert_eq!(eval(&db, "number", "tags.length", "b"), int(0));
    assert_eq!(eval(&db, "boolean", "contains(tags, 'db')", "a"), int(1));
    assert_eq!(eval(&db, "boolean", "contains(tags, 'web')", "a"), int(0));
    assert_eq!(eval(&db, "boolean", "contains(weights, 2.5)", "a"), int(1));
}

#[test]
fn dates() {
    let db = database();
    // 2020-02-29T12:00 to 2024-02-28T11:00 is 1459 days and 23 hours: 1459 whole days, and
    // not yet 4 whole years.
    assert_eq!(
        eval(&db, "number", "days_between(created_at, updated_at)", "a"),
        int(1459)
    );
    assert_eq!(
        eval(&db, "number", "days_between(updated_at, created_at)", "a"),
        int(-1459)
    );
    assert_eq!(
        eval(&db, "number", "years_between(created_at, updated_at)", "a"),
        int(3)
    );
    assert_eq!(
        eval(&db, "number", "years_between(updated_at, created_at)", "a"),
        int(-3)
    );
    assert_eq!(
        eval(
            &db,
            "number",
            "years_between(created_at, '2024-02-29T12:00:00Z')",
            "a"
        ),
        int(4)
    );
    assert_eq!(
        eval(&db, "number", "days_between(created_at, updated_at)", "b"),
        Value::Null
    );
    assert_eq!(eval(&db, "boolean", "created_at < now()", "a"), int(1));
    assert_eq!(
        eval(&db, "boolean", "days_between(created_at, now()) > 365", "b"),
        int(1)
    );
    let Value::Text(now) = eval(&db, "datetime", "now()", "a") else {
        panic!("now() is text")
    };
    assert_eq!((now.len(), &now[10..11], &now[19..]), (20, "T", "Z"));
}

#[test]
fn aggregates_count_existing_targets() {
    let db = database();
    // The edge to the missing change `gone` is not counted.
    assert_eq!(eval(&db, "number", "count(HAS_CHANGE)", "a"), int(2));
    assert_eq!(eval(&db, "number", "count(HAS_CHANGE)", "b"), int(0));
    assert_eq!(eval(&db, "number", "count(HAS_CHANGE.author)", "a"), int(1));
    assert_eq!(
        eval(&db, "number", "sum(HAS_CHANGE.lines_added)", "a"),
        int(12)
    );
    assert_eq!(
        eval(&db, "number", "sum(HAS_CHANGE.lines_added)", "b"),
        int(0)
    );
    assert_eq!(
        eval(&db, "number", "avg(HAS_CHANGE.lines_added)", "a"),
        Value::Real(6.0)
    );
    assert_eq!(
        eval(&db, "number", "avg(HAS_CHANGE.lines_added)", "b"),
        Value::Null
    );
    assert_eq!(
        eval(&db, "datetime", "max(HAS_CHANGE.timestamp)", "a"),
        text("2024-03-01T00:00:00Z")
    );
    assert_eq!(eval(&db, "number", "count(CONSUMES)", "a"), int(1));
    assert_eq!(eval(&db, "number", "count(<-CONSUMES)", "b"), int(2));
    assert_eq!(eval(&db, "number", "count(<-CONSUMES)", "a"), int(0));
    assert_eq!(
        eval(&db, "boolean", "count(HAS_CHANGE) > 1 AND exported", "a"),
        int(1)
    );
}

#[test]
fn union_aggregates_run() {
    let mut schema = expr_fixture::schema();
    schema
        .relationships
        .push(expr_fixture::relationship("MENTIONS", "Scope", "Change"));
    schema
        .relationships
        .push(expr_fixture::relationship("MENTIONS", "Scope", "Scope"));
    let fields = [
        ComputedSource {
            name: "m",
            declared_type: "number",
            body: ComputedBody::Expression("count(MENTIONS)"),
        },
        ComputedSource {
            name: "x",
            declared_type: "string",
            body: ComputedBody::Expression("max(MENTIONS.uuid)"),
        },
    ];
    let results = compile_computed_fields(&schema, "Scope", &fields);
    let db = database();
    db.execute_batch(
        r#"CREATE TABLE "scope__mentions__change" ("source_id" TEXT, "target_id" TEXT);
           CREATE TABLE "scope__mentions__scope" ("source_id" TEXT, "target_id" TEXT);
           INSERT INTO "scope__mentions__change" VALUES ('a', 'c1');
           INSERT INTO "scope__mentions__scope" VALUES ('a', 'b'), ('b', 'a');"#,
    )
    .unwrap();
    let sql_count = &results[0].as_ref().unwrap().sql;
    let sql_max = &results[1].as_ref().unwrap().sql;
    let query =
        format!(r#"SELECT n."uuid", {sql_count}, {sql_max} FROM "scope" AS n ORDER BY n."uuid""#);
    let mut statement = db.prepare(&query).unwrap();
    let rows: Vec<(String, i64, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        rows,
        vec![("a".into(), 2, "c1".into()), ("b".into(), 1, "a".into())]
    );
}

#[test]
fn row_local_sql_makes_valid_generated_columns() {
    let fields = [
        ComputedSource {
            name: "line_count",
            declared_type: "number",
            body: ComputedBody::Expression("endLine - startLine + 1"),
        },
        ComputedSource {
            name: "is_large",
            declared_type: "boolean",
            body: ComputedBody::Expression("line_count > 100"),
        },
        ComputedSource {
            name: "char_count",
            declared_type: "number",
            body: ComputedBody::Expression("source.length"),
        },
        ComputedSource {
            name: "age_days",
            declared_type: "number",
            body: ComputedBody::Expression("days_between(created_at, updated_at)"),
        },
        ComputedSource {
            name: "tag_count",
            declared_type: "number",
            body: ComputedBody::Expression("tags.length"),
        },
        ComputedSource {
            name: "label",
            declared_type: "string",
            body: ComputedBody::Expression("concat(upper(type), ' ', name)"),
        },
    ];
    let results = compile_computed_fields(&expr_fixture::schema(), "Scope", &fields);
    let db = database();
    for (source, result) in fields.iter().zip(&results) {
        let row_local = result.as_ref().unwrap().row_local_sql.clone().unwrap();
        let statement = format!(
            r#"ALTER TABLE "scope" ADD COLUMN "cached_{}" AS ({row_local}) VIRTUAL"#,
            source.name
        );
        db.execute_batch(&statement)
            .unwrap_or_else(|error| panic!("{statement}: {error}"));
    }
    let row: (i64, i64, i64, i64, i64, String) = db
        .query_row(
            r#"SELECT "cached_line_count", "cached_is_large", "cached_char_count", "cached_age_days",
                      "cached_tag_count", "cached_label" FROM "scope" WHERE "uuid" = 'a'"#,
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?)),
        )
        .unwrap();
    assert_eq!(row, (5, 0, 16, 1459, 2, "FUNCTION getUser".to_owned()));
}
