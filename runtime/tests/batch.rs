//! BatchTool: parallel calls through a Weak registry, call order, isolation, limits.

use crate::registry_support;

use std::sync::Arc;
use std::time::Duration;

use registry_support::*;
use serde_json::{Value, json};
use toolforge::{BatchConfig, ErrorCode, ToolRegistry};

fn registry(config: BatchConfig) -> Arc<ToolRegistry> {
    ToolRegistry::builder()
        .with_batch(config)
        .unwrap()
        .register(Sleep::named("sleep"))
        .unwrap()
        .register(Echo::named("echo"))
        .unwrap()
        .register(forecast())
        .unwrap()
        .register(Panic::in_future("boom"))
        .unwrap()
        .register(Fail::named("fail"))
        .unwrap()
        .build()
}

/// Runs a batch; its answer must match the batch tool's `outputSchema`.
async fn batch(registry: &ToolRegistry, calls: Value) -> Vec<Value> {
    let output = registry
        .call("batch", json!({ "calls": calls }))
        .await
        .unwrap();
    let problems = output_problems(registry, &output);
    assert!(problems.is_empty(), "{problems:?}\n{output:#}");
    output["results"].as_array().unwrap().clone()
}

/// Where `answer` departs from the batch tool's `outputSchema`.
fn output_problems(registry: &ToolRegistry, answer: &Value) -> Vec<String> {
    let schema = registry
        .get("batch")
        .unwrap()
        .definition()
        .output_schema
        .clone();
    let validator = jsonschema::validator_for(&schema.expect("batch has an outputSchema")).unwrap();
    validator
        .iter_errors(answer)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect()
}

#[test]
fn the_output_schema_rejects_answers_of_another_shape() {
    let registry = registry(BatchConfig::default());
    let good = json!({"results": [
        {"tool": "echo", "ok": true, "result": {"any": "thing"}},
        {"tool": "nope", "ok": false, "error": {"error": "unknown_tool", "message": "no", "suggestions": []}},
    ]});
    assert_eq!(output_problems(&registry, &good), Vec::<String>::new());
    for bad in [
        json!({"results": [{"tool": "echo", "ok": true}]}),
        json!({"results": [{"tool": "echo", "ok": false, "result": 1}]}),
        json!({"results": [{"tool": "echo", "ok": false, "error": {"error": "oops", "message": "m"}}]}),
        json!({"results": [{"tool": "echo", "ok": true, "result": 1, "error": {}}]}),
        json!({"answers": []}),
    ] {
        assert!(
            !output_problems(&registry, &bad).is_empty(),
            "accepted {bad}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_come_back_in_call_order() {
    let registry = registry(BatchConfig::default());
    // The first call finishes last.
    let results = batch(
        &registry,
        json!([
            {"tool": "sleep", "args": {"ms": 60}},
            {"tool": "sleep", "args": {"ms": 30}},
            {"tool": "sleep", "args": {"ms": 0}},
        ]),
    )
    .await;
    let slept: Vec<&Value> = results.iter().map(|r| &r["result"]["slept"]).collect();
    assert_eq!(slept, [&json!(60), &json!(30), &json!(0)]);
    for result in &results {
        assert_eq!(result["tool"], "sleep");
        assert_eq!(result["ok"], true);
    }
}

#[tokio::test]
async fn both_call_spellings_are_accepted_and_args_default_to_empty() {
    let registry = registry(BatchConfig::default());
    let results = batch(
        &registry,
        json!([
            {"tool": "echo", "args": {"a": 1}},
            {"name": "echo", "arguments": {"b": 2}},
            {"tool": "echo"},
        ]),
    )
    .await;
    assert_eq!(
        results,
        [
            json!({"tool": "echo", "ok": true, "result": {"a": 1}}),
            json!({"tool": "echo", "ok": true, "result": {"b": 2}}),
            json!({"tool": "echo", "ok": true, "result": {}}),
        ]
    );
}

#[tokio::test]
async fn one_failure_never_cancels_the_others() {
    let registry = registry(BatchConfig::default());
    let results = batch(
        &registry,
        json!([
            {"tool": "boom"},
            {"tool": "echo", "args": {"still": "here"}},
            {"tool": "fail"},
            {"tool": "get_forecast", "args": {"unit": "kelvin"}},
            {"tool": "sleep", "args": {"ms": 10}},
            {"args": {"no": "name"}},
        ]),
    )
    .await;
    assert_eq!(results.len(), 6);
    assert_eq!(results[0]["ok"], false);
    assert_eq!(results[0]["error"]["error"], "panicked");
    assert_eq!(results[1]["result"], json!({"still": "here"}));
    assert_eq!(results[2]["error"]["error"], "execution_failed");
    assert_eq!(results[3]["error"]["error"], "invalid_arguments");
    let problems = results[3]["error"]["details"]["problems"]
        .as_array()
        .unwrap();
    assert!(problems.iter().any(|p| p["path"] == "/city"));
    assert_eq!(results[4]["result"], json!({"slept": 10}));
    assert_eq!(results[5]["ok"], false);
    assert_eq!(results[5]["error"]["details"]["path"], "/calls/5/tool");
}

#[tokio::test]
async fn nested_batches_are_refused_per_call() {
    let registry = registry(BatchConfig::default());
    let results = batch(
        &registry,
        json!([
            {"tool": "batch", "args": {"calls": [{"tool": "echo"}]}},
            {"tool": "echo", "args": {"x": 1}},
        ]),
    )
    .await;
    assert_eq!(results[0]["tool"], "batch");
    assert_eq!(results[0]["ok"], false);
    assert_eq!(results[0]["error"]["error"], "unavailable");
    assert!(
        results[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot contain another `batch`")
    );
    assert_eq!(results[1]["result"], json!({"x": 1}));
}

#[tokio::test]
async fn unknown_names_get_the_invalid_tool_payload_per_call() {
    let registry = registry(BatchConfig::default());
    let results = batch(
        &registry,
        json!([{"tool": "eco", "args": {}}, {"tool": "echo", "args": {}}]),
    )
    .await;
    assert_eq!(
        results[0],
        json!({
            "tool": "eco",
            "ok": false,
            "error": registry.invalid_tool().payload("eco"),
        })
    );
    assert_eq!(results[0]["error"]["error"], "unknown_tool");
    assert_eq!(results[0]["error"]["candidates"][0], "echo");
    assert_eq!(results[1]["ok"], true);
}

#[tokio::test]
async fn the_number_of_calls_is_capped() {
    let registry = registry(BatchConfig::default().max_calls(2));
    let calls = json!({"calls": [{"tool": "echo"}, {"tool": "echo"}, {"tool": "echo"}]});
    let error = registry.call("batch", calls).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    assert!(error.message.contains("at most 2"), "{}", error.message);
    let error = registry
        .call("batch", json!({"calls": []}))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
    let error = registry.call("batch", json!({})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArguments);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_really_run_at_the_same_time() {
    // Each call waits until all three are waiting: only parallel execution can finish.
    let gate = Arc::new(Gate::new(3));
    let registry = ToolRegistry::standard()
        .unwrap()
        .register(Rendezvous::named("meet"))
        .unwrap()
        .with_extension(Arc::clone(&gate))
        .build();
    let results = tokio::time::timeout(
        Duration::from_secs(20),
        batch(
            &registry,
            json!([{"tool": "meet"}, {"tool": "meet"}, {"tool": "meet"}]),
        ),
    )
    .await
    .expect("the three calls did not run concurrently");
    assert!(results.iter().all(|r| r["result"] == "met"), "{results:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_is_capped() {
    let gate = Arc::new(Gate::new(1));
    let registry = ToolRegistry::builder()
        .with_batch(BatchConfig::default().max_concurrency(2))
        .unwrap()
        .register(Tracked::named("tracked"))
        .unwrap()
        .with_extension(Arc::clone(&gate))
        .build();
    let calls: Vec<Value> = (0..6)
        .map(|_| json!({"tool": "tracked", "args": {"ms": 20}}))
        .collect();
    let results = batch(&registry, Value::Array(calls)).await;
    assert!(results.iter().all(|r| r["ok"] == true), "{results:?}");
    let peak = gate.peak.load(std::sync::atomic::Ordering::SeqCst);
    assert!(peak <= 2, "{peak} calls ran at once with a cap of 2");
}

#[tokio::test]
async fn each_call_has_its_own_deadline() {
    let registry = registry(BatchConfig::default().per_call_timeout(Duration::from_millis(50)));
    let results = batch(
        &registry,
        json!([{"tool": "sleep", "args": {"ms": 10_000}}, {"tool": "sleep", "args": {"ms": 1}}]),
    )
    .await;
    assert_eq!(results[0]["ok"], false);
    assert_eq!(results[0]["error"]["error"], "timeout");
    assert_eq!(results[1]["result"], json!({"slept": 1}));
}

/// Slow calls cannot take the whole batch's deadline: each call gets a share of it when it
/// starts, the batch answers before its deadline with the results of the calls that finished,
/// and the cut calls say so (used to: the two slow calls held both places until the batch
/// itself timed out, and every result was lost).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_share_the_batch_deadline_and_the_finished_ones_are_answered() {
    let registry = ToolRegistry::builder()
        .with_batch(BatchConfig::default().max_concurrency(2))
        .unwrap()
        .register(Sleep::named("sleep"))
        .unwrap()
        .with_tool_limits(
            "batch",
            toolforge::CallLimits::default().timeout(Some(Duration::from_millis(1_000))),
        )
        .unwrap()
        .build();
    let results = batch(
        &registry,
        json!([
            {"tool": "sleep", "args": {"ms": 60_000}},
            {"tool": "sleep", "args": {"ms": 60_000}},
            {"tool": "sleep", "args": {"ms": 1}},
            {"tool": "sleep", "args": {"ms": 1}},
        ]),
    )
    .await;
    for cut in &results[..2] {
        assert_eq!(cut["ok"], false, "{results:?}");
        let error = &cut["error"];
        assert_eq!(error["error"], "timeout", "{error}");
        assert_eq!(error["details"]["limit"], "batch_deadline", "{error}");
        assert_eq!(error["details"]["finished"], 2, "{error}");
        assert_eq!(error["details"]["calls"], 4, "{error}");
        let share = error["details"]["timeout_ms"].as_u64().unwrap();
        assert!(
            (300..=500).contains(&share),
            "a share of half the batch's time: {error}"
        );
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("its share of the batch's deadline"),
            "{message}"
        );
        assert!(message.contains("2 of 4 calls finished"), "{message}");
    }
    for done in &results[2..] {
        assert_eq!(done["result"], json!({"slept": 1}), "{results:?}");
    }
}

/// More calls than the batch's deadline can start: the first ones run (cut at their share),
/// the last ones are not started — never the other way round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calls_a_short_deadline_cannot_start_are_the_last_ones() {
    let registry = ToolRegistry::builder()
        .with_batch(BatchConfig::default().max_calls(64).max_concurrency(1))
        .unwrap()
        .register(Sleep::named("sleep"))
        .unwrap()
        .with_tool_limits(
            "batch",
            toolforge::CallLimits::default().timeout(Some(Duration::from_millis(40))),
        )
        .unwrap()
        .build();
    let calls: Vec<Value> = (0..64)
        .map(|_| json!({"tool": "sleep", "args": {"ms": 60_000}}))
        .collect();
    let results = batch(&registry, Value::Array(calls)).await;
    let not_started: Vec<bool> = results
        .iter()
        .map(|result| {
            assert_eq!(result["error"]["error"], "timeout", "{result}");
            result["error"]["message"]
                .as_str()
                .unwrap()
                .contains("was not started")
        })
        .collect();
    let first_unstarted = not_started.iter().position(|&n| n).unwrap_or(64);
    assert!(
        first_unstarted > 0,
        "the first call was not started: {results:#?}"
    );
    assert!(
        first_unstarted < 64,
        "every call started within 40 ms: {results:#?}"
    );
    assert!(
        not_started[first_unstarted..].iter().all(|&n| n),
        "a call after an unstarted one started: {not_started:?}"
    );
}

#[tokio::test]
async fn the_batch_tool_does_not_keep_its_registry_alive() {
    let registry = registry(BatchConfig::default());
    let batch_tool = Arc::clone(registry.get("batch").unwrap());
    let weak = Arc::downgrade(&registry);
    let context = registry.context().clone();
    drop(registry);
    assert!(
        weak.upgrade().is_none(),
        "the registry leaked through a cycle"
    );
    let error = batch_tool
        .call(json!({"calls": [{"tool": "echo"}]}), &context)
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::Unavailable);
    assert!(
        error.message.contains("no longer available"),
        "{}",
        error.message
    );
}

#[test]
fn batch_is_annotated_like_the_tools_it_can_reach() {
    use toolforge::dialect::{Dialect, export};
    let mut reader = definition("reader", json!({"type": "object"}));
    reader.annotations.read_only = Some(true);
    reader.annotations.open_world = Some(false);
    // Registered before the tools it reaches: the hints come from the built registry.
    let read_only = ToolRegistry::standard()
        .unwrap()
        .register(Echo(reader.clone()))
        .unwrap()
        .build();
    let batch = read_only.get("batch").unwrap().definition().clone();
    assert_eq!(
        export(&batch, Dialect::Mcp)["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    // One tool without hints may be destructive: so may the batch.
    let mixed = ToolRegistry::standard()
        .unwrap()
        .register(Echo(reader))
        .unwrap()
        .register(Echo::named("writer"))
        .unwrap()
        .build();
    let batch = mixed.get("batch").unwrap().definition().clone();
    assert_eq!(
        export(&batch, Dialect::Mcp)["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true,
               "idempotentHint": false, "openWorldHint": true})
    );
    assert_eq!(
        mixed.definitions_for(Dialect::Mcp)[0]["annotations"]["readOnlyHint"],
        false
    );
}
