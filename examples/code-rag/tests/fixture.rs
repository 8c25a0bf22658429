//! The ingester and the tools on the small checked-in tree `tests/fixtures/tree`, whose
//! scopes, calls and line counts are known by hand.

use crate::common;

use std::collections::BTreeSet;

use code_rag_example::ingest::{Codebase, ScopeKind, ingest};
use code_rag_example::setup::prepare;
use serde_json::json;
use toolforge::ErrorCode;

use common::{fixture, fn_items, temp_db};

fn codebase() -> Codebase {
    ingest(&fixture()).unwrap()
}

fn uuid_of(codebase: &Codebase, name: &str, kind: ScopeKind) -> String {
    let matches: Vec<_> = codebase
        .scopes
        .iter()
        .filter(|s| s.name == name && s.kind == kind)
        .collect();
    assert_eq!(matches.len(), 1, "{name} ({kind})");
    matches[0].uuid.clone()
}

fn name_of(codebase: &Codebase, uuid: &str) -> String {
    let scope = codebase.scopes.iter().find(|s| s.uuid == uuid).unwrap();
    format!("{}:{}", scope.kind, scope.name)
}

#[test]
fn every_kind_of_scope_is_found() {
    let codebase = codebase();
    let found: BTreeSet<String> = codebase
        .scopes
        .iter()
        .map(|s| format!("{} {}:{}", s.file, s.kind, s.name))
        .collect();
    let expected: BTreeSet<String> = [
        "src/lib.rs const:PREFIX",
        "src/lib.rs static:COUNT",
        "src/lib.rs type:Names",
        "src/lib.rs function:greet",
        "src/lib.rs function:shout",
        "src/lib.rs struct:Counter",
        "src/lib.rs impl:impl Counter",
        "src/lib.rs method:bump",
        "src/lib.rs method:bump_twice",
        "src/lib.rs method:reset_to",
        "src/lib.rs trait:Describe",
        "src/lib.rs method:describe",
        "src/lib.rs method:loud",
        "src/lib.rs impl:impl Describe for Counter",
        "src/lib.rs enum:Shape",
        "src/lib.rs module:helpers",
        "src/lib.rs function:log_value",
        "src/lib.rs function:helper",
        "src/lib.rs function:call_up",
        "src/lib.rs macro:twice",
        "src/util/text.rs function:count_me",
        "src/util/text.rs function:helper",
        "src/util/text.rs function:strip",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(found, expected);
    // `describe` is declared in the trait and defined in the impl: two scopes
    assert_eq!(codebase.scopes.len(), expected.len() + 1);
}

#[test]
fn a_file_that_does_not_parse_is_skipped_with_a_warning() {
    let codebase = codebase();
    assert_eq!(codebase.warnings.len(), 1, "{:?}", codebase.warnings);
    assert!(
        codebase.warnings[0].starts_with("src/broken.rs:1:"),
        "{}",
        codebase.warnings[0]
    );
    let files: Vec<&str> = codebase.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["src/lib.rs", "src/util/text.rs"]);
    let directories: Vec<(&str, &str, usize)> = codebase
        .directories
        .iter()
        .map(|d| (d.path.as_str(), d.name.as_str(), d.depth))
        .collect();
    assert_eq!(directories, [("src", "src", 1), ("src/util", "util", 2)]);
}

#[test]
fn target_and_hidden_directories_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("main.rs", "fn main() {}\n"),
        ("target/debug/build.rs", "fn skipped() {}\n"),
        (".git/hook.rs", "fn hidden() {}\n"),
        ("src/.hidden.rs", "fn hidden_file() {}\n"),
        ("src/target.rs", "fn kept() {}\n"),
    ] {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let codebase = ingest(dir.path()).unwrap();
    let names: Vec<&str> = codebase.scopes.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["main", "kept"]);
    assert_eq!(codebase.directories[0].path, ".");
    assert_eq!(codebase.directories[0].depth, 0);
}

#[test]
fn fn_items_per_file_match_an_independent_scan() {
    let codebase = codebase();
    for file in ["src/lib.rs", "src/util/text.rs"] {
        let text = std::fs::read_to_string(fixture().join(file)).unwrap();
        let mut expected: Vec<(String, usize, usize)> = fn_items(&text)
            .into_iter()
            .map(|s| (s.name, s.start, s.end))
            .collect();
        let mut found: Vec<(String, usize, usize)> = codebase
            .scopes
            .iter()
            .filter(|s| s.file == file && matches!(s.kind, ScopeKind::Function | ScopeKind::Method))
            .map(|s| (s.name.clone(), s.start_line, s.end_line))
            .collect();
        expected.sort();
        found.sort();
        assert_eq!(found, expected, "{file}");
    }
}

#[test]
fn scope_fields_are_read_from_the_source() {
    let codebase = codebase();
    let greet = codebase.scopes.iter().find(|s| s.name == "greet").unwrap();
    assert_eq!(greet.uuid, "src/lib.rs::greet#15");
    assert_eq!((greet.start_line, greet.end_line), (15, 17));
    assert_eq!(greet.signature, "pub fn greet(name: &str) -> String");
    assert_eq!(greet.docstring.as_deref(), Some("Greets someone."));
    assert_eq!(
        greet.source,
        "pub fn greet(name: &str) -> String {\n    format!(\"{PREFIX}, {}!\", shout(name))\n}"
    );
    let counter = codebase
        .scopes
        .iter()
        .find(|s| s.name == "Counter")
        .unwrap();
    // the attribute and the doc comment are not part of the span
    assert_eq!((counter.start_line, counter.end_line), (25, 27));
    assert_eq!(counter.signature, "pub struct Counter");
    let prefix = codebase.scopes.iter().find(|s| s.name == "PREFIX").unwrap();
    assert_eq!(prefix.signature, "pub const PREFIX: &str");
    let bump = codebase.scopes.iter().find(|s| s.name == "bump").unwrap();
    assert_eq!(bump.uuid, "src/lib.rs::impl Counter::bump#31");
}

#[test]
fn methods_and_module_items_have_parents() {
    let codebase = codebase();
    let mut parents: Vec<(String, String)> = codebase
        .scopes
        .iter()
        .filter_map(|s| {
            let parent = s.parent.as_ref()?;
            Some((format!("{}:{}", s.kind, s.name), name_of(&codebase, parent)))
        })
        .collect();
    parents.sort();
    let mut expected: Vec<(String, String)> = [
        ("method:bump", "impl:impl Counter"),
        ("method:bump_twice", "impl:impl Counter"),
        ("method:reset_to", "impl:impl Counter"),
        ("method:describe", "trait:Describe"),
        ("method:loud", "trait:Describe"),
        ("method:describe", "impl:impl Describe for Counter"),
        ("function:log_value", "module:helpers"),
        ("function:helper", "module:helpers"),
        ("function:call_up", "module:helpers"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    expected.sort();
    assert_eq!(parents, expected);
}

#[test]
fn calls_resolve_only_to_a_single_candidate() {
    let codebase = codebase();
    let calls: BTreeSet<(String, String)> = codebase
        .calls
        .iter()
        .map(|(from, to)| (name_of(&codebase, from), name_of(&codebase, to)))
        .collect();
    let expected: BTreeSet<(String, String)> = [
        // a plain call inside format!'s arguments
        ("function:greet", "function:shout"),
        // a method call and a path call to methods of the same impl
        ("method:bump_twice", "method:bump"),
        ("method:bump_twice", "method:reset_to"),
        ("method:reset_to", "function:log_value"),
        // `self.describe()` has two candidates (trait and impl): no edge; `shout` has one
        ("method:loud", "function:shout"),
        ("method:describe", "function:greet"),
        ("function:call_up", "function:shout"),
        // `strip` calls `helper()`, defined twice: no edge
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(calls, expected);
    let loud = uuid_of(&codebase, "loud", ScopeKind::Method);
    assert!(
        codebase
            .calls
            .iter()
            .all(|(from, to)| from != &loud || !to.contains("describe"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_is_loaded_and_reachable_through_the_tools() {
    let (_dir, db) = temp_db();
    let prepared = prepare(&fixture(), &db).unwrap();
    let codebase = &prepared.codebase;
    assert_eq!(
        prepared.stats.entities,
        codebase.directories.len() + codebase.files.len() + codebase.scopes.len()
    );
    let parents = codebase
        .scopes
        .iter()
        .filter(|s| s.parent.is_some())
        .count();
    assert_eq!(
        prepared.stats.relationships,
        codebase.files.len() + codebase.scopes.len() + parents + codebase.calls.len()
    );

    let registry = &prepared.registry;
    let bump_twice = uuid_of(codebase, "bump_twice", ScopeKind::Method);
    let called = registry
        .call(
            "explore_relationships",
            json!({
                "start_entity_type": "Scope",
                "start_conditions": [{"field": "uuid", "operator": "=", "value": bump_twice}],
                "relationship_type": "CALLS",
                "direction": "outgoing"
            }),
        )
        .await
        .unwrap();
    let mut names: Vec<&str> = called["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["record"]["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["bump", "reset_to"]);

    let impl_counter = uuid_of(codebase, "impl Counter", ScopeKind::Impl);
    let read = registry
        .call(
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": [impl_counter], "with_children": true}),
        )
        .await
        .unwrap();
    let children = read["results"][0]["children"].as_array().unwrap();
    assert_eq!(children.len(), 3);

    let in_text = registry
        .call(
            "explore_relationships",
            json!({
                "start_entity_type": "File",
                "start_conditions": [{"field": "path", "operator": "=", "value": "src/util/text.rs"}],
                "relationship_type": "DEFINED_IN",
                "direction": "incoming"
            }),
        )
        .await
        .unwrap();
    assert_eq!(in_text["total"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scope_loc_counts_code_lines_by_hand() {
    let (_dir, db) = temp_db();
    let prepared = prepare(&fixture(), &db).unwrap();
    let registry = &prepared.registry;

    // count_me spans lines 3-15 of src/util/text.rs; counted by hand, 8 of them hold code
    // (the fn line, `let url`, `let total`, `let c`, both lines of the raw string, the sum,
    // the closing brace); the rest are blank or comments.
    let answer = registry
        .call("scope_loc", json!({"name": "count_me"}))
        .await
        .unwrap();
    assert_eq!(answer["total"], 1);
    assert_eq!(answer["scopes"][0]["line_count"], 13);
    assert_eq!(answer["scopes"][0]["code_lines"], 8);

    // `helper` is defined twice; `file` narrows it to one
    let both = registry
        .call("scope_loc", json!({"name": "helper"}))
        .await
        .unwrap();
    assert_eq!(both["total"], 2);
    let one = registry
        .call(
            "scope_loc",
            json!({"name": "helper", "file": "src/util/text.rs"}),
        )
        .await
        .unwrap();
    assert_eq!(one["total"], 1);
    assert_eq!(one["scopes"][0]["code_lines"], 1);

    // the enum: 6 lines, 4 of code (two doc comments)
    let shape = registry
        .call("scope_loc", json!({"name": "Shape"}))
        .await
        .unwrap();
    assert_eq!(shape["scopes"][0]["line_count"], 6);
    assert_eq!(shape["scopes"][0]["code_lines"], 4);

    let missing = registry
        .call("scope_loc", json!({"name": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    assert!(missing.message.contains("`nope`"), "{}", missing.message);

    let invalid = registry
        .call("scope_loc", json!({"name": 3}))
        .await
        .unwrap_err();
    assert_eq!(invalid.code, ErrorCode::InvalidArguments);
}
