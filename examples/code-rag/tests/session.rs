//! The `code-rag` binary end to end: the scripted session on the fixture tree.

use crate::common;

use std::process::Command;

use common::{fixture, temp_db};

fn run(src: &std::path::Path, db: &std::path::Path) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_code-rag"))
        .arg("--src")
        .arg(src)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_session_runs_every_step_on_the_fixture() {
    let (_dir, db) = temp_db();
    let (ok, stdout, stderr) = run(&fixture(), &db);
    assert!(ok, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("warning: src/broken.rs:1:"), "{stdout}");
    assert!(stdout.contains("18 tools:"), "{stdout}");
    for step in [
        "== 2. Find the ten longest functions",
        "-> explore_relationships",
        "== 4. Find the ten most called functions",
        "-> aggregate_entities",
        "-> find_path",
        "-> rank_entities",
        "== 7. Group the functions into clusters along CALLS",
        "-> find_clusters",
        "-> find_similar",
        "== 9. Ask in words: where is the configuration file parsed",
        "-> semantic_search",
        "12 doc comments embedded",
        "-> get_entities_by_ids",
        "-> scope_loc",
        "-> batch",
        "did you mean `query_entities`?",
        "session finished: every step answered as expected",
    ] {
        assert!(stdout.contains(step), "missing {step:?} in:\n{stdout}");
    }
    // the longest function of the fixture is count_me (13 lines)
    assert!(
        stdout.contains("== 3. Explore what `count_me` calls"),
        "{stdout}"
    );
    assert!(db.exists());

    // a second run recreates the database instead of failing on existing records
    let (again, _, stderr) = run(&fixture(), &db);
    assert!(again, "{stderr}");
}

#[test]
fn a_tree_without_functions_fails_the_session() {
    let (dir, db) = temp_db();
    let src = dir.path().join("empty");
    std::fs::create_dir(&src).unwrap();
    let (ok, stdout, stderr) = run(&src, &db);
    assert!(!ok, "{stdout}");
    assert!(stderr.contains("session failed"), "{stderr}");
    assert!(stdout.contains("no function was found"), "{stdout}");
}

#[test]
fn a_missing_source_tree_is_a_clear_error() {
    let (dir, db) = temp_db();
    let (ok, _, stderr) = run(&dir.path().join("nope"), &db);
    assert!(!ok);
    assert!(
        stderr.contains("error: cannot read the source tree"),
        "{stderr}"
    );
    assert!(stderr.contains("nope"), "{stderr}");
}
