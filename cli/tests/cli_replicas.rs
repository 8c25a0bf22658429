//! `toolforge serve --http` as replicas behind a load balancer, over one PostgreSQL database
//! (`TOOLFORGE_TEST_POSTGRES_URL`, see `scripts/with-postgres`): a 2026-07-28 client whose
//! requests alternate between two server processes gets the answers one server gives, sees
//! an import made elsewhere on its next call, and hears `tools/list_changed` from both after a
//! config change. A replica whose database goes away answers `unavailable` within the call's
//! deadline and recovers by itself when the database is back.

use crate::http_support;
use crate::pg_support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use http_body_util::BodyExt;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use serde_json::{Value, json};

use http_support::{http, serve_http};
use tokio::net::{TcpListener, TcpStream};

const CONFIG: &str = "\
name: shelf
entities:
  - name: Book
    unique_field: isbn
    searchable_fields:
      - {name: isbn, type: string}
      - {name: title, type: string}
      - {name: year, type: number}
toolforge:
  tools: [schema, query, lookup]
";

fn books(range: std::ops::Range<usize>) -> String {
    range
        .map(|i| {
            format!(
                "{{\"entity\": \"Book\", \"data\": {{\"isbn\": \"b{i:03}\", \"title\": \"Book {i}\", \"year\": {}}}}}\n",
                1950 + i % 70
            )
        })
        .collect()
}

/// Runs the `toolforge` binary to the end; panics unless it succeeds.
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

/// A config file and JSON-lines files in a temporary folder, the database initialised and
/// seeded through the CLI.
fn seeded(url: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("shelf.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let data = dir.path().join("books.jsonl");
    std::fs::write(&data, books(0..40)).unwrap();
    let config_text = config.to_str().unwrap();
    toolforge(&["db", "init", "--config", config_text, "--db", url]);
    toolforge(&[
        "db",
        "import",
        "--config",
        config_text,
        "--db",
        url,
        data.to_str().unwrap(),
    ]);
    (dir, config)
}

/// `toolforge serve --http` on a free port; returns the child and its MCP URL.
async fn serve(config: &Path, url: &str, extra: &[&str]) -> (tokio::process::Child, String) {
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("--config"),
        config.as_os_str(),
        OsStr::new("--db"),
        OsStr::new(url),
    ];
    args.extend(extra.iter().map(OsStr::new));
    let served = serve_http(&args, &[]).await;
    (served.child, served.url)
}

/// A client of the newest protocol (no session: every request stands alone).
#[derive(Clone, Default)]
struct Client;

impl rmcp::ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::V_2026_07_28)
    }
}

async fn connect(url: &str) -> RunningService<RoleClient, Client> {
    use rmcp::transport::StreamableHttpClientTransport;
    Client
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(url.to_owned()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover over HTTP")
}

/// The names of the tools a client is offered.
async fn tool_names(client: &RunningService<RoleClient, Client>) -> Vec<String> {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

/// A call's structured answer, or its error as JSON.
async fn call(client: &RunningService<RoleClient, Client>, name: &str, arguments: Value) -> Value {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
        .await
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    match result.structured_content {
        Some(answer) if result.is_error != Some(true) => answer,
        _ => serde_json::from_str(&result.content[0].as_text().expect("text").text).unwrap(),
    }
}

/// A load balancer on loopback: each request goes to the next of `backends` in turn. Returns
/// its MCP URL and how many requests each backend got.
async fn round_robin(backends: Vec<String>) -> (String, Arc<Vec<AtomicUsize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let counts: Arc<Vec<AtomicUsize>> =
        Arc::new(backends.iter().map(|_| AtomicUsize::new(0)).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Body>();
    let (backends, seen) = (Arc::new(backends), counts.clone());
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let (backends, seen, next, client) =
            (backends.clone(), seen.clone(), next.clone(), client.clone());
        async move {
            let turn = next.fetch_add(1, Ordering::SeqCst) % backends.len();
            seen[turn].fetch_add(1, Ordering::SeqCst);
            let (mut parts, body) = request.into_parts();
            let target: axum::http::Uri = backends[turn].parse().unwrap();
            parts.uri = target;
            parts.headers.insert(
                axum::http::header::HOST,
                parts.uri.authority().unwrap().as_str().parse().unwrap(),
            );
            let body = body.collect().await.unwrap().to_bytes();
            let response = client
                .request(axum::http::Request::from_parts(parts, Body::from(body)))
                .await
                .unwrap();
            let (parts, body) = response.into_parts();
            axum::response::Response::from_parts(parts, Body::new(body))
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}/mcp"), counts)
}

/// The calls both set-ups answer.
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("get_schema", json!({})),
        (
            "query_entities",
            json!({"entity_type": "Book", "limit": 7, "order_by": {"field": "year", "direction": "DESC"}}),
        ),
        (
            "query_entities",
            json!({"entity_type": "Book", "conditions": [{"field": "year", "operator": ">=", "value": 2010}]}),
        ),
        (
            "get_entity_by_id",
            json!({"entity_type": "Book", "id_value": "b007"}),
        ),
        (
            "get_entities_by_ids",
            json!({"entity_type": "Book", "ids": ["b001", "b039", "nope"]}),
        ),
        (
            "get_entity_by_id",
            json!({"entity_type": "Book", "id_value": "nope"}),
        ),
        ("query_entities", json!({"entity_type": "Nope"})),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_behind_a_load_balancer_answer_as_one_server() {
    let Some(base) =
        pg_support::url("cli_replicas::replicas_behind_a_load_balancer_answer_as_one_server")
    else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "replicas");
    let (dir, config) = seeded(&url);
    let (_a, a_url) = serve(&config, &url, &["--reload"]).await;
    let (_b, b_url) = serve(&config, &url, &["--reload"]).await;
    let (balanced_url, counts) = round_robin(vec![a_url.clone(), b_url.clone()]).await;

    let single = connect(&a_url).await;
    let balanced = connect(&balanced_url).await;
    for (i, (tool, arguments)) in calls().into_iter().enumerate() {
        // Twice through the balancer: one answer from each replica.
        let expected = call(&single, tool, arguments.clone()).await;
        // The first five succeed; the last two are errors, which must agree too.
        let failed = expected.get("error").is_some();
        assert_eq!(failed, i >= 5, "{tool} {arguments}: {expected}");
        for _ in 0..2 {
            assert_eq!(
                call(&balanced, tool, arguments.clone()).await,
                expected,
                "{tool} {arguments}"
            );
        }
    }
    assert!(
        counts
            .iter()
            .all(|count| count.load(Ordering::SeqCst) >= calls().len()),
        "{counts:?}"
    );

    // An import through a third process: both replicas see it on their next call.
    let more = dir.path().join("more.jsonl");
    std::fs::write(&more, books(40..45)).unwrap();
    toolforge(&[
        "db",
        "import",
        "--config",
        config.to_str().unwrap(),
        "--db",
        &url,
        more.to_str().unwrap(),
    ]);
    for _ in 0..2 {
        let found = call(
            &balanced,
            "get_entity_by_id",
            json!({"entity_type": "Book", "id_value": "b044"}),
        )
        .await;
        assert_eq!(found["record"]["title"], "Book 44", "{found}");
        let counted = call(
            &balanced,
            "query_entities",
            json!({"entity_type": "Book", "limit": 1}),
        )
        .await;
        assert_eq!(counted["total"], 45, "{counted}");
    }

    // A config change reaches the listeners of both replicas.
    let mut listeners = Vec::new();
    for replica in [&a_url, &b_url] {
        let client = connect(replica).await;
        let subscription = client
            .listen(
                rmcp::model::SubscriptionFilter::builder()
                    .tools_list_changed()
                    .build(),
            )
            .await
            .expect("subscriptions/listen");
        listeners.push((client, subscription));
    }
    std::fs::write(
        &config,
        CONFIG.replace("[schema, query, lookup]", "[schema, lookup]"),
    )
    .unwrap();
    for (client, subscription) in &mut listeners {
        let notification = tokio::time::timeout(Duration::from_secs(30), subscription.next())
            .await
            .expect("tools/list_changed after the config changed")
            .expect("subscription open")
            .expect("a notification");
        assert!(
            matches!(
                notification,
                rmcp::model::ServerNotification::ToolListChangedNotification(_)
            ),
            "{notification:?}"
        );
        let names = tool_names(client).await;
        assert!(!names.contains(&"query_entities".to_owned()), "{names:?}");
    }
    for _ in 0..2 {
        let names = tool_names(&balanced).await;
        assert!(
            names.contains(&"get_entity_by_id".to_owned())
                && !names.contains(&"query_entities".to_owned()),
            "{names:?}"
        );
    }
}

/// A TCP relay to the database that the test can cut (every connection closed, new ones
/// refused) and restore, as a database server restart looks to a replica.
struct Relay {
    port: u16,
    up: Arc<AtomicBool>,
    cut: Arc<tokio::sync::Notify>,
}

impl Relay {
    async fn start(target: String) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = Arc::new(AtomicBool::new(true));
        let cut = Arc::new(tokio::sync::Notify::new());
        let (up_flag, cut_signal) = (up.clone(), cut.clone());
        tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    return;
                };
                if !up_flag.load(Ordering::SeqCst) {
                    drop(inbound);
                    continue;
                }
                let (target, cut) = (target.clone(), cut_signal.clone());
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cut.notified() => {}
                    }
                });
            }
        });
        Relay { port, up, cut }
    }

    fn down(&self) {
        self.up.store(false, Ordering::SeqCst);
        self.cut.notify_waiters();
    }

    fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_that_loses_its_database_answers_unavailable_and_recovers_by_itself() {
    let Some(base) = pg_support::url(
        "cli_replicas::a_replica_that_loses_its_database_answers_unavailable_and_recovers_by_itself",
    ) else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "replica_restart");
    let (_dir, config) = seeded(&url);
    let address = url
        .split('@')
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let relay = Relay::start(address.clone()).await;
    let relayed = url.replacen(&address, &format!("127.0.0.1:{}", relay.port), 1);
    let (_server, server_url) = serve(&config, &relayed, &["--timeout", "5"]).await;
    let client = connect(&server_url).await;
    let lookup = json!({"entity_type": "Book", "id_value": "b003"});
    assert_eq!(
        call(&client, "get_entity_by_id", lookup.clone()).await["record"]["title"],
        "Book 3"
    );

    let readyz = server_url.replace("/mcp", "/readyz");
    assert_eq!(get_status(&readyz).await, 200);

    relay.down();
    // The readiness probe says the database is gone (so a balancer stops sending calls).
    assert_eq!(get_status(&readyz).await, 503);
    for _ in 0..3 {
        let answer = tokio::time::timeout(
            Duration::from_secs(20),
            call(&client, "get_entity_by_id", lookup.clone()),
        )
        .await
        .expect("an answer within the call's deadline, not a hang");
        assert_eq!(answer["error"], "unavailable", "{answer}");
    }

    relay.restore();
    let mut recovered = None;
    for _ in 0..20 {
        let answer = call(&client, "get_entity_by_id", lookup.clone()).await;
        if answer["record"]["title"] == "Book 3" {
            recovered = Some(answer);
            break;
        }
        assert_eq!(answer["error"], "unavailable", "{answer}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(recovered.is_some(), "the replica did not recover");
    assert_eq!(get_status(&readyz).await, 200);
    // Every later call is answered too: no connection of the cut is handed out again.
    for _ in 0..10 {
        assert_eq!(
            call(&client, "get_entity_by_id", lookup.clone()).await["record"]["title"],
            "Book 3"
        );
    }
}

/// The status of a `GET` of `url`.
async fn get_status(url: &str) -> u16 {
    http("GET", url, &[], String::new()).await.0
}
