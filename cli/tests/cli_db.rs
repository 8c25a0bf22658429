//! The `toolforge` binary end to end: `db init`, `db import`, `tools list` and `call` on the
//! code-rag example config and its seeded fixture.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::unprivileged::{self, chmod};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn code_rag() -> PathBuf {
    workspace().join("tests/corpus/ragforge__examples__code-rag__ragforge.config.yaml")
}

fn fixture() -> PathBuf {
    workspace().join("tests/fixtures/code-rag.jsonl")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

fn finish(output: Output) -> Run {
    Run {
        code: output.status.code().expect("exit code"),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// `toolforge db import` of `data` into `db` with the code-RAG config.
fn db_import(db: &Path, data: &Path) -> Run {
    toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(db),
        s(data),
    ])
}

fn toolforge(args: &[&str]) -> Run {
    finish(
        Command::new(env!("CARGO_BIN_EXE_toolforge"))
            .args(args)
            .output()
            .expect("run toolforge"),
    )
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Every table and index definition in the database, for before/after comparisons.
fn schema_of(db: &Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut statement = conn
        .prepare("SELECT name, coalesce(sql, '') FROM sqlite_schema ORDER BY name")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn count(db: &Path, table: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
        r.get(0)
    })
    .unwrap()
}

fn initialised(dir: &Path) -> PathBuf {
    let db = dir.join("code.db");
    let run = toolforge(&["db", "init", "--config", s(&code_rag()), "--db", s(&db)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    db
}

fn seeded(dir: &Path) -> PathBuf {
    let db = initialised(dir);
    let run = toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(&db),
        s(&fixture()),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    db
}

#[test]
fn db_init_creates_the_tables_and_a_second_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("code.db");
    let first = toolforge(&["db", "init", "--config", s(&code_rag()), "--db", s(&db)]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first
            .stdout
            .starts_with("created 19 of 19 tables and indexes"),
        "{}",
        first.stdout
    );
    assert!(
        first.stdout.contains("scope__defined_in__file"),
        "{}",
        first.stdout
    );
    let before = schema_of(&db);
    assert!(before.iter().any(|(name, _)| name == "scope"));

    let second = toolforge(&["db", "init", "--config", s(&code_rag()), "--db", s(&db)]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stdout.starts_with("nothing to do:")
            && second.stdout.contains("all 19 tables and indexes"),
        "{}",
        second.stdout
    );
    assert_eq!(schema_of(&db), before);
}

#[test]
fn db_init_on_a_database_with_other_tables_reports_the_difference_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.yaml");
    std::fs::write(
        &other,
        "name: other\nentities:\n  - name: Scope\n    searchable_fields:\n      - name: title\n        type: string\n",
    )
    .unwrap();
    let db = dir.path().join("code.db");
    let run = toolforge(&["db", "init", "--config", s(&other), "--db", s(&db)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let before = schema_of(&db);

    let run = toolforge(&["db", "init", "--config", s(&code_rag()), "--db", s(&db)]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains("does not match the config"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("table \"scope\""), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("column \"title\" (TEXT) is not in the config"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--db NEW.db"), "{}", run.stderr);
    assert_eq!(schema_of(&db), before, "nothing may be created or changed");
}

#[test]
fn db_import_loads_everything_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = initialised(dir.path());
    let run = toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(&db),
        s(&fixture()),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("imported 12 records and 19 relationships from"),
        "{}",
        run.stdout
    );
    assert_eq!(count(&db, "scope"), 7);
    assert_eq!(count(&db, "scope__consumes__scope"), 4);

    // a bad value on line 3 of a second file: exit 1, the line and the field, nothing committed
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        [
            r#"{"entity":"Project","data":{"uuid":"p-new","name":"new"}}"#,
            r#"{"entity":"Scope","data":{"uuid":"s-new","name":"fresh","startLine":1}}"#,
            r#"{"entity":"Scope","data":{"uuid":"s-bad","name":"broken","startLine":"ten"}}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let run = toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(&db),
        s(&bad),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("bad.jsonl: line 3"), "{}", run.stderr);
    assert!(run.stderr.contains("data.startLine"), "{}", run.stderr);
    assert!(
        run.stderr.contains("nothing was imported"),
        "{}",
        run.stderr
    );
    assert_eq!(count(&db, "scope"), 7);
    assert_eq!(count(&db, "project"), 2);

    // an unknown relationship end is named too
    std::fs::write(
        &bad,
        r#"{"relationship":"CONSUMES","from":{"entity":"Scope","id":"s-main"},"to":{"entity":"Scope","id":"s-nowhere"}}"#,
    )
    .unwrap();
    let run = toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(&db),
        s(&bad),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("line 1"), "{}", run.stderr);
    assert_eq!(count(&db, "scope__consumes__scope"), 4);
}

/// A key given twice is one record, and the report says so (it said "imported 2 records");
/// importing the file again reports updates only.
#[test]
fn db_import_counts_a_repeated_key_as_one_new_record() {
    let dir = tempfile::tempdir().unwrap();
    let db = initialised(dir.path());
    let data = dir.path().join("twice.jsonl");
    std::fs::write(
        &data,
        concat!(
            r#"{"entity":"Project","data":{"uuid":"p-1","name":"one"}}"#,
            "\n",
            r#"{"entity":"Project","data":{"uuid":"p-1","name":"one, renamed"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let import = || db_import(&db, &data);
    let run = import();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(
            "imported 2 records (1 new, 1 update of a record already there) and 0 relationships"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(count(&db, "project"), 1);
    let run = import();
    assert!(
        run.stdout.starts_with(
            "imported 2 records (0 new, 2 updates of a record already there) and 0 relationships"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn db_import_reads_standard_input_and_refuses_a_database_that_was_never_initialised() {
    let dir = tempfile::tempdir().unwrap();
    let db = initialised(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolforge"))
        .args([
            "db",
            "import",
            "--config",
            s(&code_rag()),
            "--db",
            s(&db),
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"entity":"Project","data":{"uuid":"p-1","name":"one"}}"#)
        .unwrap();
    let run = finish(child.wait_with_output().unwrap());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("imported 1 record and 0 relationships"),
        "{}",
        run.stdout
    );

    let missing = dir.path().join("missing.db");
    let run = toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(&missing),
        s(&fixture()),
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    assert!(
        run.stderr.contains("toolforge db init --config"),
        "{}",
        run.stderr
    );
    assert!(!missing.exists(), "import never creates a database");

    let empty = dir.path().join("empty.db");
    std::fs::File::create(&empty).unwrap();
    let run = toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(&empty),
        s(&fixture()),
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("has none of the 19 tables and indexes"),
        "{}",
        run.stderr
    );
    // The refused import left the empty file as it was: no WAL database, no journal files.
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
    for suffix in ["-wal", "-shm", "-journal"] {
        let beside = dir.path().join(format!("empty.db{suffix}"));
        assert!(!beside.exists(), "{} was left", beside.display());
    }
}

#[test]
fn tools_list_prints_the_definitions_in_every_format_without_a_database() {
    let config = code_rag();
    let names = |tools: &Value, pointer: &str| -> Vec<String> {
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.pointer(pointer).unwrap().as_str().unwrap().to_string())
            .collect()
    };
    let expected = [
        "get_schema",
        "describe_entity",
        "query_entities",
        "get_entity_by_id",
        "get_entities_by_ids",
        "explore_relationships",
        "join_entities",
        "semantic_search",
        "find_similar",
        "find_path",
        "rank_entities",
        "find_clusters",
        "batch",
    ];
    let mcp = toolforge(&["tools", "list", "--config", s(&config)]);
    assert_eq!(mcp.code, 0, "{}", mcp.stderr);
    let mcp = mcp.json();
    assert_eq!(names(&mcp, "/name"), expected);
    assert_eq!(
        mcp[2]["inputSchema"]["properties"]["entity_type"]["enum"],
        json!(["Scope", "File", "Project"])
    );
    assert_eq!(mcp[2]["annotations"]["readOnlyHint"], true);

    let openai = toolforge(&[
        "tools",
        "list",
        "--config",
        s(&config),
        "--format",
        "openai",
    ])
    .json();
    assert_eq!(names(&openai, "/function/name"), expected);
    assert!(
        openai
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["type"] == "function")
    );
    assert_eq!(openai[2]["function"]["strict"], true);

    let responses = toolforge(&[
        "tools",
        "list",
        "--config",
        s(&config),
        "--format",
        "openai-responses",
    ])
    .json();
    assert_eq!(names(&responses, "/name"), expected);
    assert!(responses[0]["parameters"].is_object());

    let anthropic = toolforge(&[
        "tools",
        "list",
        "--config",
        s(&config),
        "--format",
        "anthropic",
    ])
    .json();
    assert_eq!(names(&anthropic, "/name"), expected);
    assert_eq!(anthropic[0]["input_schema"]["type"], "object");

    let gemini = toolforge(&[
        "tools",
        "list",
        "--config",
        s(&config),
        "--format",
        "gemini",
    ])
    .json();
    assert_eq!(names(&gemini, "/name"), expected);
    for declaration in gemini.as_array().unwrap() {
        toolforge::dialect::is_gemini_compatible(&declaration["parameters"])
            .unwrap_or_else(|problems| panic!("{problems:?}"));
    }

    let usage = toolforge(&[
        "tools",
        "list",
        "--config",
        s(&config),
        "--format",
        "gemini-pro",
    ]);
    assert_eq!(usage.code, 2);
    assert!(
        usage.stderr.contains("openai-responses"),
        "{}",
        usage.stderr
    );
}

#[test]
fn tools_list_reports_config_errors_with_their_position() {
    let dir = tempfile::tempdir().unwrap();
    let missing = toolforge(&[
        "tools",
        "list",
        "--config",
        s(&dir.path().join("nope.yaml")),
    ]);
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.contains("cannot read the config file"),
        "{}",
        missing.stderr
    );
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "entities:\n  - name: Scope\n    searchable_fields:\n      - name: kind\n        type: enum\n",
    )
    .unwrap();
    let run = toolforge(&["tools", "list", "--config", s(&bad)]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    assert!(run.stderr.contains("bad.yaml:5:15"), "{}", run.stderr);
}

#[test]
fn call_prints_the_result_or_the_structured_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = seeded(dir.path());
    let call = |tool: &str, arguments: &str| {
        toolforge(&[
            "call",
            "--config",
            s(&code_rag()),
            "--db",
            s(&db),
            tool,
            arguments,
        ])
    };

    let ok = call(
        "query_entities",
        r#"{"entity_type":"Scope","conditions":[{"field":"file","operator":"ENDS WITH","value":".py"}],"order_by":{"field":"startLine","direction":"ASC"}}"#,
    );
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let answer = ok.json();
    assert_eq!(answer["total"], 2);
    assert_eq!(answer["results"][0]["uuid"], "s-pool");
    assert_eq!(answer["results"][1]["uuid"], "s-acquire");

    let default_arguments = toolforge(&[
        "call",
        "--config",
        s(&code_rag()),
        "--db",
        s(&db),
        "get_schema",
    ]);
    assert_eq!(default_arguments.code, 0, "{}", default_arguments.stderr);
    assert_eq!(default_arguments.json()["entities"][0]["name"], "Scope");

    let not_found = call(
        "get_entity_by_id",
        r#"{"entity_type":"Scope","id_value":"nope"}"#,
    );
    assert_eq!(not_found.code, 1);
    assert_eq!(not_found.json()["error"], "not_found");

    let invalid = call("query_entities", r#"{"entity_type":"Nothing"}"#);
    assert_eq!(invalid.code, 1);
    assert_eq!(invalid.json()["error"], "invalid_arguments");

    let unknown = call("query_entites", "{}");
    assert_eq!(unknown.code, 1);
    let error = unknown.json();
    assert_eq!(error["error"], "unknown_tool");
    assert_eq!(error["requested"], "query_entites");
    assert_eq!(error["candidates"], json!(["query_entities"]));

    let not_json = call("get_schema", "{include_tips: false");
    assert_eq!(not_json.code, 1);
    let error = not_json.json();
    assert_eq!(error["error"], "invalid_arguments");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{error}"
    );
}

#[test]
fn call_refuses_a_missing_or_uninitialised_database_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.db");
    let run = toolforge(&[
        "call",
        "--config",
        s(&code_rag()),
        "--db",
        s(&missing),
        "get_schema",
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    assert!(!missing.exists());

    // A folder is not a missing file: say what it is (it said "does not exist").
    for command in [
        vec![
            "call",
            "--config",
            s(&code_rag()),
            "--db",
            s(dir.path()),
            "get_schema",
        ],
        vec![
            "db",
            "import",
            "--config",
            s(&code_rag()),
            "--db",
            s(dir.path()),
            s(&missing),
        ],
    ] {
        let run = toolforge(&command);
        assert_ne!(run.code, 0, "{command:?}");
        assert!(
            run.stderr.contains("is a folder"),
            "{command:?}: {}",
            run.stderr
        );
    }

    let empty = dir.path().join("empty.db");
    std::fs::File::create(&empty).unwrap();
    let run = toolforge(&[
        "call",
        "--config",
        s(&code_rag()),
        "--db",
        s(&empty),
        "get_schema",
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("has none of the 19 tables and indexes"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "create them with `toolforge db init --config {}",
            s(&code_rag())
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn a_config_that_grew_new_entities_is_caught_up_by_db_init() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("notes.yaml");
    let note = "name: notes\nentities:\n  - name: Note\n    searchable_fields:\n      - name: title\n        type: string\n";
    std::fs::write(&config, note).unwrap();
    let db = dir.path().join("notes.db");
    assert_eq!(
        toolforge(&["db", "init", "--config", s(&config), "--db", s(&db)]).code,
        0
    );
    std::fs::write(
        &config,
        format!("{note}  - name: Tag\n    searchable_fields:\n      - name: label\n        type: string\n"),
    )
    .unwrap();

    let run = toolforge(&["call", "--config", s(&config), "--db", s(&db), "get_schema"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("table \"tag\": does not exist"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("create the missing ones with `toolforge db init"),
        "{}",
        run.stderr
    );

    let run = toolforge(&["db", "init", "--config", s(&config), "--db", s(&db)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("created 1 of 2 tables and indexes"),
        "{}",
        run.stdout
    );
    let run = toolforge(&[
        "call",
        "--config",
        s(&config),
        "--db",
        s(&db),
        "describe_entity",
        r#"{"entity_name":"Tag"}"#,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn call_ends_at_its_timeout_with_a_structured_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = seeded(dir.path());
    let long = dir.path().join("long.jsonl");
    let text = "a".repeat(100_000);
    let line =
        json!({"entity": "Scope", "data": {"uuid": "s-long", "name": "long", "signature": text}});
    std::fs::write(&long, format!("{line}\n")).unwrap();
    let run = toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(&db),
        s(&long),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let slow = json!({"entity_type": "Scope", "conditions": [
        {"field": "signature", "operator": "GLOB", "value": format!("*{}b*", "a".repeat(40_000))}
    ]})
    .to_string();
    let call = |timeout: &str, arguments: &str| {
        toolforge(&[
            "call",
            "--config",
            s(&code_rag()),
            "--db",
            s(&db),
            "--timeout",
            timeout,
            "query_entities",
            arguments,
        ])
    };
    let timed_out = call("0.05", &slow);
    assert_eq!(timed_out.code, 1, "{}", timed_out.stderr);
    let error = timed_out.json();
    assert_eq!(error["error"], "timeout", "{error}");
    assert_eq!(error["details"]["timeout_ms"], 50, "{error}");

    // A deadline of seconds, not 50 ms: a loaded machine (the other tests of this binary run
    // at the same time) can take longer than 50 ms to answer even a one-row call.
    let fast = call("2.5", r#"{"entity_type":"Scope","limit":1}"#);
    assert_eq!(fast.code, 0, "{}", fast.stderr);

    let refused = call("0", "{}");
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("a number of seconds from 0.001 to 86400"),
        "{}",
        refused.stderr
    );
}

#[test]
fn after_db_import_the_database_file_alone_holds_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = seeded(dir.path());
    // Only the .db file travels (cp, a Docker COPY, git add): no -wal, no -shm.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("code.db");
    std::fs::copy(&db, &copy).unwrap();
    assert_eq!(count(&copy, "scope"), count(&db, "scope"));
    assert!(count(&copy, "scope") > 0);
    let run = toolforge(&[
        "call",
        "--config",
        s(&code_rag()),
        "--db",
        s(&copy),
        "get_entity_by_id",
        r#"{"entity_type":"Scope","id_value":"s-login"}"#,
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json()["record"]["name"], "handleLogin");
}

/// The journal mode, as the database header records it (bytes 18 and 19: 1 for a rollback
/// journal, 2 for WAL) and as SQLite reports it.
fn journal_mode(db: &Path) -> (Vec<u8>, String) {
    let header = std::fs::read(db).unwrap()[18..20].to_vec();
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    (header, mode)
}

#[test]
fn a_refused_import_changes_nothing_not_even_the_journal_mode() {
    let dir = tempfile::tempdir().unwrap();
    // Someone else's database, in rollback-journal mode.
    let theirs = dir.path().join("theirs.db");
    {
        let conn = rusqlite::Connection::open(&theirs).unwrap();
        conn.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');")
            .unwrap();
    }
    let before = std::fs::read(&theirs).unwrap();
    assert_eq!(journal_mode(&theirs), (vec![1, 1], "delete".to_string()));
    let import = db_import;
    let refused = import(&theirs, &fixture());
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("toolforge db init"),
        "{}",
        refused.stderr
    );
    assert_eq!(journal_mode(&theirs), (vec![1, 1], "delete".to_string()));
    assert_eq!(
        std::fs::read(&theirs).unwrap(),
        before,
        "not a byte changed"
    );
    assert!(!dir.path().join("theirs.db-wal").exists());

    // An initialised database in rollback-journal mode keeps it through a refused import
    // (a bad line) and through a successful one.
    let rollback = dir.path().join("rollback.db");
    rusqlite::Connection::open(&rollback)
        .unwrap()
        .execute_batch("PRAGMA user_version = 7;")
        .unwrap();
    let init = toolforge(&[
        "db",
        "init",
        "--config",
        s(&code_rag()),
        "--db",
        s(&rollback),
    ]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert_eq!(journal_mode(&rollback).1, "delete");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"entity\": \"Scope\", \"data\": {\"uuid\": \"x\"}}\nnot json\n",
    )
    .unwrap();
    let before = std::fs::read(&rollback).unwrap();
    let refused = import(&rollback, &bad);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.contains("line 2"), "{}", refused.stderr);
    assert_eq!(
        std::fs::read(&rollback).unwrap(),
        before,
        "not a byte changed"
    );
    assert_eq!(journal_mode(&rollback), (vec![1, 1], "delete".to_string()));
    let loaded = import(&rollback, &fixture());
    assert_eq!(loaded.code, 0, "{}", loaded.stderr);
    assert_eq!(journal_mode(&rollback).1, "delete");
    assert!(count(&rollback, "scope") > 0);

    // A database toolforge creates is in WAL mode.
    let fresh = initialised(dir.path());
    assert_eq!(journal_mode(&fresh), (vec![2, 2], "wal".to_string()));
}

/// Runs `toolforge` as a user for whom file permissions hold (see `unprivileged.rs`).
fn toolforge_without_privileges(args: &[&str]) -> Run {
    finish(unprivileged::toolforge(args))
}

/// `call` reads a database in a folder its user cannot write (read-only media): here a WAL
/// database whose `.db` file alone was copied into a folder of mode 0555, read by a user for
/// whom that mode holds (see `toolforge_without_privileges`). That it holds is checked: the
/// same user cannot create a file there.
#[test]
fn call_reads_a_database_in_a_folder_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let db = seeded(dir.path());
    let media = tempfile::tempdir().unwrap();
    chmod(media.path(), 0o755);
    // The folder's name has the characters a SQLite URI must escape.
    let folder = media.path().join("read only ?#%41");
    std::fs::create_dir(&folder).unwrap();
    let copy = folder.join("code.db");
    std::fs::copy(&db, &copy).unwrap();
    assert_eq!(
        std::fs::read(&copy).unwrap()[18..20],
        [2, 2],
        "a WAL database"
    );
    let config = folder.join("ragforge.config.yaml");
    std::fs::copy(code_rag(), &config).unwrap();
    chmod(&copy, 0o444);
    chmod(&config, 0o444);
    chmod(&folder, 0o555);

    // The folder really is read-only for the user that runs the call.
    let probe = unprivileged::shell(&format!("touch '{}/probe'", folder.display()));
    assert!(
        !probe.status.success(),
        "the folder must not be writable for the test user"
    );

    let call = toolforge_without_privileges(&[
        "call",
        "--config",
        s(&config),
        "--db",
        s(&copy),
        "query_entities",
        r#"{"entity_type":"Scope","conditions":[{"field":"name","operator":"GLOB","value":"handle*"}]}"#,
    ]);
    chmod(&folder, 0o755);
    assert_eq!(call.code, 0, "{}{}", call.stdout, call.stderr);
    assert_eq!(call.json()["results"][0]["uuid"], "s-login");
    assert!(!folder.join("code.db-shm").exists());
    assert!(!folder.join("code.db-wal").exists());

    // Changes left in a -wal file cannot be read there: refused, not silently missing.
    let writable = tempfile::tempdir().unwrap();
    let source = writable.path().join("code.db");
    std::fs::copy(&db, &source).unwrap();
    let conn = rusqlite::Connection::open(&source).unwrap();
    conn.execute_batch(
        "PRAGMA wal_autocheckpoint = 0; UPDATE scope SET name = 'changed' WHERE uuid = 's-login';",
    )
    .unwrap();
    let wal = folder.join("code.db-wal");
    chmod(&copy, 0o644);
    std::fs::copy(writable.path().join("code.db-wal"), &wal).unwrap();
    drop(conn);
    assert!(std::fs::metadata(&wal).unwrap().len() > 0);
    chmod(&wal, 0o444);
    chmod(&folder, 0o555);
    let call = toolforge_without_privileges(&[
        "call",
        "--config",
        s(&config),
        "--db",
        s(&copy),
        "get_schema",
    ]);
    chmod(&folder, 0o755);
    assert_eq!(call.code, 1, "{}{}", call.stdout, call.stderr);
    assert!(
        call.stderr.contains("code.db-wal holds changes"),
        "{}",
        call.stderr
    );
}

#[test]
fn db_import_refuses_a_line_longer_than_the_bound_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = initialised(dir.path());
    let data = dir.path().join("long.jsonl");
    let short = json!({"entity": "Project", "data": {"uuid": "p", "name": "p"}});
    std::fs::write(&data, format!("{short}\n{}", "x".repeat(5_000))).unwrap();
    let run = toolforge(&[
        "db",
        "import",
        "--config",
        s(&code_rag()),
        "--db",
        s(&db),
        "--max-line-bytes",
        "1000",
        s(&data),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("line 2: the line is longer than 1000 bytes"),
        "{}",
        run.stderr
    );
    assert_eq!(count(&db, "project"), 0);
}

#[test]
fn tools_list_summary_counts_what_each_family_generates() {
    let config = code_rag();
    let run = toolforge(&[
        "tools",
        "list",
        "--config",
        s(&config),
        "--format",
        "summary",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let summary = run.json();
    let listed = toolforge(&["tools", "list", "--config", s(&config)]).json();
    let names: Vec<Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(summary["tool_count"], json!(names.len()));
    assert_eq!(summary["tools"], json!(names));
    assert_eq!(summary["entity_count"], 3);
    let per_entity: usize = summary["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["searchable_fields"].as_array().unwrap().len())
        .sum();
    assert_eq!(summary["searchable_fields_count"], json!(per_entity));
    let families: Vec<&str> = summary["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["family"].as_str().unwrap())
        .collect();
    assert_eq!(
        families,
        [
            "schema",
            "query",
            "lookup",
            "relationships",
            "search",
            "graph",
            "changes",
            "places"
        ],
        "every family but ranges, patterns and aggregates by default"
    );
    let in_families: usize = summary["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["tools"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        in_families + 1,
        names.len(),
        "the families' tools and batch"
    );

    let chosen = toolforge(&[
        "tools",
        "list",
        "--config",
        s(&config),
        "--format",
        "summary",
        "--tools",
        "lookup,aggregates",
    ]);
    assert_eq!(chosen.code, 0, "{}", chosen.stderr);
    assert_eq!(
        chosen.json()["tools"],
        json!([
            "get_entity_by_id",
            "get_entities_by_ids",
            "aggregate_entities",
            "batch"
        ])
    );
    let unknown = toolforge(&["tools", "list", "--config", s(&config), "--tools", "graphs"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("aggregates"), "{}", unknown.stderr);
}

#[test]
fn call_sets_the_context_values_row_rules_read() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("branches.yaml");
    std::fs::write(
        &config,
        "name: branches\nentities:\n  - name: Loan\n    unique_field: id\n    searchable_fields:\n      \
         - {name: id, type: string}\n      - {name: branch, type: string}\n\
         toolforge:\n  access:\n    Loan: \"branch = :context.branch\"\n",
    )
    .unwrap();
    let data = dir.path().join("loans.jsonl");
    std::fs::write(
        &data,
        "{\"entity\":\"Loan\",\"data\":{\"id\":\"n1\",\"branch\":\"north\"}}\n\
         {\"entity\":\"Loan\",\"data\":{\"id\":\"s1\",\"branch\":\"south\"}}\n",
    )
    .unwrap();
    let db = dir.path().join("branches.db");
    assert_eq!(
        toolforge(&["db", "init", "--config", s(&config), "--db", s(&db)]).code,
        0
    );
    let import = toolforge(&[
        "db",
        "import",
        "--config",
        s(&config),
        "--db",
        s(&db),
        s(&data),
    ]);
    assert_eq!(import.code, 0, "{}", import.stderr);
    let query = r#"{"entity_type":"Loan"}"#;
    let call = |context: &[&str]| {
        let mut args = vec!["call", "--config", s(&config), "--db", s(&db)];
        args.extend_from_slice(context);
        args.extend(["query_entities", query]);
        toolforge(&args)
    };
    let north = call(&["--context", "branch=north"]);
    assert_eq!(north.code, 0, "{}", north.stderr);
    let ids: Vec<String> = north.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["n1"]);
    let nobody = call(&[]);
    assert_eq!(nobody.code, 0, "{}", nobody.stderr);
    assert_eq!(
        nobody.json()["total"],
        json!(0),
        "no value: nothing is seen"
    );
    let bad = call(&["--context", "branch"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("NAME=VALUE"), "{}", bad.stderr);
}
