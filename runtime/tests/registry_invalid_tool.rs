//! InvalidTool: the unknown-name answer is close, capped, deterministic and never executes.

use crate::registry_support;

use registry_support::Echo;
use serde_json::json;
use toolforge::{ErrorCode, InvalidTool, ToolRegistry};

const NAMES: [&str; 8] = [
    "get_schema",
    "describe_entity",
    "query_entities",
    "get_entity_by_id",
    "get_entities_by_ids",
    "explore_relationships",
    "glob_search",
    "batch",
];

#[test]
fn nearest_names_first_at_most_three() {
    let invalid = InvalidTool::new(["get_a", "get_b", "get_c", "get_d", "get_ab"]);
    // All four single-letter variants are at distance 1 from "get_x"; ties go by name.
    assert_eq!(invalid.candidates("get_x"), ["get_a", "get_b", "get_c"]);
    // Nearer wins over alphabetical order.
    assert_eq!(invalid.candidates("get_abc")[0], "get_ab");
    assert!(invalid.candidates("get_x").len() <= toolforge::builtin::MAX_CANDIDATES);
}

#[test]
fn only_reasonably_close_names_are_suggested() {
    let invalid = InvalidTool::new(NAMES);
    assert_eq!(
        invalid.candidates("get_entity_by_uuid"),
        ["get_entity_by_id", "get_entities_by_ids"]
    );
    assert_eq!(
        invalid.candidates("explore_relations"),
        ["explore_relationships"]
    );
    assert!(invalid.candidates("send_email").is_empty());
    // Short requests allow distance 2 only: "glob" is 7 edits from "glob_search".
    assert!(invalid.candidates("glob").is_empty());
    assert_eq!(invalid.candidates("bach"), ["batch"]);
    let payload = invalid.payload("send_email");
    assert_eq!(payload["candidates"], json!([]));
    assert!(
        payload["message"]
            .as_str()
            .unwrap()
            .contains("no tool named `send_email`")
    );
}

#[test]
fn the_answer_does_not_depend_on_registration_order() {
    let forward = InvalidTool::new(NAMES);
    let mut reversed_names = NAMES;
    reversed_names.reverse();
    let reversed = InvalidTool::new(reversed_names);
    for requested in [
        "get_entity",
        "query",
        "get_entities_by_id",
        "glob",
        "bach",
        "GET_SCHEMA",
    ] {
        assert_eq!(
            forward.payload(requested),
            reversed.payload(requested),
            "{requested}"
        );
    }
}

#[test]
fn payload_and_error_carry_the_same_answer() {
    let invalid = InvalidTool::new(NAMES);
    let payload = invalid.payload("glob_serch");
    assert_eq!(payload["error"], "unknown_tool");
    assert_eq!(payload["requested"], "glob_serch");
    assert_eq!(payload["candidates"], json!(["glob_search"]));
    assert!(
        payload["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `glob_search`?")
    );
    let error = invalid.error("glob_serch");
    assert_eq!(error.code, ErrorCode::UnknownTool);
    assert_eq!(
        error.details,
        Some(json!({"requested": "glob_serch", "candidates": ["glob_search"]}))
    );
    assert_eq!(error.message, payload["message"]);
}

#[tokio::test]
async fn an_exact_match_always_wins_over_close_names() {
    let registry = ToolRegistry::builder()
        .register(Echo::named("search"))
        .unwrap()
        .register(Echo::named("searc"))
        .unwrap()
        .register(Echo::named("Search"))
        .unwrap()
        .build();
    for name in ["search", "searc", "Search"] {
        assert_eq!(
            registry.call(name, json!({"who": name})).await.unwrap(),
            json!({"who": name})
        );
    }
    let error = registry.call("SEARCH", json!({})).await.unwrap_err();
    assert_eq!(
        error.details.unwrap()["candidates"],
        json!(["Search", "search", "searc"])
    );
}
