//! The MCP server seen by rmcp's client (the official Rust SDK) over an in-process stream:
//! a registry of database tools (seeded code-rag data), `#[derive(Tool)]` tools and `batch`.
//! The same server over stdio and HTTP is driven by the official Python SDK in CI
//! (`scripts/check-mcp-server.py`).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ErrorCode as RpcCode, JsonObject};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolforge::mcp::{McpOptions, McpServer, ServeError};
use toolforge::schemars::JsonSchema;
use toolforge::serde::Serialize;
use toolforge::sql::Database;
use toolforge::{Tool, ToolContext, ToolError, ToolHandler, ToolRegistry, TypedTool};
use toolforge_cli::dynamic;
use toolforge_tests::corpus_dir;

const CONFIG: &str = "ragforge__examples__code-rag__ragforge.config.yaml";

/// Sleeps for `seconds`, recording its `tag` if it is dropped before finishing.
#[derive(Tool)]
#[tool(read_only, idempotent = true, destructive = false)]
struct Sleep {
    /// How long to sleep.
    seconds: u64,
    /// Names the call in the record of dropped calls.
    tag: Option<String>,
}

/// The tags of the `sleep` calls dropped before they finished.
static DROPPED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

struct DropFlag(Option<String>);
impl Drop for DropFlag {
    fn drop(&mut self) {
        if let Some(tag) = self.0.take() {
            DROPPED.lock().unwrap().push(tag);
        }
    }
}

/// Waits up to 3 s for the call tagged `tag` to be dropped.
async fn dropped(tag: &str) -> bool {
    for _ in 0..150 {
        if DROPPED.lock().unwrap().iter().any(|t| t == tag) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

impl ToolHandler for Sleep {
    type Output = Slept;

    async fn run(self, _context: &ToolContext) -> Result<Slept, ToolError> {
        let mut flag = DropFlag(self.tag);
        tokio::time::sleep(Duration::from_secs(self.seconds)).await;
        flag.0 = None;
        Ok(Slept {
            seconds: self.seconds,
        })
    }
}

/// What `sleep` answers.
#[derive(Serialize, JsonSchema)]
#[serde(crate = "toolforge::serde")]
#[schemars(crate = "toolforge::schemars")]
struct Slept {
    /// How long it slept.
    seconds: u64,
}

/// Writes a note (not read-only).
#[derive(Tool)]
#[tool(destructive = false)]
struct WriteNote {
    /// The note.
    text: String,
}

impl ToolHandler for WriteNote {
    type Output = Value;

    async fn run(self, _context: &ToolContext) -> Result<Value, ToolError> {
        Ok(json!({"written": self.text}))
    }
}

/// Database tools over seeded code-rag data, `sleep`, `write_note` and `batch`.
fn registry(dir: &tempfile::TempDir) -> Arc<ToolRegistry> {
    let config = corpus_dir().join(CONFIG);
    let compiled = dynamic::compile(&config, &Default::default()).expect("config");
    let path = dir.path().join("mcp.db");
    let db = Database::open(&path).expect("open");
    db.init(&compiled.spec).expect("init");
    let data = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/code-rag.jsonl"),
    )
    .expect("fixture");
    db.import_jsonl(&compiled.spec, data.as_slice())
        .expect("import");
    toolforge::sql::registry_builder(Arc::new(compiled.spec), db)
        .expect("registry")
        .register(TypedTool::<Sleep>::new())
        .expect("sleep")
        .register(TypedTool::<WriteNote>::new())
        .expect("write_note")
        .build()
}

/// A client that counts `tools/list_changed` notifications outside subscriptions; `legacy`
/// clients speak the 2025-11-25 protocol (handshake and session), others the newest.
#[derive(Clone, Default)]
struct Client {
    list_changed: Arc<Notify>,
    legacy: bool,
}

impl rmcp::ClientHandler for Client {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let config = rmcp::model::ClientConfig::default();
        config.with_protocol_version(if self.legacy {
            rmcp::model::ProtocolVersion::V_2025_11_25
        } else {
            rmcp::model::ProtocolVersion::V_2026_07_28
        })
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}

/// Connects a client to `server` over an in-process byte stream.
async fn connect(server: McpServer, client: Client) -> RunningService<RoleClient, Client> {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_io);
    tokio::spawn(server.serve_io(server_read, server_write, std::future::pending()));
    let lifecycle = if client.legacy {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        }
    };
    client
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("handshake")
}

fn arguments(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

fn call(name: &'static str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(arguments(args))
}

#[tokio::test]
async fn tools_list_leaves_output_schemas_out_unless_asked_and_results_stay_structured() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir);
    let client = connect(McpServer::new(registry.clone()), Client::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.len() > 5);
    for tool in &tools {
        assert!(
            tool.output_schema.is_none(),
            "{} lists an outputSchema",
            tool.name
        );
        let annotations = tool.annotations.as_ref().expect("annotations");
        if annotations.read_only_hint == Some(true) {
            assert_eq!(annotations.destructive_hint, None, "{}", tool.name);
            assert_eq!(annotations.idempotent_hint, None, "{}", tool.name);
        }
    }
    let result = client
        .call_tool(call("get_schema", json!({})))
        .await
        .expect("tools/call");
    assert!(result.structured_content.is_some(), "{result:?}");
}

#[tokio::test]
async fn tools_list_pages_in_registration_order_with_titles_annotations_and_output_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir);
    let mut options = McpOptions::default();
    options.page_size = 3;
    options.output_schemas = true;
    let server = McpServer::new(registry.clone()).with_options(options);
    let client = connect(server, Client::default()).await;

    let mut names = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let mut params = rmcp::model::PaginatedRequestParams::default();
        params.cursor = cursor;
        let page = client.list_tools(Some(params)).await.expect("tools/list");
        assert!(
            page.tools.len() <= 3,
            "a page holds at most page_size tools"
        );
        assert!(
            page.ttl_ms.is_some() && page.cache_scope.is_some(),
            "caching hints"
        );
        pages += 1;
        for tool in &page.tools {
            names.push(tool.name.to_string());
            let definition = registry.get(&tool.name).unwrap().definition();
            assert!(tool.annotations.is_some(), "{} has annotations", tool.name);
            if definition.capabilities.contains(&"database".to_string()) {
                assert!(tool.title.is_some(), "{} has a title", tool.name);
                let output = tool
                    .output_schema
                    .as_ref()
                    .expect("database tools have an outputSchema");
                assert_eq!(output.get("type"), Some(&json!("object")));
            }
        }
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let expected: Vec<String> = registry.names().map(str::to_string).collect();
    assert_eq!(names, expected, "every tool once, in registration order");
    assert_eq!(pages, expected.len().div_ceil(3));

    let mut params = rmcp::model::PaginatedRequestParams::default();
    params.cursor = Some("not-a-cursor".into());
    let error = client.list_tools(Some(params)).await.unwrap_err();
    assert!(matches!(error, ServiceError::McpError(e) if e.code == RpcCode::INVALID_PARAMS));
}

#[tokio::test]
async fn calls_answer_structured_content_mirrored_as_text_and_errors_the_model_can_act_on() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir);
    let client = connect(McpServer::new(registry.clone()), Client::default()).await;

    let args = json!({"entity_type": "Scope", "id_value": "s-login"});
    let result = client
        .call_tool(call("get_entity_by_id", args.clone()))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    let direct = registry.call("get_entity_by_id", args).await.unwrap();
    assert_eq!(result.structured_content.as_ref(), Some(&direct));
    let text = result.content[0]
        .as_text()
        .expect("text content")
        .text
        .clone();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), direct);

    // invalid arguments: a result with isError, the structured error as text
    let result = client
        .call_tool(call("query_entities", json!({"entity_type": "Nope"})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(result.structured_content.is_none());
    let error: Value = serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap();
    assert_eq!(error["error"], "invalid_arguments");
    assert_eq!(error["details"]["problems"][0]["path"], "/entity_type");

    // an unknown tool: JSON-RPC -32602 with the nearest names
    let error = client
        .call_tool(call("query_entitys", json!({})))
        .await
        .unwrap_err();
    let ServiceError::McpError(error) = error else {
        panic!("expected a JSON-RPC error, got {error:?}");
    };
    assert_eq!(error.code, RpcCode::INVALID_PARAMS);
    assert_eq!(error.data.unwrap()["candidates"], json!(["query_entities"]));

    // a derived tool and batch, through the same door
    let result = client
        .call_tool(call("sleep", json!({"seconds": 0})))
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!({"seconds": 0})));
    let result = client
        .call_tool(call(
            "batch",
            json!({"calls": [
                {"tool": "get_entity_by_id", "args": {"entity_type": "Scope", "id_value": "s-login"}},
                {"tool": "write_note", "args": {"text": "hi"}}
            ]}),
        ))
        .await
        .unwrap();
    let batch = result.structured_content.expect("batch answers an object");
    assert_eq!(batch["results"][0]["result"]["record"]["uuid"], "s-login");
    assert_eq!(batch["results"][1]["result"]["written"], "hi");
}

#[tokio::test]
async fn read_only_servers_and_allow_lists_leave_batch_reaching_only_what_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir);
    let server = McpServer::new(registry.clone()).read_only();
    let served = server.registry();
    assert!(!served.contains("write_note"));
    assert!(served.contains("sleep") && served.contains("batch"));
    assert_eq!(
        served
            .get("batch")
            .unwrap()
            .definition()
            .annotations
            .read_only,
        Some(true),
        "batch reaches only read-only tools now"
    );
    let client = connect(server, Client::default()).await;
    let result = client
        .call_tool(call(
            "batch",
            json!({"calls": [{"tool": "write_note", "args": {"text": "hi"}}]}),
        ))
        .await
        .unwrap();
    let batch = result.structured_content.unwrap();
    assert_eq!(batch["results"][0]["error"]["error"], "unknown_tool");

    let mut mcp = toolforge::spec::McpSpec::default();
    mcp.expose = Some(vec!["get_schema".into(), "query_entitie".into()]);
    let error = McpServer::for_spec(registry.clone(), &mcp, "code-rag", "1.0.0").unwrap_err();
    assert!(matches!(&error, ServeError::UnknownTool { name, .. } if name == "query_entitie"));
    assert!(
        error.to_string().contains("did you mean `query_entities`?"),
        "{error}"
    );

    mcp.expose = Some(vec!["get_schema".into(), "batch".into()]);
    mcp.toolsets
        .insert("schema".into(), vec!["get_schema".into()]);
    let server = McpServer::for_spec(registry, &mcp, "code-rag", "1.0.0").unwrap();
    assert_eq!(server.name(), "code-rag");
    assert_eq!(
        server.registry().names().collect::<Vec<_>>(),
        ["get_schema", "batch"]
    );
    let toolset = server.toolset(&mcp, "schema").unwrap();
    assert_eq!(
        toolset.registry().names().collect::<Vec<_>>(),
        ["get_schema"]
    );
    let error = server.toolset(&mcp, "lookup").unwrap_err();
    assert!(error.to_string().contains("`schema`"), "{error}");
}

#[tokio::test]
async fn replacing_the_tools_notifies_session_clients_and_listeners() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir);
    let server = McpServer::new(registry.clone());
    // a client of the 2025-11-25 handshake era gets the notification on its session
    let legacy = Client {
        legacy: true,
        ..Client::default()
    };
    let notified = legacy.list_changed.clone();
    let legacy = connect(server.clone(), legacy).await;
    assert_eq!(
        legacy.peer_info().unwrap().protocol_version,
        rmcp::model::ProtocolVersion::V_2025_11_25
    );
    // a 2026-07-28 client listens for it
    let current = connect(server.clone(), Client::default()).await;
    assert_eq!(
        current.peer_info().unwrap().protocol_version,
        rmcp::model::ProtocolVersion::V_2026_07_28
    );
    let mut subscription = current
        .listen(
            rmcp::model::SubscriptionFilter::builder()
                .tools_list_changed()
                .build(),
        )
        .await
        .expect("subscriptions/listen");

    server
        .replace_registry(registry.subset(|tool| tool.name == "get_schema"))
        .await;
    tokio::time::timeout(Duration::from_secs(5), notified.notified())
        .await
        .expect("tools/list_changed reaches the session client");
    let notification = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("tools/list_changed reaches the listener")
        .expect("subscription open")
        .expect("a notification");
    assert!(
        matches!(
            notification,
            rmcp::model::ServerNotification::ToolListChangedNotification(_)
        ),
        "{notification:?}"
    );
    for client in [&legacy, &current] {
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(
            tools.iter().map(|t| t.name.as_ref()).collect::<Vec<_>>(),
            ["get_schema"]
        );
    }
}

#[tokio::test]
async fn a_call_the_client_gives_up_on_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let client = connect(McpServer::new(registry(&dir)), Client::default()).await;
    // The client gives up after 200 ms: the request is cancelled and the server drops the call.
    let gave_up = tokio::time::timeout(
        Duration::from_millis(200),
        client.call_tool(call("sleep", json!({"seconds": 30, "tag": "stdio"}))),
    )
    .await;
    assert!(gave_up.is_err());
    assert!(dropped("stdio").await, "the cancelled call was dropped");
    // and the server still answers
    let result = client
        .call_tool(call("sleep", json!({"seconds": 0})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
}

#[tokio::test]
async fn shutdown_lets_running_calls_finish_and_refuses_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let server = McpServer::new(registry(&dir));
    let client = Arc::new(connect(server.clone(), Client::default()).await);
    let running = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool(call("sleep", json!({"seconds": 1}))).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let drained = tokio::spawn({
        let server = server.clone();
        async move { server.drain(Duration::from_secs(10)).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = client
        .call_tool(call("sleep", json!({"seconds": 0})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true), "no new calls while draining");
    let finished = running.await.unwrap().unwrap();
    assert_eq!(finished.structured_content, Some(json!({"seconds": 1})));
    assert!(
        drained.await.unwrap(),
        "every running call finished within the grace period"
    );
}

/// POSTs `message` to `url` as JSON, with `headers` added; returns the status, the session
/// header and the body.
async fn send(
    url: &str,
    headers: &[(&str, &str)],
    message: &Value,
) -> (u16, Option<String>, String) {
    use http_body_util::{BodyExt, Full};
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<hyper::body::Bytes>>();
    let mut request = hyper::Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (header, value) in headers {
        request = request.header(*header, *value);
    }
    let request = request
        .body(Full::new(hyper::body::Bytes::from(message.to_string())))
        .unwrap();
    let response = client.request(request).await.unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, session, String::from_utf8_lossy(&body).into_owned())
}

/// POSTs one JSON-RPC message of a 2025-11-25 client to `url`; returns the status, the session
/// header and the body.
async fn post(url: &str, session: Option<&str>, message: Value) -> (u16, Option<String>, String) {
    let mut headers = vec![("mcp-protocol-version", "2025-11-25")];
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    send(url, &headers, &message).await
}

#[tokio::test]
async fn an_http_client_that_hangs_up_mid_call_cancels_it() {
    let dir = tempfile::tempdir().unwrap();
    let url = serve_http(McpServer::new(registry(&dir))).await;
    let (status, session, _) = post(
        &url,
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
    )
    .await;
    assert_eq!(status, 200);
    let session = session.expect("a session");
    post(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;

    let hung_up = tokio::time::timeout(
        Duration::from_millis(300),
        post(
            &url,
            Some(&session),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "sleep", "arguments": {"seconds": 30, "tag": "http"}}}),
        ),
    )
    .await;
    assert!(hung_up.is_err(), "the client hung up before the answer");
    assert!(
        dropped("http").await,
        "the call was dropped when its client left"
    );
}

/// `full_text_search` over MCP: listed with its output schema, its answer the structured
/// content (checked against that schema), a query without words an `isError` result.
#[tokio::test]
async fn full_text_search_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("notes.yaml");
    std::fs::write(
        &config,
        "name: notes\nentities:\n  - name: Note\n    unique_field: slug\n    searchable_fields:\n      \
         - name: slug\n        type: string\n      - name: body\n        type: string\n    \
         full_text_index:\n      fields: [body]\n",
    )
    .unwrap();
    let compiled = dynamic::compile(&config, &Default::default()).expect("config");
    let db = Database::open(dir.path().join("notes.db")).expect("open");
    db.init(&compiled.spec).expect("init");
    let lines = [
        json!({"entity": "Note", "data": {"slug": "a", "body": "the parser reads tokens"}}),
        json!({"entity": "Note", "data": {"slug": "b", "body": "a list of groceries"}}),
    ];
    let data: String = lines.iter().map(|l| format!("{l}\n")).collect();
    db.import_jsonl(&compiled.spec, data.as_bytes())
        .expect("import");
    let registry = toolforge::sql::registry_builder(Arc::new(compiled.spec), db)
        .expect("registry")
        .build();
    let mut options = McpOptions::default();
    options.output_schemas = true;
    let server = McpServer::new(registry.clone()).with_options(options);
    let client = connect(server, Client::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    let search = tools
        .iter()
        .find(|t| t.name == "full_text_search")
        .expect("listed");
    assert!(search.output_schema.is_some());

    let args = json!({"entity_type": "Note", "query": "parsers"});
    let result = client
        .call_tool(call("full_text_search", args.clone()))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let direct = registry.call("full_text_search", args).await.unwrap();
    assert_eq!(result.structured_content.as_ref(), Some(&direct));
    assert_eq!(direct["results"][0]["id"], "a");

    let result = client
        .call_tool(call(
            "full_text_search",
            json!({"entity_type": "Note", "query": "*"}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
}

/// Serves `server` over HTTP on a free loopback port; its MCP URL.
async fn serve_http(server: McpServer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let options = toolforge::mcp::HttpOptions::default();
    tokio::spawn(async move {
        McpServer::serve_http(
            listener,
            vec![("/mcp".into(), server)],
            &options,
            std::future::pending(),
        )
        .await
    });
    url
}

/// POSTs a stateless (2026-07-28) `tools/call` of `name` to `url`, with `headers` added;
/// returns the status and the body.
async fn post_stateless(
    url: &str,
    id: u64,
    name: &str,
    arguments: Value,
    meta: Value,
    headers: &[(&str, &str)],
) -> (u16, String) {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": name, "arguments": arguments, "_meta": meta}});
    let mut all = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", name),
    ];
    all.extend_from_slice(headers);
    let (status, _, body) = send(url, &all, &message).await;
    (status, body)
}

/// What a 2026-07-28 client puts in every request's `_meta`.
fn stateless_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

/// A plain stateless `tools/call` is answered without rmcp's per-request service; the same
/// request with an `Origin` header (which only rmcp checks) goes through rmcp. Both answers
/// are the same bytes with the same status: results, failed calls, unknown tools, and the
/// refusal of a `_meta` without the client's capabilities.
#[tokio::test]
async fn a_stateless_call_answered_directly_is_what_rmcp_answers() {
    let dir = tempfile::tempdir().unwrap();
    let url = serve_http(McpServer::new(registry(&dir))).await;
    let without_capabilities = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let cases = [
        (
            "get_entity_by_id",
            json!({"entity_type": "Scope", "id_value": "s-login"}),
            stateless_meta(),
            200,
        ),
        (
            "get_entity_by_id",
            json!({"entity_type": "Nope", "id_value": "x"}),
            stateless_meta(),
            200,
        ),
        (
            "query_entities",
            json!({"entity_type": "Scope", "limit": 2}),
            stateless_meta(),
            200,
        ),
        ("sleep", json!({"seconds": 0}), stateless_meta(), 200),
        ("get_entity_by_idd", json!({}), stateless_meta(), 200),
        ("get_schema", json!({}), without_capabilities, 400),
    ];
    for (id, (name, arguments, meta, status)) in cases.into_iter().enumerate() {
        let direct =
            post_stateless(&url, id as u64, name, arguments.clone(), meta.clone(), &[]).await;
        let through_rmcp = post_stateless(
            &url,
            id as u64,
            name,
            arguments,
            meta,
            &[("origin", "http://localhost:1")],
        )
        .await;
        assert_eq!(direct, through_rmcp, "{name}");
        assert_eq!(direct.0, status, "{name}: {}", direct.1);
        let answer: Value = serde_json::from_str(&direct.1).unwrap();
        assert_eq!(answer["id"], json!(id), "{name}");
    }
    let (_, body) = post_stateless(
        &url,
        9,
        "get_entity_by_id",
        json!({"entity_type": "Scope", "id_value": "s-login"}),
        stateless_meta(),
        &[],
    )
    .await;
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        answer["result"]["structuredContent"]["record"]["uuid"],
        "s-login"
    );
    assert_eq!(answer["result"]["isError"], false);
}

/// What rmcp refuses stays refused: a host outside the allowed ones, an `Mcp-Name` that is not
/// the body's, an `Mcp-Method` given twice.
#[tokio::test]
async fn stateless_calls_rmcp_refuses_stay_refused() {
    let dir = tempfile::tempdir().unwrap();
    let url = serve_http(McpServer::new(registry(&dir))).await;
    let call = |headers: &'static [(&'static str, &'static str)], name: &'static str| {
        let url = url.clone();
        async move {
            post_stateless(&url, 1, name, json!({}), stateless_meta(), headers)
                .await
                .0
        }
    };
    assert_eq!(call(&[("host", "evil.test")], "get_schema").await, 403);
    assert_eq!(
        call(&[("mcp-method", "tools/call")], "get_schema").await,
        400
    );
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "get_schema", "arguments": {}, "_meta": stateless_meta()}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "describe_entity"),
    ];
    let (status, _, body) = send(&url, &headers, &message).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("Mcp-Name"), "{body}");
}

#[tokio::test]
async fn a_stateless_http_client_that_hangs_up_mid_call_cancels_it() {
    let dir = tempfile::tempdir().unwrap();
    let url = serve_http(McpServer::new(registry(&dir))).await;
    let hung_up = tokio::time::timeout(
        Duration::from_millis(300),
        post_stateless(
            &url,
            1,
            "sleep",
            json!({"seconds": 30, "tag": "stateless"}),
            stateless_meta(),
            &[],
        ),
    )
    .await;
    assert!(hung_up.is_err(), "the client hung up before the answer");
    assert!(
        dropped("stateless").await,
        "the call was dropped when its client left"
    );
}
