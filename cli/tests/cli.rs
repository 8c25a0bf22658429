//! The `toolforge` command line: exit codes, summary, JSON output, schema.

use std::path::{Path, PathBuf};

use toolforge_cli::{Output, run_with};

pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let code = run_with(
        std::iter::once("toolforge").chain(args.iter().copied()),
        &mut Output {
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    (
        code,
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const VALID: &str = "\
name: demo
entities:
  - name: Scope
    searchable_fields:
      - name: name
        type: string
    colour: red
    relationships:
      - type: DEFINED_IN
        target: File
  - name: File
    unique_field: path
    searchable_fields:
      - name: path
        type: string
";

#[test]
fn a_valid_config_exits_0_with_a_summary_and_warnings_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "ok.yaml", VALID);
    let (code, stdout, stderr) = run(&["validate", "--config", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("is valid: 2 entities (Scope, File), 3 fields, 1 relationship, 0 computed fields, 0 vector indexes; 1 warning"),
        "{stdout}"
    );
    assert!(stderr.contains("unknown key `colour`"), "{stderr}");
    assert!(stderr.contains("ok.yaml:7:5"), "{stderr}");
}

#[test]
fn strict_mode_turns_warnings_into_errors_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "ok.yaml", VALID);
    let (code, stdout, stderr) = run(&["validate", "--config", path.to_str().unwrap(), "--strict"]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("error: unknown key `colour`"), "{stderr}");
    assert!(
        stderr.contains("is invalid: 1 error, 0 warnings"),
        "{stderr}"
    );
}

#[test]
fn an_invalid_config_exits_1_with_code_frames() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "bad.yaml",
        "entities:\n  - name: Scope\n    searchable_fields:\n      - name: kind\n        type: enum\n",
    );
    let (code, _, stderr) = run(&["validate", "--config", path.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("bad.yaml:5:15"), "{stderr}");
    assert!(stderr.contains("^^^^"), "{stderr}");
    assert!(stderr.contains("help: list the allowed values"), "{stderr}");
}

#[test]
fn json_format_prints_every_diagnostic_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "bad.yaml",
        "entities:\n  - name: Scope\n    searchable_fields:\n      - name: kind\n        type: enum\n",
    );
    let (code, stdout, _) = run(&[
        "validate",
        "--config",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["valid"], false);
    let diagnostic = &report["diagnostics"][0];
    assert_eq!(diagnostic["severity"], "error");
    assert_eq!(diagnostic["line"], 5);
    assert_eq!(diagnostic["column"], 15);
    assert_eq!(diagnostic["path"], "entities[0].searchable_fields[0].type");
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .contains("no `values`")
    );
    assert!(diagnostic["hint"].is_string());
    assert!(diagnostic["file"].as_str().unwrap().ends_with("bad.yaml"));

    let ok_path = write(dir.path(), "ok.yaml", VALID);
    let (code, stdout, _) = run(&[
        "validate",
        "--config",
        ok_path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["valid"], true);
    assert_eq!(report["summary"]["entities"], 2);
    assert_eq!(report["diagnostics"][0]["severity"], "warning");
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, stderr) = run(&["validate"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--config"), "{stderr}");
    let (code, _, _) = run(&["validate", "--config", "x.yaml", "--format", "xml"]);
    assert_eq!(code, 2);
    let (code, _, _) = run(&["frobnicate"]);
    assert_eq!(code, 2);
}

#[test]
fn a_missing_file_exits_1() {
    let (code, _, stderr) = run(&["validate", "--config", "no/such/file.yaml"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("cannot read the config file"), "{stderr}");
}

#[test]
fn schema_prints_the_json_schema() {
    let (code, stdout, _) = run(&["schema"]);
    assert_eq!(code, 0);
    let schema: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let options = &schema["$defs"]["ToolforgeOptions"]["properties"];
    for key in [
        "name_prefix",
        "default_limit",
        "max_limit",
        "tools",
        "strict",
    ] {
        assert!(
            options[key]["description"]
                .as_str()
                .is_some_and(|d| d.len() > 20),
            "`toolforge.{key}` is documented in the schema"
        );
    }
}

#[test]
fn the_binary_uses_the_same_exit_codes() {
    let binary = env!("CARGO_BIN_EXE_toolforge");
    let status = std::process::Command::new(binary)
        .args(["validate", "--config", "no/such/file.yaml"])
        .output()
        .unwrap();
    assert_eq!(status.status.code(), Some(1));
    let status = std::process::Command::new(binary)
        .args(["validate"])
        .output()
        .unwrap();
    assert_eq!(status.status.code(), Some(2));
}

#[test]
fn validate_prepares_sql_statements_of_declared_tools_and_locates_sqlite_errors() {
    let dir = tempfile::tempdir().unwrap();
    let config = "\
name: notes
entities:
  - name: Note
    searchable_fields:
      - {name: owner, type: string}
      - {name: title, type: string}
toolforge:
  declared_tools:
    - name: notes_per_owner
      description: How many notes each owner has
      sql:
        sqlite: \"SELECT owner, count(*) AS notes FROM note WHERE titel > :after GROUP BY owner\"
      parameters:
        after: {type: string}
";
    let path = write(dir.path(), "notes.yaml", config);
    let (code, _, stderr) = run(&["validate", "--config", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("no such column: titel"), "{stderr}");
    assert!(stderr.contains("notes.yaml:12:17"), "{stderr}");
    let fixed = config.replace("titel", "title");
    let path = write(dir.path(), "notes.yaml", &fixed);
    let (code, _, stderr) = run(&["validate", "--config", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = run(&[
        "tools",
        "list",
        "--config",
        path.to_str().unwrap(),
        "--format",
        "summary",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("notes_per_owner"), "{stdout}");
}

/// A deadline too short to run anything, or negative, is refused with the accepted range (it
/// used to be accepted and answer `timeout_ms: 0`, or to be read as an unknown flag).
#[test]
fn deadlines_outside_the_accepted_range_are_refused_with_it() {
    for command in ["call", "serve"] {
        for timeout in ["0.000001", "-1", "0", "100000", "soon"] {
            let mut args = vec![command];
            if command == "call" {
                args.push("get_schema");
            }
            args.extend([
                "--config",
                "missing.yaml",
                "--db",
                "missing.db",
                "--timeout",
                timeout,
            ]);
            let (code, _, stderr) = run(&args);
            assert_eq!(code, 2, "{command} --timeout {timeout}: {stderr}");
            assert!(
                stderr.contains("a number of seconds from 0.001 to 86400"),
                "{command} --timeout {timeout}: {stderr}"
            );
        }
    }
}
