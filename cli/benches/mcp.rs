//! What serving over MCP costs: a `get_entity_by_id` call made directly on the registry, through
//! `toolforge serve` over stdio (rmcp's client, a child process), and over Streamable HTTP (one
//! client, then 16 concurrent clients), all on the same seeded code-rag database, in one run.
//! A team's set-up against a single user's: 16 clients each with its own OAuth access token
//! (checked as a JWT against the issuer's keys) and every request traced and measured over OTLP
//! (to a receiver in this process that reads and drops what it gets), against 16 clients
//! sharing one bearer token and no telemetry. The OAuth pair needs the OpenID provider of
//! `scripts/with-oidc`; without it both return at once.
//!
//! `cargo bench -p toolforge-cli --bench mcp`
//! `scripts/with-oidc cargo bench -p toolforge-cli --bench mcp -- 16_clients`
//!
//! The three team set-ups also run side by side, in interleaved rounds (see [`team_rounds`]):
//! `TOOLFORGE_BENCH_TEAM_ROUNDS=40 scripts/with-oidc cargo bench -p toolforge-cli --bench mcp`

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use toolforge::ToolRegistry;

fn main() {
    match std::env::var("TOOLFORGE_BENCH_TEAM_ROUNDS") {
        Ok(rounds) => team_rounds(rounds.parse().expect("a number of rounds")),
        Err(_) => divan::main(),
    }
}

const CORPUS_CONFIG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/corpus/ragforge__examples__code-rag__ragforge.config.yaml"
);
const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/code-rag.jsonl"
);
const CONCURRENT_CLIENTS: usize = 16;
const CALLS_PER_CLIENT: usize = 64;

fn arguments() -> Value {
    json!({"entity_type": "Scope", "id_value": "s-login"})
}

/// A seeded database and its config in a temporary folder, and a Tokio runtime.
struct Fixture {
    _dir: tempfile::TempDir,
    config: std::path::PathBuf,
    db: std::path::PathBuf,
    runtime: tokio::runtime::Runtime,
}

/// `text` without its top-level `name:` section.
fn without_section(text: &str, name: &str) -> String {
    let mut kept = String::new();
    let mut skipping = false;
    for line in text.lines() {
        let top_level = !line.starts_with([' ', '#']) && !line.is_empty();
        if top_level {
            skipping = line.starts_with(&format!("{name}:"));
        }
        if !skipping {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    // The corpus config's `mcp:` lists ragforge's own tool names: serve every tool instead.
    let config = dir.path().join("code-rag.yaml");
    let text = std::fs::read_to_string(CORPUS_CONFIG).unwrap();
    std::fs::write(&config, without_section(&text, "mcp")).unwrap();
    let compiled = toolforge_cli::dynamic::compile(&config, &Default::default()).unwrap();
    let database = toolforge::sql::Database::open(&db).unwrap();
    database.init(&compiled.spec).unwrap();
    database
        .import_jsonl(&compiled.spec, std::fs::read(DATA).unwrap().as_slice())
        .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    Fixture {
        _dir: dir,
        config,
        db,
        runtime,
    }
}

fn serve_command(fixture: &Fixture, extra: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolforge"));
    command
        .args(["serve", "--config"])
        .arg(&fixture.config)
        .arg("--db")
        .arg(&fixture.db)
        .args(extra)
        .env("TOOLFORGE_LOG", "error");
    command
}

/// Baseline: the registry's own call.
#[divan::bench]
fn direct_registry_call(bencher: divan::Bencher) {
    let fixture = fixture();
    let registry: Arc<ToolRegistry> =
        toolforge_cli::dynamic::load_registry(&fixture.config, &fixture.db, &Default::default())
            .unwrap();
    bencher.bench_local(|| {
        fixture
            .runtime
            .block_on(registry.call("get_entity_by_id", arguments()))
            .unwrap()
    });
}

/// `tools/call` over stdio: rmcp's client and `toolforge serve` in a child process.
#[divan::bench]
fn stdio_tools_call(bencher: divan::Bencher) {
    let fixture = fixture();
    let client: RunningService<RoleClient, ClientConfig> = fixture.runtime.block_on(async {
        let transport = TokioChildProcess::builder(serve_command(&fixture, &[]))
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
            .0;
        ClientConfig::default()
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .serve(transport)
            .await
            .unwrap()
    });
    let Value::Object(args) = arguments() else {
        unreachable!()
    };
    bencher.bench_local(|| {
        fixture.runtime.block_on(async {
            client
                .call_tool(
                    CallToolRequestParams::new("get_entity_by_id").with_arguments(args.clone()),
                )
                .await
                .unwrap()
        })
    });
    fixture.runtime.block_on(client.cancel()).unwrap();
}

/// A session of the 2025-11-25 protocol over HTTP, with plain hyper requests.
struct HttpSession {
    client: HttpClient<HttpConnector, Full<Bytes>>,
    url: String,
    session: Option<hyper::header::HeaderValue>,
    next_id: AtomicU64,
    /// The `Authorization` header sent, if any (made once, as a client keeps it).
    authorization: Option<hyper::header::HeaderValue>,
}

impl HttpSession {
    async fn open(url: &str) -> HttpSession {
        HttpSession::open_with(url, None).await
    }

    async fn open_with(url: &str, authorization: Option<String>) -> HttpSession {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client = HttpClient::builder(TokioExecutor::new()).build(connector);
        let mut session = HttpSession {
            client,
            url: url.to_owned(),
            session: None,
            next_id: AtomicU64::new(1),
            authorization: authorization.map(|value| value.parse().expect("a header value")),
        };
        let (headers, _) = session
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"}}}),
            )
            .await;
        session.session = Some(headers.get("mcp-session-id").expect("a session id").clone());
        session
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
    }

    async fn post(&self, message: Value) -> (hyper::HeaderMap, String) {
        let mut request = hyper::Request::post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session.clone());
        }
        if let Some(authorization) = &self.authorization {
            request = request.header("authorization", authorization.clone());
        }
        let request = request
            .body(Full::new(Bytes::from(message.to_string())))
            .unwrap();
        let response = self.client.request(request).await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (headers, String::from_utf8(body.to_vec()).unwrap())
    }

    /// One `tools/call`; returns its result (from a JSON or an SSE answer).
    async fn call(&self) -> Value {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (_, body) = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "get_entity_by_id", "arguments": arguments()}}))
            .await;
        let message = body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|data| data.contains("\"result\""))
            .unwrap_or(body.trim());
        let answer: Value = serde_json::from_str(message).unwrap();
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        answer
    }
}

/// Starts `toolforge serve --http 127.0.0.1:0`; returns the child and its endpoint.
async fn http_server(fixture: &Fixture) -> (tokio::process::Child, String) {
    http_server_with(serve_command(fixture, &["--http", "127.0.0.1:0"])).await
}

/// Starts a `toolforge serve --http` command; returns the child and its endpoint.
async fn http_server_with(mut command: tokio::process::Command) -> (tokio::process::Child, String) {
    let mut child = command
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        seen.push_str(&line);
        seen.push('\n');
        if let Some(url) = line.strip_prefix("toolforge: serving MCP at ") {
            let url = url.trim().to_owned();
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return (child, url);
        }
    }
    panic!("the server did not start:\n{seen}");
}

/// `tools/call` over Streamable HTTP, one client.
#[divan::bench]
fn http_tools_call(bencher: divan::Bencher) {
    let fixture = fixture();
    let (_child, session) = fixture.runtime.block_on(async {
        let (child, url) = http_server(&fixture).await;
        (child, HttpSession::open(&url).await)
    });
    bencher.bench_local(|| fixture.runtime.block_on(session.call()));
}

/// Throughput over HTTP: 16 clients, each with its session, 64 calls each per iteration.
#[divan::bench(sample_count = 10)]
fn http_16_concurrent_clients(bencher: divan::Bencher) {
    let fixture = fixture();
    let (_child, sessions) = fixture.runtime.block_on(async {
        let (child, url) = http_server(&fixture).await;
        let mut sessions = Vec::new();
        for _ in 0..CONCURRENT_CLIENTS {
            sessions.push(Arc::new(HttpSession::open(&url).await));
        }
        (child, sessions)
    });
    concurrent_calls(bencher, &fixture, &sessions);
}

/// The issuer of `scripts/with-oidc`, if it runs.
fn issuer() -> Option<String> {
    std::env::var("TOOLFORGE_TEST_OIDC_ISSUER")
        .ok()
        .filter(|issuer| !issuer.is_empty())
}

/// Baseline of the team set-up: 16 clients sharing one bearer token, no telemetry.
#[divan::bench(sample_count = 10)]
fn http_16_clients_shared_token(bencher: divan::Bencher) {
    if issuer().is_none() {
        return;
    }
    let fixture = fixture();
    let (_child, sessions) = fixture.runtime.block_on(shared_token_sessions(&fixture));
    concurrent_calls(bencher, &fixture, &sessions);
}

/// 16 clients, each with its own access token of the OpenID provider, every request traced
/// and measured over OTLP.
#[divan::bench(sample_count = 10)]
fn http_16_clients_oauth_traced(bencher: divan::Bencher) {
    oauth_clients(bencher, true);
}

/// The same without telemetry: what the tokens alone cost.
#[divan::bench(sample_count = 10)]
fn http_16_clients_oauth(bencher: divan::Bencher) {
    oauth_clients(bencher, false);
}

fn oauth_clients(bencher: divan::Bencher, traced: bool) {
    let Some(issuer) = issuer() else {
        return;
    };
    let fixture = fixture();
    let (_child, sessions) = fixture
        .runtime
        .block_on(oauth_sessions(&fixture, &issuer, traced));
    concurrent_calls(bencher, &fixture, &sessions);
}

/// A server and its clients, stopped when dropped.
type Served = (tokio::process::Child, Vec<Arc<HttpSession>>);

/// A server with one shared bearer token and no telemetry, and 16 clients using the token.
async fn shared_token_sessions(fixture: &Fixture) -> Served {
    let mut command = serve_command(
        fixture,
        &["--http", "127.0.0.1:0", "--token-env", "BENCH_TOKEN"],
    );
    command.env("BENCH_TOKEN", "a-shared-secret-token");
    let (child, url) = http_server_with(command).await;
    let mut sessions = Vec::new();
    for _ in 0..CONCURRENT_CLIENTS {
        let authorization = Some("Bearer a-shared-secret-token".to_owned());
        sessions.push(Arc::new(HttpSession::open_with(&url, authorization).await));
    }
    (child, sessions)
}

/// A server checking `issuer`'s access tokens (exporting over OTLP when `traced`), and 16
/// clients, each with its own token.
async fn oauth_sessions(fixture: &Fixture, issuer: &str, traced: bool) -> Served {
    let config = fixture.config.with_file_name("code-rag-oauth.yaml");
    let text = std::fs::read_to_string(&fixture.config).unwrap();
    std::fs::write(
        &config,
        format!("{text}toolforge:\n  auth:\n    issuer: {issuer}\n    required_scopes: [mcp]\n"),
    )
    .unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolforge"));
    command
        .args(["serve", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&fixture.db)
        .args(["--http", "127.0.0.1:0"])
        .env("TOOLFORGE_LOG", "error");
    if traced {
        command.env("OTEL_EXPORTER_OTLP_ENDPOINT", otlp_sink().await);
    }
    let (child, url) = http_server_with(command).await;
    let mut sessions = Vec::new();
    for _ in 0..CONCURRENT_CLIENTS {
        let token = access_token(issuer, &url).await;
        sessions.push(Arc::new(
            HttpSession::open_with(&url, Some(format!("Bearer {token}"))).await,
        ));
    }
    (child, sessions)
}

/// The three team set-ups side by side, in `rounds` interleaved rounds of 1,024 calls each
/// (each round starting with the next set-up), after one round of warm-up: their median
/// times, and the median of each round's ratio to the shared token's time. On a machine
/// whose speed drifts, divan's samples of one set-up after another drift with it; rounds
/// side by side do not.
///
/// `TOOLFORGE_BENCH_TEAM_ROUNDS=30 scripts/with-oidc cargo bench -p toolforge-cli --bench mcp`
fn team_rounds(rounds: usize) {
    let Some(issuer) = issuer() else {
        eprintln!("the team rounds need the OpenID provider: run them under scripts/with-oidc");
        std::process::exit(2);
    };
    let fixture = fixture();
    let names = [
        "shared bearer token, no telemetry (baseline)",
        "one access token per client (JWT checked)",
        "one access token per client, traced and measured over OTLP",
    ];
    let setups: Vec<Served> = fixture.runtime.block_on(async {
        vec![
            shared_token_sessions(&fixture).await,
            oauth_sessions(&fixture, &issuer, false).await,
            oauth_sessions(&fixture, &issuer, true).await,
        ]
    });
    let mut times = vec![Vec::new(); setups.len()];
    for round in 0..=rounds {
        for step in 0..setups.len() {
            let which = (round + step) % setups.len();
            let started = std::time::Instant::now();
            fixture.runtime.block_on(calls(&setups[which].1));
            if round > 0 {
                times[which].push(started.elapsed().as_secs_f64());
            }
        }
    }
    let median = |values: &[f64]| -> f64 {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    let calls_per_round = (CONCURRENT_CLIENTS * CALLS_PER_CLIENT) as f64;
    println!("| set-up | median per 1,024 calls | calls/s (median) | ratio (median of rounds) |");
    println!("|---|---|---|---|");
    for (which, name) in names.iter().enumerate() {
        let ratios: Vec<f64> = times[which]
            .iter()
            .zip(&times[0])
            .map(|(time, baseline)| time / baseline)
            .collect();
        let time = median(&times[which]);
        println!(
            "| {name} | {:.1} ms | {:.0} | {:.2} |",
            time * 1000.0,
            calls_per_round / time,
            median(&ratios)
        );
    }
}

/// An OTLP/HTTP receiver that reads every export and drops it; its base URL.
async fn otlp_sink() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = axum::Router::new().fallback(|body: axum::body::Bytes| async move {
        let _ = body.len();
        ""
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}")
}

/// An access token of the provider's client `alice` for `resource`.
async fn access_token(issuer: &str, resource: &str) -> String {
    let encode = |text: &str| -> String {
        text.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    let form = format!(
        "grant_type=client_credentials&client_id=alice&client_secret=alice-secret&scope=mcp%20read&resource={}",
        encode(resource)
    );
    let client = HttpClient::builder(TokioExecutor::new()).build(HttpConnector::new());
    let request = hyper::Request::post(format!("{issuer}/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Full::new(Bytes::from(form)))
        .unwrap();
    let response = client.request(request).await.unwrap();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let answer: Value = serde_json::from_slice(&body).unwrap();
    answer["access_token"].as_str().expect("a token").to_owned()
}

/// 64 calls by each session at once, per iteration.
fn concurrent_calls(bencher: divan::Bencher, fixture: &Fixture, sessions: &[Arc<HttpSession>]) {
    bencher
        .counter(divan::counter::ItemsCount::new(
            CONCURRENT_CLIENTS * CALLS_PER_CLIENT,
        ))
        .bench_local(|| fixture.runtime.block_on(calls(sessions)));
}

/// 64 calls by each session at once.
async fn calls(sessions: &[Arc<HttpSession>]) {
    let mut tasks = Vec::new();
    for session in sessions {
        let session = session.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..CALLS_PER_CLIENT {
                session.call().await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
}
