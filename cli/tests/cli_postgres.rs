//! The `toolforge` binary on a PostgreSQL URL (`TOOLFORGE_TEST_POSTGRES_URL`, see
//! `scripts/with-postgres`): `db init` twice (the second creates nothing), `db import`, and
//! `call` answering as on a SQLite file seeded from the same fixture. Without a server the
//! test says it was skipped.

use crate::pg_support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

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

#[test]
fn db_init_import_and_call_on_a_postgres_url() {
    let Some(base) = pg_support::url("cli_postgres::db_init_import_and_call_on_a_postgres_url")
    else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "cli");
    let config =
        workspace().join("tests/corpus/ragforge__examples__code-rag__ragforge.config.yaml");
    let fixture = workspace().join("tests/fixtures/code-rag.jsonl");
    let (config, fixture) = (config.to_str().unwrap(), fixture.to_str().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("code.db");
    let file = file.to_str().unwrap();

    // Before init, the tools say the database is not initialised.
    let (code, _, stderr) = toolforge(&["call", "--config", config, "--db", &url, "get_schema"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("db init"), "{stderr}");

    for db in [url.as_str(), file] {
        let (code, stdout, stderr) = toolforge(&["db", "init", "--config", config, "--db", db]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let (code, again, stderr) = toolforge(&["db", "init", "--config", config, "--db", db]);
        assert_eq!(code, 0, "{stderr}");
        assert_ne!(stdout, again, "the second init reports nothing created");
        let (code, _, stderr) =
            toolforge(&["db", "import", "--config", config, "--db", db, fixture]);
        assert_eq!(code, 0, "{stderr}");
    }
    for (tool, arguments) in [
        ("get_schema", "{}"),
        (
            "query_entities",
            r#"{"entity_type":"Scope","conditions":[{"field":"file","operator":"ENDS WITH","value":".py"}],"order_by":{"field":"startLine","direction":"DESC"}}"#,
        ),
        (
            "query_entities",
            r#"{"entity_type":"Scope","conditions":[{"field":"name","operator":"GLOB","value":"*[Ll]ogin*"}]}"#,
        ),
        (
            "get_entity_by_id",
            r#"{"entity_type":"Scope","id_value":"s-login"}"#,
        ),
        (
            "get_entity_by_id",
            r#"{"entity_type":"Scope","id_value":"nope"}"#,
        ),
        (
            "explore_relationships",
            r#"{"start_entity_type":"Scope","relationship_type":"CONSUMES","direction":"both"}"#,
        ),
    ] {
        let on_file = toolforge(&["call", "--config", config, "--db", file, tool, arguments]);
        let on_server = toolforge(&["call", "--config", config, "--db", &url, tool, arguments]);
        assert_eq!(
            on_server.0, on_file.0,
            "{tool} {arguments}: {}",
            on_server.2
        );
        assert_eq!(on_server.1, on_file.1, "{tool} {arguments}");
        assert_eq!(on_server.2, on_file.2, "{tool} {arguments}");
    }
}
