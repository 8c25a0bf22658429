//! Full-text search over a database nobody here wrote, as it is: the Chinook sample database
//! (`tests/fixtures/sample-databases/chinook`, MIT) with a `full_text_index` on a mapped
//! table. `db init` creates the index in toolforge's side store (a file beside the SQLite
//! database, a schema of its own on PostgreSQL) and `db refresh` follows the user's own
//! writes; the user's tables are the same afterwards. Every ranking is compared with SQLite's
//! own FTS5 over the same rows, built by the test.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::pg_support;
use crate::sample_databases::{chinook_postgres, chinook_sqlite};

/// The config over Chinook's tracks, with `{table}`, `{key}`, `{name}` and `{composer}` for
/// each backend's spelling, and `{access}` for a row rule.
const CONFIG: &str = r#"
name: chinook
entities:
  - name: Track
    table: {table}
    unique_field: {key}
    display_name_field: name
    searchable_fields:
      - {name: {key}, type: integer}
      - {name: name, column: {name}, type: string}
      - {name: composer, column: {composer}, type: string}
      - {name: length, column: {length}, type: integer}
    full_text_index:
      fields: [name, composer]
toolforge:
  tools: [search, lookup]
{access}"#;

fn config_for(backend: &str, access: &str) -> String {
    let (table, key, name, composer, length) = match backend {
        "sqlite" => ("Track", "TrackId", "Name", "Composer", "Milliseconds"),
        _ => ("track", "track_id", "name", "composer", "milliseconds"),
    };
    CONFIG
        .replace("{table}", table)
        .replace("{key}", key)
        .replace("{name}", name)
        .replace("{composer}", composer)
        .replace("{length}", length)
        .replace("{access}", access)
}

pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

pub(crate) fn toolforge(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_toolforge"))
        .args(args)
        .output()
        .expect("run toolforge");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn search(config: &Path, db: &str, query: &str, top_k: u32) -> Value {
    search_in(config, db, query, top_k, &[])
}

/// A search with the context values `context` (`NAME=VALUE`).
fn search_in(config: &Path, db: &str, query: &str, top_k: u32, context: &[&str]) -> Value {
    let arguments = json!({"entity_type": "Track", "query": query, "top_k": top_k});
    call_tool(config, db, "full_text_search", &arguments, context)
}

/// Checks `answer` of `tool` against the output schema `tools list` gives it (what an MCP
/// client checks `structuredContent` against).
pub(crate) fn assert_matches_output_schema(config: &Path, tool: &str, answer: &Value) {
    let run = toolforge(&[
        "tools",
        "list",
        "--config",
        config.to_str().unwrap(),
        "--format",
        "mcp",
        "--output-schemas",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tools: Value = serde_json::from_str(&run.stdout).unwrap();
    let schema = tools
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == tool))
        .map(|t| t["outputSchema"].clone())
        .unwrap_or_else(|| panic!("no {tool} in {tools}"));
    let validator = jsonschema::validator_for(&schema).expect("a valid output schema");
    let errors: Vec<String> = validator
        .iter_errors(answer)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{tool}: {errors:?}\n{schema}\n{answer}");
}

/// The answer of `toolforge call tool` with `arguments` and the context values `context`
/// (`NAME=VALUE`), which must succeed.
pub(crate) fn call_tool(
    config: &Path,
    db: &str,
    tool: &str,
    arguments: &Value,
    context: &[&str],
) -> Value {
    let arguments = arguments.to_string();
    let mut args = vec![
        "call",
        tool,
        "--config",
        config.to_str().unwrap(),
        "--db",
        db,
    ];
    for value in context {
        args.extend(["--context", value]);
    }
    args.push(&arguments);
    let run = toolforge(&args);
    assert_eq!(run.code, 0, "{tool}: {}{}", run.stdout, run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn ids(answer: &Value) -> Vec<i64> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {answer}"))
        .iter()
        .map(|hit| hit["id"].as_i64().expect("an integer id"))
        .collect()
}

/// SQLite's own FTS5 over `rows` (key, name, composer): the keys matching `query`, best first
/// (equal scores by key), and how many match.
fn oracle(
    rows: &[(i64, Option<String>, Option<String>)],
    query: &str,
    top_k: u32,
) -> (Vec<i64>, i64) {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.execute_batch(
        "CREATE VIRTUAL TABLE t USING fts5(name, composer, tokenize='porter unicode61')",
    )
    .unwrap();
    for (key, name, composer) in rows {
        conn.execute(
            "INSERT INTO t(rowid, name, composer) VALUES (?1, ?2, ?3)",
            rusqlite::params![key, name, composer],
        )
        .unwrap();
    }
    // Each word of the model's text is one quoted term, all of them required.
    let phrase: Vec<String> = query
        .split_whitespace()
        .map(|w| format!("\"{w}\""))
        .collect();
    let phrase = phrase.join(" ");
    let mut statement = conn
        .prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY bm25(t), rowid LIMIT ?2")
        .unwrap();
    let page = statement
        .query_map(rusqlite::params![phrase, top_k], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let total = conn
        .query_row(
            "SELECT count(*) FROM t WHERE t MATCH ?1",
            [&phrase],
            |row| row.get(0),
        )
        .unwrap();
    (page, total)
}

fn sqlite_rows(db: &Path) -> Vec<(i64, Option<String>, Option<String>)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut statement = conn
        .prepare("SELECT TrackId, Name, Composer FROM Track")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Each search answers as FTS5 does over the rows as they are now.
fn assert_ranked_as_fts5(config: &Path, db: &str, rows: &[(i64, Option<String>, Option<String>)]) {
    for query in ["love", "bach", "the night", "zyzzyva"] {
        let answer = search(config, db, query, 25);
        let (page, total) = oracle(rows, query, 25);
        assert_eq!(ids(&answer), page, "{query}: {answer}");
        assert_eq!(answer["total"], json!(total), "{query}");
        assert_matches_output_schema(config, "full_text_search", &answer);
    }
}

#[test]
fn a_full_text_index_over_chinook_lives_beside_the_file_and_follows_the_users_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let config = dir.path().join("chinook.yaml");
    std::fs::write(&config, config_text("sqlite")).unwrap();
    let (config_s, db_s) = (config.to_str().unwrap(), db.to_str().unwrap());
    let before = std::fs::read(&db).unwrap();

    // Before `db init`: refused, naming the side file and the command that makes it.
    let refused = toolforge(&["serve", "--config", config_s, "--db", db_s]);
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("chinook.toolforge.db does not exist")
            && refused.stderr.contains("toolforge db init --config"),
        "{}",
        refused.stderr
    );

    let init = toolforge(&["db", "init", "--config", config_s, "--db", db_s]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(
        init.stdout.contains("full-text index of Track created in ")
            && init
                .stdout
                .contains(": 3503 added, 0 updated, 0 removed, 0 unchanged"),
        "{}",
        init.stdout
    );
    assert!(dir.path().join("chinook.toolforge.db").is_file());
    assert_ranked_as_fts5(&config, db_s, &sqlite_rows(&db));
    // The user's file is byte-identical, with nothing beside it but the side file.
    assert_eq!(std::fs::read(&db).unwrap(), before);
    for suffix in ["-wal", "-shm", "-journal"] {
        assert!(
            !dir.path().join(format!("chinook.db{suffix}")).exists(),
            "{suffix}"
        );
    }

    // The user's own writes: one renamed, one gone, one new.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "UPDATE Track SET Name = 'Zyzzyva Night' WHERE TrackId = 1;
         DELETE FROM PlaylistTrack WHERE TrackId = 2; DELETE FROM InvoiceLine WHERE TrackId = 2;
         DELETE FROM Track WHERE TrackId = 2;
         INSERT INTO Track (TrackId, Name, MediaTypeId, Milliseconds, UnitPrice)
             VALUES (9000, 'Another Zyzzyva', 1, 1000, 0.99);",
    )
    .unwrap();
    drop(conn);
    // Searches see the index as of the last refresh...
    assert_eq!(ids(&search(&config, db_s, "zyzzyva", 5)), Vec::<i64>::new());
    let refresh = toolforge(&["db", "refresh", "--config", config_s, "--db", db_s]);
    assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    assert!(
        refresh
            .stdout
            .contains(": 1 added, 1 updated, 1 removed, 3501 unchanged"),
        "{}",
        refresh.stdout
    );
    // ...and after it, the table as it is.
    let rows = sqlite_rows(&db);
    assert_ranked_as_fts5(&config, db_s, &rows);
    // (Track 1 has a composer too: its longer text ranks it second.)
    assert_eq!(ids(&search(&config, db_s, "zyzzyva", 5)), [9000, 1]);
    let again = toolforge(&["db", "refresh", "--config", config_s, "--db", db_s]);
    assert!(
        again
            .stdout
            .contains(": 0 added, 0 updated, 0 removed, 3503 unchanged"),
        "{}",
        again.stdout
    );

    // A row rule (tracks from `M` on) keeps hidden tracks out of the ranking.
    let ruled = dir.path().join("ruled.yaml");
    std::fs::write(
        &ruled,
        config_for(
            "sqlite",
            "  access:\n    Track: \"name >= :context.from\"\n",
        ),
    )
    .unwrap();
    let long: Vec<(i64, Option<String>, Option<String>)> = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let keep: std::collections::HashSet<i64> = conn
            .prepare("SELECT TrackId FROM Track WHERE Name >= 'M'")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        rows.iter()
            .filter(|row| keep.contains(&row.0))
            .cloned()
            .collect()
    };
    // The ranking's statistics are the whole index's on SQLite: the visible matches keep
    // their order.
    let answer = search_in(&ruled, db_s, "love", 200, &["from=M"]);
    let all = oracle(&rows, "love", 200).0;
    let want: Vec<i64> = all
        .iter()
        .copied()
        .filter(|id| long.iter().any(|row| row.0 == *id))
        .collect();
    assert_eq!(ids(&answer), want, "{answer}");
    assert!(!want.is_empty() && want.len() < all.len());

    another_definition_is_rebuilt(dir.path(), "sqlite", db_s);
}

/// A config whose index has other fields than the one built is refused until a refresh
/// rebuilds it, which indexes every record again.
fn another_definition_is_rebuilt(dir: &Path, backend: &str, db: &str) {
    let narrower = dir.join("narrower.yaml");
    std::fs::write(
        &narrower,
        config_for(backend, "").replace("fields: [name, composer]", "fields: [name]"),
    )
    .unwrap();
    let narrower_s = narrower.to_str().unwrap();
    let refused = toolforge(&["serve", "--config", narrower_s, "--db", db]);
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("was made for other fields or another analyzer"),
        "{}",
        refused.stderr
    );
    let rebuilt = toolforge(&["db", "refresh", "--config", narrower_s, "--db", db]);
    assert_eq!(rebuilt.code, 0, "{}", rebuilt.stderr);
    assert!(
        rebuilt.stdout.contains(" 0 unchanged"),
        "{}",
        rebuilt.stdout
    );
    // Composers are no longer searched.
    let answer = search(&narrower, db, "angus", 5);
    assert_eq!(answer["total"], json!(0), "{answer}");
}

fn config_text(backend: &str) -> String {
    config_for(backend, "")
}

#[test]
fn a_side_file_naming_the_database_itself_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let config = dir.path().join("chinook.yaml");
    std::fs::write(
        &config,
        config_for("sqlite", "  side_store: {file: chinook.db}\n"),
    )
    .unwrap();
    let before = std::fs::read(&db).unwrap();
    let run = toolforge(&[
        "db",
        "init",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("names the database itself"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

fn pg_rows(url: &str) -> Vec<(i64, Option<String>, Option<String>)> {
    let text = pg_support::query_text(
        url,
        "SELECT CAST(json_agg(json_build_array(track_id, name, composer)) AS text) FROM track",
    );
    let rows: Vec<(i64, Option<String>, Option<String>)> = serde_json::from_str(&text).unwrap();
    rows
}

#[test]
fn a_full_text_index_over_chinook_on_postgres_lives_in_a_schema_of_its_own() {
    let Some(base) = pg_support::url(
        "mapped_full_text::a_full_text_index_over_chinook_on_postgres_lives_in_a_schema_of_its_own",
    ) else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "chinook_full_text");
    chinook_postgres(&url);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("chinook.yaml");
    std::fs::write(&config, config_text("postgres")).unwrap();
    let config_s = config.to_str().unwrap();
    let before = pg_support::dump(&url);

    let refused = toolforge(&[
        "call",
        "full_text_search",
        "--config",
        config_s,
        "--db",
        &url,
        "{}",
    ]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains("of the schema \"toolforge\""),
        "{}",
        refused.stderr
    );
    let init = toolforge(&["db", "init", "--config", config_s, "--db", &url]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(
        init.stdout
            .contains("created in schema toolforge: 3503 added"),
        "{}",
        init.stdout
    );

    // Served by a role that may only read the user's tables and the side store.
    let reader = side_store_reader(&url, "tf_ft_reader");
    assert_ranked_as_fts5(&config, &reader, &pg_rows(&url));
    assert_eq!(
        pg_support::dump(&url),
        before,
        "the user's tables are unchanged"
    );

    pg_support::batch(
        &url,
        "UPDATE track SET name = 'Zyzzyva Night' WHERE track_id = 1; \
         DELETE FROM playlist_track WHERE track_id = 2; DELETE FROM invoice_line WHERE track_id = 2; \
         DELETE FROM track WHERE track_id = 2; \
         INSERT INTO track (track_id, name, media_type_id, milliseconds, unit_price) \
             VALUES (9000, 'Another Zyzzyva', 1, 1000, 0.99)",
    );
    let refresh = toolforge(&["db", "refresh", "--config", config_s, "--db", &url]);
    assert_eq!(refresh.code, 0, "{}", refresh.stderr);
    assert!(
        refresh
            .stdout
            .contains(": 1 added, 1 updated, 1 removed, 3501 unchanged"),
        "{}",
        refresh.stdout
    );
    assert_ranked_as_fts5(&config, &reader, &pg_rows(&url));
    assert_eq!(ids(&search(&config, &reader, "zyzzyva", 5)), [9000, 1]);

    // Under a row rule, hidden tracks neither match nor count.
    let ruled = dir.path().join("ruled.yaml");
    std::fs::write(
        &ruled,
        config_for(
            "postgres",
            "  access:\n    Track: \"name >= :context.from\"\n",
        ),
    )
    .unwrap();
    let long: Vec<i64> = pg_support::query_text(
        &url,
        "SELECT string_agg(CAST(track_id AS text), ',') FROM track WHERE name >= 'M'",
    )
    .split(',')
    .map(|id| id.parse().unwrap())
    .collect();
    let all = oracle(&pg_rows(&url), "love", 200).0;
    let want: Vec<i64> = all.iter().copied().filter(|id| long.contains(id)).collect();
    let answer = search_in(&ruled, &reader, "love", 200, &["from=M"]);
    // BM25's statistics are the visible records' here: the same matches, ranked among them.
    let mut got = ids(&answer);
    got.sort_unstable();
    let mut want = want;
    want.sort_unstable();
    assert_eq!(got, want, "{answer}");
    assert_eq!(answer["total"], json!(want.len()));
    assert!(!want.is_empty() && want.len() < all.len());

    another_definition_is_rebuilt(dir.path(), "postgres", &url);
}

/// The URL of a new role `<prefix>_<pid>` on the server of `url` that may only read the
/// tables of the schemas `public` and `toolforge` (the side store).
pub(crate) fn side_store_reader(url: &str, prefix: &str) -> String {
    select_only_role(url, prefix, "public, toolforge")
}

/// The URL of a new role `<prefix>_<pid>` on the server of `url` that may only read the
/// tables (as they are now) of `schemas` (`public, toolforge`).
pub(crate) fn select_only_role(url: &str, prefix: &str, schemas: &str) -> String {
    let role = format!("{prefix}_{}", std::process::id());
    pg_support::batch(
        url,
        &format!(
            "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN; \
             GRANT USAGE ON SCHEMA {schemas} TO {role}; \
             GRANT SELECT ON ALL TABLES IN SCHEMA {schemas} TO {role}"
        ),
    );
    let (scheme, rest) = url.split_once("://").unwrap();
    let host = rest.split_once('@').map_or(rest, |(_, host)| host);
    format!("{scheme}://{role}@{host}")
}
