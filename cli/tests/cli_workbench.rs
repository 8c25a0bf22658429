//! `toolforge serve --http ADDR --ui`: the workbench's routes exist only with `--ui`, its page
//! and assets come with their content types and a content security policy, its data routes
//! (`/ui/schema.svg`, `/ui/tools.json`) need the same bearer token as `/mcp` and check `Host`.
//! The page itself is driven in a real browser by `scripts/check-workbench.py`.

use crate::http_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Books and their authors: a computed field and one relationship.
const CONFIG: &str = include_str!("fixtures/library-books.yaml");

fn toolforge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolforge"))
}

/// The config and an initialised database in a temporary folder.
fn library() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("library.yaml");
    let db = dir.path().join("library.db");
    std::fs::write(&config, CONFIG).unwrap();
    let output = toolforge()
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

/// An answer: status, headers (names lowercased) and body.
struct Answer {
    status: u16,
    headers: BTreeMap<String, String>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map(String::as_str)
            .unwrap_or_default()
    }
}

/// One `GET` on `address` with `headers` (a `Host` of the address unless given).
async fn get(address: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut head = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("Host: {address}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut raw))
        .await
        .expect("an answer within 30 s")
        .unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let body = if text
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

/// A chunked body's data.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

async fn serve(
    config: &Path,
    db: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (http_support::Served, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "--config".as_ref(),
        config.as_os_str(),
        "--db".as_ref(),
        db.as_os_str(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let served = http_support::serve_http(&args, env).await;
    let address = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    (served, address)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workbench_is_served_only_with_ui() {
    let (_dir, config, db) = library();
    let (_served, address) = serve(&config, &db, &[], &[]).await;
    for path in ["/ui", "/ui/app.js", "/ui/schema.svg", "/ui/tools.json"] {
        assert_eq!(
            get(&address, path, &[]).await.status,
            404,
            "{path} without --ui"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_its_assets_and_its_data() {
    let (_dir, config, db) = library();
    let (served, address) = serve(&config, &db, &["--ui"], &[]).await;
    // The line after the one `serve_http` waits for.
    let announced = format!("toolforge: workbench at http://{address}/ui");
    for _ in 0..100 {
        if served.log.lock().unwrap().contains(&announced) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = served.log.lock().unwrap().join("\n");
    assert!(log.contains(&announced), "{log}");
    for (path, content_type, needle) in [
        (
            "/ui",
            "text/html; charset=utf-8",
            "<script src=\"/ui/app.js\"",
        ),
        ("/ui/", "text/html; charset=utf-8", "toolforge workbench"),
        ("/ui/app.js", "text/javascript; charset=utf-8", "tools/call"),
        ("/ui/style.css", "text/css; charset=utf-8", "#result-table"),
        ("/ui/schema.svg", "image/svg+xml", "data-entity=\"Book\""),
        ("/ui/tools.json", "application/json", "\"families\""),
    ] {
        let answer = get(&address, path, &[]).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        assert_eq!(answer.header("content-type"), content_type, "{path}");
        assert!(answer.body.contains(needle), "{path}: {}", answer.body);
        assert_eq!(answer.header("x-content-type-options"), "nosniff", "{path}");
    }
    let page = get(&address, "/ui", &[]).await;
    let policy = page.header("content-security-policy");
    assert!(
        policy.contains("script-src 'self'") && policy.contains("connect-src 'self'"),
        "{policy}"
    );
    // Nothing is loaded from elsewhere.
    for path in ["/ui", "/ui/app.js", "/ui/style.css"] {
        let body = get(&address, path, &[]).await.body;
        assert!(
            !body.contains("http://") && !body.contains("https://"),
            "{path} names another site"
        );
    }
    // The diagram is the one `toolforge schema --format svg` prints.
    let printed = toolforge()
        .args(["schema", "--format", "svg", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(
        get(&address, "/ui/schema.svg", &[]).await.body,
        String::from_utf8(printed.stdout).unwrap()
    );
    // The tools by family, in registration order.
    let tools: Value =
        serde_json::from_str(&get(&address, "/ui/tools.json", &[]).await.body).unwrap();
    assert_eq!(tools["server"], "library");
    assert_eq!(tools["endpoints"], serde_json::json!(["/mcp"]));
    let families: Vec<&str> = tools["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["family"].as_str().unwrap())
        .collect();
    assert_eq!(families.first(), Some(&"schema"), "{families:?}");
    assert_eq!(families.last(), Some(&"batch"), "{families:?}");
    let query = tools["families"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["family"] == "query")
        .unwrap();
    assert_eq!(query["tools"], serde_json::json!(["query_entities"]));
    // A Host the server does not answer to is refused, as on /mcp.
    for path in ["/ui", "/ui/tools.json"] {
        let answer = get(&address, path, &[("Host", "evil.example:80")]).await;
        assert_eq!(answer.status, 403, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_refuses_a_foreign_origin_as_the_mcp_endpoint_does() {
    let (_dir, config, db) = library();
    let (_served, address) = serve(&config, &db, &["--ui"], &[]).await;
    let port = address.rsplit(':').next().unwrap().to_owned();
    let own = format!("http://127.0.0.1:{port}");
    for path in [
        "/ui",
        "/ui/app.js",
        "/ui/schema.svg",
        "/ui/tools.json",
        "/healthz",
        "/readyz",
        "/mcp",
    ] {
        let foreign = get(&address, path, &[("Origin", "http://evil.example")]).await;
        assert_eq!(foreign.status, 403, "{path} from a foreign origin");
        assert!(
            foreign.body.contains("Origin header is not allowed"),
            "{path}: {}",
            foreign.body
        );
        if path != "/mcp" {
            // The server's own (loopback) origin and no origin at all are answered.
            assert_eq!(
                get(&address, path, &[("Origin", &own)]).await.status,
                200,
                "{path}"
            );
            assert_eq!(get(&address, path, &[]).await.status, 200, "{path}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_needs_the_token_of_the_mcp_endpoint() {
    let (_dir, config, db) = library();
    let env = [("TOOLFORGE_TEST_WORKBENCH_TOKEN", "s3cret")];
    let (_served, address) = serve(
        &config,
        &db,
        &["--ui", "--token-env", "TOOLFORGE_TEST_WORKBENCH_TOKEN"],
        &env,
    )
    .await;
    // The page is static and the same for everyone.
    assert_eq!(get(&address, "/ui", &[]).await.status, 200);
    assert_eq!(get(&address, "/ui/app.js", &[]).await.status, 200);
    for path in ["/ui/schema.svg", "/ui/tools.json"] {
        let answer = get(&address, path, &[]).await;
        assert_eq!(answer.status, 401, "{path} without a token");
        assert_eq!(answer.header("www-authenticate"), "Bearer", "{path}");
        let wrong = get(&address, path, &[("Authorization", "Bearer nope")]).await;
        assert_eq!(wrong.status, 401, "{path} with a wrong token");
        let right = get(&address, path, &[("Authorization", "Bearer s3cret")]).await;
        assert_eq!(right.status, 200, "{path} with the token");
    }
}

#[test]
fn ui_needs_http() {
    let (_dir, config, db) = library();
    let output = toolforge()
        .args(["serve", "--ui", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--http"), "{stderr}");
}

/// With `--reload`, a changed config changes the workbench's diagram too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reloaded_config_redraws_the_diagram() {
    let (_dir, config, db) = library();
    let (_served, address) = serve(&config, &db, &["--ui", "--reload"], &[]).await;
    let before = get(&address, "/ui/schema.svg", &[]).await.body;
    assert!(!before.contains("thin"), "{before}");
    // A computed field: the same tables, another diagram.
    let changed = CONFIG.replace(
        "        expression: pages > 300\n",
        "        expression: pages > 300\n      - name: thin\n        type: boolean\n        expression: pages < 100\n",
    );
    assert_ne!(changed, CONFIG);
    std::fs::write(&config, changed).unwrap();
    let mut after = String::new();
    for _ in 0..100 {
        after = get(&address, "/ui/schema.svg", &[]).await.body;
        if after.contains("thin") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        after.contains(">thin<") || after.contains("thin: boolean"),
        "{after}"
    );
}
