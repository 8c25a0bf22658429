//! `toolforge serve --http` with `toolforge.auth`, against a real OpenID provider
//! (`oidc-provider`, started by `scripts/with-oidc`: `TOOLFORGE_TEST_OIDC_ISSUER`): each caller
//! sees exactly the rows its token's claims reach and the tools its scopes allow, through
//! rmcp's Streamable HTTP client; expired, wrong-audience, wrong-issuer, tampered, unsigned and
//! claim-less tokens are refused with the status and `WWW-Authenticate` header MCP's
//! authorization spec gives. Without the provider each test says it was skipped.

use crate::http_support;
use crate::pg_support;

use std::path::Path;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

use http_support::{Served, http, serve_http};

/// The issuer's URL, or `None` (the test is skipped) without the provider.
fn issuer(test: &str) -> Option<String> {
    pg_support::server(
        &format!("cli_oauth::{test}"),
        "TOOLFORGE_TEST_OIDC_ISSUER",
        "TOOLFORGE_OIDC_TEST_LOG",
        "scripts/with-oidc",
    )
}

fn config_text(issuer: &str) -> String {
    config_with(issuer, "")
}

/// The config, with `extra` lines at the end of `toolforge.auth`.
fn config_with(issuer: &str, extra: &str) -> String {
    format!(
        "\
name: branches
entities:
  - name: Loan
    unique_field: id
    searchable_fields:
      - {{name: id, type: string}}
      - {{name: branch, type: string}}
      - {{name: title, type: string}}
      - {{name: amount, type: number}}
toolforge:
  tools: [schema, query, lookup, aggregates]
  access:
    Loan: \"branch = :context.branch\"
  auth:
    issuer: {issuer}
    required_scopes: [mcp]
    scopes:
      aggregates: reports
    claims:
      branch: org.branch
      member: email
    leeway_seconds: 0
{extra}"
    )
}

const LOANS: &str = r#"{"entity": "Loan", "data": {"id": "n1", "branch": "north", "title": "Boat", "amount": 10}}
{"entity": "Loan", "data": {"id": "n2", "branch": "north", "title": "Barn", "amount": 20}}
{"entity": "Loan", "data": {"id": "s1", "branch": "south", "title": "Shop", "amount": 30}}
{"entity": "Loan", "data": {"id": "s2", "branch": "south", "title": "Mill", "amount": 40}}
{"entity": "Loan", "data": {"id": "s3", "branch": "south", "title": "Cart", "amount": 50}}
"#;

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

/// The config and a seeded SQLite database in a temporary folder.
fn seeded(issuer: &str) -> (tempfile::TempDir, String, String) {
    seeded_with(config_text(issuer))
}

/// A config of this text and a seeded SQLite database in a temporary folder.
fn seeded_with(text: String) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("branches.yaml");
    std::fs::write(&config, text).unwrap();
    let data = dir.path().join("loans.jsonl");
    std::fs::write(&data, LOANS).unwrap();
    let db = dir.path().join("branches.db");
    let (config, db) = (
        config.to_str().unwrap().to_owned(),
        db.to_str().unwrap().to_owned(),
    );
    toolforge(&["db", "init", "--config", &config, "--db", &db]);
    toolforge(&[
        "db",
        "import",
        "--config",
        &config,
        "--db",
        &db,
        data.to_str().unwrap(),
    ]);
    (dir, config, db)
}

/// `text` with every byte but unreserved ones percent-encoded (a form value).
fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An access token of `client` at `issuer` for `resource`, with `scope`.
async fn token(issuer: &str, client: &str, scope: &str, resource: &str) -> String {
    let form = format!(
        "grant_type=client_credentials&client_id={client}&client_secret={client}-secret&scope={}&resource={}",
        form_encode(scope),
        form_encode(resource)
    );
    let (status, _, body) = http(
        "POST",
        &format!("{issuer}/token"),
        &[("content-type", "application/x-www-form-urlencoded")],
        form,
    )
    .await;
    assert_eq!(status, 200, "token of {client}: {body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    answer["access_token"].as_str().unwrap().to_owned()
}

/// A client of the newest protocol.
#[derive(Clone, Default)]
struct Client;

impl rmcp::ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::V_2026_07_28)
    }
}

/// rmcp's Streamable HTTP client sending `token`.
async fn connect(url: &str, token: &str) -> RunningService<RoleClient, Client> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token),
    );
    Client
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("connect with a token")
}

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

fn ids(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("results: {answer}"))
        .iter()
        .map(|record| record["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A JSON-RPC `tools/call` body (2026-07-28: no session needed).
fn tools_call(name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": name, "arguments": arguments,
                      "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_caller_sees_its_rows_and_the_tools_its_scopes_allow() {
    let Some(issuer) = issuer("each_caller_sees_its_rows_and_the_tools_its_scopes_allow") else {
        return;
    };
    let (_dir, config, db) = seeded(&issuer);
    let Served {
        child: _server,
        url,
        ..
    } = serve_http(&["--config", &config, "--db", &db], &[]).await;
    let alice = token(&issuer, "alice", "mcp read reports", &url).await;
    let bob = token(&issuer, "bob", "mcp read", &url).await;

    // The metadata names the issuer and this resource.
    let origin = url.trim_end_matches("/mcp");
    let (status, _, body) = http(
        "GET",
        &format!("{origin}/.well-known/oauth-protected-resource/mcp"),
        &[],
        String::new(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let metadata: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(metadata["resource"], url.as_str());
    assert_eq!(metadata["authorization_servers"], json!([issuer]));
    assert_eq!(metadata["scopes_supported"], json!(["mcp", "reports"]));

    let north = connect(&url, &alice).await;
    let south = connect(&url, &bob).await;
    let all = json!({"entity_type": "Loan", "order_by": {"field": "id"}});
    assert_eq!(
        ids(&call(&north, "query_entities", all.clone()).await),
        ["n1", "n2"]
    );
    assert_eq!(
        ids(&call(&south, "query_entities", all.clone()).await),
        ["s1", "s2", "s3"]
    );
    // Another branch's record is not found, however it is asked for.
    let other = call(
        &north,
        "get_entity_by_id",
        json!({"entity_type": "Loan", "id_value": "s1"}),
    )
    .await;
    assert_eq!(other["error"], "not_found", "{other}");

    // Scopes: bob lacks `reports`, so the aggregates are not listed for him and refused.
    let alice_tools = tool_names(&north).await;
    let bob_tools = tool_names(&south).await;
    assert!(
        alice_tools.contains(&"aggregate_entities".to_owned()),
        "{alice_tools:?}"
    );
    assert!(
        !bob_tools.contains(&"aggregate_entities".to_owned()),
        "{bob_tools:?}"
    );
    assert!(
        bob_tools.contains(&"query_entities".to_owned()),
        "{bob_tools:?}"
    );
    let sums = json!({"entity_type": "Loan", "aggregation": "SUM", "field": "amount"});
    let north_sum = call(&north, "aggregate_entities", sums.clone()).await;
    assert!(north_sum.to_string().contains("30"), "{north_sum}");
    let (status, challenge, body) = http(
        "POST",
        &url,
        &[
            ("authorization", &format!("Bearer {bob}")),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
        ],
        tools_call("aggregate_entities", sums.clone()),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"mcp reports\""), "{challenge}");
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\""
        )),
        "{challenge}"
    );
    // Through `batch` the same call is refused, and the other runs with bob's rows.
    let batch = call(
        &south,
        "batch",
        json!({"calls": [
            {"tool": "aggregate_entities", "arguments": sums},
            {"tool": "query_entities", "arguments": all},
        ]}),
    )
    .await;
    let results = batch["results"]
        .as_array()
        .unwrap_or_else(|| panic!("{batch}"));
    assert_eq!(results[0]["ok"], false, "{batch}");
    assert_eq!(results[0]["error"]["error"], "forbidden", "{batch}");
    assert_eq!(ids(&results[1]["result"]), ["s1", "s2", "s3"], "{batch}");
    north.cancel().await.ok();
    south.cancel().await.ok();
}

/// `serve --ui` under `toolforge.auth`: the page loads without a token, its data (the diagram
/// and the tools by family) answers only a valid access token with the required scope, with
/// the same challenges as `/mcp`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workbench_data_needs_an_access_token() {
    let Some(issuer) = issuer("the_workbench_data_needs_an_access_token") else {
        return;
    };
    let (_dir, config, db) = seeded(&issuer);
    let Served {
        child: _server,
        url,
        ..
    } = serve_http(&["--config", &config, "--db", &db, "--ui"], &[]).await;
    let origin = url.trim_end_matches("/mcp");
    let (status, _, page) = http("GET", &format!("{origin}/ui"), &[], String::new()).await;
    assert_eq!(status, 200, "the page is static: {page}");
    let reader = token(&issuer, "bob", "mcp read", &url).await;
    let unscoped = token(&issuer, "bob", "read", &url).await;
    for path in ["/ui/schema.svg", "/ui/tools.json"] {
        let address = format!("{origin}{path}");
        let (status, challenge, _) = http("GET", &address, &[], String::new()).await;
        assert_eq!(status, 401, "{path} without a token");
        assert!(challenge.contains("resource_metadata="), "{challenge}");
        let bearer = |token: &str| format!("Bearer {token}");
        let (status, _, _) = http(
            "GET",
            &address,
            &[("authorization", &bearer("not.a.jwt"))],
            String::new(),
        )
        .await;
        assert_eq!(status, 401, "{path} with a bad token");
        let (status, challenge, _) = http(
            "GET",
            &address,
            &[("authorization", &bearer(&unscoped))],
            String::new(),
        )
        .await;
        assert_eq!(status, 403, "{path} without the required scope");
        assert!(challenge.contains("insufficient_scope"), "{challenge}");
        let (status, _, body) = http(
            "GET",
            &address,
            &[("authorization", &bearer(&reader))],
            String::new(),
        )
        .await;
        assert_eq!(status, 200, "{path} with a token: {body}");
        if path == "/ui/schema.svg" {
            assert!(body.contains("data-entity=\"Loan\""), "{body}");
        } else {
            // the tools the token's scopes reach, as tools/list shows them
            let listed: Value = serde_json::from_str(&body).unwrap();
            let families: Vec<&str> = listed["families"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["family"].as_str().unwrap())
                .collect();
            assert!(families.contains(&"query"), "{body}");
            assert!(
                !families.contains(&"aggregates"),
                "bob may not run them: {body}"
            );
        }
    }
    // A token with the scope `reports` sees the aggregates too.
    let alice = token(&issuer, "alice", "mcp read reports", &url).await;
    let (_, _, body) = http(
        "GET",
        &format!("{origin}/ui/tools.json"),
        &[("authorization", &format!("Bearer {alice}"))],
        String::new(),
    )
    .await;
    assert!(body.contains("\"aggregate_entities\""), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tokens_are_refused_with_the_specs_status_and_header() {
    let Some(issuer) = issuer("bad_tokens_are_refused_with_the_specs_status_and_header") else {
        return;
    };
    let other_issuer = std::env::var("TOOLFORGE_TEST_OIDC_OTHER_ISSUER")
        .expect("scripts/with-oidc sets TOOLFORGE_TEST_OIDC_OTHER_ISSUER");
    let (_dir, config, db) = seeded(&issuer);
    let Served {
        child: _server,
        url,
        ..
    } = serve_http(&["--config", &config, "--db", &db], &[]).await;
    let origin = url.trim_end_matches("/mcp");
    let metadata =
        format!("resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\"");
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                      "params": {"_meta": {
                          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {},
                          "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}}}})
    .to_string();
    let send = |token: Option<String>| {
        let (url, list) = (url.clone(), list.clone());
        async move {
            let authorization = token.map(|token| format!("Bearer {token}"));
            let mut headers = vec![
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
            ];
            if let Some(authorization) = &authorization {
                headers.push(("authorization", authorization.as_str()));
            }
            http("POST", &url, &headers, list).await
        }
    };

    // A good token is served.
    let alice = token(&issuer, "alice", "mcp read reports", &url).await;
    let (status, _, body) = send(Some(alice.clone())).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("query_entities"), "{body}");

    // No token: 401 naming the metadata and the scope every request needs.
    let (status, challenge, _) = send(None).await;
    assert_eq!(status, 401);
    assert_eq!(challenge, format!("Bearer scope=\"mcp\", {metadata}"));

    // Each bad token: 401 invalid_token, with a description that says what is wrong.
    // Served once while valid, so the server remembers it checked it: its expiry still counts.
    // It lives one second, to the second: a token issued just before a second ends may be
    // expired on arrival, so a few are tried.
    let mut served = None;
    for _ in 0..5 {
        let short = token(&issuer, "shortlived", "mcp read", &url).await;
        let (status, _, _) = send(Some(short.clone())).await;
        if status == 200 {
            served = Some(short);
            break;
        }
    }
    let short = served.expect("a short-lived token is served while valid");
    let wrong_audience = token(&issuer, "alice", "mcp read", "http://elsewhere.example/mcp").await;
    let foreign = token(&other_issuer, "alice", "mcp read", &url).await;
    let nobranch = token(&issuer, "nobranch", "mcp read", &url).await;
    let mut parts: Vec<String> = alice.split('.').map(str::to_owned).collect();
    let tampered = {
        // bob's payload under alice's signature.
        let bob = token(&issuer, "bob", "mcp read", &url).await;
        format!(
            "{}.{}.{}",
            parts[0],
            bob.split('.').nth(1).unwrap(),
            parts[2]
        )
    };
    // `alg: none`, alice's claims, no signature.
    parts[0] = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0".to_owned();
    let unsigned = format!("{}.{}.", parts[0], parts[1]);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    for (what, token, says) in [
        ("expired", short, "expired"),
        ("wrong audience", wrong_audience, "aud"),
        ("wrong issuer", foreign, "signing key"),
        ("tampered", tampered, "signature"),
        ("alg none", unsigned, "not a signed JWT"),
        ("without the mapped claim", nobranch, "org.branch"),
        ("not a JWT", "opaque-token".to_owned(), "not a signed JWT"),
    ] {
        let (status, challenge, body) = send(Some(token)).await;
        assert_eq!(status, 401, "{what}: {body}");
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{what}: {challenge}"
        );
        assert!(challenge.contains(&metadata), "{what}: {challenge}");
        assert!(challenge.contains(says), "{what}: {challenge}");
        assert!(!body.contains("query_entities"), "{what}: {body}");
    }

    // A token without the scope every request needs: 403 insufficient_scope.
    let readonly = token(&issuer, "alice", "read", &url).await;
    let (status, challenge, _) = send(Some(readonly)).await;
    assert_eq!(status, 403);
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"mcp\""), "{challenge}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opaque_tokens_are_checked_at_the_introspection_endpoint() {
    let Some(issuer) = issuer("opaque_tokens_are_checked_at_the_introspection_endpoint") else {
        return;
    };
    // The endpoint as given, then as the issuer's metadata names it.
    for endpoint in [
        format!("      endpoint: {issuer}/token/introspection\n"),
        String::new(),
    ] {
        let extra = format!(
            "    introspection:\n{endpoint}      client_id: toolforge-rs\n      \
             client_secret_env: TOOLFORGE_TEST_CLIENT_SECRET\n"
        );
        opaque_tokens_are_checked(&issuer, &extra).await;
    }
}

async fn opaque_tokens_are_checked(issuer: &str, extra: &str) {
    let issuer = issuer.to_owned();
    let (_dir, config, db) = seeded_with(config_with(&issuer, extra));
    let Served {
        child: _server,
        url,
        ..
    } = serve_http(
        &["--config", &config, "--db", &db],
        &[("TOOLFORGE_TEST_CLIENT_SECRET", "toolforge-rs-secret")],
    )
    .await;
    // carol's tokens are opaque: the issuer vouches for them, with her claims.
    let carol = token(&issuer, "carol", "mcp read", &url).await;
    assert_eq!(carol.split('.').count(), 1, "an opaque token: {carol}");
    let south = connect(&url, &carol).await;
    let all = json!({"entity_type": "Loan", "order_by": {"field": "id"}});
    assert_eq!(
        ids(&call(&south, "query_entities", all.clone()).await),
        ["s1", "s2", "s3"]
    );
    assert!(
        !tool_names(&south)
            .await
            .contains(&"aggregate_entities".to_owned())
    );
    south.cancel().await.ok();
    // JWTs are still checked locally.
    let alice = token(&issuer, "alice", "mcp read reports", &url).await;
    let north = connect(&url, &alice).await;
    assert_eq!(
        ids(&call(&north, "query_entities", all).await),
        ["n1", "n2"]
    );
    north.cancel().await.ok();
    // An opaque token the issuer does not know, and carol's for another resource.
    let elsewhere = token(&issuer, "carol", "mcp read", "http://elsewhere.example/mcp").await;
    for (what, token, says) in [
        ("unknown", "made-up-opaque-token".to_owned(), "not active"),
        ("another resource", elsewhere, "audience"),
    ] {
        let (status, challenge, body) = http(
            "POST",
            &url,
            &[
                ("authorization", &format!("Bearer {token}")),
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
            ],
            "{}".to_owned(),
        )
        .await;
        assert_eq!(status, 401, "{what}: {body}");
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{what}: {challenge}"
        );
        assert!(challenge.contains(says), "{what}: {challenge}");
    }
}

/// The claims of a JWT's header (no check: to read which key signed it).
fn header(token: &str) -> Value {
    use base64::Engine as _;
    let part = token.split('.').next().unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// An issuer that rolls its keys: a token signed by the new key (which the server has not
/// seen) is accepted once the server fetches the key set again, and tokens signed before stay
/// valid while the old key is published.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_the_issuer_rotates_are_fetched_again() {
    if issuer("keys_the_issuer_rotates_are_fetched_again").is_none() {
        return;
    }
    let rotating = std::env::var("TOOLFORGE_TEST_OIDC_ROTATING_ISSUER")
        .expect("scripts/with-oidc starts a rotating issuer beside the others");
    let (_dir, config, db) = seeded(&rotating);
    let Served {
        child: _server,
        url,
        ..
    } = serve_http(&["--config", &config, "--db", &db], &[]).await;
    let all = json!({"entity_type": "Loan", "order_by": {"field": "id"}});
    let before = token(&rotating, "alice", "mcp read", &url).await;
    let client = connect(&url, &before).await;
    assert_eq!(
        ids(&call(&client, "query_entities", all.clone()).await),
        ["n1", "n2"]
    );
    client.cancel().await.ok();

    let (status, _, body) = http("POST", &format!("{rotating}/rotate"), &[], String::new()).await;
    assert_eq!(status, 200, "{body}");
    let new_kid = serde_json::from_str::<Value>(&body).unwrap()["kid"].clone();
    let after = token(&rotating, "alice", "mcp read", &url).await;
    assert_eq!(header(&after)["kid"], new_kid, "the new key signs");
    assert_ne!(header(&before)["kid"], new_kid);
    // The server fetches the key set again for an unknown key at most once per 10 s; the
    // first fetch was at the first call above.
    tokio::time::sleep(std::time::Duration::from_secs(10)).await;
    for token in [&after, &before] {
        let client = connect(&url, token).await;
        assert_eq!(
            ids(&call(&client, "query_entities", all.clone()).await),
            ["n1", "n2"]
        );
        client.cancel().await.ok();
    }
}

/// A token whose header names `kid` (its signature is never checked: the key is looked up
/// first).
fn token_naming_key(kid: &str, issuer: &str, audience: &str) -> String {
    use base64::Engine as _;
    let encode = |value: Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string().as_bytes())
    };
    format!(
        "{}.{}.c2lnbmF0dXJl",
        encode(json!({"alg": "RS256", "typ": "JWT", "kid": kid})),
        encode(json!({"iss": issuer, "aud": audience, "sub": "x", "exp": 4_000_000_000u64}))
    )
}

/// An issuer whose metadata and key set hang, then fail: concurrent requests share one fetch
/// and are all answered within the fetch timeout (they queued, one fetch each, before: the
/// 20th after 100 s); tokens naming made-up keys cause at most one fetch while the failure is
/// remembered; once the issuer is back its keys are fetched, and while it hangs again the
/// cached keys keep serving without asking it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_issuer_is_asked_once_and_keeps_no_caller_waiting() {
    if issuer("a_failing_issuer_is_asked_once_and_keeps_no_caller_waiting").is_none() {
        return;
    }
    let flaky = std::env::var("TOOLFORGE_TEST_OIDC_FLAKY_ISSUER")
        .expect("scripts/with-oidc starts a flaky issuer beside the others");
    let (_dir, config, db) = seeded(&flaky);
    let control = async |mode: &str| {
        let (status, _, body) =
            http("POST", &format!("{flaky}/keys/{mode}"), &[], String::new()).await;
        assert_eq!(status, 204, "{body}");
    };
    let counts = async || {
        let (_, _, body) = http("GET", &format!("{flaky}/keys/counts"), &[], String::new()).await;
        let counts: Value = serde_json::from_str(&body).unwrap();
        (
            counts["metadata"].as_u64().unwrap(),
            counts["jwks"].as_u64().unwrap(),
        )
    };
    let Served {
        child: _server,
        url,
        ..
    } = serve_http(&["--config", &config, "--db", &db], &[]).await;
    let valid = token(&flaky, "alice", "mcp read", &url).await;
    let all = json!({"entity_type": "Loan", "order_by": {"field": "id"}});
    // `tokens` sent at once; each answer's status and how long it took.
    let send_all = async |tokens: Vec<String>| {
        let mut calls = tokio::task::JoinSet::new();
        for token in tokens {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "query_entities", "arguments": all.clone(), "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}}}})
            .to_string();
            let url = url.clone();
            calls.spawn(async move {
                let started = std::time::Instant::now();
                let bearer = format!("Bearer {token}");
                let headers = [
                    ("authorization", bearer.as_str()),
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "query_entities"),
                ];
                let (status, _, body) = http("POST", &url, &headers, body).await;
                (status, started.elapsed(), body)
            });
        }
        calls.join_all().await
    };
    let made_up = |round: &str| {
        (0..30)
            .map(|i| token_naming_key(&format!("made-up-{round}-{i}"), &flaky, &url))
            .collect::<Vec<_>>()
    };

    // Hanging: the keys were never fetched; 20 requests share one fetch, which gives up at the
    // fetch timeout (5 s).
    control("hang").await;
    let before = counts().await;
    for (status, took, body) in send_all(vec![valid.clone(); 20]).await {
        assert_eq!(status, 503, "{body}");
        assert!(took < Duration::from_secs(9), "answered after {took:?}");
    }
    let after = counts().await;
    assert_eq!(after.0 - before.0, 1, "one metadata request, left hanging");
    assert_eq!(after.1, before.1);

    // Failing: once the 1 s back-off has passed, 30 tokens naming keys nobody has make one
    // fetch (its two metadata requests fail), not 30.
    control("fail").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let before = counts().await;
    for (status, _, body) in send_all(made_up("failing")).await {
        assert_eq!(status, 503, "{body}");
    }
    let after = counts().await;
    assert!(
        after.0 - before.0 <= 2,
        "{before:?} {after:?}: one fetch at most"
    );
    assert_eq!(after.1, before.1, "no key set was asked for");

    // Back: after the back-off (2 s after a second failure), the keys are fetched.
    control("serve").await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let client = connect(&url, &valid).await;
    assert_eq!(
        ids(&call(&client, "query_entities", all.clone()).await),
        ["n1", "n2"]
    );
    client.cancel().await.ok();

    // Hanging again: cached keys keep serving, and made-up keys (within 10 s of the last
    // fetch) ask nothing of the issuer.
    control("hang").await;
    let before = counts().await;
    for (status, _, body) in send_all(vec![valid.clone(); 20]).await {
        assert_eq!(status, 200, "{body}");
    }
    for (status, _, body) in send_all(made_up("cached")).await {
        assert_eq!(status, 401, "{body}");
    }
    assert_eq!(counts().await, before);
    control("serve").await;
}

/// The server refuses to start with settings that would weaken the checks.
#[test]
fn conflicting_settings_stop_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("branches.yaml");
    std::fs::write(&config, config_text("http://127.0.0.1:9")).unwrap();
    let db = dir.path().join("branches.db");
    let (config, db) = (config.to_str().unwrap(), db.to_str().unwrap());
    toolforge(&["db", "init", "--config", config, "--db", db]);
    for (extra, says) in [
        (
            vec!["--context-header", "branch=X-Branch"],
            "comes from the access token",
        ),
        (vec!["--token-env", "HOME"], "keep one"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolforge"))
            .args([
                "serve",
                "--config",
                config,
                "--db",
                db,
                "--http",
                "127.0.0.1:0",
            ])
            .args(&extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{extra:?}");
        assert!(stderr.contains(says), "{extra:?}: {stderr}");
    }
    let _ = Path::new(config);
}
