//! The `toolforge` binary end to end: `db init`, `db import`, `tools list` and `call` on the
//! code-rag example config and its seeded fixture.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

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
            .starts_with("created 18 of 18 tables and indexes"),
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
            && second.stdout.contains("all 18 tables and indexes"),
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
        run.stderr.contains("has none of the 18 tables and indexes"),
        "{}",
        run.stderr
    );
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
        "glob_search",
        "get_entity_by_id",
        "get_entities_by_ids",
        "explore_relationships",
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
        run.stderr.contains("has none of the 18 tables and indexes"),
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
