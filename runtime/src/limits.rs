//! Deadlines and answer caps: what a [`ToolRegistry`](crate::ToolRegistry) allows each call.
//!
//! Every call through a registry gets a [`CallBudget`]: its deadline (default 30 s after the
//! call starts), the most bytes its answer may have (default 1 MiB of compact JSON) and,
//! optionally, the most records a list tool may return. The registry sets them per registry
//! ([`RegistryBuilder::with_limits`](crate::RegistryBuilder::with_limits)) and per tool
//! ([`RegistryBuilder::with_tool_limits`](crate::RegistryBuilder::with_tool_limits)).
//!
//! The budget is visible to the code a call runs ([`CallBudget::current`]): the database reads
//! of [`sql::Database`](crate::sql::Database) stop inside SQLite when the deadline passes, and
//! the list tools stop adding records before the answer outgrows its cap (and say so in the
//! answer). An answer that still exceeds the cap is replaced by a
//! [`ErrorCode::TooLarge`] error; a call that overruns its deadline is answered with
//! [`ErrorCode::Timeout`].

use std::future::Future;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{ErrorCode, ToolError};

/// The default deadline of a call: 30 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The default cap on an answer: 1 MiB of compact JSON.
pub const DEFAULT_MAX_ANSWER_BYTES: usize = 1 << 20;

/// The default cap on the memory a call may take for its working data: 256 MiB.
pub const DEFAULT_MAX_MEMORY_BYTES: usize = 256 << 20;

/// The limits of the calls of one tool (or of every tool of a registry).
///
/// ```
/// use std::time::Duration;
/// use toolforge::CallLimits;
/// let limits = CallLimits::default();
/// assert_eq!(limits.timeout, Some(Duration::from_secs(30)));
/// assert_eq!(limits.max_answer_bytes, Some(1 << 20));
/// assert_eq!(limits.max_rows, None);
/// let strict = limits.timeout(Some(Duration::from_secs(2))).max_rows(Some(50));
/// assert_eq!(strict.max_rows, Some(50));
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// How long a call may run (default [`DEFAULT_TIMEOUT`]); `None`: no deadline.
    pub timeout: Option<Duration>,
    /// The most bytes of compact JSON an answer may have (default
    /// [`DEFAULT_MAX_ANSWER_BYTES`]); `None`: no cap.
    pub max_answer_bytes: Option<usize>,
    /// The most records a list tool returns in one answer, whatever the call's `limit`
    /// (default `None`: the tool's own limits only).
    pub max_rows: Option<u32>,
    /// The most memory a call may take for the data it loads (default
    /// [`DEFAULT_MAX_MEMORY_BYTES`]): what the graph tools load is counted against it, and
    /// passing it is a `too_large` error naming it. `None`: no cap.
    pub max_memory_bytes: Option<usize>,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            timeout: Some(DEFAULT_TIMEOUT),
            max_answer_bytes: Some(DEFAULT_MAX_ANSWER_BYTES),
            max_rows: None,
            max_memory_bytes: Some(DEFAULT_MAX_MEMORY_BYTES),
        }
    }
}

impl CallLimits {
    /// No deadline and no caps.
    pub const UNLIMITED: CallLimits = CallLimits {
        timeout: None,
        max_answer_bytes: None,
        max_rows: None,
        max_memory_bytes: None,
    };

    /// Sets [`CallLimits::timeout`].
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets [`CallLimits::max_answer_bytes`].
    pub fn max_answer_bytes(mut self, max_answer_bytes: Option<usize>) -> Self {
        self.max_answer_bytes = max_answer_bytes;
        self
    }

    /// Sets [`CallLimits::max_rows`].
    pub fn max_rows(mut self, max_rows: Option<u32>) -> Self {
        self.max_rows = max_rows;
        self
    }

    /// Sets [`CallLimits::max_memory_bytes`].
    pub fn max_memory_bytes(mut self, max_memory_bytes: Option<usize>) -> Self {
        self.max_memory_bytes = max_memory_bytes;
        self
    }
}

tokio::task_local! {
    static BUDGET: CallBudget;
}

/// The limits of the call being run: the tool's name, its [`CallLimits`] and the instant its
/// deadline falls.
///
/// A registry sets it around each call; [`CallBudget::current`] reads it from inside the
/// call (on the task that runs it).
///
/// ```
/// use std::time::Duration;
/// use toolforge::{CallBudget, CallLimits, ErrorCode};
/// let budget = CallBudget::new("slow_tool", CallLimits::default().timeout(Some(Duration::from_millis(5))));
/// assert!(budget.deadline().is_some());
/// assert_eq!(budget.timeout_error().code, ErrorCode::Timeout);
/// assert!(CallBudget::current().is_none(), "no call is running here");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallBudget {
    tool: String,
    limits: CallLimits,
    deadline: Option<Instant>,
    /// Context values of this call on top of the registry's (set per call by a host, e.g.
    /// from request headers); a `batch` hands them to the calls it makes.
    values: Option<crate::ContextValues>,
    /// What the caller may run; a `batch` checks it for every call it makes.
    gate: Option<crate::ToolGate>,
}

impl CallBudget {
    /// The budget of a call of `tool` starting now.
    pub fn new(tool: impl Into<String>, limits: CallLimits) -> CallBudget {
        let deadline = limits
            .timeout
            .and_then(|timeout| Instant::now().checked_add(timeout));
        CallBudget {
            tool: tool.into(),
            limits,
            deadline,
            values: None,
            gate: None,
        }
    }

    /// The budget of the call running on this task, if it runs through a registry.
    pub fn current() -> Option<CallBudget> {
        BUDGET.try_with(Clone::clone).ok()
    }

    /// The deadline of the call running on this task, if any.
    pub fn current_deadline() -> Option<Instant> {
        BUDGET.try_with(|budget| budget.deadline).ok().flatten()
    }

    /// The name of the tool called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The limits that apply.
    pub fn limits(&self) -> CallLimits {
        self.limits
    }

    /// When the call's deadline falls, if it has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether the deadline has passed.
    pub fn is_expired(&self) -> bool {
        self.deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    }

    /// The [`ErrorCode::Timeout`] error of this call.
    pub fn timeout_error(&self) -> ToolError {
        timed_out(&self.tool, self.limits.timeout.unwrap_or_default())
    }

    /// This budget with the call's own context values.
    pub(crate) fn with_values(mut self, values: Option<&crate::ContextValues>) -> CallBudget {
        if values.is_some() {
            self.values = values.cloned();
        }
        self
    }

    /// This budget with the caller's gate.
    pub(crate) fn with_gate(mut self, gate: Option<&crate::ToolGate>) -> CallBudget {
        if gate.is_some() {
            self.gate = gate.cloned();
        }
        self
    }

    /// What the caller may run, if the host said.
    pub(crate) fn gate(&self) -> Option<&crate::ToolGate> {
        self.gate.as_ref()
    }

    /// The call's own context values, if it has any.
    pub(crate) fn values(&self) -> Option<&crate::ContextValues> {
        self.values.as_ref()
    }

    /// This budget, tightened by the budget of an enclosing call (a `batch`): the earlier
    /// deadline and the smaller caps.
    pub(crate) fn within(mut self, outer: Option<&CallBudget>) -> CallBudget {
        let Some(outer) = outer else {
            return self;
        };
        if self.values.is_none() {
            self.values.clone_from(&outer.values);
        }
        if self.gate.is_none() {
            self.gate.clone_from(&outer.gate);
        }
        if let Some(deadline) = outer.deadline
            && self.deadline.is_none_or(|own| deadline < own)
        {
            self.deadline = Some(deadline);
            self.limits.timeout = outer.limits.timeout;
        }
        self.limits.max_answer_bytes =
            smaller(self.limits.max_answer_bytes, outer.limits.max_answer_bytes);
        self.limits.max_rows = smaller(self.limits.max_rows, outer.limits.max_rows);
        self.limits.max_memory_bytes =
            smaller(self.limits.max_memory_bytes, outer.limits.max_memory_bytes);
        self
    }

    /// This budget with `bytes` fewer bytes allowed in the answer (a `batch` keeps room for
    /// its other results).
    pub(crate) fn less_bytes(mut self, bytes: usize) -> CallBudget {
        self.limits.max_answer_bytes = self
            .limits
            .max_answer_bytes
            .map(|max| max.saturating_sub(bytes));
        self
    }

    /// Runs `f` with this budget as the current one.
    pub(crate) fn enter<T>(&self, f: impl FnOnce() -> T) -> T {
        BUDGET.sync_scope(self.clone(), f)
    }

    /// Polls `future` with this budget as the current one: what a registry does around each
    /// call, for code that runs tools or database reads without one. Only the reads that honour
    /// the budget stop at its deadline; nothing else ends the future.
    pub fn scope<F: Future>(&self, future: F) -> impl Future<Output = F::Output> {
        BUDGET.scope(self.clone(), future)
    }
}

fn smaller<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The error for a call of `name` that overran `limit`.
pub(crate) fn timed_out(name: &str, limit: Duration) -> ToolError {
    ToolError::new(
        ErrorCode::Timeout,
        format!(
            "`{name}` did not finish within {} ms and was cancelled; try narrower arguments",
            limit.as_millis()
        ),
    )
    .with_details(json!({ "tool": name, "timeout_ms": limit.as_millis() as u64 }))
}

/// The error for an answer of `bytes` bytes over the cap `max`.
pub(crate) fn too_large(name: &str, bytes: usize, max: usize) -> ToolError {
    ToolError::new(
        ErrorCode::TooLarge,
        format!(
            "the answer of `{name}` has {bytes} bytes, more than the {max} bytes allowed \
             (max_answer_bytes); ask for less (a smaller `limit`, fewer `fields`, narrower \
             conditions)"
        ),
    )
    .with_details(json!({
        "tool": name,
        "limit": "max_answer_bytes",
        "max_answer_bytes": max,
        "bytes": bytes,
    }))
}

/// Counts the bytes written to it, and fails once they pass `max`.
struct Counted {
    written: usize,
    max: usize,
}

impl std::io::Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.written += bytes.len();
        if self.written > self.max {
            return Err(std::io::Error::other("past the bound"));
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The length of `value` as compact JSON (what `serde_json::to_string` gives), without
/// building the text: summed over the tree, each string's escapes counted from its bytes.
/// Every answer is measured against its cap this way, so it is kept cheaper than writing.
pub(crate) fn json_len(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => number_len(number),
        Value::String(text) => string_len(text),
        // Brackets, and a comma between items.
        Value::Array(items) => array_len(items),
        // Braces, a comma between members, and each member's key, colon and value.
        Value::Object(members) => object_len(members),
    }
}

/// The length of a number as serde_json writes it: integers counted by their digits, other
/// numbers written (they are rare in answers and short).
fn number_len(number: &serde_json::Number) -> usize {
    fn digits(n: u64) -> usize {
        n.checked_ilog10().map_or(1, |power| power as usize + 1)
    }
    if let Some(n) = number.as_u64() {
        digits(n)
    } else if let Some(n) = number.as_i64() {
        1 + digits(n.unsigned_abs())
    } else {
        let mut count = Counted {
            written: 0,
            max: usize::MAX,
        };
        // Writing to a writer that never fails cannot fail.
        let _ = serde_json::to_writer(&mut count, number);
        count.written
    }
}

/// The length of `text` as a JSON string: its quotes, its bytes, and what serde_json's
/// escapes add (`\"`, `\\`, `\n` and the other short ones: one byte; any other control
/// character, `\u00XX`: five).
fn string_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    // Most strings have nothing to escape: counting those bytes first and weighing each byte
    // only when there are some measured 5.8 µs against 6.4 for weighing every byte (the
    // `answer_cap` page of `benches/registry.rs`).
    let escaped = bytes
        .iter()
        .filter(|&&b| b < 0x20 || b == b'"' || b == b'\\')
        .count();
    if escaped == 0 {
        return bytes.len() + 2;
    }
    let extra: usize = bytes
        .iter()
        .map(|&b| match b {
            b'"' | b'\\' | 0x08 | 0x09 | 0x0A | 0x0C | 0x0D => 1,
            0x00..=0x1F => 5,
            _ => 0,
        })
        .sum();
    bytes.len() + 2 + extra
}

/// The length of `members` as a compact JSON object (what [`json_len`] gives for it as a
/// [`Value`]).
pub(crate) fn object_len(members: &serde_json::Map<String, Value>) -> usize {
    2 + members.len().saturating_sub(1)
        + members
            .iter()
            .map(|(key, value)| string_len(key) + 1 + json_len(value))
            .sum::<usize>()
}

/// The length of `items` as a compact JSON array (what [`json_len`] gives for it as a
/// [`Value`]).
pub(crate) fn array_len(items: &[Value]) -> usize {
    2 + items.len().saturating_sub(1) + items.iter().map(json_len).sum::<usize>()
}

/// The length of `value` as compact JSON, written to a counter (for typed values; a [`Value`]
/// is measured faster by [`json_len`]).
#[cfg(feature = "engine")]
pub(crate) fn serialized_len(value: &impl serde::Serialize) -> usize {
    let mut count = Counted {
        written: 0,
        max: usize::MAX,
    };
    // Writing to a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.written
}

/// Whether `value` as compact JSON takes more than `max` bytes; writing stops past `max`, so
/// the cost is bounded by `max` however large the value.
pub(crate) fn json_len_over(value: &Value, max: usize) -> bool {
    let mut count = Counted { written: 0, max };
    serde_json::to_writer(&mut count, value).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_len_over_stops_at_the_bound() {
        let value = serde_json::json!({"items": vec!["abc"; 1000]});
        let len = json_len(&value);
        assert!(json_len_over(&value, len - 1));
        assert!(!json_len_over(&value, len));
    }

    #[test]
    fn json_len_is_the_compact_length() {
        let value = json!({"a": [1, "é", null], "b": {"c": true}});
        assert_eq!(json_len(&value), value.to_string().len());
    }

    #[test]
    fn json_len_counts_what_serde_json_writes() {
        // Every ASCII character alone, in a key and in a value (each control character,
        // the quote and the backslash are escaped, each a different way).
        for byte in 0u8..=0x7F {
            let text = char::from(byte).to_string();
            let value = json!({ text.clone(): [text.clone(), format!("a{text}b{text}")] });
            assert_eq!(
                json_len(&value),
                value.to_string().len(),
                "byte {byte:#04x}"
            );
        }
        let numbers = json!([
            0,
            9,
            10,
            99,
            100,
            u64::MAX,
            -1,
            -10,
            i64::MIN,
            i64::MAX,
            0.1,
            -0.0,
            1.5e300,
            -2.25e-300,
            1e15,
            1e16,
            123456.789,
            f64::MAX,
            f64::MIN_POSITIVE
        ]);
        assert_eq!(json_len(&numbers), numbers.to_string().len());
        let nested = json!({
            "empty": {}, "none": [], "deep": [[[{"k": "línea\n\"citada\"\t\u{1}"}]]],
            "flags": [true, false, null], "emoji": "🦀 \u{7f} \u{2028}"
        });
        assert_eq!(json_len(&nested), nested.to_string().len());
    }

    #[test]
    fn an_enclosing_budget_tightens() {
        let outer = CallBudget::new(
            "batch",
            CallLimits::default()
                .timeout(Some(Duration::from_secs(1)))
                .max_answer_bytes(Some(100)),
        );
        let inner =
            CallBudget::new("q", CallLimits::default().max_rows(Some(5))).within(Some(&outer));
        assert_eq!(inner.deadline(), outer.deadline());
        assert_eq!(inner.limits().timeout, Some(Duration::from_secs(1)));
        assert_eq!(inner.limits().max_answer_bytes, Some(100));
        assert_eq!(inner.limits().max_rows, Some(5));
    }
}
