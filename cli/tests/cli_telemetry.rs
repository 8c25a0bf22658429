//! What `toolforge serve --http` tells operators: OpenTelemetry traces and metrics exported over
//! OTLP (HTTP/protobuf) to a receiver this test starts, decoded with OpenTelemetry's own
//! protobuf definitions (`opentelemetry-proto`): a span per request named as the MCP semantic
//! conventions say, joined to the caller's trace (`_meta.traceparent` or the `traceparent`
//! header), a child span per SQL statement without its text, `error.type` on failures, the
//! `mcp.server.operation.duration` histogram; `/healthz`, `/readyz`, and JSON logs.

use crate::http_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{Value, json};

use http_support::{Served, http, serve_http};

const CONFIG: &str = "\
name: shelf
entities:
  - name: Book
    unique_field: isbn
    searchable_fields:
      - {name: isbn, type: string}
      - {name: title, type: string}
toolforge:
  tools: [schema, query, lookup]
";

/// What the receiver got: every span, and the names of the metrics with their data points'
/// attributes.
#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    metrics: Vec<(String, Vec<Vec<KeyValue>>)>,
}

/// An OTLP/HTTP receiver on loopback; returns its base URL.
async fn receiver(received: Arc<Mutex<Received>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let traces = received.clone();
    let app = axum::Router::new()
        .route(
            "/v1/traces",
            axum::routing::post(move |body: Bytes| {
                let traces = traces.clone();
                async move {
                    let request = ExportTraceServiceRequest::decode(body).expect("OTLP traces");
                    let mut received = traces.lock().unwrap();
                    for resource in request.resource_spans {
                        for scope in resource.scope_spans {
                            received.spans.extend(scope.spans);
                        }
                    }
                    ""
                }
            }),
        )
        .route(
            "/v1/metrics",
            axum::routing::post(move |body: Bytes| {
                let received = received.clone();
                async move {
                    let request = ExportMetricsServiceRequest::decode(body).expect("OTLP metrics");
                    let mut received = received.lock().unwrap();
                    for resource in request.resource_metrics {
                        for scope in resource.scope_metrics {
                            for metric in scope.metrics {
                                use opentelemetry_proto::tonic::metrics::v1::metric::Data;
                                let points = match &metric.data {
                                    Some(Data::Histogram(histogram)) => histogram
                                        .data_points
                                        .iter()
                                        .map(|p| p.attributes.clone())
                                        .collect(),
                                    _ => Vec::new(),
                                };
                                received.metrics.push((metric.name, points));
                            }
                        }
                    }
                    ""
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}")
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| match kv.value.as_ref() {
            Some(AnyValue {
                value: Some(any_value::Value::StringValue(text)),
            }) => Some(text.as_str()),
            _ => None,
        })
}

fn toolforge(args: &[&str]) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolforge"))
        .args(args)
        .output()
        .expect("run toolforge");
    assert!(
        output.status.success(),
        "toolforge {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A 2026-07-28 `tools/call` (no session), with `meta` added to its `_meta`.
async fn call(url: &str, tool: &str, arguments: Value, meta: Value, headers: &[(&str, &str)]) {
    let mut meta_object = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    });
    for (key, value) in meta.as_object().unwrap() {
        meta_object[key] = value.clone();
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments, "_meta": meta_object}});
    let mut all = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    all.extend_from_slice(headers);
    let (status, _, answer) = http("POST", url, &all, body.to_string()).await;
    assert_eq!(status, 200, "{answer}");
}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";
const HEADER_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_traced_and_measured_over_otlp() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("shelf.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let data = dir.path().join("books.jsonl");
    std::fs::write(
        &data,
        "{\"entity\": \"Book\", \"data\": {\"isbn\": \"b1\", \"title\": \"Dune\"}}\n",
    )
    .unwrap();
    let db = dir.path().join("shelf.db");
    let (config, db) = (config.to_str().unwrap(), db.to_str().unwrap());
    toolforge(&["db", "init", "--config", config, "--db", db]);
    toolforge(&[
        "db",
        "import",
        "--config",
        config,
        "--db",
        db,
        data.to_str().unwrap(),
    ]);

    let received = Arc::new(Mutex::new(Received::default()));
    let endpoint = receiver(received.clone()).await;
    let Served {
        child: _server,
        url,
        log,
    } = serve_http(
        &["--config", config, "--db", db],
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "200"),
            ("TOOLFORGE_LOG_FORMAT", "json"),
            ("TOOLFORGE_LOG", "debug,rmcp=warn"),
        ],
    )
    .await;
    let origin = url.trim_end_matches("/mcp");
    assert_eq!(
        http("GET", &format!("{origin}/healthz"), &[], String::new())
            .await
            .0,
        200
    );
    let (status, _, body) = http("GET", &format!("{origin}/readyz"), &[], String::new()).await;
    assert_eq!(status, 200, "{body}");

    // A call inside the caller's trace (_meta), a failing one, one with the trace in a header.
    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    call(
        &url,
        "get_entity_by_id",
        json!({"entity_type": "Book", "id_value": "b1"}),
        json!({"traceparent": traceparent}),
        &[],
    )
    .await;
    call(
        &url,
        "query_entities",
        json!({"entity_type": "Nope"}),
        json!({}),
        &[],
    )
    .await;
    let header = format!("00-{HEADER_TRACE}-{PARENT}-01");
    call(
        &url,
        "query_entities",
        json!({"entity_type": "Book"}),
        json!({}),
        &[("traceparent", header.as_str())],
    )
    .await;

    // Spans arrive within the batch delay; metrics within their interval.
    let mut waited = 0;
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        waited += 200;
        let received = received.lock().unwrap();
        let calls = received
            .spans
            .iter()
            .filter(|span| span.name.starts_with("tools/call"))
            .count();
        let measured = received
            .metrics
            .iter()
            .any(|(name, points)| name == "mcp.server.operation.duration" && points.len() >= 2);
        if (calls >= 3 && measured) || waited > 15_000 {
            break;
        }
    }
    let received = received.lock().unwrap();
    let request = received
        .spans
        .iter()
        .find(|span| span.name == "tools/call get_entity_by_id")
        .unwrap_or_else(|| {
            panic!(
                "no request span; got {:?}",
                received.spans.iter().map(|s| &s.name).collect::<Vec<_>>()
            )
        });
    assert_eq!(hex(&request.trace_id), TRACE, "joined the caller's trace");
    assert_eq!(hex(&request.parent_span_id), PARENT);
    assert_eq!(request.kind, 2, "SPAN_KIND_SERVER");
    let attributes = &request.attributes;
    assert_eq!(attribute(attributes, "mcp.method.name"), Some("tools/call"));
    assert_eq!(
        attribute(attributes, "gen_ai.operation.name"),
        Some("execute_tool")
    );
    assert_eq!(
        attribute(attributes, "gen_ai.tool.name"),
        Some("get_entity_by_id")
    );
    assert_eq!(
        attribute(attributes, "mcp.protocol.version"),
        Some("2026-07-28")
    );
    assert_eq!(attribute(attributes, "jsonrpc.request.id"), Some("7"));
    assert_eq!(attribute(attributes, "error.type"), None);
    // Its statements: children, with the system and operation, without the SQL text.
    let statements: Vec<&Span> = received
        .spans
        .iter()
        .filter(|span| span.parent_span_id == request.span_id)
        .collect();
    assert!(
        !statements.is_empty(),
        "no statement span under the request"
    );
    for statement in &statements {
        assert_eq!(
            attribute(&statement.attributes, "db.system.name"),
            Some("sqlite")
        );
        assert!(attribute(&statement.attributes, "db.operation.name").is_some());
        assert_eq!(attribute(&statement.attributes, "db.query.text"), None);
        assert_eq!(statement.kind, 3, "SPAN_KIND_CLIENT");
        assert_eq!(statement.trace_id, request.trace_id);
    }
    // The failing call says why.
    let failed = received
        .spans
        .iter()
        .find(|span| {
            span.name == "tools/call query_entities"
                && attribute(&span.attributes, "error.type").is_some()
        })
        .expect("the failing call's span");
    assert_eq!(
        attribute(&failed.attributes, "error.type"),
        Some("invalid_arguments")
    );
    assert_eq!(
        failed.status.as_ref().map(|s| s.code),
        Some(2),
        "STATUS_CODE_ERROR"
    );
    // The trace context of the HTTP header.
    assert!(
        received
            .spans
            .iter()
            .any(|span| span.name == "tools/call query_entities"
                && hex(&span.trace_id) == HEADER_TRACE),
        "the traceparent header was not followed"
    );
    // The duration histogram, per tool and outcome.
    let points: Vec<&Vec<KeyValue>> = received
        .metrics
        .iter()
        .filter(|(name, _)| name == "mcp.server.operation.duration")
        .flat_map(|(_, points)| points)
        .collect();
    assert!(
        points
            .iter()
            .any(|p| attribute(p, "gen_ai.tool.name") == Some("get_entity_by_id")),
        "{points:?}"
    );
    assert!(
        points
            .iter()
            .any(|p| attribute(p, "error.type") == Some("invalid_arguments")),
        "{points:?}"
    );
    // JSON logs: one object per line.
    let log = log.lock().unwrap();
    let answered = log
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|entry| entry["fields"]["message"] == "call answered")
        .unwrap_or_else(|| panic!("no JSON log of an answered call: {log:?}"));
    assert_eq!(answered["fields"]["tool"], "get_entity_by_id");
}
