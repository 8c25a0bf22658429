//! The workbench: a single page at `/ui` for trying a server's tools in a browser (feature
//! `mcp-workbench`, served by [`McpServer::serve_http`] when
//! [`HttpOptions::workbench`](super::HttpOptions::workbench) is set; `toolforge serve --http
//! ADDR --ui`).
//!
//! The page is hand-written HTML, JavaScript and CSS compiled into the binary: nothing is
//! fetched from elsewhere. It talks MCP to the server's own Streamable HTTP endpoint (`POST
//! /mcp`: `initialize`, `tools/list`, `tools/call`), so every call goes through the same
//! checks, limits and authorization as any client's. Routes:
//!
//! | path | what | authorization |
//! |---|---|---|
//! | `/ui`, `/ui/app.js`, `/ui/style.css` | the page | none: static files, the same for everyone |
//! | `/ui/schema.svg` | the config's entity–relationship diagram ([`Workbench::with_diagram_svg`]) | the MCP endpoint's (bearer token or OAuth access token) |
//! | `/ui/tools.json` | the served tools by family, the endpoints | the MCP endpoint's |
//!
//! Every data request carries the token the page is given (`Authorization: Bearer`), so the
//! page itself shows nothing of the server without it. Every route checks the `Host` header
//! against [`HttpOptions::allowed_hosts`](super::HttpOptions::allowed_hosts) as the MCP
//! endpoint does (DNS rebinding).

use std::sync::{Arc, PoisonError, RwLock};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use crate::mcp::server::McpServer;
use crate::spec::SchemaSpec;

mod families;

/// The page, compiled in.
const INDEX_HTML: &str = include_str!("assets/index.html");
/// The page's script (vanilla JavaScript, no framework).
const APP_JS: &str = include_str!("assets/app.js");
/// The page's style sheet.
const STYLE_CSS: &str = include_str!("assets/style.css");

/// Where the page may load from and connect to: this server only. Inline styles are allowed
/// for the diagram's own `<style>`; scripts come from `/ui/app.js` alone.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' \
    'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// What the workbench shows besides the tools: the config's diagram and how tools group into
/// families. Clones share what they show, so a host that reloads its config
/// ([`Workbench::update`]) changes the page of every server it handed a clone to.
///
/// ```
/// use toolforge::mcp::{HttpOptions, Workbench};
/// let workbench = Workbench::new().with_diagram_svg("<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
/// let options = HttpOptions::default().with_workbench(Some(workbench.clone()));
/// assert_eq!(options.workbench.as_ref(), Some(&workbench));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Workbench {
    shown: Arc<RwLock<Shown>>,
}

/// The diagram and the families a workbench shows now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Shown {
    diagram_svg: Option<Arc<str>>,
    families: families::Families,
}

impl PartialEq for Workbench {
    fn eq(&self, other: &Workbench) -> bool {
        Arc::ptr_eq(&self.shown, &other.shown) || *self.shown() == *other.shown()
    }
}

impl Eq for Workbench {}

impl Workbench {
    /// A workbench without a diagram, grouping the database tools by their names alone.
    pub fn new() -> Workbench {
        Workbench::default()
    }

    /// The SVG served at `/ui/schema.svg` (the CLI draws it with the generator's diagram).
    pub fn with_diagram_svg(self, svg: impl Into<String>) -> Workbench {
        self.shown_mut().diagram_svg = Some(Arc::from(svg.into()));
        self
    }

    /// Groups tools as `spec` names them: its tool-name prefix, and its declared tools as the
    /// family `declared`.
    pub fn with_spec(self, spec: &SchemaSpec) -> Workbench {
        self.shown_mut().families = families::Families::of(spec);
        self
    }

    /// Shows `svg` and groups tools as `spec` names them from now on, in this workbench and
    /// its clones (a config reloaded while serving).
    pub fn update(&self, svg: impl Into<String>, spec: &SchemaSpec) {
        let mut shown = self.shown_mut();
        shown.diagram_svg = Some(Arc::from(svg.into()));
        shown.families = families::Families::of(spec);
    }

    /// The family of a served tool: a [`ToolFamily`](crate::spec::ToolFamily) name,
    /// `declared`, `batch`, `catalog` (`tool_search`) or `custom`.
    pub fn family_of(&self, tool: &str) -> &'static str {
        self.shown().families.family_of(tool)
    }

    /// What is shown now (a writer that panicked left whole values: they are read as they are).
    fn shown(&self) -> std::sync::RwLockReadGuard<'_, Shown> {
        self.shown.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn shown_mut(&self) -> std::sync::RwLockWriteGuard<'_, Shown> {
        self.shown.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `/ui` routes for the servers mounted at `mounts` (the first is the page's default
    /// endpoint): every route refuses a `Host` not in `allowed_hosts`, and the data routes go
    /// through `guard` (the MCP endpoint's authorization, `http::guard`).
    pub(super) fn routes(
        &self,
        mounts: &[(String, McpServer)],
        allowed_hosts: &[String],
        guard: impl FnOnce(Router) -> Router,
    ) -> Router {
        let page = Router::new()
            .route(
                "/ui",
                get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }),
            )
            .route(
                "/ui/",
                get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }),
            )
            .route(
                "/ui/app.js",
                get(|| async { asset(APP_JS, "text/javascript; charset=utf-8") }),
            )
            .route(
                "/ui/style.css",
                get(|| async { asset(STYLE_CSS, "text/css; charset=utf-8") }),
            );
        let state = Arc::new(Served {
            workbench: self.clone(),
            mounts: mounts.to_vec(),
        });
        let data = Router::new()
            .route("/ui/schema.svg", get(schema_svg))
            .route("/ui/tools.json", get(tools_json))
            .with_state(state);
        let hosts: Arc<[String]> = allowed_hosts.into();
        guard(data)
            .merge(page)
            .layer(middleware::from_fn_with_state(hosts, check_host))
    }
}

/// What the data routes read.
struct Served {
    workbench: Workbench,
    mounts: Vec<(String, McpServer)>,
}

/// A compiled-in file, never cached (a new binary may serve another page).
fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// `GET /ui/schema.svg`.
async fn schema_svg(State(served): State<Arc<Served>>) -> Response {
    let svg = served.workbench.shown().diagram_svg.clone();
    match svg {
        Some(svg) => {
            let mut response = svg.to_string().into_response();
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("image/svg+xml"),
            );
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            response
        }
        None => (
            StatusCode::NOT_FOUND,
            "this server has no diagram: a host serving a config passes its SVG with \
             Workbench::with_diagram_svg (toolforge serve --ui does)",
        )
            .into_response(),
    }
}

/// `GET /ui/tools.json`: `{"server", "endpoints", "families": [{"family", "tools"}]}`, the
/// families in registration order and the tools in the order the first endpoint serves them;
/// with access tokens, only the tools the caller's scopes reach (as `tools/list` shows them).
#[cfg_attr(not(feature = "mcp-oauth"), allow(unused_variables))]
async fn tools_json(State(served): State<Arc<Served>>, request: Request) -> Response {
    let Some((_, root)) = served.mounts.first() else {
        return (StatusCode::NOT_FOUND, "no MCP endpoint is served").into_response();
    };
    #[cfg(feature = "mcp-oauth")]
    let gate = request
        .extensions()
        .get::<super::auth::Caller>()
        .map(|caller| caller.gate.clone());
    #[cfg(feature = "mcp-oauth")]
    let reaches = |name: &str| gate.as_ref().is_none_or(|gate| gate.allows(name));
    #[cfg(not(feature = "mcp-oauth"))]
    let reaches = |_: &str| true;
    let registry = root.registry();
    let grouping = served.workbench.shown().families.clone();
    let mut families: Vec<(&'static str, Vec<String>)> = Vec::new();
    for name in registry.names().filter(|name| reaches(name)) {
        let family = grouping.family_of(name);
        match families.iter_mut().find(|(seen, _)| *seen == family) {
            Some((_, tools)) => tools.push(name.to_owned()),
            None => families.push((family, vec![name.to_owned()])),
        }
    }
    families.sort_by_key(|(family, _)| families::rank(family));
    let body: Value = json!({
        "server": root.name(),
        "endpoints": served.mounts.iter().map(|(path, _)| path.as_str()).collect::<Vec<_>>(),
        "families": families
            .into_iter()
            .map(|(family, tools)| json!({"family": family, "tools": tools}))
            .collect::<Vec<_>>(),
    });
    let mut response = body.to_string().into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// Refuses a request whose `Host` is not one the server answers to (403), as the MCP endpoint
/// does: a page that rebinds its own name to this address cannot read the workbench's data.
async fn check_host(
    State(allowed): State<Arc<[String]>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()));
    match host {
        Some(host) if host_is_allowed(host, &allowed) => next.run(request).await,
        _ => (
            StatusCode::FORBIDDEN,
            "this Host is not one the server answers to: add it with --allow-host",
        )
            .into_response(),
    }
}

/// Whether `host` (`name` or `name:port`) is one of `allowed` (names, or `name:port`); an empty
/// list allows every host, as the MCP endpoint's check does.
fn host_is_allowed(host: &str, allowed: &[String]) -> bool {
    if allowed.is_empty() {
        return true;
    }
    let Some((name, port)) = authority(host) else {
        return false;
    };
    allowed
        .iter()
        .filter_map(|a| authority(a))
        .any(|(allowed_name, allowed_port)| {
            allowed_name == name && allowed_port.is_none_or(|p| Some(p) == port)
        })
}

/// A host and its port, the host lowercased without IPv6 brackets.
fn authority(text: &str) -> Option<(String, Option<u16>)> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let normalise = |host: &str| host.trim_matches(['[', ']']).to_ascii_lowercase();
    match axum::http::uri::Authority::try_from(text) {
        Ok(authority) => Some((normalise(authority.host()), authority.port_u16())),
        Err(_) => Some((normalise(text), None)),
    }
}

#[cfg(test)]
mod tests {
    use super::host_is_allowed;

    #[test]
    fn hosts_match_by_name_and_port() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "::1", "example.com:8080"]
            .map(String::from)
            .to_vec();
        assert!(host_is_allowed("127.0.0.1:4000", &allowed));
        assert!(host_is_allowed("LOCALHOST", &allowed));
        assert!(host_is_allowed("[::1]:80", &allowed));
        assert!(host_is_allowed("example.com:8080", &allowed));
        assert!(!host_is_allowed("example.com:8081", &allowed));
        assert!(!host_is_allowed("evil.test:4000", &allowed));
        assert!(!host_is_allowed("", &allowed));
        assert!(host_is_allowed("anything", &[]));
    }
}
