//! ToolRegistry: registration rules, lookup, validation, isolation, timeouts, shared context.

use crate::registry_support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use registry_support::*;
use serde_json::{Value, json};
use toolforge::{ErrorCode, RegistryError, Tool, ToolRegistry};

#[test]
fn tools_are_listed_in_registration_order() {
    let registry = ToolRegistry::builder()
        .register(Echo::named("zeta"))
        .unwrap()
        .register(Echo::named("alpha"))
        .unwrap()
        .register(Echo::named("mid-dle"))
        .unwrap()
        .build();
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["zeta", "alpha", "mid-dle"]
    );
    let definitions: Vec<&str> = registry
        .definitions()
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(definitions, ["zeta", "alpha", "mid-dle"]);
    assert_eq!(registry.len(), 3);
    assert!(registry.contains("alpha"));
    assert_eq!(registry.get("alpha").unwrap().definition().name, "alpha");
    assert!(registry.get("Alpha").is_none());
}

#[test]
fn standard_registry_has_batch_first_and_user_tools_after() {
    let registry = ToolRegistry::standard()
        .unwrap()
        .register(Echo::named("echo"))
        .unwrap()
        .build();
    assert_eq!(registry.names().collect::<Vec<_>>(), ["batch", "echo"]);
}

#[test]
fn duplicate_names_are_refused_and_the_first_tool_stays() {
    let mut builder = ToolRegistry::builder();
    builder.add(Arc::new(Count::named("tool"))).unwrap();
    let error = builder.add(Arc::new(Fail::named("tool"))).unwrap_err();
    assert_eq!(
        error,
        RegistryError::DuplicateName {
            name: "tool".into(),
            existing_position: 0
        }
    );
    assert!(error.to_string().contains("already registered"), "{error}");
    let registry = builder.with_extension(Calls::default()).build();
    assert_eq!(registry.len(), 1);
    let runtime = runtime();
    // The first registered tool (Count) answers, not the refused one (Fail).
    assert_eq!(
        runtime.block_on(registry.call("tool", json!({}))).unwrap(),
        json!(1)
    );
}

#[test]
fn a_user_tool_named_batch_conflicts_with_the_builtin() {
    let error = ToolRegistry::standard()
        .unwrap()
        .register(Echo::named("batch"))
        .unwrap_err();
    assert!(matches!(error, RegistryError::DuplicateName { .. }));
    let error = ToolRegistry::builder()
        .register(Echo::named("batch"))
        .unwrap()
        .with_builtins()
        .unwrap_err();
    assert!(matches!(error, RegistryError::DuplicateName { .. }));
}

#[test]
fn names_must_match_the_provider_rule() {
    let max = "a".repeat(64);
    for good in ["a", "query_entities", "get-schema", "Tool9", max.as_str()] {
        assert!(
            ToolRegistry::builder().register(Echo::named(good)).is_ok(),
            "{good}"
        );
    }
    let too_long = "a".repeat(65);
    for (bad, why) in [
        ("", "empty"),
        ("query entities", "' '"),
        ("get.schema", "'.'"),
        ("café", "'é'"),
        (too_long.as_str(), "65 characters"),
    ] {
        let error = ToolRegistry::builder()
            .register(Echo::named(bad))
            .unwrap_err();
        let RegistryError::InvalidName { source, .. } = &error else {
            panic!("expected InvalidName for {bad:?}, got {error:?}");
        };
        let reason = source.to_string();
        assert!(reason.contains(why), "{bad:?}: {reason}");
        let cause = std::error::Error::source(&error).map(ToString::to_string);
        assert_eq!(cause, Some(reason), "the reason is the error's source");
    }
}

#[test]
fn input_schemas_that_cannot_describe_arguments_are_refused() {
    let error = ToolRegistry::builder()
        .register(Echo::with_schema("t", json!({"type": "string"})))
        .unwrap_err();
    let RegistryError::InvalidSchema { source, .. } = &error else {
        panic!("{error:?}");
    };
    let reason = source.to_string();
    assert!(reason.contains("must describe a JSON object"), "{reason}");
    let error = ToolRegistry::builder()
        .register(Echo::with_schema(
            "t",
            json!({"type": "object", "properties": {"a": {"type": "no-such-type"}}}),
        ))
        .unwrap_err();
    assert!(
        matches!(error, RegistryError::InvalidSchema { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn valid_arguments_reach_the_handler() {
    let registry = ToolRegistry::builder()
        .register(forecast())
        .unwrap()
        .build();
    let arguments = json!({"city": "Lyon", "unit": "celsius", "days": 3});
    assert_eq!(
        registry
            .call("get_forecast", arguments.clone())
            .await
            .unwrap(),
        arguments
    );
}

fn problems(error: &toolforge::ToolError) -> Vec<Value> {
    assert_eq!(error.code, ErrorCode::InvalidArguments, "{error:?}");
    error.details.as_ref().unwrap()["problems"]
        .as_array()
        .unwrap()
        .clone()
}

/// A megabyte value is quoted in a few dozen characters (the messages quoted it whole, sixteen
/// times, and took seconds to write), and arguments over 64 KiB get their first problem only.
#[tokio::test]
async fn problems_quote_given_values_briefly_and_large_arguments_get_one_problem() {
    let registry = ToolRegistry::builder()
        .register(forecast())
        .unwrap()
        .build();
    let huge = "k".repeat(1 << 20);
    let error = registry
        .call("get_forecast", json!({"city": "Lyon", "unit": huge}))
        .await
        .unwrap_err();
    let problem = &problems(&error)[0];
    assert_eq!(problem["path"], "/unit");
    let message = problem["message"].as_str().unwrap();
    assert!(message.len() < 400, "{} bytes", message.len());
    assert!(message.ends_with('…'), "{message}");
    assert!(serde_json::to_string(&error.to_json()).unwrap().len() < 4_096);

    let error = registry
        .call(
            "get_forecast",
            json!({"city": "Lyon", "unit": "kelvin", "days": "three", "extra": huge}),
        )
        .await
        .unwrap_err();
    assert_eq!(problems(&error).len(), 1, "{error}");
}

#[tokio::test]
async fn invalid_arguments_name_the_path_and_what_was_expected() {
    let registry = ToolRegistry::builder()
        .register(forecast())
        .unwrap()
        .build();

    let error = registry
        .call("get_forecast", json!({"unit": "celsius"}))
        .await
        .unwrap_err();
    let problems_found = problems(&error);
    assert_eq!(problems_found[0]["path"], "/city");
    assert_eq!(problems_found[0]["keyword"], "required");
    assert!(
        error.message.contains("`/city` is required"),
        "{}",
        error.message
    );

    let error = registry
        .call("get_forecast", json!({"city": "Lyon", "unit": "kelvin"}))
        .await
        .unwrap_err();
    let problem = &problems(&error)[0];
    assert_eq!(problem["path"], "/unit");
    assert_eq!(problem["allowed"], json!(["celsius", "fahrenheit"]));
    assert!(problem["message"].as_str().unwrap().contains("kelvin"));

    let error = registry
        .call("get_forecast", json!({"city": 42}))
        .await
        .unwrap_err();
    let problem = &problems(&error)[0];
    assert_eq!(problem["path"], "/city");
    assert_eq!(problem["expected"], json!(["string"]));
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("got an integer")
    );

    let error = registry
        .call("get_forecast", json!({"city": "Lyon", "days": 30}))
        .await
        .unwrap_err();
    let problem = &problems(&error)[0];
    assert_eq!(problem["path"], "/days");
    assert_eq!(problem["expected"], json!({"maximum": 16}));

    let error = registry
        .call(
            "get_forecast",
            json!({"city": "Lyon", "filters": {"min_tmp": 3}}),
        )
        .await
        .unwrap_err();
    let problem = &problems(&error)[0];
    assert_eq!(problem["path"], "/filters");
    assert_eq!(problem["unexpected"], json!(["min_tmp"]));
    assert_eq!(problem["allowed"], json!(["min_temp"]));
    assert_eq!(problem["did_you_mean"], json!({"min_tmp": "min_temp"}));
}

#[tokio::test]
async fn every_problem_is_reported_at_once() {
    let registry = ToolRegistry::builder()
        .register(forecast())
        .unwrap()
        .build();
    let error = registry
        .call("get_forecast", json!({"unit": "kelvin", "days": 0}))
        .await
        .unwrap_err();
    let mut paths: Vec<String> = problems(&error)
        .iter()
        .map(|p| p["path"].as_str().unwrap().to_owned())
        .collect();
    paths.sort();
    assert_eq!(paths, ["/city", "/days", "/unit"]);
    let json = error.to_json();
    assert_eq!(json["error"], "invalid_arguments");
    assert_eq!(json["details"]["problems"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn arguments_may_be_null_or_a_json_string() {
    let registry = ToolRegistry::builder()
        .register(Echo::named("free"))
        .unwrap()
        .register(forecast())
        .unwrap()
        .build();
    assert_eq!(registry.call("free", Value::Null).await.unwrap(), json!({}));
    assert_eq!(
        registry
            .call("get_forecast", json!("{\"city\": \"Oslo\"}"))
            .await
            .unwrap(),
        json!({"city": "Oslo"})
    );
    let error = registry.call("free", json!([1, 2])).await.unwrap_err();
    assert_eq!(problems(&error)[0]["expected"], "object");
    let error = registry.call("free", json!("not json")).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
}

#[tokio::test]
async fn unknown_names_are_answered_with_candidates_and_never_run() {
    let registry = ToolRegistry::builder()
        .register(Count::named("query_entities"))
        .unwrap()
        .register(Echo::named("get_schema"))
        .unwrap()
        .with_extension(Calls::default())
        .build();
    let error = registry.call("query_entites", json!({})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownTool);
    assert_eq!(
        error.details.as_ref().unwrap(),
        &json!({"requested": "query_entites", "candidates": ["query_entities"]})
    );
    // A case-only difference is still not executed.
    let error = registry
        .call("Query_Entities", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownTool);
    assert_eq!(
        error.details.unwrap()["candidates"],
        json!(["query_entities"])
    );
    let calls = registry.context().extension::<Calls>().unwrap();
    assert_eq!(
        calls.0.load(Ordering::SeqCst),
        0,
        "a fuzzy match must never run"
    );
    // The exact name runs.
    assert_eq!(
        registry.call("query_entities", json!({})).await.unwrap(),
        json!(1)
    );
}

#[tokio::test]
async fn a_panicking_tool_is_contained_and_the_registry_keeps_working() {
    let registry = ToolRegistry::builder()
        .register(Panic::in_future("boom"))
        .unwrap()
        .register(Panic::before_future("boom_early"))
        .unwrap()
        .register(Echo::named("echo"))
        .unwrap()
        .build();
    for name in ["boom", "boom_early"] {
        let error = registry.call(name, json!({})).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::Panicked, "{name}");
        assert!(error.message.contains("fixture panic"), "{}", error.message);
        assert_eq!(error.to_json()["error"], "panicked");
    }
    assert_eq!(
        registry.call("echo", json!({"x": 1})).await.unwrap(),
        json!({"x": 1})
    );
    // And again: nothing was poisoned.
    assert_eq!(
        registry.call("boom", json!({})).await.unwrap_err().code,
        ErrorCode::Panicked
    );
}

#[tokio::test]
async fn a_slow_call_times_out_and_a_fast_one_does_not() {
    let registry = ToolRegistry::builder()
        .register(Sleep::named("sleep"))
        .unwrap()
        .with_timeout(Duration::from_millis(50))
        .build();
    assert_eq!(registry.timeout(), Some(Duration::from_millis(50)));
    let error = registry
        .call("sleep", json!({"ms": 5_000}))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::Timeout);
    assert_eq!(error.details.unwrap()["timeout_ms"], 50);
    assert_eq!(
        registry.call("sleep", json!({"ms": 0})).await.unwrap(),
        json!({"slept": 0})
    );
}

#[tokio::test]
async fn handler_errors_come_back_structured() {
    let registry = ToolRegistry::builder()
        .register(Fail::named("fail"))
        .unwrap()
        .build();
    let error = registry.call("fail", json!({})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::ExecutionFailed);
    assert_eq!(
        error.to_json(),
        json!({"error": "execution_failed", "message": "fixture failure"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_calls_share_one_registry_and_context() {
    let registry = ToolRegistry::standard()
        .unwrap()
        .register(Count::named("count"))
        .unwrap()
        .register(forecast())
        .unwrap()
        .register(Panic::in_future("boom"))
        .unwrap()
        .with_extension(Calls::default())
        .build();
    let mut tasks = Vec::new();
    for i in 0..300 {
        let registry = Arc::clone(&registry);
        tasks.push(tokio::spawn(async move {
            match i % 3 {
                0 => registry.call("count", json!({})).await.map(|_| "count"),
                1 => registry
                    .call("get_forecast", json!({"city": format!("c{i}")}))
                    .await
                    .map(|value| {
                        assert_eq!(value["city"], format!("c{i}"));
                        "forecast"
                    }),
                _ => {
                    let error = registry.call("boom", json!({})).await.unwrap_err();
                    assert_eq!(error.code, ErrorCode::Panicked);
                    Ok("boom")
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    let calls = registry.context().extension::<Calls>().unwrap();
    assert_eq!(calls.0.load(Ordering::SeqCst), 100);
}

#[test]
fn the_registry_is_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ToolRegistry>();
    assert_send_sync::<Arc<dyn Tool>>();
}

#[tokio::test]
async fn nulls_for_optional_non_nullable_properties_count_as_absent() {
    let schema = json!({
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "opts": {"$ref": "#/$defs/Opts"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Opts"}}
        },
        "required": ["q"],
        "$defs": {"Opts": {
            "type": "object",
            "properties": {"depth": {"type": "integer"}, "note": {"type": ["string", "null"]}},
            "additionalProperties": false
        }}
    });
    let registry = ToolRegistry::builder()
        .register(Echo::with_schema("find", schema))
        .unwrap()
        .build();
    let received = registry
        .call(
            "find",
            json!({"q": "x", "opts": {"depth": null, "note": null},
                   "items": [{"depth": null}, {"depth": 2}]}),
        )
        .await
        .unwrap();
    assert_eq!(
        received,
        json!({"q": "x", "opts": {"note": null}, "items": [{}, {"depth": 2}]})
    );
    // A null for a required property is still reported (and only that: `opts` is dropped).
    let error = registry
        .call("find", json!({"q": null, "opts": null}))
        .await
        .unwrap_err();
    let paths: Vec<Value> = problems(&error).iter().map(|p| p["path"].clone()).collect();
    assert_eq!(paths, [json!("/q")]);
}
