//! Change tracking's cost on imports: 50,000 updates of records that exist, with the entity
//! tracked (each record's content read before and after, diffed, and a change row written)
//! against the same updates with tracking off, in the same run.
//!
//! `floor_*` measure the least any change log costs that keeps one row per change in the
//! write's transaction: the same upserts as prepared statements straight on SQLite (no JSON),
//! alone, each followed by the cheapest row the log's table admits (no value read before, no
//! diff; the table and its two indexes as toolforge creates them), and each followed by a row
//! appended to a bare table (record id and content, no index). Their difference to the
//! upserts alone, added to `updates_untracked`, bounds from below what `updates_tracked` can
//! reach.
//!
//! Run: `cargo bench -p toolforge-runtime --bench changes`; with `--features postgres` and a server's
//! URL in `TOOLFORGE_TEST_POSTGRES_URL` (e.g. through `scripts/with-postgres`) the same pair
//! runs on PostgreSQL too.

use divan::Bencher;
use divan::counter::ItemsCount;
use serde_json::json;
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;

const UPDATES: usize = 50_000;

fn main() {
    divan::main();
}

fn spec(tracked: bool) -> SchemaSpec {
    let mut entity = json!({
        "name": "Scope", "table": "scope", "unique_field": "uuid",
        "fields": [
            {"name": "uuid", "type": "string", "unique": true},
            {"name": "name", "type": "string"},
            {"name": "source", "type": "string"}
        ]
    });
    let mut spec = json!({
        "name": "bench", "entities": [], "relationships": [],
        "tools": {"default_limit": 20, "max_limit": 500, "families": []}
    });
    if tracked {
        entity["change_tracking"] = json!({"content_field": "source", "metadata_fields": ["name"]});
        spec["change_log"] = json!({});
    }
    spec["entities"] = json!([entity]);
    serde_json::from_value(spec).unwrap()
}

/// `UPDATES` lines; `round` changes every record's source (a few lines of code each).
fn lines(round: usize) -> String {
    (0..UPDATES)
        .map(|i| {
            let source = format!(
                "fn f{i}() {{\n    let x = {i};\n    let y = {round};\n    x + y\n}}\n"
            );
            format!(
                "{}\n",
                json!({"entity": "Scope", "data": {"uuid": format!("s{i}"), "name": format!("f{i}"), "source": source}})
            )
        })
        .collect()
}

fn run(bencher: Bencher, tracked: bool) {
    run_changing(bencher, tracked, true);
}

/// `changing`: every import changes every record; otherwise it writes them as they are.
fn run_changing(bencher: Bencher, tracked: bool, changing: bool) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("bench.db")).unwrap();
    run_on(bencher, db, tracked, changing);
}

fn run_on(bencher: Bencher, db: Database, tracked: bool, changing: bool) {
    let spec = spec(tracked);
    db.init(&spec).unwrap();
    db.import_jsonl(&spec, lines(0).as_bytes()).unwrap();
    let mut round = 0;
    bencher
        .counter(ItemsCount::new(UPDATES))
        .with_inputs(|| {
            round += usize::from(changing);
            lines(round)
        })
        .bench_local_values(|text| {
            let stats = db.import_jsonl(&spec, text.as_bytes()).unwrap();
            assert_eq!(stats.changes > 0, tracked && changing);
        });
}

/// 50,000 updates, tracking off (baseline).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn updates_untracked(bencher: Bencher) {
    run(bencher, false);
}

/// The same 50,000 updates with the entity tracked: 50,000 changes recorded per import.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn updates_tracked(bencher: Bencher) {
    run(bencher, true);
}

/// The same 50,000 lines imported again unchanged, tracking off (baseline).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn unchanged_untracked(bencher: Bencher) {
    run_changing(bencher, false, false);
}

/// The same unchanged lines with the entity tracked: every record's values compared, no
/// change recorded.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn unchanged_tracked(bencher: Bencher) {
    run_changing(bencher, true, false);
}

/// The floor pair's database: the entity table with `UPDATES` records, the change log's table
/// and indexes exactly as toolforge creates them, the writer's settings.
fn floor_database(dir: &std::path::Path) -> toolforge::sql::sqlite::rusqlite::Connection {
    use toolforge::sql::ddl::{ChangeLogTypes, changes_objects};
    let conn = toolforge::sql::sqlite::rusqlite::Connection::open(dir.join("floor.db")).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
         PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY; \
         CREATE TABLE scope (uuid TEXT NOT NULL UNIQUE, name TEXT, source TEXT);",
    )
    .unwrap();
    for object in changes_objects(ChangeLogTypes::SQLITE) {
        conn.execute_batch(&object.sql).unwrap();
    }
    conn.execute_batch("CREATE TABLE bare_log (record_id TEXT NOT NULL, content TEXT)")
        .unwrap();
    floor_upserts(&conn, 0, Row::None);
    conn
}

/// What the floor writes after each upsert.
#[derive(Clone, Copy, PartialEq)]
enum Row {
    /// Nothing.
    None,
    /// The cheapest row of toolforge's change log.
    ChangeLog,
    /// A row of a table without indexes.
    Bare,
}

/// One transaction: `UPDATES` upserts of round `round`, each followed by the row `row` says.
fn floor_upserts(conn: &toolforge::sql::sqlite::rusqlite::Connection, round: usize, row: Row) {
    let tx = conn.unchecked_transaction().unwrap();
    {
        let mut upsert = conn
            .prepare_cached(
                "INSERT INTO scope (uuid, name, source) VALUES (?1, ?2, ?3) ON CONFLICT (uuid) \
                 DO UPDATE SET name = excluded.name, source = excluded.source",
            )
            .unwrap();
        let mut log = conn
            .prepare_cached(match row {
                Row::Bare => "INSERT INTO bare_log (record_id, content) VALUES (?1, ?2)",
                _ => {
                    "INSERT INTO toolforge_changes (entity, record_id, timestamp, change_type, \
                     diff, lines_added, lines_removed, content) \
                     VALUES ('Scope', ?1, '2026-01-01T00:00:00Z', 'updated', '', 0, 0, ?2)"
                }
            })
            .unwrap();
        for i in 0..UPDATES {
            let (uuid, source) = (
                format!("s{i}"),
                format!("fn f{i}() {{\n    let x = {i};\n    let y = {round};\n    x + y\n}}\n"),
            );
            upsert.execute((&uuid, format!("f{i}"), &source)).unwrap();
            if row != Row::None {
                log.execute((&uuid, &source)).unwrap();
            }
        }
    }
    tx.commit().unwrap();
}

fn floor(bencher: Bencher, row: Row) {
    let dir = tempfile::tempdir().unwrap();
    let conn = floor_database(dir.path());
    let mut round = 0;
    bencher.counter(ItemsCount::new(UPDATES)).bench_local(|| {
        round += 1;
        floor_upserts(&conn, round, row);
    });
}

/// The 50,000 upserts alone, as prepared statements on SQLite.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn floor_upserts_alone(bencher: Bencher) {
    floor(bencher, Row::None);
}

/// The same upserts, each followed by the cheapest row of the change log.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn floor_upserts_logged(bencher: Bencher) {
    floor(bencher, Row::ChangeLog);
}

/// The same upserts, each followed by a row appended to a table without indexes.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn floor_upserts_appended(bencher: Bencher) {
    floor(bencher, Row::Bare);
}

/// The same pair on a PostgreSQL server, each in a database of its own.
#[cfg(feature = "postgres")]
mod postgres {
    use super::*;

    fn fresh_database(name: &str) -> Option<Database> {
        let base = std::env::var("TOOLFORGE_TEST_POSTGRES_URL")
            .ok()
            .filter(|url| !url.is_empty())?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&base, tokio_postgres::NoTls)
                .await
                .unwrap();
            let task = tokio::spawn(connection);
            for sql in [
                format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                format!("CREATE DATABASE {name}"),
            ] {
                client.batch_execute(&sql).await.unwrap();
            }
            drop(client);
            let _ = task.await;
        });
        let (head, _) = base.rsplit_once('/').unwrap();
        Some(Database::open(format!("{head}/{name}")).unwrap())
    }

    /// 50,000 updates on PostgreSQL, tracking off (baseline).
    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn postgres_updates_untracked(bencher: Bencher) {
        if let Some(db) = fresh_database("toolforge_bench_untracked") {
            run_on(bencher, db, false, true);
        }
    }

    /// The same 50,000 updates on PostgreSQL with the entity tracked.
    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn postgres_updates_tracked(bencher: Bencher) {
        if let Some(db) = fresh_database("toolforge_bench_tracked") {
            run_on(bencher, db, true, true);
        }
    }
}
