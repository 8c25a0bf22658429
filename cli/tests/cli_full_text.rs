//! `full_text_search` through the `toolforge` binary: `db init` creates the index, `db import`
//! fills it, `tools list` shows the tool with the indexed fields, `call` runs it, and a second
//! `db init` changes nothing.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const CONFIG: &str = "\
name: notes
entities:
  - name: Note
    unique_field: slug
    display_name_field: title
    searchable_fields:
      - name: slug
        type: string
      - name: title
        type: string
      - name: body
        type: string
    full_text_index:
      fields: [title, body]
      weights: {title: 4}
";

const DATA: &str = r#"{"entity": "Note", "data": {"slug": "a", "title": "Parsing notes", "body": "How a parser reads tokens."}}
{"entity": "Note", "data": {"slug": "b", "title": "Shopping", "body": "Bread, milk and a new parser book."}}
{"entity": "Note", "data": {"slug": "c", "title": "Travel", "body": "Trains to the coast."}}
"#;

fn toolforge(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_toolforge"))
        .args(args)
        .output()
        .expect("run toolforge");
    (
        output.status.code().expect("exit code"),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn init_import_list_and_call() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("notes.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let data = dir.path().join("notes.jsonl");
    std::fs::write(&data, DATA).unwrap();
    let db = dir.path().join("notes.db");

    let (code, _, stderr) = toolforge(&["db", "init", "--config", s(&config), "--db", s(&db)]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = toolforge(&[
        "db",
        "import",
        "--config",
        s(&config),
        "--db",
        s(&db),
        s(&data),
    ]);
    assert_eq!(code, 0, "{stderr}");

    let (code, stdout, stderr) = toolforge(&["tools", "list", "--config", s(&config)]);
    assert_eq!(code, 0, "{stderr}");
    let tools: Value = serde_json::from_str(&stdout).unwrap();
    let search = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "full_text_search")
        .expect("full_text_search is listed");
    let description = search["description"].as_str().unwrap();
    assert!(
        description.contains("Note: title (weight 4), body (weight 1)"),
        "{description}"
    );

    let (code, stdout, stderr) = toolforge(&[
        "call",
        "--config",
        s(&config),
        "--db",
        s(&db),
        "full_text_search",
        r#"{"entity_type": "Note", "query": "parser"}"#,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    let ids: Vec<&str> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b"], "{answer}");
    assert_eq!(answer["results"][0]["name"], "Parsing notes");

    let (code, stdout, _) = toolforge(&[
        "call",
        "--config",
        s(&config),
        "--db",
        s(&db),
        "full_text_search",
        r#"{"entity_type": "Note", "query": "\""}"#,
    ]);
    assert_ne!(code, 0);
    assert!(stdout.contains("invalid_arguments"), "{stdout}");

    let (code, stdout, stderr) = toolforge(&["db", "init", "--config", s(&config), "--db", s(&db)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("created"), "{stdout}");
}
