//! Serving over Streamable HTTP: one or more servers mounted at paths of an axum router.
//!
//! The transport is rmcp's: `POST` for requests (JSON or an SSE stream), sessions for clients
//! of the 2025-11-25 handshake era, stateless requests for the 2026-07-28 protocol. Around it:
//! - `Host` must be one of [`HttpOptions::allowed_hosts`] (loopback names by default) and a
//!   present `Origin` one of [`HttpOptions::allowed_origins`] (loopback origins by default),
//!   which stops DNS-rebinding pages from reaching a local server;
//! - an optional bearer token ([`HttpOptions::bearer_token`]), compared in constant time;
//! - request bodies above [`HttpOptions::max_body_bytes`] are refused with 413, bodies that are
//!   not one JSON-RPC message with 400 and JSON-RPC's `-32700` or `-32600`;
//! - deadlines for a request's headers and body, an idle time for keep-alive connections and
//!   a limit on open connections ([`HttpOptions::connections`], `connections.rs`).

#[cfg(feature = "mcp-oauth")]
pub(super) mod auth;
pub(super) mod connections;
mod direct_call;
pub(super) mod hang_up;
mod origin_check;
mod request_check;
#[cfg(feature = "mcp-workbench")]
pub(super) mod workbench;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::server::{McpServer, ServeError};
use connections::ConnectionLimits;

/// Settings of the Streamable HTTP transport.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Accepted `Host` header values (names, or `host:port`); default loopback only.
    pub allowed_hosts: Vec<String>,
    /// Accepted `Origin` header values (`scheme://host:port`, `:*` for any port); a request
    /// with another `Origin` is refused with 403. Default: loopback origins on any port.
    pub allowed_origins: Vec<String>,
    /// When set, every request must carry `Authorization: Bearer <token>` (401 otherwise).
    pub bearer_token: Option<String>,
    /// The largest request body, in bytes (default 4 MiB); larger ones are refused with 413.
    pub max_body_bytes: usize,
    /// Deadlines for requests' headers and bodies, the idle time of a keep-alive connection
    /// and the most connections open at once (see [`ConnectionLimits`]).
    pub connections: ConnectionLimits,
    /// When set, the server is an OAuth resource server: every request carries an access token
    /// of the issuer, whose scopes gate the tools and whose claims become context values.
    #[cfg(feature = "mcp-oauth")]
    pub oauth: Option<auth::OAuthOptions>,
    /// When set, [`McpServer::serve_http`] also serves the workbench page at `/ui`.
    #[cfg(feature = "mcp-workbench")]
    pub workbench: Option<workbench::Workbench>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            allowed_hosts: ["localhost", "127.0.0.1", "::1", "[::1]"]
                .map(String::from)
                .to_vec(),
            allowed_origins: ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
                .map(String::from)
                .to_vec(),
            bearer_token: None,
            max_body_bytes: crate::spec::HttpSpec::DEFAULT_MAX_BODY_BYTES as usize,
            connections: ConnectionLimits::default(),
            #[cfg(feature = "mcp-oauth")]
            oauth: None,
            #[cfg(feature = "mcp-workbench")]
            workbench: None,
        }
    }
}

impl HttpOptions {
    /// Sets [`HttpOptions::bearer_token`].
    pub fn with_bearer_token(mut self, token: Option<String>) -> Self {
        self.bearer_token = token;
        self
    }

    /// Sets [`HttpOptions::allowed_hosts`].
    pub fn with_allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        self.allowed_hosts = hosts;
        self
    }

    /// Sets [`HttpOptions::allowed_origins`].
    pub fn with_allowed_origins(mut self, origins: Vec<String>) -> Self {
        self.allowed_origins = origins;
        self
    }

    /// Sets [`HttpOptions::oauth`].
    #[cfg(feature = "mcp-oauth")]
    pub fn with_oauth(mut self, oauth: Option<auth::OAuthOptions>) -> Self {
        self.oauth = oauth;
        self
    }

    /// Sets [`HttpOptions::workbench`].
    #[cfg(feature = "mcp-workbench")]
    pub fn with_workbench(mut self, workbench: Option<workbench::Workbench>) -> Self {
        self.workbench = workbench;
        self
    }

    /// Sets [`HttpOptions::max_body_bytes`].
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets [`HttpOptions::connections`].
    pub fn with_connection_limits(mut self, limits: ConnectionLimits) -> Self {
        self.connections = limits;
        self
    }
}

impl McpServer {
    /// An axum router serving this server at `path` (`/mcp`), to mount in an app of your own
    /// (`app.merge(router)`). Cancelling `cancel` ends its sessions and streams.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolforge::ToolRegistry;
    /// use toolforge::mcp::{HttpOptions, McpServer};
    /// let server = McpServer::new(ToolRegistry::standard()?.build());
    /// let cancel = tokio_util::sync::CancellationToken::new();
    /// let app: axum::Router = server.router("/mcp", &HttpOptions::default(), cancel);
    /// # let _ = app; Ok(()) }
    /// ```
    pub fn router(&self, path: &str, options: &HttpOptions, cancel: CancellationToken) -> Router {
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(options.allowed_hosts.clone())
            .with_allowed_origins(options.allowed_origins.clone())
            .with_max_request_body_bytes(options.max_body_bytes)
            .with_json_response(true)
            .with_cancellation_token(cancel);
        if options.allowed_origins.is_empty() {
            config = config.enforce_origin_validation();
        }
        let handler = self.handler();
        let direct = Arc::new(direct_call::Direct {
            handler: handler.clone(),
            allowed_hosts: options.allowed_hosts.clone(),
            max_body_bytes: options.max_body_bytes,
        });
        let service = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let max_body_bytes = options.max_body_bytes;
        // Outermost first: plain stateless calls answered directly, the body check, the
        // hang-up watch, rmcp.
        let router = Router::new()
            .route_service(path, service)
            .layer(middleware::from_fn(hang_up::watch))
            .layer(middleware::from_fn(move |request, next| {
                request_check::check_request(max_body_bytes, request, next)
            }))
            .layer(middleware::from_fn(move |request, next| {
                direct_call::answer(direct.clone(), request, next)
            }));
        guard(router, options)
    }

    /// Serves `mounts` (path and server) on `listener` until `shutdown` resolves; then every
    /// server stops taking calls, running calls get up to their deadline to finish, and
    /// sessions end.
    pub async fn serve_http(
        listener: TcpListener,
        mounts: Vec<(String, McpServer)>,
        options: &HttpOptions,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let cancel = CancellationToken::new();
        let mut app = Router::new();
        for (path, server) in &mounts {
            app = app.merge(server.router(path, options, cancel.child_token()));
        }
        #[cfg(feature = "mcp-oauth")]
        if let Some(oauth) = &options.oauth {
            oauth.check().map_err(ServeError::Transport)?;
            let paths: Vec<&str> = mounts.iter().map(|(path, _)| path.as_str()).collect();
            app = app.merge(auth::metadata_routes(oauth, &paths));
        }
        #[cfg(feature = "mcp-workbench")]
        if let Some(workbench) = &options.workbench {
            app = app.merge(workbench.routes(&mounts, &options.allowed_hosts, |router| {
                guard(router, options)
            }));
        }
        app = app.merge(health_routes(
            mounts.iter().map(|(_, s)| s.clone()).collect(),
        ));
        // Every route refuses a foreign `Origin` as `/mcp` does (rmcp checks it there too).
        let app = app.layer(middleware::from_fn_with_state(
            origin_check::AllowedOrigins::new(&options.allowed_origins),
            origin_check::refuse_foreign_origin,
        ));
        let address: Option<SocketAddr> = listener.local_addr().ok();
        tracing::info!(address = ?address, paths = ?mounts.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), "serving MCP over HTTP");
        let servers: Vec<McpServer> = mounts.into_iter().map(|(_, server)| server).collect();
        let stop = cancel.clone();
        let graceful = async move {
            shutdown.await;
            let grace = servers
                .iter()
                .map(McpServer::grace)
                .max()
                .unwrap_or_default();
            tracing::info!(
                grace_ms = grace.as_millis() as u64,
                "shutting down: finishing running calls"
            );
            for server in &servers {
                if !server.drain(grace).await {
                    tracing::warn!(
                        server = server.name(),
                        "some calls were still running when the grace period ended"
                    );
                }
            }
            stop.cancel();
        };
        connections::serve(listener, app, options.connections, graceful).await;
        Ok(())
    }
}

/// `GET /healthz`: 200 while the process serves. `GET /readyz`: 200 when every server's
/// readiness check passes (the database answers, the model is loaded) within 5 s, otherwise
/// 503 with what is missing; and 503 once shutting down.
fn health_routes(servers: Vec<McpServer>) -> Router {
    use axum::routing::get;
    // Toolsets share their root's check: each distinct check runs once per probe.
    let mut checks: Vec<super::server::Readiness> = Vec::new();
    for check in servers.iter().filter_map(McpServer::readiness) {
        if !checks.iter().any(|seen| Arc::ptr_eq(seen, &check)) {
            checks.push(check);
        }
    }
    let (servers, checks) = (Arc::new(servers), Arc::new(checks));
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route(
            "/readyz",
            get(move || {
                let (servers, checks) = (servers.clone(), checks.clone());
                async move {
                    if servers.iter().any(McpServer::draining) {
                        return (
                            StatusCode::SERVICE_UNAVAILABLE,
                            "shutting down\n".to_owned(),
                        );
                    }
                    for check in checks.iter() {
                        let problem =
                            match tokio::time::timeout(std::time::Duration::from_secs(5), check())
                                .await
                            {
                                Ok(Ok(())) => continue,
                                Ok(Err(problem)) => problem,
                                Err(_) => "the readiness check took longer than 5 s".to_owned(),
                            };
                        return (
                            StatusCode::SERVICE_UNAVAILABLE,
                            format!("not ready: {problem}\n"),
                        );
                    }
                    (StatusCode::OK, "ready\n".to_owned())
                }
            }),
        )
}

/// `router` behind the authorization `options` ask for: OAuth access tokens, a bearer token, or
/// none. Every route that answers with the server's data goes through it (the MCP endpoints,
/// and the workbench's data routes).
fn guard(router: Router, options: &HttpOptions) -> Router {
    #[cfg(feature = "mcp-oauth")]
    if let Some(oauth) = &options.oauth {
        return auth::auth_layer(router, oauth, options.max_body_bytes);
    }
    match &options.bearer_token {
        None => router,
        Some(token) => router.layer(middleware::from_fn_with_state(
            Arc::<str>::from(token.as_str()),
            require_bearer,
        )),
    }
}

/// Refuses a request without the expected `Authorization: Bearer` token.
async fn require_bearer(State(token): State<Arc<str>>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    match presented {
        Some(presented) if constant_time_eq(presented.as_bytes(), token.as_bytes()) => {
            next.run(request).await
        }
        _ => {
            let mut response = (
                StatusCode::UNAUTHORIZED,
                "missing or wrong bearer token: send `Authorization: Bearer <token>`",
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
    }
}

/// Compares two byte strings in time independent of where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut difference = a.len() ^ b.len();
    for (i, byte) in a.iter().enumerate() {
        difference |= usize::from(byte ^ b.get(i).copied().unwrap_or(0));
    }
    difference == 0
}

#[cfg(test)]
mod tests {
    use super::constant_time_eq;

    #[test]
    fn tokens_match_only_when_equal() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
        assert!(constant_time_eq(b"", b""));
    }
}
