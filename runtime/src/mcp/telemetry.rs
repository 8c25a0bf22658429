//! One span and one duration measurement per MCP request, as OpenTelemetry's semantic
//! conventions for MCP name them: the span `{mcp.method.name} {gen_ai.tool.name}` (kind
//! server) with `mcp.method.name`, `gen_ai.operation.name = execute_tool`, `gen_ai.tool.name`,
//! `mcp.protocol.version`, `jsonrpc.request.id`, and `error.type` when it fails; the histogram
//! `mcp.server.operation.duration` (seconds). The database statements the request runs are its
//! child spans.
//!
//! Spans are `tracing` spans at `DEBUG` level (target `toolforge::mcp`): a host that exports
//! them (the `toolforge` CLI with `OTEL_EXPORTER_OTLP_ENDPOINT`) enables them; without one
//! they cost a disabled-callsite check. With the `otel` feature the request joins the caller's
//! trace (`traceparent` / `tracestate` from the request's `_meta`, else its HTTP headers) and the
//! duration goes to the global meter, a no-op until the host installs one.

use std::time::Instant;

use rmcp::service::{RequestContext, RoleServer};

/// A request being served: its span and when it started.
pub(super) struct Operation {
    span: tracing::Span,
    started: Instant,
    method: &'static str,
    tool: Option<String>,
    protocol: Option<String>,
}

impl Operation {
    /// Starts the span of `method` (`tools/call`, `tools/list`) for `tool`.
    pub(super) fn start(
        method: &'static str,
        tool: Option<&str>,
        context: &RequestContext<RoleServer>,
    ) -> Operation {
        let protocol = context.protocol_version().map(|v| v.to_string());
        let name = match tool {
            Some(tool) => format!("{method} {tool}"),
            None => method.to_owned(),
        };
        let span = tracing::debug_span!(
            target: "toolforge::mcp",
            "mcp.request",
            otel.name = %name,
            otel.kind = "server",
            otel.status_code = tracing::field::Empty,
            mcp.method.name = method,
            gen_ai.operation.name = tool.map(|_| "execute_tool"),
            gen_ai.tool.name = tool,
            mcp.protocol.version = protocol.as_deref(),
            jsonrpc.request.id = %context.id,
            error.type = tracing::field::Empty,
        );
        #[cfg(feature = "otel")]
        if !span.is_disabled() {
            use tracing_opentelemetry::OpenTelemetrySpanExt;
            let parent = parent_context(context);
            let _ = span.set_parent(parent);
        }
        Operation {
            span,
            started: Instant::now(),
            method,
            tool: tool.map(str::to_owned),
            protocol,
        }
    }

    /// The request's span, to run its work in.
    pub(super) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Ends the request: `error` is the failure's type (`timeout`, `invalid_arguments`, ...).
    pub(super) fn finish(self, error: Option<&str>) {
        if let Some(error) = error {
            self.span.record("error.type", error);
            self.span.record("otel.status_code", "ERROR");
        }
        #[cfg(feature = "otel")]
        record_duration(
            self.started.elapsed().as_secs_f64(),
            self.method,
            self.tool.as_deref(),
            self.protocol.as_deref(),
            error,
        );
        #[cfg(not(feature = "otel"))]
        let _ = (self.started, self.method, self.tool, self.protocol);
    }
}

/// The caller's trace context: `traceparent` / `tracestate` of the request's `_meta`
/// (SEP-414), else of its HTTP request's headers.
#[cfg(feature = "otel")]
fn parent_context(context: &RequestContext<RoleServer>) -> opentelemetry::Context {
    use std::collections::HashMap;
    let mut carrier: HashMap<String, String> = HashMap::new();
    if let Some(traceparent) = context.meta.get_traceparent() {
        carrier.insert("traceparent".into(), traceparent.to_owned());
        if let Some(tracestate) = context.meta.get_tracestate() {
            carrier.insert("tracestate".into(), tracestate.to_owned());
        }
    } else {
        #[cfg(feature = "mcp-http")]
        if let Some(parts) = context.extensions.get::<axum::http::request::Parts>() {
            for key in ["traceparent", "tracestate"] {
                if let Some(value) = parts.headers.get(key).and_then(|v| v.to_str().ok()) {
                    carrier.insert(key.into(), value.to_owned());
                }
            }
        }
    }
    opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(&carrier))
}

/// Adds one request's duration to `mcp.server.operation.duration`.
#[cfg(feature = "otel")]
fn record_duration(
    seconds: f64,
    method: &'static str,
    tool: Option<&str>,
    protocol: Option<&str>,
    error: Option<&str>,
) {
    use opentelemetry::KeyValue;
    use std::sync::OnceLock;
    static HISTOGRAM: OnceLock<opentelemetry::metrics::Histogram<f64>> = OnceLock::new();
    let histogram = HISTOGRAM.get_or_init(|| {
        opentelemetry::global::meter("toolforge")
            .f64_histogram("mcp.server.operation.duration")
            .with_unit("s")
            .with_description("Duration of MCP requests as the server observes them")
            .build()
    });
    let mut attributes = vec![KeyValue::new("mcp.method.name", method)];
    if let Some(tool) = tool {
        attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
    }
    if let Some(protocol) = protocol {
        attributes.push(KeyValue::new("mcp.protocol.version", protocol.to_owned()));
    }
    if let Some(error) = error {
        attributes.push(KeyValue::new("error.type", error.to_owned()));
    }
    histogram.record(seconds, &attributes);
}
