//! One span and one duration measurement per MCP request, as OpenTelemetry's semantic
//! conventions for MCP name them: the span `{mcp.method.name} {gen_ai.tool.name}` (kind server)
//! with `mcp.method.name`, `gen_ai.operation.name = execute_tool`, `gen_ai.tool.name`,
//! `mcp.protocol.version`, `jsonrpc.request.id`, and `error.type` with an error status when it
//! fails; the histogram `mcp.server.operation.duration` (seconds). The request joins the
//! caller's trace (`traceparent` / `tracestate` from its `_meta`, SEP-414, else its HTTP
//! headers), and the statements it runs are its children (`crate::trace`).
//!
//! With the `otel` feature, once the host has called [`crate::trace::enable`]; otherwise an
//! [`Operation`] is empty and costs nothing.

use super::origin::Origin;

/// A request being served.
pub(super) struct Operation {
    #[cfg(feature = "otel")]
    traced: Option<Traced>,
}

#[cfg(feature = "otel")]
struct Traced {
    /// The caller's context with this request's span.
    context: opentelemetry::Context,
    started: std::time::Instant,
    method: &'static str,
    tool: Option<opentelemetry::StringValue>,
    protocol: Option<opentelemetry::StringValue>,
}

impl Operation {
    /// Starts the span of `method` (`tools/call`, `tools/list`) for `tool`.
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))]
    pub(super) fn start(
        method: &'static str,
        tool: Option<&str>,
        origin: &Origin<'_>,
    ) -> Operation {
        #[cfg(feature = "otel")]
        if crate::trace::is_on() {
            use opentelemetry::KeyValue;
            use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer};
            // Each text made once, shared by the span and the duration's attributes.
            let protocol = origin.protocol().map(|version| protocol_text(&version));
            let tool_name = tool.map(|tool| opentelemetry::StringValue::from(tool.to_owned()));
            let mut attributes = Vec::with_capacity(5);
            attributes.push(KeyValue::new("mcp.method.name", method));
            if let Some(tool) = &tool_name {
                attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
                attributes.push(KeyValue::new("gen_ai.tool.name", tool.clone()));
            }
            if let Some(protocol) = &protocol {
                attributes.push(KeyValue::new("mcp.protocol.version", protocol.clone()));
            }
            attributes.push(KeyValue::new("jsonrpc.request.id", origin.id().to_string()));
            let name: std::borrow::Cow<'static, str> = match tool {
                Some(tool) => format!("{method} {tool}").into(),
                None => method.into(),
            };
            let parent = parent_context(origin);
            let tracer = crate::trace::tracer();
            let span = tracer
                .span_builder(name)
                .with_kind(SpanKind::Server)
                .with_attributes(attributes)
                .start_with_context(tracer, &parent);
            return Operation {
                traced: Some(Traced {
                    context: parent.with_span(span),
                    started: std::time::Instant::now(),
                    method,
                    tool: tool_name,
                    protocol,
                }),
            };
        }
        Operation {
            #[cfg(feature = "otel")]
            traced: None,
        }
    }

    /// Runs `work` as this request's (the statements it runs become the span's children).
    pub(super) async fn run<F: Future>(&self, work: F) -> F::Output {
        #[cfg(feature = "otel")]
        if let Some(traced) = &self.traced {
            use opentelemetry::context::FutureExt;
            return work.with_context(traced.context.clone()).await;
        }
        work.await
    }

    /// Ends the request: `error` is the failure's type (`timeout`, `invalid_arguments`, ...).
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))]
    pub(super) fn finish(self, error: Option<&str>) {
        #[cfg(feature = "otel")]
        if let Some(traced) = self.traced {
            use opentelemetry::KeyValue;
            use opentelemetry::trace::{Status, TraceContextExt};
            let span = traced.context.span();
            if let Some(error) = error {
                span.set_attribute(KeyValue::new("error.type", error.to_owned()));
                span.set_status(Status::error(error.to_owned()));
            }
            span.end();
            record_duration(&traced, error);
        }
    }
}

/// A protocol version as an attribute value: the static text of rmcp's own constant for the
/// versions it knows, a copy for any other.
#[cfg(feature = "otel")]
fn protocol_text(version: &rmcp::model::ProtocolVersion) -> opentelemetry::StringValue {
    let text = version.as_str();
    match rmcp::model::ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|known| known.as_str() == text)
    {
        Some(known) => known.as_str().into(),
        None => text.to_owned().into(),
    }
}

/// The caller's trace context: `traceparent` / `tracestate` of the request's `_meta`, else of
/// its HTTP request's headers.
#[cfg(feature = "otel")]
fn parent_context(origin: &Origin<'_>) -> opentelemetry::Context {
    use std::collections::HashMap;
    let mut carrier: HashMap<String, String> = HashMap::new();
    let meta = origin.meta();
    if let Some(traceparent) = meta.get_traceparent() {
        carrier.insert("traceparent".into(), traceparent.to_owned());
        if let Some(tracestate) = meta.get_tracestate() {
            carrier.insert("tracestate".into(), tracestate.to_owned());
        }
    } else {
        #[cfg(feature = "mcp-http")]
        if let Some(parts) = origin.parts() {
            for key in ["traceparent", "tracestate"] {
                if let Some(value) = parts.headers.get(key).and_then(|v| v.to_str().ok()) {
                    carrier.insert(key.into(), value.to_owned());
                }
            }
        }
    }
    if carrier.is_empty() {
        return opentelemetry::Context::new();
    }
    opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(&carrier))
}

/// Adds one request's duration to `mcp.server.operation.duration`.
#[cfg(feature = "otel")]
fn record_duration(traced: &Traced, error: Option<&str>) {
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
    let mut attributes = Vec::with_capacity(5);
    attributes.push(KeyValue::new("mcp.method.name", traced.method));
    if let Some(tool) = &traced.tool {
        attributes.push(KeyValue::new("gen_ai.tool.name", tool.clone()));
        attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
    }
    if let Some(protocol) = &traced.protocol {
        attributes.push(KeyValue::new("mcp.protocol.version", protocol.clone()));
    }
    if let Some(error) = error {
        attributes.push(KeyValue::new("error.type", error.to_owned()));
    }
    histogram.record(traced.started.elapsed().as_secs_f64(), &attributes);
}

#[cfg(all(test, feature = "otel"))]
mod tests {
    use rmcp::model::ProtocolVersion;

    #[test]
    fn protocol_versions_become_their_text() {
        for version in ProtocolVersion::KNOWN_VERSIONS {
            assert_eq!(super::protocol_text(version).as_str(), version.as_str());
        }
        let unknown: ProtocolVersion = serde_json::from_value("2031-01-01".into()).unwrap();
        assert_eq!(super::protocol_text(&unknown).as_str(), "2031-01-01");
    }
}
