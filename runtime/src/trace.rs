//! OpenTelemetry spans of the engine, made with the `opentelemetry` API (feature `otel`): a
//! server span per MCP request (`mcp/telemetry.rs`) and a client span per SQL statement run
//! inside it. Nothing is made until the host calls [`enable`] after installing a global tracer
//! provider (the `toolforge` CLI does when `OTEL_EXPORTER_OTLP_ENDPOINT` is set); until then
//! each request and statement pays one relaxed atomic load.
//!
//! Statement spans follow the conventions for databases: `db.system.name` (`sqlite`,
//! `postgresql`), `db.operation.name` (the statement's first keyword), the text
//! (`db.query.text`) only when asked for, the bound values never. A statement outside a traced
//! request (start-up checks, imports) makes no span.

// Statements and their carried context exist only with the SQL engine.
#![cfg_attr(not(feature = "engine"), allow(dead_code))]

use std::sync::atomic::{AtomicBool, Ordering};

static ON: AtomicBool = AtomicBool::new(false);
static STATEMENT_TEXT: AtomicBool = AtomicBool::new(false);

/// Starts making spans, sent to the global tracer provider (install it first); with
/// `statement_text`, statement spans carry the SQL text. Without the `otel` feature it does
/// nothing.
pub fn enable(statement_text: bool) {
    STATEMENT_TEXT.store(statement_text, Ordering::Relaxed);
    ON.store(cfg!(feature = "otel"), Ordering::Relaxed);
}

/// Whether spans are made.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The trace context of the running call, carried onto the thread that runs its statements
/// (SQLite's, on the blocking pool; PostgreSQL's statements are awaited in the call's task).
#[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
#[derive(Default)]
pub(crate) struct Carried {
    #[cfg(feature = "otel")]
    context: Option<opentelemetry::Context>,
}

#[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
impl Carried {
    /// The current call's context (nothing when spans are off).
    pub(crate) fn capture() -> Carried {
        #[cfg(feature = "otel")]
        if is_on() {
            return Carried {
                context: Some(opentelemetry::Context::current()),
            };
        }
        Carried::default()
    }

    /// Runs `f` with the carried context as the current one.
    pub(crate) fn run<T>(self, f: impl FnOnce() -> T) -> T {
        #[cfg(feature = "otel")]
        if let Some(context) = self.context {
            let _guard = context.attach();
            return f();
        }
        f()
    }
}

/// A statement's span, ended when dropped.
pub(crate) struct Statement {
    #[cfg(feature = "otel")]
    span: Option<opentelemetry::global::BoxedSpan>,
}

impl Drop for Statement {
    fn drop(&mut self) {
        #[cfg(feature = "otel")]
        if let Some(span) = &mut self.span {
            use opentelemetry::trace::Span as _;
            span.end();
        }
    }
}

/// The span of one statement of `system` inside the current traced call, if any.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn statement(system: &'static str, sql: &str) -> Statement {
    #[cfg(feature = "otel")]
    if is_on() {
        use opentelemetry::KeyValue;
        use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer};
        let parent = opentelemetry::Context::current();
        if parent.has_active_span() {
            let operation = operation(sql);
            let mut attributes = vec![
                KeyValue::new("db.system.name", system),
                KeyValue::new("db.operation.name", operation),
            ];
            if STATEMENT_TEXT.load(Ordering::Relaxed) {
                attributes.push(KeyValue::new("db.query.text", sql.to_owned()));
            }
            let span = tracer()
                .span_builder(operation)
                .with_kind(SpanKind::Client)
                .with_attributes(attributes)
                .start_with_context(tracer(), &parent);
            return Statement { span: Some(span) };
        }
    }
    Statement {
        #[cfg(feature = "otel")]
        span: None,
    }
}

/// The engine's tracer on the global provider.
#[cfg(feature = "otel")]
pub(crate) fn tracer() -> &'static opentelemetry::global::BoxedTracer {
    static TRACER: std::sync::OnceLock<opentelemetry::global::BoxedTracer> =
        std::sync::OnceLock::new();
    TRACER.get_or_init(|| opentelemetry::global::tracer("toolforge"))
}

/// The statement's first keyword, upper-cased (`SELECT`, `WITH`, `INSERT`, ...).
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
fn operation(sql: &str) -> &'static str {
    let sql = sql.trim_start();
    let end = sql
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(sql.len());
    let word = &sql[..end];
    const KEYWORDS: [&str; 11] = [
        "SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "SET", "BEGIN", "COMMIT",
        "PRAGMA",
    ];
    KEYWORDS
        .into_iter()
        .find(|keyword| keyword.eq_ignore_ascii_case(word))
        .unwrap_or("OTHER")
}

#[cfg(test)]
mod tests {
    use super::operation;

    #[test]
    fn the_operation_is_the_first_keyword() {
        assert_eq!(operation("  select * from t"), "SELECT");
        assert_eq!(operation("WITH x AS (SELECT 1) SELECT * FROM x"), "WITH");
        assert_eq!(operation("VACUUM"), "OTHER");
    }
}
