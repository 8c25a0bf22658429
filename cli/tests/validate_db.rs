//! `toolforge validate --config … --db …`: a mapped config compared with the database it maps,
//! read only. What breaks a tool (a table or column gone, a column retyped) is an error at the
//! config's line, a key no longer unique a warning, what the database has that the config
//! does not map yet a note; the database is unchanged. On Chinook (SQLite and PostgreSQL,
//! `tests/fixtures/sample-databases/chinook`) and a small table built here.

use std::path::Path;

use serde_json::Value;

use crate::cli::run;
use crate::pg_support;
use crate::sample_databases::{chinook_postgres, chinook_sqlite};

/// Part of Chinook, as a config of one's own would map it (names of its own, `column:`).
const PARTIAL: &str = r#"
name: chinook
entities:
  - name: Artist
    table: Artist
    unique_field: ArtistId
    searchable_fields:
      - {name: ArtistId, type: integer}
      - {name: Name, type: string}
  - name: Album
    table: Album
    unique_field: AlbumId
    searchable_fields:
      - {name: AlbumId, type: integer}
      - {name: title, column: Title, type: string}
    relationships:
      - {type: ARTIST, target: Artist, foreign_key: ArtistId}
  - name: Track
    table: Track
    unique_field: TrackId
    searchable_fields:
      - {name: TrackId, type: integer}
      - {name: name, column: Name, type: string}
      - {name: Milliseconds, type: integer}
"#;

/// `validate --format json` of `config` against `db`: exit status and report.
fn validate_json(config: &Path, db: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![
        "validate",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
    (code, report)
}

/// Each diagnostic as `severity path: message`.
fn lines(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {}: {}",
                d["severity"].as_str().unwrap(),
                d["path"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_config_written_from_chinook_matches_it_and_a_partial_one_lists_what_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let before = std::fs::read(&db).unwrap();
    let written = dir.path().join("written.yaml");
    let (code, _, stderr) = run(&[
        "init",
        "--from-db",
        db.to_str().unwrap(),
        "--out",
        written.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = run(&[
        "validate",
        "--config",
        written.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(stdout.ends_with("; 0 warnings\n"), "{stdout}");

    let partial = dir.path().join("partial.yaml");
    std::fs::write(&partial, PARTIAL).unwrap();
    let (code, report) = validate_json(&partial, db.to_str().unwrap(), &["--strict"]);
    // Notes never block, not even with --strict.
    assert_eq!(code, 0, "{report}");
    // In the config's order: the tables nothing maps (at `entities`), then each mapped table's
    // columns left out (Album's `ArtistId` is read, by its foreign key).
    assert_eq!(
        lines(&report),
        [
            "note entities: 8 tables of the database are not mapped yet: \"Customer\", \
             \"Employee\", \"Genre\", \"Invoice\", \"InvoiceLine\", \"MediaType\", \
             \"Playlist\" and \"PlaylistTrack\"",
            "note entities[2].table: table \"Track\": columns \"AlbumId\", \"MediaTypeId\", \
             \"GenreId\", \"Composer\", \"Bytes\" and \"UnitPrice\" are not mapped yet",
        ]
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_dropped_table_and_renamed_column_are_errors_at_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "PRAGMA foreign_keys = OFF;
         ALTER TABLE Track RENAME COLUMN Milliseconds TO Millis;
         ALTER TABLE Artist RENAME TO Performer;
         CREATE TABLE Review (ReviewId INTEGER PRIMARY KEY, Body TEXT);",
    )
    .unwrap();
    drop(conn);
    let before = std::fs::read(&db).unwrap();
    let config = dir.path().join("partial.yaml");
    std::fs::write(&config, PARTIAL).unwrap();

    let (code, report) = validate_json(&config, db.to_str().unwrap(), &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        lines(&report),
        [
            "note entities: 10 tables of the database are not mapped yet: \"Customer\", \
             \"Employee\", \"Genre\", \"Invoice\", \"InvoiceLine\", \"MediaType\", \
             \"Performer\", \"Playlist\" and 2 more",
            "error entities[0].table: table \"Artist\" is not in the database",
            "note entities[2].table: table \"Track\": columns \"AlbumId\", \"MediaTypeId\", \
             \"GenreId\", \"Composer\", \"Millis\", \"Bytes\" and \"UnitPrice\" are not \
             mapped yet",
            "error entities[2].searchable_fields[2].name: table \"Track\": column \
             \"Milliseconds\" is not in the database",
        ]
    );
    let artist = &report["diagnostics"][1];
    assert_eq!(
        (artist["line"].as_u64(), artist["column"].as_u64()),
        (Some(5), Some(12))
    );
    assert_eq!(
        artist["hint"],
        "map a table the database has (`toolforge init --from-db` lists them), or remove the entity"
    );

    // The same as code frames, with the summary line.
    let (code, _, stderr) = run(&[
        "validate",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("partial.yaml:5:12"), "{stderr}");
    assert!(stderr.contains("is invalid: 2 errors"), "{stderr}");
    assert_eq!(std::fs::read(&db).unwrap(), before);

    // Without --db the config alone is valid.
    let (code, _, stderr) = run(&["validate", "--config", config.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn retyped_columns_break_or_warn_as_the_backend_reads_them_and_a_key_must_stay_unique() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE item (sku TEXT, price TEXT, on_sale INTEGER, added TEXT);
         INSERT INTO item VALUES ('a-1', '3.50', 1, '2024-05-01T09:30:00Z');",
    )
    .unwrap();
    drop(conn);
    let config = dir.path().join("shop.yaml");
    std::fs::write(
        &config,
        "entities:\n  - name: Item\n    table: item\n    unique_field: sku\n    searchable_fields:\n      \
         - {name: sku, type: string}\n      - {name: price, type: number}\n      \
         - {name: on_sale, type: boolean}\n      - {name: added, type: datetime}\n",
    )
    .unwrap();
    let (code, report) = validate_json(&config, db.to_str().unwrap(), &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        lines(&report),
        [
            "warning entities[0].searchable_fields[0].name: table \"item\": the key column \
             \"sku\" is neither its primary key nor declared unique",
            "error entities[0].searchable_fields[1].name: table \"item\": column \"price\" has \
             type TEXT, which a field of type `number` cannot hold",
            "warning entities[0].searchable_fields[2].name: table \"item\": column \"on_sale\" \
             has type INTEGER, which a field of type `boolean` reads only loosely",
            "warning entities[0].searchable_fields[3].name: table \"item\": column \"added\" \
             has type TEXT, which a field of type `datetime` reads only loosely",
        ]
    );
}

#[test]
fn a_renamed_column_of_chinook_on_postgres_is_an_error_at_its_line() {
    let Some(base) = pg_support::url(
        "validate_db::a_renamed_column_of_chinook_on_postgres_is_an_error_at_its_line",
    ) else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "chinook_validate");
    chinook_postgres(&url);
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("chinook.yaml");
    let (code, _, stderr) = run(&[
        "init",
        "--from-db",
        &url,
        "--out",
        written.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, report) = validate_json(&written, &url, &[]);
    assert_eq!(
        (code, lines(&report)),
        (0, Vec::<String>::new()),
        "{report}"
    );

    pg_support::batch(
        &url,
        "ALTER TABLE track RENAME COLUMN milliseconds TO duration_ms; \
         ALTER TABLE invoice ALTER COLUMN total TYPE text; \
         CREATE TABLE review (review_id integer PRIMARY KEY, body text)",
    );
    let before = pg_support::dump(&url);
    let (code, report) = validate_json(&written, &url, &[]);
    assert_eq!(code, 1, "{report}");
    let found = lines(&report);
    let source = std::fs::read_to_string(&written).unwrap();
    let errors: Vec<&String> = found.iter().filter(|l| l.starts_with("error ")).collect();
    assert_eq!(errors.len(), 2, "{found:#?}");
    assert!(
        errors.iter().any(|l| l.ends_with("table \"track\": column \"milliseconds\" is not in the database")),
        "{found:#?}"
    );
    assert!(
        errors.iter().any(|l| l.ends_with(
            "table \"invoice\": column \"total\" has type text, which a field of type `number` cannot hold"
        )),
        "{found:#?}"
    );
    // Each error points at the field's line of the written config.
    for diagnostic in report["diagnostics"].as_array().unwrap() {
        if diagnostic["severity"] == "error" {
            let line = diagnostic["line"].as_u64().unwrap() as usize;
            let text = source.lines().nth(line - 1).unwrap();
            assert!(
                text.contains("milliseconds") || text.contains("total"),
                "{text}"
            );
        }
    }
    assert!(
        found
            .iter()
            .any(|l| l.starts_with("note ") && l.contains("\"review\"")),
        "{found:#?}"
    );
    assert_eq!(pg_support::dump(&url), before);
}

/// `toolforge serve` on stdio with no client (stdin closed): its exit status and log.
fn serve_without_client(config: &Path, db: &Path) -> (Option<i32>, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolforge"))
        .args(["serve", "--config"])
        .arg(config)
        .arg("--db")
        .arg(db)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn serve_refuses_a_retyped_column_at_its_line_and_logs_what_is_not_mapped_yet() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let config = dir.path().join("partial.yaml");
    std::fs::write(&config, PARTIAL).unwrap();
    // It starts (and stops when no client says `initialize`), having logged the note.
    let (_, log) = serve_without_client(&config, &db);
    assert!(
        log.contains("connection closed: initialize request"),
        "{log}"
    );
    assert!(
        log.contains("8 tables of the database are not mapped yet"),
        "{log}"
    );

    let retyped = dir.path().join("retyped.yaml");
    std::fs::write(
        &retyped,
        PARTIAL.replace(
            "{name: Milliseconds, type: integer}",
            "{name: Milliseconds, type: datetime}",
        ),
    )
    .unwrap();
    let (code, log) = serve_without_client(&retyped, &db);
    assert_eq!(code, Some(1), "{log}");
    assert!(log.contains("retyped.yaml:24:16"), "{log}");
    assert!(
        log.contains(
            "table \"Track\": column \"Milliseconds\" has type INTEGER, which a field of type \
             `datetime` cannot hold"
        ),
        "{log}"
    );
}

/// A stateless `tools/call` of `serve --http` at `url`: the answer's structured content.
async fn call_http(url: &str, name: &str, arguments: Value) -> Value {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}}}})
    .to_string();
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", name),
    ];
    let (status, _, answer) = crate::http_support::http("POST", url, &headers, body).await;
    assert_eq!(status, 200, "{answer}");
    let answer: Value = serde_json::from_str(&answer).unwrap();
    answer["result"]["structuredContent"].clone()
}

/// Waits up to 30 s for a line of `log` containing `text`; the log so far.
async fn logged(log: &std::sync::Mutex<Vec<String>>, text: &str) -> String {
    for _ in 0..300 {
        let so_far = log.lock().unwrap().join("\n");
        if so_far.contains(text) {
            return so_far;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("never logged {text:?}:\n{}", log.lock().unwrap().join("\n"));
}

/// `serve --http --reload` over Chinook as it is: a changed config whose mapping no longer
/// matches the database is refused at its line and the old tools keep answering; one that maps
/// one more table is taken, and its tool answers over the new table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_refuses_a_config_that_drifted_and_takes_one_that_maps_more() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let config = dir.path().join("partial.yaml");
    std::fs::write(&config, PARTIAL).unwrap();
    let served = crate::http_support::serve_http(
        &[
            "--config".as_ref(),
            config.as_os_str(),
            "--db".as_ref(),
            db.as_os_str(),
            "--reload".as_ref(),
        ],
        &[],
    )
    .await;
    let artists =
        serde_json::json!({"entity_type": "Artist", "order_by": {"field": "ArtistId"}, "limit": 2});
    let names = |answer: &Value| -> Vec<String> {
        answer["results"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|record| record["Name"].as_str().unwrap().to_owned())
            .collect()
    };
    let first = call_http(&served.url, "query_entities", artists.clone()).await;
    assert_eq!(names(&first), ["AC/DC", "Accept"]);
    let before = std::fs::read(&db).unwrap();

    std::fs::write(
        &config,
        PARTIAL.replace(
            "{name: Milliseconds, type: integer}",
            "{name: Milliseconds, type: datetime}",
        ),
    )
    .unwrap();
    let log = logged(&served.log, "the changed config is refused").await;
    assert!(log.contains("partial.yaml:24:16"), "{log}");
    assert!(
        log.contains("column \"Milliseconds\" has type INTEGER"),
        "{log}"
    );
    let still = call_http(&served.url, "query_entities", artists).await;
    assert_eq!(names(&still), ["AC/DC", "Accept"]);

    std::fs::write(
        &config,
        format!(
            "{PARTIAL}  - name: Genre\n    table: Genre\n    unique_field: GenreId\n    \
             searchable_fields:\n      - {{name: GenreId, type: integer}}\n      - {{name: Name, type: string}}\n"
        ),
    )
    .unwrap();
    logged(&served.log, "config reloaded").await;
    let genres = call_http(
        &served.url,
        "query_entities",
        serde_json::json!({"entity_type": "Genre", "order_by": {"field": "GenreId"}, "limit": 3}),
    )
    .await;
    assert_eq!(names(&genres), ["Rock", "Jazz", "Metal"]);
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the database is untouched"
    );
}
