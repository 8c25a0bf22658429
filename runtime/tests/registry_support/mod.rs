//! Hand-written tools used as fixtures by the registry, batch and dialect tests.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolforge::{Tool, ToolContext, ToolDefinition, ToolError, ToolFuture};

/// A definition with the given name and input schema.
pub fn definition(name: &str, input_schema: Value) -> ToolDefinition {
    ToolDefinition {
        name: name.to_owned(),
        title: None,
        description: format!("Fixture tool `{name}`."),
        input_schema,
        output_schema: None,
        annotations: Default::default(),
        capabilities: vec![],
        keywords: vec![],
    }
}

/// Returns its arguments unchanged.
pub struct Echo(pub ToolDefinition);

impl Echo {
    pub fn named(name: &str) -> Self {
        Echo(definition(name, json!({"type": "object"})))
    }
    pub fn with_schema(name: &str, schema: Value) -> Self {
        Echo(definition(name, schema))
    }
}

impl Tool for Echo {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { Ok(arguments) })
    }
}

/// Counts its calls in the context's [`Calls`] extension and returns the new count.
pub struct Count(pub ToolDefinition);

/// The call counter shared through the registry context.
#[derive(Default)]
pub struct Calls(pub AtomicUsize);

impl Count {
    pub fn named(name: &str) -> Self {
        Count(definition(
            name,
            json!({"type": "object", "properties": {}}),
        ))
    }
}

impl Tool for Count {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, _: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let calls = context
                .extension::<Calls>()
                .ok_or_else(|| ToolError::execution_failed("no Calls extension"))?;
            Ok(json!(calls.0.fetch_add(1, Ordering::SeqCst) + 1))
        })
    }
}

/// Sleeps `{"ms": n}` milliseconds (Tokio timer), then returns `{"slept": n}`.
pub struct Sleep(pub ToolDefinition);

impl Sleep {
    pub fn named(name: &str) -> Self {
        Sleep(definition(
            name,
            json!({
                "type": "object",
                "properties": {"ms": {"type": "integer", "minimum": 0}},
                "required": ["ms"]
            }),
        ))
    }
}

impl Tool for Sleep {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let ms = arguments["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(json!({ "slept": ms }))
        })
    }
}

/// Panics inside its future (`Panic(false)`) or while creating it (`Panic(true)`).
pub struct Panic(pub ToolDefinition, pub bool);

impl Panic {
    pub fn in_future(name: &str) -> Self {
        Panic(definition(name, json!({"type": "object"})), false)
    }
    pub fn before_future(name: &str) -> Self {
        Panic(definition(name, json!({"type": "object"})), true)
    }
}

impl Tool for Panic {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, _: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        if self.1 {
            panic!("fixture panic before the future");
        }
        Box::pin(async move {
            tokio::task::yield_now().await;
            panic!("fixture panic in the future")
        })
    }
}

/// Always fails with `execution_failed`.
pub struct Fail(pub ToolDefinition);

impl Fail {
    pub fn named(name: &str) -> Self {
        Fail(definition(name, json!({"type": "object"})))
    }
}

impl Tool for Fail {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, _: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move { Err(ToolError::execution_failed("fixture failure")) })
    }
}

/// Waits on the context's [`Gate`] barrier: finishes only when `n` calls wait at the same time.
pub struct Rendezvous(pub ToolDefinition);

/// The barrier shared through the registry context, and the peak number of calls in flight.
pub struct Gate {
    pub barrier: tokio::sync::Barrier,
    pub in_flight: AtomicUsize,
    pub peak: AtomicUsize,
}

impl Gate {
    pub fn new(n: usize) -> Self {
        Gate {
            barrier: tokio::sync::Barrier::new(n),
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }
}

impl Rendezvous {
    pub fn named(name: &str) -> Self {
        Rendezvous(definition(name, json!({"type": "object"})))
    }
}

impl Tool for Rendezvous {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, _: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let gate = context
                .extension::<Arc<Gate>>()
                .ok_or_else(|| ToolError::execution_failed("no Gate extension"))?;
            let now = gate.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            gate.peak.fetch_max(now, Ordering::SeqCst);
            gate.barrier.wait().await;
            gate.in_flight.fetch_sub(1, Ordering::SeqCst);
            Ok(json!("met"))
        })
    }
}

/// Tracks calls in flight in the context's [`Gate`] while sleeping `{"ms": n}`.
pub struct Tracked(pub ToolDefinition);

impl Tracked {
    pub fn named(name: &str) -> Self {
        Tracked(definition(name, json!({"type": "object"})))
    }
}

impl Tool for Tracked {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }
    fn call<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let gate = context
                .extension::<Arc<Gate>>()
                .ok_or_else(|| ToolError::execution_failed("no Gate extension"))?;
            let now = gate.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            gate.peak.fetch_max(now, Ordering::SeqCst);
            let ms = arguments["ms"].as_u64().unwrap_or(20);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            gate.in_flight.fetch_sub(1, Ordering::SeqCst);
            Ok(json!("done"))
        })
    }
}

/// A weather tool with a realistic schema: required city, enum unit, bounded days.
pub fn forecast() -> Echo {
    Echo::with_schema(
        "get_forecast",
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 16},
                "filters": {
                    "type": "object",
                    "properties": {"min_temp": {"type": "number"}},
                    "additionalProperties": false
                }
            },
            "required": ["city"],
            "additionalProperties": false
        }),
    )
}

/// A multi-thread runtime for tests that need real parallelism.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime")
}
