//! `batch`: several tool calls in one, run in parallel.
//!
//! Input: `{"calls": [{"tool": "get_schema", "args": {}}, {"name": "glob_search", "arguments":
//! {...}}]}` (`tool`/`args` and `name`/`arguments` are both accepted, a missing `args` means
//! `{}`). Output: `{"results": [...]}` in call order, each `{"tool": …, "ok": true, "result": …}`
//! or `{"tool": …, "ok": false, "error": {…}}`. One failing call never cancels the others.
//!
//! Every call goes through the registry (argument validation, panic isolation, the called
//! tool's limits, kept within the batch's own: its deadline and answer cap) plus the batch's
//! own per-call timeout. The calls share the batch's deadline: each gets, when it starts, the
//! time left divided by the rounds still to run, so a slow call cannot starve the ones after
//! it; the batch answers just before its deadline with every call that finished, and each cut
//! call's `timeout` error says how many finished. The whole answer stays within the batch's answer cap: in call order,
//! a result that does not fit is replaced by a `too_large` error. A call of `batch` itself is refused, and an
//! unknown name is answered with the unknown-tool payload (see [`crate::InvalidTool`]).
//!
//! The tool holds only a [`Weak`] reference to its registry (set when the registry is built),
//! so there is no reference cycle; once the registry is gone the tool answers `unavailable`.
//! The calls are spawned as Tokio tasks, so `batch` needs a Tokio runtime.

use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::limits::{json_len, timed_out};
use crate::registry::RegistryBound;
use crate::{
    CallBudget, ErrorCode, RegistryBuilder, RegistryError, Tool, ToolAnnotations, ToolContext,
    ToolDefinition, ToolError, ToolFuture, ToolRegistry,
};

/// The name the batch tool is registered under.
pub const BATCH_TOOL_NAME: &str = "batch";

/// Limits of a [`BatchTool`].
///
/// ```
/// use std::time::Duration;
/// use toolforge::BatchConfig;
/// let config = BatchConfig::default().max_calls(4).per_call_timeout(Duration::from_secs(5));
/// assert_eq!(config.max_calls, 4);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchConfig {
    /// The most calls one batch may contain (default 16); more is an `invalid_arguments` error.
    pub max_calls: usize,
    /// The most calls running at the same time (default 8).
    pub max_concurrency: usize,
    /// The deadline of each call (default 30 s); an overrun fails that call with `timeout`.
    pub per_call_timeout: Duration,
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig {
            max_calls: 16,
            max_concurrency: 8,
            per_call_timeout: Duration::from_secs(30),
        }
    }
}

impl BatchConfig {
    /// Sets [`BatchConfig::max_calls`] (at least 1).
    pub fn max_calls(mut self, max_calls: usize) -> Self {
        self.max_calls = max_calls.max(1);
        self
    }

    /// Sets [`BatchConfig::max_concurrency`] (at least 1).
    pub fn max_concurrency(mut self, max_concurrency: usize) -> Self {
        self.max_concurrency = max_concurrency.max(1);
        self
    }

    /// Sets [`BatchConfig::per_call_timeout`].
    pub fn per_call_timeout(mut self, per_call_timeout: Duration) -> Self {
        self.per_call_timeout = per_call_timeout;
        self
    }
}

/// The `batch` tool. Registered by [`crate::RegistryBuilder::with_builtins`] or
/// [`crate::RegistryBuilder::with_batch`]; it is bound to the registry when that is built.
///
/// Its MCP annotations are those of the tools it can reach, set when the registry is built
/// (see [`BatchTool::annotations_reaching`]): read-only when every other tool of the registry
/// is, so clients do not treat a batch of reads as destructive.
#[derive(Debug)]
pub struct BatchTool {
    definition: ToolDefinition,
    config: BatchConfig,
    registry: OnceLock<Weak<ToolRegistry>>,
    /// The definition with the annotations of the registry's tools, set when bound.
    bound_definition: OnceLock<ToolDefinition>,
}

/// One parsed entry of `calls`.
struct PlannedCall {
    tool: String,
    arguments: Value,
}

/// A malformed entry of `calls`: the tool name as far as known, and why it cannot run.
struct BadCall {
    tool: String,
    error: ToolError,
}

impl BatchTool {
    /// A batch tool with the given limits, not yet bound to a registry.
    pub(crate) fn new(config: BatchConfig) -> Self {
        BatchTool {
            definition: definition(&config),
            config,
            registry: OnceLock::new(),
            bound_definition: OnceLock::new(),
        }
    }

    /// The definition of a batch tool with `config` in a registry whose other tools have
    /// `reachable` as definitions: what a bound tool's [`Tool::definition`] answers, for
    /// exporting definitions without building a registry.
    pub fn definition_reaching<'a>(
        config: BatchConfig,
        reachable: impl IntoIterator<Item = &'a ToolDefinition>,
    ) -> ToolDefinition {
        let mut definition = definition(&config);
        definition.annotations = Self::annotations_reaching(reachable);
        definition
    }

    /// The MCP annotations of a batch that can call the tools defined by `reachable`, as a
    /// client reads the hints (an absent `destructive` counts as destructive, an absent
    /// `open_world` as open): read-only when every tool is read-only; not destructive when
    /// every tool is read-only or not destructive; idempotent when every tool is read-only or
    /// idempotent; closed-world when every tool is.
    ///
    /// ```
    /// use toolforge::{BatchTool, ToolAnnotations, ToolDefinition};
    /// let mut read = ToolDefinition {
    ///     name: "read".into(),
    ///     title: None,
    ///     description: "Reads.".into(),
    ///     input_schema: serde_json::json!({"type": "object"}),
    ///     output_schema: None,
    ///     annotations: Default::default(),
    ///     capabilities: vec![],
    ///     keywords: vec![],
    /// };
    /// read.annotations.read_only = Some(true);
    /// read.annotations.open_world = Some(false);
    /// let hints = BatchTool::annotations_reaching([&read]);
    /// assert_eq!((hints.read_only, hints.destructive), (Some(true), Some(false)));
    /// let mut write = read.clone();
    /// write.annotations.read_only = None;
    /// let hints = BatchTool::annotations_reaching([&read, &write]);
    /// assert_eq!((hints.read_only, hints.destructive), (Some(false), Some(true)));
    /// ```
    pub fn annotations_reaching<'a>(
        reachable: impl IntoIterator<Item = &'a ToolDefinition>,
    ) -> ToolAnnotations {
        let mut read_only = true;
        let mut harmless = true;
        let mut idempotent = true;
        let mut closed = true;
        for definition in reachable {
            if definition.name == BATCH_TOOL_NAME {
                continue;
            }
            let hints = &definition.annotations;
            let reads = hints.read_only == Some(true);
            read_only &= reads;
            harmless &= reads || hints.destructive == Some(false);
            idempotent &= reads || hints.idempotent == Some(true);
            closed &= hints.open_world == Some(false);
        }
        ToolAnnotations {
            read_only: Some(read_only),
            destructive: Some(!harmless),
            idempotent: Some(idempotent),
            open_world: Some(!closed),
        }
    }

    /// The limits this tool applies.
    pub fn config(&self) -> &BatchConfig {
        &self.config
    }

    async fn run(&self, arguments: Value) -> Result<Value, ToolError> {
        let registry = self.registry.get().and_then(Weak::upgrade).ok_or_else(|| {
            ToolError::new(
                ErrorCode::Unavailable,
                "the tool registry this batch belongs to is no longer available; \
                     no call was run",
            )
        })?;
        let calls = parse_calls(&arguments, self.config.max_calls)?;
        let outer = CallBudget::current();
        let started = Instant::now();
        // The batch answers a little before its own deadline, so that the calls that finished
        // reach the caller with the ones that did not.
        let batch_end = outer
            .as_ref()
            .and_then(CallBudget::deadline)
            .map(|deadline| deadline - answer_margin(deadline.saturating_duration_since(started)));
        // Each call's answer leaves room for the wrappers of every result and the short
        // errors that may replace the others, so that one full answer still fits.
        let room = 96 + calls.len() * SHORT_RESULT_BYTES;
        let inner = outer.clone().map(|budget| budget.less_bytes(room));
        let total = calls.len();
        let mut results: Vec<Option<Outcome>> = Vec::with_capacity(total);
        let mut names: Vec<String> = Vec::with_capacity(total);
        let mut runnable: Vec<(usize, PlannedCall)> = Vec::new();
        for (index, call) in calls.into_iter().enumerate() {
            let call = match call {
                Ok(call) => call,
                Err(bad) => {
                    results.push(Some(Outcome::Done(failure(&bad.tool, bad.error.to_json()))));
                    names.push(bad.tool);
                    continue;
                }
            };
            names.push(call.tool.clone());
            if call.tool == BATCH_TOOL_NAME {
                let error = ToolError::new(
                    ErrorCode::Unavailable,
                    "a batch cannot contain another `batch` call; put those calls directly in \
                     this batch's `calls` list",
                );
                results.push(Some(Outcome::Done(failure(&call.tool, error.to_json()))));
                continue;
            }
            if registry.get(&call.tool).is_none() {
                let payload = registry.invalid_tool().payload(&call.tool);
                results.push(Some(Outcome::Done(failure(&call.tool, payload))));
                continue;
            }
            results.push(None);
            runnable.push((index, call));
        }
        let plan = SharePlan {
            batch_end,
            per_call: self.config.per_call_timeout,
            concurrency: self.config.max_concurrency,
        };
        let semaphore = Arc::new(Semaphore::new(self.config.max_concurrency));
        let mut tasks = JoinSet::new();
        let waiting = runnable.len();
        // Calls start in call order, each when a place frees (and not after the batch's end).
        for (started_before, (index, call)) in runnable.into_iter().enumerate() {
            let acquire = Arc::clone(&semaphore).acquire_owned();
            let permit = match batch_end {
                Some(end) => tokio::time::timeout_at(end.into(), acquire).await.ok(),
                None => Some(acquire.await),
            };
            // The semaphore is never closed, so acquiring fails only at the batch's end.
            let Some(Ok(permit)) = permit else {
                results[index] = Some(Outcome::Cut(Duration::ZERO));
                continue;
            };
            let (limit, cut) = plan.share(&registry, &call.tool, waiting - started_before);
            if cut && limit < MIN_SHARE {
                results[index] = Some(Outcome::Cut(Duration::ZERO));
                continue;
            }
            let registry = Arc::clone(&registry);
            let outer = inner.clone();
            tasks.spawn(async move {
                let outcome = SharePlan::run(&registry, call, outer, limit, cut).await;
                drop(permit);
                (index, outcome)
            });
        }
        drop(registry);
        loop {
            let next = match batch_end {
                // The calls end by `batch_end`; the wait ends shortly after, whatever a call does.
                Some(end) => {
                    let grace = answer_margin(end.saturating_duration_since(Instant::now())) / 2;
                    tokio::time::timeout_at((end + grace).into(), tasks.join_next())
                        .await
                        .unwrap_or(None)
                }
                None => tasks.join_next().await,
            };
            match next {
                Some(Ok((index, outcome))) => results[index] = Some(outcome),
                // Calls run with panic isolation inside the registry, so a task only fails if
                // the runtime cancels it; the slot is filled below.
                Some(Err(_)) => continue,
                None => break,
            }
        }
        tasks.abort_all();
        let finished = results
            .iter()
            .filter(|outcome| matches!(outcome, Some(Outcome::Done(_))))
            .count();
        let shared = Shared {
            finished,
            total,
            concurrency: self.config.max_concurrency,
            batch_ms: batch_end.map(|end| end.saturating_duration_since(started).as_millis()),
        };
        let mut results: Vec<Value> = results
            .into_iter()
            .zip(&names)
            .map(|(outcome, tool)| match outcome {
                Some(Outcome::Done(entry)) => entry,
                Some(Outcome::Cut(limit)) => {
                    failure(tool, shared.error(tool, Some(limit)).to_json())
                }
                None => failure(tool, shared.error(tool, None).to_json()),
            })
            .collect();
        if let Some(max) = outer.and_then(|budget| budget.limits().max_answer_bytes) {
            fit_answer(&mut results, &names, max);
        }
        Ok(json!({ "results": results }))
    }
}

impl Tool for BatchTool {
    fn definition(&self) -> &ToolDefinition {
        self.bound_definition.get().unwrap_or(&self.definition)
    }

    fn call<'a>(&'a self, arguments: Value, _context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(self.run(arguments))
    }
}

impl RegistryBound for BatchTool {
    /// Binds the tool to its registry, whose other tools have `reachable` as definitions
    /// (once; later binds are ignored).
    fn bind(
        &self,
        registry: Weak<ToolRegistry>,
        reachable: &mut dyn Iterator<Item = &ToolDefinition>,
    ) {
        let _ = self.registry.set(registry);
        let mut definition = self.definition.clone();
        definition.annotations = Self::annotations_reaching(reachable);
        let _ = self.bound_definition.set(definition);
    }

    fn unbound(&self) -> Arc<dyn RegistryBound> {
        Arc::new(BatchTool::new(self.config.clone()))
    }
}

impl RegistryBuilder {
    /// Registers the built-in tools with default limits: `batch` ([`BatchConfig::default`]).
    /// Unknown names are always answered by [`InvalidTool`](crate::InvalidTool).
    pub fn with_builtins(self) -> Result<Self, RegistryError> {
        self.with_batch(BatchConfig::default())
    }

    /// Registers the `batch` tool with the given limits.
    pub fn with_batch(mut self, config: BatchConfig) -> Result<Self, RegistryError> {
        self.add_bound(Arc::new(BatchTool::new(config)))?;
        Ok(self)
    }
}

impl ToolRegistry {
    /// The standard way to start: a builder with the built-in `batch` tool registered.
    ///
    /// Fails only if called on a builder that already has a tool named `batch`, which a fresh
    /// one never has; the `Result` keeps the signature uniform with the other builder steps.
    pub fn standard() -> Result<RegistryBuilder, RegistryError> {
        RegistryBuilder::default().with_builtins()
    }
}

/// How a call of a batch ended.
enum Outcome {
    /// With its entry of `results` (a success or its own error).
    Done(Value),
    /// Stopped at the end of its share of the batch's deadline (the share given).
    Cut(Duration),
}

/// How the calls of one batch share its deadline.
///
/// A call gets its share when it starts (in call order, when one of the `concurrency` places
/// frees): the time left before the batch's end divided by the rounds the calls not yet
/// started still need (`ceil(unstarted / concurrency)`), and at most the per-call deadline. So a slow call cannot
/// take the time of the calls after it, and the time a fast call leaves goes to the next ones.
/// When the time left cannot give every remaining round [`MIN_SHARE`], it is divided among the
/// rounds it can give that much: the calls at the end of the batch are the ones not started,
/// never the first ones.
struct SharePlan {
    batch_end: Option<Instant>,
    per_call: Duration,
    concurrency: usize,
}

impl SharePlan {
    /// The deadline of a call of `tool` starting now with `waiting` calls (itself included) not
    /// yet started, and whether the batch's deadline cut it below the call's own.
    fn share(&self, registry: &ToolRegistry, tool: &str, waiting: usize) -> (Duration, bool) {
        let mut limit = self.per_call;
        if let Some(end) = self.batch_end {
            let left = end.saturating_duration_since(Instant::now());
            let fitting = (left.as_nanos() / MIN_SHARE.as_nanos()).min(u32::MAX as u128) as u32;
            if fitting == 0 {
                return (Duration::ZERO, true);
            }
            let rounds = (waiting.div_ceil(self.concurrency).max(1) as u32).min(fitting);
            let share = left / rounds;
            let own = registry.limits_for(tool).timeout;
            if share < limit && own.is_none_or(|own| share < own) {
                return (share, true);
            }
            limit = limit.min(share);
        }
        (limit, false)
    }

    /// Runs `call` within `limit` (and the batch's `outer` budget).
    async fn run(
        registry: &ToolRegistry,
        call: PlannedCall,
        outer: Option<CallBudget>,
        limit: Duration,
        cut: bool,
    ) -> Outcome {
        let deadline = CallBudget::new(
            BATCH_TOOL_NAME,
            crate::CallLimits::UNLIMITED.timeout(Some(limit)),
        );
        let budget = deadline.within(outer.as_ref());
        let call_future = registry.call_within(&call.tool, call.arguments, Some(&budget), None);
        match tokio::time::timeout(limit, call_future).await {
            Ok(Ok(result)) => {
                Outcome::Done(json!({ "tool": call.tool, "ok": true, "result": result }))
            }
            Ok(Err(error)) if cut && error.code == ErrorCode::Timeout => Outcome::Cut(limit),
            Ok(Err(error)) => Outcome::Done(failure(&call.tool, error.to_json())),
            Err(_) if cut => Outcome::Cut(limit),
            Err(_) => Outcome::Done(failure(&call.tool, timed_out(&call.tool, limit).to_json())),
        }
    }
}

/// A call given less than this is not started: it could not answer anything.
const MIN_SHARE: Duration = Duration::from_millis(1);

/// The time a batch keeps between the end of its calls and its own deadline to write its
/// answer: a twentieth of what it has, between 10 and 200 ms.
fn answer_margin(left: Duration) -> Duration {
    (left / 20)
        .clamp(Duration::from_millis(10), Duration::from_millis(200))
        .min(left / 2)
}

/// What the errors of the calls cut by the batch's deadline say.
struct Shared {
    finished: usize,
    total: usize,
    concurrency: usize,
    batch_ms: Option<u128>,
}

impl Shared {
    /// The error of `tool`, cut after `limit` (`None`: not finished when the batch had to answer).
    fn error(&self, tool: &str, limit: Option<Duration>) -> ToolError {
        let Shared {
            finished,
            total,
            concurrency,
            ..
        } = *self;
        let batch_ms = self.batch_ms.unwrap_or_default();
        let what = match limit {
            Some(limit) if limit < MIN_SHARE => {
                "was not started: the batch's deadline left it no time".to_owned()
            }
            Some(limit) => format!(
                "did not finish within its share of the batch's deadline ({} ms of {batch_ms} \
                 ms, {total} calls run {concurrency} at a time) and was cancelled",
                limit.as_millis()
            ),
            None => format!(
                "did not finish before the batch's deadline ({batch_ms} ms) and was cancelled"
            ),
        };
        ToolError::new(
            ErrorCode::Timeout,
            format!(
                "`{tool}` {what}; {finished} of {total} calls finished (their results are \
                 here). Call it on its own, or in a batch of fewer calls"
            ),
        )
        .with_details(json!({
            "tool": tool,
            "limit": "batch_deadline",
            "timeout_ms": limit.map(|limit| limit.as_millis() as u64),
            "finished": finished,
            "calls": total,
        }))
    }
}

/// The most bytes a batch result replaced by an error takes (the error names the tool, at most
/// 64 characters, and two numbers).
const SHORT_RESULT_BYTES: usize = 512;

/// Keeps the answer `{"results": [...]}` within `max` bytes: in call order, each result stays
/// if it fits with what is kept before it and the short errors that may replace the results
/// after it; otherwise it is replaced by a `too_large` error naming the cap (call it again on
/// its own, or ask for less).
fn fit_answer(results: &mut [Value], names: &[String], max: usize) {
    let sizes: Vec<usize> = results.iter().map(json_len).collect();
    let replacements: Vec<Value> = names
        .iter()
        .zip(&sizes)
        .map(|(tool, &bytes)| {
            let error = ToolError::new(
                ErrorCode::TooLarge,
                format!(
                    "this result ({bytes} bytes) does not fit in the batch's answer of at most \
                     {max} bytes (max_answer_bytes); call `{tool}` on its own or ask for less"
                ),
            )
            .with_details(json!({
                "tool": tool,
                "limit": "max_answer_bytes",
                "max_answer_bytes": max,
                "bytes": bytes,
            }));
            failure(tool, error.to_json())
        })
        .collect();
    let replacement_sizes: Vec<usize> = replacements.iter().map(json_len).collect();
    // `{"results":[` + `]}` and the commas between results.
    let envelope = r#"{"results":[]}"#.len() + results.len().saturating_sub(1);
    let mut used = envelope + replacement_sizes.iter().sum::<usize>();
    for (index, replacement) in replacements.into_iter().enumerate() {
        let with_result = used - replacement_sizes[index] + sizes[index];
        if with_result <= max || sizes[index] <= replacement_sizes[index] {
            used = with_result;
        } else {
            results[index] = replacement;
        }
    }
}

fn failure(tool: &str, error: Value) -> Value {
    json!({ "tool": tool, "ok": false, "error": error })
}

/// Splits `{"calls": [...]}` into calls; a malformed entry fails alone, with its own error.
fn parse_calls(
    arguments: &Value,
    max_calls: usize,
) -> Result<Vec<Result<PlannedCall, Box<BadCall>>>, ToolError> {
    let calls = arguments
        .get("calls")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            ToolError::invalid_arguments(
                "`calls` must be an array of {\"tool\": name, \"args\": {...}} objects",
            )
        })?;
    if calls.len() > max_calls {
        return Err(ToolError::invalid_arguments(format!(
            "a batch may contain at most {max_calls} calls, this one has {}; split it into \
             several batches",
            calls.len()
        ))
        .with_details(json!({ "path": "/calls", "expected": { "maxItems": max_calls } })));
    }
    Ok(calls
        .iter()
        .enumerate()
        .map(|(index, call)| parse_call(index, call))
        .collect())
}

fn parse_call(index: usize, call: &Value) -> Result<PlannedCall, Box<BadCall>> {
    let empty = Map::new();
    let object = call.as_object().unwrap_or(&empty);
    let tool = object
        .get("tool")
        .or_else(|| object.get("name"))
        .and_then(Value::as_str);
    let Some(tool) = tool else {
        return Err(Box::new(BadCall {
            tool: String::new(),
            error: ToolError::invalid_arguments(format!(
                "`/calls/{index}` has no tool name; write {{\"tool\": name, \"args\": {{...}}}}"
            ))
            .with_details(json!({ "path": format!("/calls/{index}/tool") })),
        }));
    };
    let arguments = object
        .get("args")
        .or_else(|| object.get("arguments"))
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    Ok(PlannedCall {
        tool: tool.to_owned(),
        arguments,
    })
}

/// The answer's schema: one result per call, in call order, each a success carrying the called
/// tool's answer (described by that tool's own `outputSchema`) or a failure carrying the error
/// as [`ToolError::to_json`] writes it.
fn output_schema() -> Value {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
    let tool = json!({ "type": "string", "description": "Name of the called tool, as given." });
    json!({
        "type": "object",
        "properties": {
            "results": {
                "type": "array",
                "description": "One result per call, in call order.",
                "items": {
                    "oneOf": [
                        {
                            "type": "object",
                            "properties": {
                                "tool": tool,
                                "ok": { "const": true },
                                "result": { "description": "The called tool's answer." }
                            },
                            "required": ["tool", "ok", "result"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "properties": {
                                "tool": tool,
                                "ok": { "const": false },
                                "error": {
                                    "type": "object",
                                    "properties": {
                                        "error": { "enum": codes },
                                        "message": { "type": "string" },
                                        "details": {}
                                    },
                                    "required": ["error", "message"]
                                }
                            },
                            "required": ["tool", "ok", "error"],
                            "additionalProperties": false
                        }
                    ]
                }
            }
        },
        "required": ["results"],
        "additionalProperties": false
    })
}

fn definition(config: &BatchConfig) -> ToolDefinition {
    let call_schema = json!({
        "type": "object",
        "description": "One call: the tool's exact name and its arguments.",
        "properties": {
            "tool": { "type": "string", "description": "Name of the tool to call." },
            "args": { "type": "object", "description": "Arguments of the call." },
            "name": { "type": "string", "description": "Alias of `tool`." },
            "arguments": { "type": "object", "description": "Alias of `args`." }
        },
        "additionalProperties": false
    });
    ToolDefinition {
        name: BATCH_TOOL_NAME.to_owned(),
        title: Some("Batch".to_owned()),
        description: format!(
            "Run up to {} independent tool calls in parallel and get every result in call \
             order. Each result is {{\"tool\", \"ok\": true, \"result\"}} or {{\"tool\", \"ok\": \
             false, \"error\"}}; a failing call does not stop the others. `batch` cannot be \
             nested.",
            config.max_calls
        ),
        input_schema: json!({
            "type": "object",
            "properties": {
                "calls": {
                    "type": "array",
                    "items": call_schema,
                    "minItems": 1,
                    "maxItems": config.max_calls,
                    "description": "The calls to run."
                }
            },
            "required": ["calls"],
            "additionalProperties": false
        }),
        output_schema: Some(output_schema()),
        annotations: ToolAnnotations::default(),
        capabilities: vec!["batch".to_owned()],
        keywords: vec!["parallel".to_owned(), "multiple".to_owned()],
    }
}
