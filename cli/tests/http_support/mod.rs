//! What the tests of `toolforge serve --http` share: starting the server on a free port (its
//! URL read from the line it prints, its log kept), and one raw HTTP request on loopback.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use http_body_util::BodyExt;

/// A running `toolforge serve --http`: the child (killed when dropped), its MCP URL and every
/// line it has logged so far.
pub struct Served {
    pub child: tokio::process::Child,
    pub url: String,
    pub log: Arc<Mutex<Vec<String>>>,
}

/// `toolforge serve ARGS --http 127.0.0.1:0` with `env` set; returns once it serves. Its log is
/// read to the end (so the server never blocks on a full pipe) and kept.
pub async fn serve_http<S: AsRef<OsStr>>(args: &[S], env: &[(&str, &str)]) -> Served {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolforge"));
    command.arg("serve").args(args).envs(env.iter().copied());
    announced(command).await
}

/// As [`serve_http`], in a process that may open at most `descriptors` files (`ulimit -n`).
pub async fn serve_http_with_descriptors<S: AsRef<OsStr>>(args: &[S], descriptors: u32) -> Served {
    let mut command = tokio::process::Command::new("sh");
    command
        .args([
            "-c",
            &format!("ulimit -n {descriptors} && exec \"$0\" \"$@\""),
        ])
        .arg(env!("CARGO_BIN_EXE_toolforge"))
        .arg("serve")
        .args(args);
    announced(command).await
}

/// Starts `command` (a `toolforge serve` without its `--http`) on a free loopback port.
async fn announced(mut command: tokio::process::Command) -> Served {
    let mut child = command
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn toolforge serve --http");
    let stderr = child.stderr.take().unwrap();
    let (found, address) = tokio::sync::oneshot::channel();
    let log = Arc::new(Mutex::new(Vec::new()));
    let kept = log.clone();
    tokio::spawn(async move {
        use tokio::io::AsyncBufReadExt;
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        let mut found = Some(found);
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.trim().strip_prefix("toolforge: serving MCP at ")
                && let Some(found) = found.take()
            {
                let _ = found.send(url.to_owned());
            }
            kept.lock().unwrap().push(line);
        }
    });
    let url = tokio::time::timeout(Duration::from_secs(60), address)
        .await
        .expect("serve announces its address")
        .expect("serve stopped before announcing its address");
    Served { child, url, log }
}

/// One HTTP request on loopback: the status, the `WWW-Authenticate` header (empty when absent)
/// and the body.
pub async fn http(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> (u16, String, String) {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Body>();
    let mut request = axum::http::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = tokio::time::timeout(
        Duration::from_secs(30),
        client.request(request.body(Body::from(body)).unwrap()),
    )
    .await
    .expect("an answer within 30 s")
    .expect("request");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        challenge,
        String::from_utf8_lossy(&body).into_owned(),
    )
}
