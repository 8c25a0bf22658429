//! What `toolforge serve` tells operators: logs on stderr (text, or JSON lines with
//! `TOOLFORGE_LOG_FORMAT=json`; `TOOLFORGE_LOG` chooses what), and, when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, OpenTelemetry
//! traces and metrics exported over OTLP (HTTP/protobuf) with the `opentelemetry` crates: a span
//! per MCP request, a child span per SQL statement (`TOOLFORGE_OTEL_SQL_TEXT=1` adds the
//! statement's text, never its values), the `mcp.server.operation.duration` histogram. The
//! standard `OTEL_*` variables apply (service name, resource attributes, batch delay, metric
//! interval). Without an endpoint nothing is exported and no span is made.

use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The exporters, flushed and shut down when dropped (after the server stops).
#[derive(Default)]
pub struct Telemetry {
    traces: Option<SdkTracerProvider>,
    metrics: Option<SdkMeterProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(traces) = self.traces.take()
            && let Err(error) = traces.shutdown()
        {
            eprintln!("toolforge: exporting the last traces failed: {error}");
        }
        if let Some(metrics) = self.metrics.take()
            && let Err(error) = metrics.shutdown()
        {
            eprintln!("toolforge: exporting the last metrics failed: {error}");
        }
    }
}

/// Whether the environment variable `name` holds something other than blanks.
fn is_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| !value.trim().is_empty())
}

fn exporting() -> bool {
    is_set("OTEL_EXPORTER_OTLP_ENDPOINT") || is_set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
}

fn resource() -> Resource {
    let builder = Resource::builder();
    if std::env::var("OTEL_SERVICE_NAME").is_ok() {
        builder.build()
    } else {
        builder.with_service_name("toolforge").build()
    }
}

/// What is logged without `TOOLFORGE_LOG`: toolforge's own lines at info (start, reload,
/// failed calls, ...), rmcp's at warn; every answered call only at debug.
pub const DEFAULT_LOG: &str = "info,rmcp=warn";

/// Installs the logs and, when asked for, the exporters. Call once, before serving.
pub fn init() -> Telemetry {
    let filter = EnvFilter::try_from_env("TOOLFORGE_LOG").unwrap_or_else(|_| {
        // rmcp logs four lines at info for every stateless request (its service starting and
        // ending); they cost 12 % of a lookup's throughput and say nothing an operator uses.
        EnvFilter::new(DEFAULT_LOG)
    });
    let json = std::env::var("TOOLFORGE_LOG_FORMAT").is_ok_and(|format| format == "json");
    let logs = if json {
        tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .with_target(false)
            .with_current_span(false)
            .with_span_list(false)
            .with_filter(filter)
            .boxed()
    } else {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .with_target(false)
            .with_filter(filter)
            .boxed()
    };
    let mut telemetry = Telemetry::default();
    if exporting() {
        match start_exporters() {
            Ok((traces, metrics)) => {
                telemetry.traces = Some(traces);
                telemetry.metrics = Some(metrics);
                toolforge::trace::enable(
                    std::env::var("TOOLFORGE_OTEL_SQL_TEXT").is_ok_and(|v| v == "1"),
                );
            }
            Err(message) => eprintln!("toolforge: OpenTelemetry export is off: {message}"),
        }
    }
    let _ = tracing_subscriber::registry().with(logs).try_init();
    telemetry
}

/// Spans sent to the collector in one export, unless `OTEL_BSP_*` says otherwise: four times
/// the SDK's 512. A server answering thousands of calls a second makes two spans for each; in
/// batches of 512 it posted about 90 exports a second, whose cost showed in its throughput
/// (docs/BENCHMARKS.md, "A team behind one server").
const EXPORT_BATCH: usize = 2_048;

/// Spans waiting for export, unless `OTEL_BSP_*` says otherwise: room for three more batches
/// while one is sent.
const EXPORT_QUEUE: usize = 4 * EXPORT_BATCH;

/// The batch processor's settings: the `OTEL_BSP_*` variables when the operator set the queue
/// or the batch size, else [`EXPORT_QUEUE`] and [`EXPORT_BATCH`].
fn batch_config() -> opentelemetry_sdk::trace::BatchConfig {
    let config = BatchConfigBuilder::default();
    if is_set("OTEL_BSP_MAX_QUEUE_SIZE") || is_set("OTEL_BSP_MAX_EXPORT_BATCH_SIZE") {
        return config.build();
    }
    config
        .with_max_queue_size(EXPORT_QUEUE)
        .with_max_export_batch_size(EXPORT_BATCH)
        .build()
}

/// The OTLP exporters of traces and metrics, installed as the global providers.
fn start_exporters() -> Result<(SdkTracerProvider, SdkMeterProvider), String> {
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .build()
        .map_err(|error| format!("the trace exporter: {error}"))?;
    let traces = SdkTracerProvider::builder()
        .with_span_processor(
            BatchSpanProcessor::builder(spans)
                .with_batch_config(batch_config())
                .build(),
        )
        .with_resource(resource())
        .build();
    let measurements = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .build()
        .map_err(|error| format!("the metric exporter: {error}"))?;
    let metrics = SdkMeterProvider::builder()
        .with_periodic_exporter(measurements)
        .with_resource(resource())
        .build();
    opentelemetry::global::set_tracer_provider(traces.clone());
    opentelemetry::global::set_meter_provider(metrics.clone());
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    Ok((traces, metrics))
}

#[cfg(test)]
mod tests {
    #[test]
    fn spans_are_exported_in_batches_of_2048_by_default() {
        assert!(
            !std::env::vars().any(|(name, _)| name.starts_with("OTEL_BSP_")),
            "run this test without OTEL_BSP_* variables: they replace the defaults it checks"
        );
        let config = format!("{:?}", super::batch_config());
        assert!(config.contains("max_queue_size: 8192"), "{config}");
        assert!(config.contains("max_export_batch_size: 2048"), "{config}");
    }
}
