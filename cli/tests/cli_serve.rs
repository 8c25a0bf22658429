//! `toolforge serve` as a desktop client runs it: a child process spoken to over stdio by
//! rmcp's client (the official Rust SDK). Over HTTP, the official Python SDK, the MCP
//! conformance suite and the inspector drive it in CI.

use crate::http_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientConfig, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceExt};
use rmcp::transport::TokioChildProcess;
use tokio::io::AsyncReadExt;
use tokio::sync::Notify;

const CONFIG: &str = "\
name: notes
entities:
  - name: Note
    searchable_fields:
      - name: title
        type: string
toolforge:
  toolsets:
    lookup: [get_schema, get_entity_by_id]
";

const DATA: &str = r#"{"entity": "Note", "data": {"uuid": "n1", "title": "Hello"}}"#;

fn toolforge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolforge"))
}

/// A config and a seeded database in a temporary folder.
fn seeded(config: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    seeded_with(config, DATA)
}

/// A config and a database seeded with `lines` (JSON lines) in a temporary folder.
fn seeded_with(config: &str, lines: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("notes.yaml");
    let db = dir.path().join("notes.db");
    let data = dir.path().join("notes.jsonl");
    std::fs::write(&config_path, config).unwrap();
    std::fs::write(&data, lines).unwrap();
    for args in [
        vec!["db", "init", "--config"],
        vec!["db", "import", "--config"],
    ] {
        let mut command = toolforge();
        command.args(&args).arg(&config_path).arg("--db").arg(&db);
        if args[1] == "import" {
            command.arg(&data);
        }
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    (dir, config_path, db)
}

/// A 2025-11-25 client that wakes a waiter on `tools/list_changed`.
#[derive(Clone, Default)]
struct Client {
    list_changed: Arc<Notify>,
}

impl rmcp::ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}

/// Starts `toolforge serve` with `extra` arguments; returns the client and the server's stderr.
async fn serve(
    config: &Path,
    db: &Path,
    extra: &[&str],
    client: Client,
) -> (
    RunningService<RoleClient, Client>,
    tokio::process::ChildStderr,
) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolforge"));
    command
        .arg("serve")
        .arg("--config")
        .arg(config)
        .arg("--db")
        .arg(db)
        .args(extra);
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolforge serve");
    let client = client.serve(transport).await.expect("handshake");
    (client, stderr.expect("stderr"))
}

async fn names(client: &RunningService<RoleClient, Client>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

#[test]
fn serve_refuses_exposed_names_that_are_not_tools_at_their_location() {
    let config =
        format!("{CONFIG}mcp:\n  tools:\n    - name: get_schema\n    - name: query_entitys\n");
    let (_dir, config, db) = seeded(&config);
    let output = toolforge()
        .arg("serve")
        .arg("--config")
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("notes.yaml:13:13"), "{stderr}");
    assert!(
        stderr.contains("`query_entitys` is not a tool of this config"),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `query_entities`?"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "nothing on stdout");
}

#[tokio::test]
async fn serve_names_itself_and_serves_toolsets_and_read_only_tools() {
    let config = format!("{CONFIG}mcp:\n  server: {{name: notes-server, version: 2.1.0}}\n");
    let (_dir, config, db) = seeded(&config);
    let (client, _stderr) = serve(&config, &db, &["--toolset", "lookup"], Client::default()).await;
    let info = client.peer_info().expect("server info");
    let identity = info.server_info.clone().expect("server identity");
    assert_eq!(
        (identity.name.as_str(), identity.version.as_str()),
        ("notes-server", "2.1.0")
    );
    assert_eq!(names(&client).await, ["get_schema", "get_entity_by_id"]);
    client.cancel().await.unwrap();

    let (client, _stderr) = serve(&config, &db, &["--read-only"], Client::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.len() > 2);
    for tool in tools {
        let hints = tool.annotations.expect("annotations");
        assert_eq!(hints.read_only_hint, Some(true), "{}", tool.name);
    }
    client.cancel().await.unwrap();

    let output = toolforge()
        .args(["serve", "--toolset", "nope", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("there is no toolset `nope`; the toolsets are `lookup`"),
        "{stderr}"
    );
}

const SCHEMA_AND_LOOKUP: [&str; 5] = [
    "get_schema",
    "describe_entity",
    "get_entity_by_id",
    "get_entities_by_ids",
    "batch",
];

#[tokio::test]
async fn reload_swaps_the_tools_of_a_changed_config_and_keeps_them_when_it_breaks() {
    let (_dir, config, db) = seeded(CONFIG);
    let handler = Client::default();
    let changed = handler.list_changed.clone();
    let (client, mut stderr) = serve(&config, &db, &["--reload"], handler).await;
    assert!(names(&client).await.contains(&"query_entities".to_string()));

    std::fs::write(
        &config,
        CONFIG.replace("toolforge:\n", "toolforge:\n  tools: [schema, lookup]\n"),
    )
    .unwrap();
    tokio::time::timeout(Duration::from_secs(20), changed.notified())
        .await
        .expect("tools/list_changed after the config changed");
    assert_eq!(names(&client).await, SCHEMA_AND_LOOKUP);

    std::fs::write(&config, "entities:\n  - name: Note\n    searchable_fields:\n      - name: title\n        type: strin\n").unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        names(&client).await,
        SCHEMA_AND_LOOKUP,
        "a broken config keeps the old tools"
    );
    let answer = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("get_schema")
                .with_arguments(serde_json::Map::new()),
        )
        .await
        .unwrap();
    assert_eq!(answer.is_error, Some(false));

    client.cancel().await.unwrap();
    let mut log = String::new();
    tokio::time::timeout(Duration::from_secs(10), stderr.read_to_string(&mut log))
        .await
        .expect("the server exits when the client leaves")
        .unwrap();
    assert!(log.contains("config reloaded"), "{log}");
    assert!(log.contains("the changed config is refused"), "{log}");
    assert!(
        log.contains("notes.yaml:5:15"),
        "the error is located: {log}"
    );
}

#[test]
fn serve_refuses_http_settings_that_would_expose_it_by_accident() {
    let (_dir, config, db) = seeded(CONFIG);
    let run = |extra: &[&str]| {
        let output = toolforge()
            .arg("serve")
            .arg("--config")
            .arg(&config)
            .arg("--db")
            .arg(&db)
            .args(extra)
            .env_remove("TOOLFORGE_TEST_MISSING_TOKEN")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{extra:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = run(&["--http", "0.0.0.0:0"]);
    assert!(
        stderr.contains("listens beyond this machine") && stderr.contains("--allow-host"),
        "{stderr}"
    );
    let stderr = run(&[
        "--http",
        "127.0.0.1:0",
        "--token-env",
        "TOOLFORGE_TEST_MISSING_TOKEN",
    ]);
    assert!(
        stderr.contains("`TOOLFORGE_TEST_MISSING_TOKEN` is not set or empty"),
        "{stderr}"
    );
}

fn call(name: &str, arguments: serde_json::Value) -> rmcp::model::CallToolRequestParams {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    rmcp::model::CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

#[tokio::test]
async fn defer_tools_lists_search_and_core_tools_and_calls_every_tool_by_name() {
    let (_dir, config, db) = seeded(CONFIG);
    let (client, _stderr) = serve(&config, &db, &["--defer-tools"], Client::default()).await;
    assert_eq!(
        names(&client).await,
        ["get_schema", "describe_entity", "tool_search"],
        "tool_search and the core tools only, in registration order"
    );

    let found = client
        .call_tool(call(
            "tool_search",
            serde_json::json!({"query": "find records whose field starts with some text", "mode": "fast", "max_results": 10}),
        ))
        .await
        .unwrap();
    assert_eq!(found.is_error, Some(false), "{found:?}");
    let answer = found.structured_content.expect("structured answer");
    let found_names: Vec<&str> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| result["name"].as_str().unwrap())
        .collect();
    assert!(found_names.contains(&"query_entities"), "{found_names:?}");
    assert!(!found_names.contains(&"tool_search"), "{found_names:?}");

    // A tool that is not listed is called by name.
    let records = client
        .call_tool(call(
            "query_entities",
            serde_json::json!({"entity_type": "Note", "conditions": [{"field": "title", "operator": "STARTS WITH", "value": "Hel"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(records.is_error, Some(false), "{records:?}");
    assert_eq!(
        records.structured_content.unwrap()["results"][0]["uuid"],
        "n1"
    );
    // An unknown name is still an error with the nearest names.
    let error = client
        .call_tool(call("query_entitys", serde_json::json!({})))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("query_entities"), "{error}");
    client.cancel().await.unwrap();

    let (client, _stderr) = serve(
        &config,
        &db,
        &["--defer-tools", "--core", "get_entity_by_id"],
        Client::default(),
    )
    .await;
    assert_eq!(names(&client).await, ["get_entity_by_id", "tool_search"]);
    client.cancel().await.unwrap();

    let output = toolforge()
        .args(["serve", "--defer-tools", "--core", "get_shema", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--core names `get_shema`")
            && stderr.contains("did you mean `get_schema`?"),
        "{stderr}"
    );
}

const OWNED: &str = "\
name: notes
entities:
  - name: Note
    searchable_fields:
      - {name: owner, type: string}
      - {name: title, type: string}
toolforge:
  access:
    Note: \"owner = :context.owner\"
  declared_tools:
    - name: my_notes
      description: The notes of the caller
      entity: Note
      where: \"owner = :owner\"
      order_by: title
      parameters:
        owner: {type: string, from_context: owner}
    - name: notes_per_owner
      description: How many notes each owner has, of those the caller sees
      sql:
        sqlite: \"SELECT owner, count(*) AS notes FROM note GROUP BY owner ORDER BY owner\"
";

/// An rmcp client over Streamable HTTP sending `headers` with every request.
async fn http_client(
    url: &str,
    headers: &[(&'static str, &str)],
) -> RunningService<RoleClient, Client> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let headers = headers
        .iter()
        .map(|(name, value)| {
            (
                http::HeaderName::from_static(name),
                http::HeaderValue::from_str(value).unwrap(),
            )
        })
        .collect();
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    Client::default()
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("handshake over HTTP")
}

/// The answer of a call that succeeded.
async fn answer(
    client: &RunningService<RoleClient, Client>,
    name: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let result = client.call_tool(call(name, arguments)).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{name}: {result:?}");
    result.structured_content.expect("structured answer")
}

/// The error of a call that failed (an `isError` result).
async fn refusal(
    client: &RunningService<RoleClient, Client>,
    name: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let result = client.call_tool(call(name, arguments)).await.unwrap();
    assert_eq!(result.is_error, Some(true), "{name}: {result:?}");
    serde_json::from_str(&result.content[0].as_text().expect("text").text).unwrap()
}

fn titles(answer: &serde_json::Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| record["title"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn context_headers_set_the_context_values_of_each_http_request() {
    let lines = [("ann", "a1"), ("bob", "b1"), ("ann", "a2"), ("bob", "b2"), ("cy", "c1")]
        .iter()
        .enumerate()
        .map(|(i, (owner, title))| {
            format!(
                "{{\"entity\": \"Note\", \"data\": {{\"uuid\": \"n{i}\", \"owner\": \"{owner}\", \"title\": \"{title}\"}}}}\n"
            )
        })
        .collect::<String>();
    let (_dir, config, db) = seeded_with(OWNED, &lines);
    let (_child, url) = http_serve(&config, &db, &["--context-header", "owner=X-Owner"]).await;

    let ann = http_client(&url, &[("x-owner", "ann")]).await;
    let bob = http_client(&url, &[("x-owner", "bob")]).await;
    let nobody = http_client(&url, &[]).await;

    // The context-bound parameter is in no listed schema.
    let tools = ann.list_all_tools().await.unwrap();
    let my_notes = tools.iter().find(|tool| tool.name == "my_notes").unwrap();
    let properties = my_notes.input_schema.get("properties").unwrap();
    assert!(properties.get("owner").is_none(), "{properties}");

    // Each request's header is its caller: declared tools and row rules follow it.
    for _ in 0..2 {
        let mine = answer(&ann, "my_notes", serde_json::json!({})).await;
        assert_eq!(titles(&mine), ["a1", "a2"]);
        let mine = answer(&bob, "my_notes", serde_json::json!({})).await;
        assert_eq!(titles(&mine), ["b1", "b2"]);
        let seen = answer(
            &bob,
            "query_entities",
            serde_json::json!({"entity_type": "Note"}),
        )
        .await;
        let mut seen = titles(&seen);
        seen.sort();
        assert_eq!(seen, ["b1", "b2"]);
        // A `sql:` tool sees through the same rule.
        let counted = answer(&bob, "notes_per_owner", serde_json::json!({})).await;
        assert_eq!(
            counted["rows"],
            serde_json::json!([{"owner": "bob", "notes": 2}]),
            "{counted}"
        );
    }
    // The model cannot name another caller.
    let error = refusal(&ann, "my_notes", serde_json::json!({"owner": "bob"})).await;
    assert_eq!(error["error"], "invalid_arguments", "{error}");
    assert_eq!(error["details"]["path"], "owner", "{error}");
    // Without the header: denied, and the row rule hides every note.
    let error = refusal(&nobody, "my_notes", serde_json::json!({})).await;
    assert_eq!(error["error"], "unavailable", "{error}");
    let seen = answer(
        &nobody,
        "query_entities",
        serde_json::json!({"entity_type": "Note"}),
    )
    .await;
    assert_eq!(seen["results"], serde_json::json!([]));
    // A batch's calls carry the request's values.
    let batch = answer(
        &bob,
        "batch",
        serde_json::json!({"calls": [{"tool": "my_notes", "arguments": {}}]}),
    )
    .await;
    assert_eq!(
        titles(&batch["results"][0]["result"]),
        ["b1", "b2"],
        "{batch}"
    );
    for client in [ann, bob, nobody] {
        client.cancel().await.unwrap();
    }
}

#[test]
fn context_headers_need_http_and_a_name_of_their_own() {
    let (_dir, config, db) = seeded(CONFIG);
    let run = |extra: &[&str]| {
        let output = toolforge()
            .arg("serve")
            .arg("--config")
            .arg(&config)
            .arg("--db")
            .arg(&db)
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_ne!(output.status.code(), Some(0), "{extra:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = run(&["--context-header", "owner=X-Owner"]);
    assert!(stderr.contains("serve with --http"), "{stderr}");
    let stderr = run(&[
        "--http",
        "127.0.0.1:0",
        "--context-header",
        "owner=X-Owner",
        "--context",
        "owner=HOME",
    ]);
    assert!(
        stderr.contains("both by --context and by --context-header"),
        "{stderr}"
    );
    let stderr = run(&["--http", "127.0.0.1:0", "--context-header", "owner=X Owner"]);
    assert!(stderr.contains("header name"), "{stderr}");
}

/// `toolforge serve --http 127.0.0.1:0` with `extra` arguments; the child and its MCP URL.
async fn http_serve(config: &Path, db: &Path, extra: &[&str]) -> (tokio::process::Child, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "--config".as_ref(),
        config.as_os_str(),
        "--db".as_ref(),
        db.as_os_str(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let served = http_support::serve_http(&args, &[]).await;
    (served.child, served.url)
}

/// Requests that are not one JSON-RPC message get JSON-RPC's status codes and errors, not a
/// `415` or a `500` (they did before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_http_requests_get_json_rpc_errors_and_4xx() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (_dir, config, db) = seeded(CONFIG);
    let (_child, url) = http_serve(&config, &db, &[]).await;
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    // One raw HTTP/1.1 request; the status line and the body.
    let send = |head: String, body: Vec<u8>| {
        let address = address.clone();
        async move {
            let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
            stream.write_all(head.as_bytes()).await.unwrap();
            stream.write_all(&body).await.unwrap();
            let mut answer = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
                .await;
            let answer = String::from_utf8_lossy(&answer).into_owned();
            let status = answer.split(' ').nth(1).unwrap_or_default().to_owned();
            (status, answer)
        }
    };
    let post = |body: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            body.len()
        )
    };
    for (body, code) in [
        ("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"", -32700),
        (
            "[{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}]",
            -32600,
        ),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": null, \"method\": \"ping\"}",
            -32600,
        ),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 1.5, \"method\": \"ping\"}",
            -32600,
        ),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 1208925819614629174706176, \"method\": \"ping\"}",
            -32600,
        ),
        // JSON that is not JSON-RPC 2.0: another version, none, positional params, a key twice.
        (
            "{\"jsonrpc\": \"1.0\", \"id\": 1, \"method\": \"ping\"}",
            -32600,
        ),
        ("{\"id\": 1, \"method\": \"ping\"}", -32600),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\", \"params\": []}",
            -32600,
        ),
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"id\": 2, \"method\": \"ping\"}",
            -32600,
        ),
    ] {
        let (status, answer) = send(post(body), body.as_bytes().to_vec()).await;
        assert_eq!(status, "400", "{body}: {answer}");
        assert!(
            answer.contains(&format!("\"code\":{code}")),
            "{body}: {answer}"
        );
    }
    // A chunked body with an invalid chunk size is the client's mistake.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\
         Connection: close\r\n\r\n"
    );
    let (status, answer) = send(head, b"zz\r\n{}\r\n0\r\n\r\n".to_vec()).await;
    assert!(status.starts_with('4'), "{answer}");
}

/// The requests a clumsy client sends with params that do not fit their method, and what
/// each answer's message must name.
const WRONGLY_TYPED: &[(&str, &str, &str)] = &[
    ("resources/read", r#"{"uri": 123}"#, "`uri`"),
    ("prompts/get", r#"{"name": null}"#, "`name`"),
    (
        "completion/complete",
        r#"{"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": 7}}"#,
        "`argument.value`",
    ),
    ("tools/call", r#"{"name": 1}"#, "`name`"),
    ("tools/call", "null", "the request has none"),
];

/// Checks one JSON-RPC answer to a request of `WRONGLY_TYPED` (or to an unknown method).
fn assert_rpc_error(answer: &serde_json::Value, code: i64, names: &str, request: &str) {
    assert_eq!(answer["error"]["code"], code, "{request}: {answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(names), "{request}: {message}");
}

/// A known method whose params are wrongly typed is `-32602` Invalid params naming the
/// parameter, over stdio and HTTP, in a session and stateless; only a method that does not
/// exist is `-32601` (both were `-32601` with the method's name as the message before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrongly_typed_params_are_invalid_params_on_every_transport() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (_dir, config, db) = seeded(CONFIG);
    let request = |id: usize, method: &str, params: &str| {
        format!(r#"{{"jsonrpc": "2.0", "id": {id}, "method": "{method}", "params": {params}}}"#)
    };
    let unknown = r#"{"jsonrpc": "2.0", "id": 99, "method": "tools/delete", "params": {}}"#;

    // stdio, as a desktop client speaks it.
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolforge"))
        .args(["serve", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Writes `line`; reads the answer unless it is a notification.
    let mut exchange = async |line: &str| -> serde_json::Value {
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        if !line.contains("\"id\"") {
            return serde_json::Value::Null;
        }
        let answer = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("an answer within 30 s")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&answer).unwrap()
    };
    let initialized = exchange(
        r#"{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}"#,
    )
    .await;
    assert!(initialized["result"].is_object(), "{initialized}");
    exchange(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#).await;
    for (id, (method, params, names)) in WRONGLY_TYPED.iter().enumerate() {
        let line = request(id + 1, method, params);
        assert_rpc_error(&exchange(&line).await, -32602, names, &line);
    }
    assert_rpc_error(&exchange(unknown).await, -32601, "`tools/delete`", unknown);
    drop(stdin);
    let _ = child.wait().await;

    // HTTP: in a 2025-06-18 session, and stateless (2026-07-28).
    let (_server, url) = http_serve(&config, &db, &[]).await;
    let post = async |body: String, headers: &[(&str, &str)]| {
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http::<axum::body::Body>();
        let mut request = axum::http::Request::post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = client
            .request(request.body(axum::body::Body::from(body)).unwrap())
            .await
            .unwrap();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|value| value.to_str().unwrap().to_owned());
        let bytes = http_body_util::BodyExt::collect(response.into_body())
            .await
            .unwrap()
            .to_bytes();
        let text = String::from_utf8_lossy(&bytes);
        // A JSON answer, or the JSON of an event stream's `data:` line.
        let json = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .find(|data| !data.trim().is_empty())
            .unwrap_or(&text);
        let answer: serde_json::Value = serde_json::from_str(json.trim())
            .unwrap_or_else(|_| serde_json::Value::String(text.clone().into_owned()));
        (session, answer)
    };
    let (session, initialized) = post(
        r#"{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}"#.to_owned(),
        &[],
    )
    .await;
    assert!(initialized["result"].is_object(), "{initialized}");
    let session = session.expect("a session id");
    let in_session = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    post(
        r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#.to_owned(),
        &in_session,
    )
    .await;
    for (id, (method, params, names)) in WRONGLY_TYPED.iter().enumerate() {
        let body = request(id + 1, method, params);
        let (_, answer) = post(body.clone(), &in_session).await;
        assert_rpc_error(&answer, -32602, names, &body);
    }
    let (_, answer) = post(unknown.to_owned(), &in_session).await;
    assert_rpc_error(&answer, -32601, "`tools/delete`", unknown);

    let stateless = [("mcp-protocol-version", "2026-07-28")];
    let meta = r#""_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}}"#;
    for (id, (method, params, names)) in WRONGLY_TYPED.iter().enumerate() {
        if *params == "null" {
            continue; // a stateless request carries its protocol version in its params
        }
        let params = format!("{{{meta}, {}", &params[1..]);
        let body = request(id + 1, method, &params);
        let (_, answer) = post(body.clone(), &[stateless[0], ("mcp-method", method)]).await;
        assert_rpc_error(&answer, -32602, names, &body);
    }
}
