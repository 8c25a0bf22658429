//! Registry overhead: dispatch vs a direct handler call, lookup among 10,000 tools, a batch
//! of 8 calls that each wait 10 ms, and the answer-size cap measured on a 20-record answer.
//!
//! Run with `cargo bench -p toolforge-runtime --bench registry`.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use divan::{Bencher, black_box};
use serde_json::{Value, json};
use toolforge::{
    CallLimits, Tool, ToolContext, ToolDefinition, ToolFuture, ToolRegistry, ToolResult,
};

fn main() {
    divan::main();
}

struct Echo(ToolDefinition);

impl Tool for Echo {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { Ok(arguments) })
    }
}

struct Sleep(ToolDefinition);

impl Tool for Sleep {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, _: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            Ok(json!("slept"))
        })
    }
}

fn definition(name: &str, input_schema: Value) -> ToolDefinition {
    ToolDefinition {
        name: name.to_owned(),
        title: None,
        description: "Benchmark tool.".into(),
        input_schema,
        output_schema: None,
        annotations: Default::default(),
        capabilities: vec![],
        keywords: vec![],
    }
}

fn search_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn arguments() -> Value {
    json!({"query": "rust", "limit": 10, "unit": "celsius"})
}

/// Polls a future that completes without waiting (every handler here does).
fn ready<F: Future<Output = ToolResult>>(future: F) -> ToolResult {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(result) => result,
        Poll::Pending => panic!("the benchmark handler is expected to complete at once"),
    }
}

mod dispatch {
    use super::*;

    #[divan::bench]
    fn direct_handler(bencher: Bencher) {
        let tool = Echo(definition("search", search_schema()));
        let context = ToolContext::new();
        let args = arguments();
        bencher.bench_local(|| ready(tool.call(black_box(args.clone()), &context)));
    }

    #[divan::bench]
    fn registry_without_schema(bencher: Bencher) {
        let registry = ToolRegistry::builder()
            .register(Echo(definition("search", json!({"type": "object"}))))
            .unwrap()
            .build();
        let args = arguments();
        bencher.bench_local(|| ready(registry.call(black_box("search"), black_box(args.clone()))));
    }

    #[divan::bench]
    fn registry_with_validation(bencher: Bencher) {
        let registry = ToolRegistry::builder()
            .register(Echo(definition("search", search_schema())))
            .unwrap()
            .build();
        let args = arguments();
        bencher.bench_local(|| ready(registry.call(black_box("search"), black_box(args.clone()))));
    }
}

/// What checking the answer-size cap costs: a call whose handler gives a 20-record answer
/// (the shape and size of a relationship hop's page), with the default cap, against the same
/// call with no cap (the baseline).
mod answer_cap {
    use super::*;

    /// A tool that answers with a copy of its page.
    struct Page(ToolDefinition, Value);

    impl Tool for Page {
        fn definition(&self) -> &ToolDefinition {
            &self.0
        }
        fn call<'a>(&'a self, _: Value, _: &'a ToolContext) -> ToolFuture<'a> {
            Box::pin(async move { Ok(self.1.clone()) })
        }
    }

    fn page() -> Value {
        let results: Vec<Value> = (0..20)
            .map(|i| {
                json!({
                    "from": "ada-lovelace",
                    "relationship": "(Book)-[:WRITTEN_BY]->(Author)",
                    "direction": "incoming",
                    "entity_type": "Book",
                    "record": {
                        "isbn": format!("978-0-{i:06}-00-1"),
                        "title": format!("Notes on the \"Analytical Engine\", part {i}"),
                        "genre": "science",
                        "year": 1843 + i,
                        "pages": 120 + 7 * i,
                        "blurb": "A translation of Menabrea's memoir, with notes longer than the \
                                  memoir itself: the first published program, for Bernoulli \
                                  numbers, and the machine's reach beyond arithmetic.",
                    }
                })
            })
            .collect();
        json!({
            "start_entity_type": "Author",
            "relationship_type": "WRITTEN_BY",
            "results": results,
            "total": 20,
            "offset": 0,
            "has_more": false
        })
    }

    fn registry(limits: CallLimits) -> Arc<ToolRegistry> {
        ToolRegistry::builder()
            .register(Page(definition("hop", json!({"type": "object"})), page()))
            .unwrap()
            .with_limits(limits)
            .build()
    }

    #[divan::bench]
    fn uncapped(bencher: Bencher) {
        let registry = registry(CallLimits::UNLIMITED);
        bencher.bench_local(|| ready(registry.call(black_box("hop"), json!({}))));
    }

    #[divan::bench]
    fn capped(bencher: Bencher) {
        // The default cap, without the deadline (a deadline needs a Tokio runtime).
        let registry = registry(
            CallLimits::UNLIMITED.max_answer_bytes(CallLimits::default().max_answer_bytes),
        );
        bencher.bench_local(|| ready(registry.call(black_box("hop"), json!({}))));
    }
}

mod lookup {
    use super::*;

    fn big_registry() -> (Arc<ToolRegistry>, Vec<String>) {
        let mut builder = ToolRegistry::builder();
        let names: Vec<String> = (0..10_000).map(|i| format!("tool_{i:05}")).collect();
        for name in &names {
            builder
                .add(Arc::new(Echo(definition(name, json!({"type": "object"})))))
                .unwrap();
        }
        (builder.build(), names)
    }

    #[divan::bench]
    fn get_among_10_000(bencher: Bencher) {
        let (registry, names) = big_registry();
        let mut i = 0usize;
        bencher.bench_local(|| {
            i = (i + 7_919) % names.len();
            black_box(registry.get(black_box(&names[i])).is_some())
        });
    }

    #[divan::bench]
    fn unknown_name_among_10_000(bencher: Bencher) {
        let (registry, _) = big_registry();
        bencher.bench_local(|| ready(registry.call(black_box("tool_1234x"), json!({}))));
    }
}

mod batch {
    use super::*;

    fn setup() -> (tokio::runtime::Runtime, Arc<ToolRegistry>, Value) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let registry = ToolRegistry::standard()
            .unwrap()
            .register(Sleep(definition("sleep", json!({"type": "object"}))))
            .unwrap()
            .build();
        let calls: Vec<Value> = (0..8).map(|_| json!({"tool": "sleep"})).collect();
        (runtime, registry, json!({ "calls": calls }))
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn eight_calls_of_10ms_in_one_batch(bencher: Bencher) {
        let (runtime, registry, input) = setup();
        bencher.bench_local(|| {
            runtime
                .block_on(registry.call("batch", input.clone()))
                .unwrap()
        });
    }

    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn eight_calls_of_10ms_one_after_another(bencher: Bencher) {
        let (runtime, registry, _) = setup();
        bencher.bench_local(|| {
            runtime.block_on(async {
                for _ in 0..8 {
                    registry.call("sleep", json!({})).await.unwrap();
                }
            })
        });
    }
}
