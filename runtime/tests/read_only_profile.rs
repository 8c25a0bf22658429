//! The read-only profile of a registry: tools whose annotations do not say they are read-only
//! are not listed, not callable, not reachable in `batch` and never suggested.

use crate::registry_support;

use registry_support::*;
use serde_json::{Value, json};
use toolforge::dialect::Dialect;
use toolforge::{CallLimits, ErrorCode, RegistryBuilder, ToolRegistry};

fn echo(name: &str, read_only: Option<bool>) -> Echo {
    let mut tool = Echo::named(name);
    tool.0.annotations.read_only = read_only;
    tool
}

fn mixed() -> RegistryBuilder {
    ToolRegistry::standard()
        .unwrap()
        .register(echo("read_notes", Some(true)))
        .unwrap()
        .register(echo("write_note", Some(false)))
        .unwrap()
        .register(echo("unmarked_tool", None))
        .unwrap()
        .with_tool_limits("write_note", CallLimits::default())
        .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn candidates(error: &toolforge::ToolError) -> Vec<String> {
    serde_json::from_value(error.details.as_ref().unwrap()["candidates"].clone()).unwrap()
}

#[test]
fn only_read_only_tools_and_batch_are_listed() {
    let registry = mixed().read_only().build();
    assert!(registry.is_read_only());
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["batch", "read_notes"]
    );
    let exported: Vec<Value> = registry.definitions_for(Dialect::Mcp);
    let names: Vec<&str> = exported
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["batch", "read_notes"]);
    // `batch` reaches only read-only tools, so it says so.
    let batch = registry.get("batch").unwrap().definition();
    assert_eq!(batch.annotations.read_only, Some(true));
    // The full registry's batch does not.
    let full = mixed().build();
    assert_eq!(full.len(), 4);
    assert!(!full.is_read_only());
    let batch = full.get("batch").unwrap().definition();
    assert_eq!(batch.annotations.read_only, Some(false));
}

#[test]
fn a_dropped_tool_is_unknown_by_name_and_never_suggested() {
    let registry = mixed().read_only().build();
    let runtime = runtime();
    for name in ["write_note", "unmarked_tool"] {
        let error = runtime
            .block_on(registry.call(name, json!({})))
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::UnknownTool, "{name}");
        assert!(!candidates(&error).iter().any(|c| c == name), "{error:?}");
    }
    let error = runtime
        .block_on(registry.call("write_not", json!({})))
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownTool);
    assert!(
        candidates(&error).iter().all(|c| c != "write_note"),
        "{error:?}"
    );
    // The full registry suggests it: the profile is what hides it.
    let full = mixed().build();
    let error = runtime
        .block_on(full.call("write_not", json!({})))
        .unwrap_err();
    assert!(candidates(&error).iter().any(|c| c == "write_note"));
    assert_eq!(
        runtime
            .block_on(registry.call("read_notes", json!({"a": 1})))
            .unwrap(),
        json!({"a": 1})
    );
}

#[test]
fn batch_cannot_reach_a_dropped_tool() {
    let registry = mixed().read_only().build();
    let answer = runtime()
        .block_on(registry.call(
            "batch",
            json!({"calls": [
                {"tool": "read_notes", "args": {"n": 1}},
                {"tool": "write_note", "args": {"n": 2}},
            ]}),
        ))
        .unwrap();
    let results = answer["results"].as_array().unwrap();
    assert_eq!(results[0]["result"], json!({"n": 1}));
    assert_eq!(results[1]["ok"], false, "{answer}");
    assert_eq!(results[1]["error"]["error"], "unknown_tool", "{answer}");
    assert_eq!(results[1]["error"]["candidates"], json!([]), "{answer}");
}

#[test]
fn the_profile_stays_with_the_registry() {
    let registry = mixed().read_only().build();
    let again = registry
        .to_builder()
        .register(echo("erase_all", Some(false)))
        .unwrap()
        .register(echo("count_notes", Some(true)))
        .unwrap()
        .build();
    assert!(again.is_read_only());
    assert_eq!(
        again.names().collect::<Vec<_>>(),
        ["batch", "read_notes", "count_notes"]
    );
    // The same profile from a built registry.
    let from_built = mixed().build().read_only();
    assert_eq!(
        from_built.names().collect::<Vec<_>>(),
        ["batch", "read_notes"]
    );
    // Limits of a dropped tool go with it.
    assert!(
        from_built
            .to_builder()
            .with_tool_limits("write_note", CallLimits::default())
            .is_err()
    );
}
