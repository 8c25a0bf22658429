//! `toolforge serve --http` against slow, half-open and idle connections: a request's headers
//! and body have deadlines, an idle connection is closed, and the number of open connections
//! is bounded so that attackers cannot use up the process's descriptors — a fresh client and
//! `/healthz` keep being answered. Before, 1,100 half-open connections under `ulimit -n 1024`
//! kept every new client out, and idle keep-alive connections were never closed.

use crate::http_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use http_support::{serve_http, serve_http_with_descriptors};

const CONFIG: &str = "\
name: notes
entities:
  - name: Note
    searchable_fields:
      - name: title
        type: string
";

/// A config (with `extra` appended) and its initialised database in a temporary folder.
fn seeded(extra: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("notes.yaml");
    let db = dir.path().join("notes.db");
    std::fs::write(&config, format!("{CONFIG}{extra}")).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolforge"))
        .args(["db", "init", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (dir, config, db)
}

fn args<'a>(config: &'a Path, db: &'a Path, extra: &'a [&'a str]) -> Vec<&'a std::ffi::OsStr> {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "--config".as_ref(),
        config.as_os_str(),
        "--db".as_ref(),
        db.as_os_str(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    args
}

/// `host:port` of a served MCP URL.
fn host_port(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// A `tools/list` request of a stateless (2026-07-28) client, as raw HTTP/1.1.
fn tools_list(address: &str) -> String {
    let body = r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}}}}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/list\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Sends `request` on a new connection and reads the answer to its end, within `within`;
/// `None` if it did not come.
async fn exchange(address: &str, request: &str, within: Duration) -> Option<String> {
    tokio::time::timeout(within, async {
        let mut stream = TcpStream::connect(address).await.ok()?;
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.ok()?;
        Some(String::from_utf8_lossy(&answer).into_owned())
    })
    .await
    .ok()
    .flatten()
}

/// Whether the server closes `stream` within `within` (reading to its end).
async fn closed_within(stream: &mut TcpStream, within: Duration) -> Option<String> {
    let mut answer = Vec::new();
    tokio::time::timeout(within, stream.read_to_end(&mut answer))
        .await
        .ok()
        .map(|_| String::from_utf8_lossy(&answer).into_owned())
}

/// 1,100 connections that each send half a request's headers, against a server that may open
/// 1,024 descriptors: a fresh client's `tools/list` and `/healthz` are still answered, and
/// the attackers' connections are closed to make room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_open_connections_do_not_keep_fresh_clients_out() {
    let (_dir, config, db) = seeded("");
    let served = serve_http_with_descriptors(&args(&config, &db, &[]), 1024).await;
    let address = host_port(&served.url);
    let mut attackers = Vec::new();
    for _ in 0..1100 {
        let mut stream = TcpStream::connect(&address).await.expect("connect");
        stream
            .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-").as_bytes())
            .await
            .unwrap();
        attackers.push(stream);
    }
    // Each answer within 5 s (the old server answered none while the attackers stayed).
    let within = Duration::from_secs(5);
    let answer = exchange(&address, &tools_list(&address), within)
        .await
        .expect("a fresh client is answered");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"get_schema\""), "{answer}");
    let health = format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    let answer = exchange(&address, &health, within)
        .await
        .expect("/healthz is answered");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // The server kept at most its 512 connections: the others were closed.
    let mut reads = tokio::task::JoinSet::new();
    for mut stream in attackers {
        reads.spawn(async move {
            closed_within(&mut stream, Duration::from_secs(2))
                .await
                .is_some()
        });
    }
    let closed = reads.join_all().await.into_iter().filter(|c| *c).count();
    assert!(closed >= 1100 - 512, "only {closed} of 1,100 were closed");
}

/// Headers, bodies and idle connections each meet their deadline: `toolforge.http` sets them
/// in the config, and `serve`'s flags override it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_requests_and_idle_connections_are_closed_at_their_deadlines() {
    // Headers and bodies within 1 s; idle connections may wait 60 s.
    let (_dir, config, db) = seeded(
        "toolforge:\n  http:\n    header_timeout_seconds: 1\n    body_timeout_seconds: 1\n    idle_timeout_seconds: 60\n",
    );
    let served = serve_http(&args(&config, &db, &[]), &[]).await;
    let address = host_port(&served.url);
    // Well within the idle time, well past the header and body deadlines.
    let within = Duration::from_secs(20);

    let mut slow_headers = TcpStream::connect(&address).await.unwrap();
    slow_headers
        .write_all(format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\n").as_bytes())
        .await
        .unwrap();
    let answer = closed_within(&mut slow_headers, within)
        .await
        .expect("a connection whose headers stop is closed");
    assert!(!answer.contains("200 OK"), "{answer}");

    let mut slow_body = TcpStream::connect(&address).await.unwrap();
    slow_body
        .write_all(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\""
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let answer = closed_within(&mut slow_body, within)
        .await
        .expect("a request whose body stops is answered");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("did not arrive within 1 s of its headers"),
        "{answer}"
    );

    // The flag over the config: idle connections closed after 1 s.
    let served = serve_http(&args(&config, &db, &["--idle-timeout", "1"]), &[]).await;
    let address = host_port(&served.url);
    let mut silent = TcpStream::connect(&address).await.unwrap();
    closed_within(&mut silent, within)
        .await
        .expect("a connection that sends nothing is closed");
    let mut kept_alive = TcpStream::connect(&address).await.unwrap();
    kept_alive
        .write_all(format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut answer = vec![0; 1024];
    let read = kept_alive.read(&mut answer).await.unwrap();
    assert!(answer[..read].starts_with(b"HTTP/1.1 200"));
    closed_within(&mut kept_alive, within)
        .await
        .expect("a keep-alive connection is closed once idle");
}

/// With every open connection answering a request, a new one is answered `503` with
/// `Retry-After`, and `GET /healthz` still `200`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_the_limit_of_busy_connections_new_ones_get_503_and_health_200() {
    let (_dir, config, db) = seeded("");
    let served = serve_http(&args(&config, &db, &["--max-connections", "2"]), &[]).await;
    let address = host_port(&served.url);
    // Two requests under way: their headers sent, their bodies not yet.
    let mut busy = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(&address).await.unwrap();
        stream
            .write_all(
                format!(
                    "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
                     Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{"
                )
                .as_bytes(),
            )
            .await
            .unwrap();
        busy.push(stream);
    }
    // A new connection takes the place of one whose headers have not been read yet: give the
    // server time to read both requests' headers.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let within = Duration::from_secs(10);
    let answer = exchange(&address, &tools_list(&address), within)
        .await
        .expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 1"),
        "{answer}"
    );
    assert!(answer.contains("--max-connections"), "{answer}");
    let health = format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\n\r\n");
    let answer = exchange(&address, &health, within)
        .await
        .expect("/healthz is answered");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    drop(busy);
}
