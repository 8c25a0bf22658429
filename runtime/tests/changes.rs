//! Change tracking on SQLite and PostgreSQL: the same scenario (imports, typed writes, deletes,
//! a failed import and a rolled-back write) and the same answers from every change tool.

use crate::changes_fixture;
#[cfg(feature = "postgres")]
use crate::pg_support;

#[tokio::test]
async fn change_tracking_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("docs.db")).unwrap();
    changes_fixture::check_scenario(&db).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn change_tracking_on_postgres() {
    let Some(base) = pg_support::url("changes::change_tracking_on_postgres") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "changes");
    changes_fixture::check_scenario(&db).await;
}

/// SQLite writes the upserts of tracked records in batches too (their values before read in
/// one statement): a row the database refuses while its batch is written is still the error
/// named, before a later malformed line, and a failed import records no change.
#[test]
fn a_refused_tracked_row_is_named_by_its_line_and_records_nothing() {
    use serde_json::{Value, json};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docs.db");
    let db = toolforge::sql::Database::open(&path).unwrap();
    let spec = changes_fixture::spec();
    db.init(&spec).unwrap();
    let doc = |i: usize, title: &str| json!({"entity": "Doc", "data": {"id": format!("d{i}"), "title": title, "body": format!("body {i}\n")}});
    let text = |lines: &[Value]| -> String { lines.iter().map(|l| format!("{l}\n")).collect() };
    let first: Vec<Value> = (0..10).map(|i| doc(i, "t")).collect();
    db.import_jsonl(&spec, text(&first).as_bytes()).unwrap();
    // A rule of the database's own refuses one title.
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute_batch(
        "CREATE TRIGGER refuse_bad_title BEFORE UPDATE ON doc WHEN NEW.title = 'bad' \
         BEGIN SELECT RAISE(ABORT, 'bad title'); END;",
    )
    .unwrap();
    let changes = || -> i64 {
        raw.query_row("SELECT count(*) FROM toolforge_changes", [], |row| {
            row.get(0)
        })
        .unwrap()
    };
    assert_eq!(changes(), 10);

    let mut lines: Vec<Value> = (0..10)
        .map(|i| doc(i, if i == 3 { "bad" } else { "t2" }))
        .collect();
    let malformed = "{\"entity\": \"Doc\", \"data\": \n";
    let error = db
        .import_jsonl(&spec, format!("{}{malformed}", text(&lines)).as_bytes())
        .unwrap_err();
    assert_eq!(error.line, Some(4), "{error}");
    assert!(error.message.contains("bad title"), "{error}");
    assert_eq!(changes(), 10, "a failed import records nothing");

    // Without the refused row, the malformed line is the first error.
    lines[3] = doc(3, "t2");
    let error = db
        .import_jsonl(&spec, format!("{}{malformed}", text(&lines)).as_bytes())
        .unwrap_err();
    assert_eq!(error.line, Some(11), "{error}");
    assert_eq!(changes(), 10, "a failed import records nothing");

    let stats = db.import_jsonl(&spec, text(&lines).as_bytes()).unwrap();
    assert_eq!(stats.changes, 10);
    assert_eq!(changes(), 20);
}

/// A database whose change log was created by an earlier version (its `change_type` check
/// written as `IN (...)`) opens as it is, keeps recording changes and still refuses a change
/// type outside the three.
#[test]
fn a_change_log_of_an_earlier_version_opens_and_records() {
    use serde_json::json;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docs.db");
    let spec = changes_fixture::spec();
    let earlier_check = "\"change_type\" IN ('created', 'updated', 'deleted')";
    {
        let raw = rusqlite::Connection::open(&path).unwrap();
        for object in toolforge::sql::ddl::schema_objects(&spec).unwrap() {
            let sql = if object.name == "toolforge_changes" {
                let current = object.sql.clone();
                let start = current.find("CHECK (").unwrap() + "CHECK (".len();
                let end = current[start..].find("),").unwrap() + start;
                format!("{}{earlier_check}{}", &current[..start], &current[end..])
            } else {
                object.sql
            };
            raw.execute_batch(&sql).unwrap();
        }
    }
    let db = toolforge::sql::Database::open(&path).unwrap();
    let report = db.init(&spec).unwrap();
    assert_eq!(report.created, Vec::<String>::new(), "{report:?}");
    let line = json!({"entity": "Doc", "data": {"id": "d1", "title": "t", "body": "b\n"}});
    db.import_jsonl(&spec, format!("{line}\n").as_bytes())
        .unwrap();
    let raw = rusqlite::Connection::open(&path).unwrap();
    let (sql, changes): (String, i64) = raw
        .query_row(
            "SELECT (SELECT sql FROM sqlite_schema WHERE name = 'toolforge_changes'), \
             (SELECT count(*) FROM toolforge_changes)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert!(sql.contains(earlier_check), "{sql}");
    assert_eq!(changes, 1);
    let refused = raw.execute(
        "INSERT INTO toolforge_changes (entity, record_id, timestamp, change_type, diff, \
         lines_added, lines_removed) VALUES ('Doc', 'd1', '2026-01-01T00:00:00Z', 'renamed', '', 0, 0)",
        [],
    );
    assert!(refused.is_err(), "the earlier check still holds");
}

#[tokio::test]
async fn churn_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docs.db");
    let db = toolforge::sql::Database::open(&path).unwrap();
    changes_fixture::check_churn(&db, |sql| {
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap()
    })
    .await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn churn_on_postgres() {
    let Some(base) = pg_support::url("changes::churn_on_postgres") else {
        return;
    };
    let (db, url) = pg_support::fresh(&base, "churn");
    changes_fixture::check_churn(&db, |sql| pg_support::batch(&url, sql)).await;
}
