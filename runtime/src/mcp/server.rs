//! [`McpServer`]: one registry served over MCP, with its identity and settings, the state its
//! connections share, and the tools it serves now.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::service::{Peer, RoleServer};
use tokio::sync::Semaphore;

use super::client_log::ClientLogs;
pub(super) use super::served::Served;
use super::subscriptions::Watches;
use crate::ToolRegistry;
use crate::spec::{McpSpec, SchemaSpec};

/// How a server pages, caches and bounds its work.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpOptions {
    /// Tools per `tools/list` page (default 100).
    pub page_size: usize,
    /// Calls running at once; further calls wait for a free slot within their deadline
    /// (default 64).
    pub max_concurrent_calls: usize,
    /// How long a client may cache `tools/list` (`ttlMs`, default 5 minutes; 0 when the
    /// tools may change, see [`McpServer::replace_registry`]).
    pub list_ttl: Duration,
    /// Whether `tools/list` carries each tool's `outputSchema` (default false). Results are
    /// `structuredContent` either way; the schemas are for clients that validate them or
    /// generate types from them, and a model is not shown them, while they are a third of
    /// what a list weighs in tokens (docs/BENCHMARKS.md, "Tool definitions in tokens").
    pub output_schemas: bool,
    /// How often watched resources are re-read to tell their subscribers of a change (default
    /// 1 s).
    pub watch_interval: Duration,
    /// Whether the log records a client receives (`logging/setLevel`) carry the error's text,
    /// which may quote argument values (default false: the tool, the error code and the time
    /// only).
    pub client_log_details: bool,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            page_size: 100,
            max_concurrent_calls: 64,
            list_ttl: Duration::from_secs(300),
            output_schemas: false,
            watch_interval: Duration::from_secs(1),
            client_log_details: false,
        }
    }
}

/// Why a server could not start or stopped.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// `mcp.tools` or a toolset names a tool the registry does not have.
    #[error("{what} names `{name}`, which is not a tool of the registry served{hint}")]
    UnknownTool {
        /// Where the name comes from (`mcp.tools`, `toolset lookup`).
        what: String,
        /// The name.
        name: String,
        /// ` (did you mean ...?)` or empty.
        hint: String,
    },
    /// No toolset has this name.
    #[error("there is no toolset `{name}`; {available}")]
    UnknownToolset {
        /// The name asked for.
        name: String,
        /// The toolsets there are.
        available: String,
    },
    /// The transport failed (stdio closed during the handshake, an address in use, ...).
    #[error("the MCP transport failed: {0}")]
    Transport(String),
}

/// An MCP server over one [`ToolRegistry`]. Cheap to clone: clones serve the same tools.
#[derive(Clone)]
pub struct McpServer {
    pub(super) shared: Arc<Shared>,
}

/// What every connection of a server shares.
pub(super) struct Shared {
    served: RwLock<Arc<Served>>,
    pub(super) settings: Settings,
    pub(super) calls: Arc<Semaphore>,
    draining: AtomicBool,
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// Open `subscriptions/listen` streams of 2026-07-28 clients, by request id.
    listeners: Mutex<Vec<(String, rmcp::service::SubscriptionSink)>>,
    /// The resources watched for their subscribers.
    pub(super) watches: Arc<Watches>,
    /// The log level each session asked for (`logging/setLevel`).
    pub(super) logs: ClientLogs,
}

/// What a server says about itself and how it bounds its work; fixed once it serves.
#[derive(Clone)]
pub(super) struct Settings {
    pub(super) identity: rmcp::model::Implementation,
    pub(super) instructions: Option<String>,
    pub(super) options: McpOptions,
    /// The tools `tools/list` lists, when not all (progressive discovery); every tool of the
    /// registry stays callable.
    listed: Option<Arc<[String]>>,
    /// Context values read from each call's HTTP request: (value name, header name).
    pub(super) context_headers: Arc<[(String, String)]>,
    /// What `/readyz` asks before saying the server is ready.
    pub(super) readiness: Option<Readiness>,
}

/// A check `GET /readyz` runs (is the database reachable, is the model loaded): `Ok` when the
/// server can answer calls, otherwise what is missing.
pub type Readiness = Arc<
    dyn Fn() -> std::pin::Pin<Box<dyn Future<Output = Result<(), String>> + Send>> + Send + Sync,
>;

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.shared.settings.identity.name)
            .field("tools", &self.registry().len())
            .field("options", &self.shared.settings.options)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server of every tool of `registry`, named `toolforge` with the crate's version.
    pub fn new(registry: Arc<ToolRegistry>) -> McpServer {
        McpServer::build(
            Served::new(registry, None, None),
            Settings {
                identity: rmcp::model::Implementation::new("toolforge", env!("CARGO_PKG_VERSION")),
                instructions: None,
                options: McpOptions::default(),
                listed: None,
                context_headers: Arc::from([]),
                readiness: None,
            },
        )
    }

    fn build(served: Arc<Served>, settings: Settings) -> McpServer {
        McpServer {
            shared: Arc::new(Shared {
                served: RwLock::new(served),
                calls: Arc::new(Semaphore::new(settings.options.max_concurrent_calls.max(1))),
                settings,
                draining: AtomicBool::new(false),
                peers: Mutex::new(Vec::new()),
                listeners: Mutex::new(Vec::new()),
                watches: Arc::new(Watches::default()),
                logs: ClientLogs::default(),
            }),
        }
    }

    /// A new server over `served`, with this server's settings changed by `change`.
    fn derive(&self, served: Arc<Served>, change: impl FnOnce(&mut Settings)) -> McpServer {
        let mut settings = self.shared.settings.clone();
        change(&mut settings);
        McpServer::build(served, settings)
    }

    /// The name and version the server reports to clients.
    pub fn with_server_info(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let identity = rmcp::model::Implementation::new(name, version);
        self.derive(self.shared.current(), |s| s.identity = identity)
    }

    /// Instructions sent to clients when they connect (how to use the tools together).
    pub fn with_instructions(self, instructions: impl Into<String>) -> Self {
        let instructions = Some(instructions.into());
        self.derive(self.shared.current(), |s| s.instructions = instructions)
    }

    /// Sets context values per call from the HTTP request's headers (Streamable HTTP only):
    /// each `(name, header)` pair sets the context value `name` (what row rules read as
    /// `:context.NAME` and `from_context` parameters take) to the header's value. A request
    /// without the header leaves the value unset, so what needs it is denied; the header's
    /// value wins over a value of the registry's context. Calls over stdio carry no headers.
    ///
    /// ```
    /// # #[cfg(feature = "mcp-http")] {
    /// use toolforge::mcp::McpServer;
    /// let registry = toolforge::ToolRegistry::standard().unwrap().build();
    /// let server = McpServer::new(registry)
    ///     .with_context_headers([("member", "X-Member-Id")]);
    /// # let _ = server; }
    /// ```
    pub fn with_context_headers<N: Into<String>, H: Into<String>>(
        self,
        pairs: impl IntoIterator<Item = (N, H)>,
    ) -> Self {
        let pairs: Arc<[(String, String)]> = pairs
            .into_iter()
            .map(|(name, header)| (name.into(), header.into()))
            .collect();
        self.derive(self.shared.current(), |s| s.context_headers = pairs)
    }

    /// Tells the server the spec of the data its registry serves (what `toolforge serve` does
    /// for a config), so that it also offers MCP resources (`toolforge://schema`, each record
    /// through a URI template per entity, the config's documents), prompts (the config's and
    /// generated ones) and completions of their arguments. They read through the registry's
    /// own tools, under each caller's rules and scopes.
    pub fn with_data(self, spec: Arc<SchemaSpec>) -> Self {
        let served = self.shared.current().with_data(spec);
        self.derive(served, |_| {})
    }

    /// The check `GET /readyz` runs over HTTP (without one, a serving process is ready).
    pub fn with_readiness(self, readiness: Readiness) -> Self {
        self.derive(self.shared.current(), |s| s.readiness = Some(readiness))
    }

    /// Whether the server is shutting down (what `/readyz` reports over HTTP).
    #[cfg_attr(not(feature = "mcp-http"), allow(dead_code))]
    pub(super) fn draining(&self) -> bool {
        self.shared.is_draining()
    }

    /// The check `/readyz` runs for this server, if it has one.
    #[cfg_attr(not(feature = "mcp-http"), allow(dead_code))]
    pub(super) fn readiness(&self) -> Option<Readiness> {
        self.shared.settings.readiness.clone()
    }

    /// Paging, caching and concurrency settings.
    pub fn with_options(self, options: McpOptions) -> Self {
        self.derive(self.shared.current(), |s| s.options = options)
    }

    /// The server a config describes: `mcp.server` names it (else `default_name` and
    /// `default_version`), and `mcp.tools` is the allow-list of the tools served (`batch`
    /// reaching only those). A listed name that the registry lacks is an error.
    pub fn for_spec(
        registry: Arc<ToolRegistry>,
        mcp: &McpSpec,
        default_name: &str,
        default_version: &str,
    ) -> Result<McpServer, ServeError> {
        let registry = match &mcp.expose {
            None => registry,
            Some(names) => {
                check_names(&registry, "mcp.tools", names)?;
                registry.subset(|tool| names.contains(&tool.name))
            }
        };
        Ok(McpServer::new(registry).with_server_info(
            mcp.server_name.as_deref().unwrap_or(default_name),
            mcp.server_version.as_deref().unwrap_or(default_version),
        ))
    }

    /// A server of the toolset `name` of `mcp` (`toolforge.toolsets`): the listed tools of
    /// this server, under the same identity and settings.
    pub fn toolset(&self, mcp: &McpSpec, name: &str) -> Result<McpServer, ServeError> {
        let Some(members) = mcp.toolsets.get(name) else {
            let available = if mcp.toolsets.is_empty() {
                "the config declares none (`toolforge.toolsets`)".to_owned()
            } else {
                let names: Vec<String> = mcp.toolsets.keys().map(|n| format!("`{n}`")).collect();
                format!("the toolsets are {}", names.join(", "))
            };
            return Err(ServeError::UnknownToolset {
                name: name.to_owned(),
                available,
            });
        };
        let registry = self.registry();
        check_names(&registry, &format!("toolset `{name}`"), members)?;
        Ok(self.with_registry(registry.subset(|tool| members.contains(&tool.name))))
    }

    /// This server with only its read-only tools (annotated `readOnlyHint: true`); `batch`
    /// stays, reaching only those ([`ToolRegistry::read_only`]).
    pub fn read_only(&self) -> McpServer {
        self.with_registry(self.registry().read_only())
    }

    /// This server's identity and settings over another registry.
    pub fn with_registry(&self, registry: Arc<ToolRegistry>) -> McpServer {
        self.derive(
            Served::new(
                registry,
                self.shared.settings.listed.as_deref(),
                self.shared.current().data(),
            ),
            |_| {},
        )
    }

    /// Progressive discovery: `tools/list` lists only the tools named in `listed` (in
    /// registration order), typically a search tool and a few core tools, while every tool of
    /// the registry stays callable by name with `tools/call`. `what` says where the names come
    /// from, for the error when one is not a tool of the registry.
    pub fn with_listed_tools(
        &self,
        what: &str,
        listed: &[String],
    ) -> Result<McpServer, ServeError> {
        let registry = self.registry();
        check_names(&registry, what, listed)?;
        let listed: Arc<[String]> = listed.into();
        let data = self.shared.current().data();
        Ok(
            self.derive(Served::new(registry, Some(&listed), data), |settings| {
                settings.listed = Some(listed.clone());
            }),
        )
    }

    /// The registry served now.
    pub fn registry(&self) -> Arc<ToolRegistry> {
        self.shared.current().registry.clone()
    }

    /// The name the server reports.
    pub fn name(&self) -> &str {
        &self.shared.settings.identity.name
    }

    /// Serves `registry` from now on (calls already running finish on the old one) and sends
    /// `notifications/tools/list_changed` to every connected client that keeps a session
    /// (2025-11-25) or listens for it (`subscriptions/listen`, 2026-07-28).
    pub async fn replace_registry(&self, registry: Arc<ToolRegistry>) {
        let data = self.shared.current().data();
        self.replace(registry, data).await;
    }

    /// Like [`McpServer::replace_registry`], with the spec of the data the new registry serves
    /// ([`McpServer::with_data`]): a changed config's prompts, documents and entities.
    pub async fn replace_data(&self, registry: Arc<ToolRegistry>, spec: Arc<SchemaSpec>) {
        self.replace(registry, Some(spec)).await;
    }

    async fn replace(&self, registry: Arc<ToolRegistry>, data: Option<Arc<SchemaSpec>>) {
        *self
            .shared
            .served
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) =
            Served::new(registry, self.shared.settings.listed.as_deref(), data);
        #[allow(deprecated)]
        self.shared
            .logs
            .to_all(
                rmcp::model::LoggingLevel::Notice,
                serde_json::json!({"message": "the tools changed; list them again"}),
            )
            .await;
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self.shared.lock_peers();
            peers.retain(|peer| !peer.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            if let Err(error) = peer.notify_tool_list_changed().await {
                tracing::debug!(%error, "a client did not take the tools/list_changed notification");
            }
        }
        let listeners: Vec<rmcp::service::SubscriptionSink> = self
            .shared
            .lock_listeners()
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect();
        for sink in listeners {
            if let Err(error) = sink.notify_tool_list_changed().await {
                tracing::debug!(%error, "a listener did not take the tools/list_changed notification");
            }
        }
    }

    /// Stops taking calls and waits until the calls running now have finished, at most
    /// `grace`. Returns whether they all finished.
    pub async fn drain(&self, grace: Duration) -> bool {
        self.shared.draining.store(true, Ordering::SeqCst);
        let all = u32::try_from(self.shared.settings.options.max_concurrent_calls.max(1))
            .unwrap_or(u32::MAX);
        matches!(
            tokio::time::timeout(grace, self.shared.calls.acquire_many(all)).await,
            Ok(Ok(_))
        )
    }
}

impl Shared {
    pub(super) fn current(&self) -> Arc<Served> {
        self.served
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    pub(super) fn lock_peers(&self) -> std::sync::MutexGuard<'_, Vec<Peer<RoleServer>>> {
        self.peers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn lock_listeners(
        &self,
    ) -> std::sync::MutexGuard<'_, Vec<(String, rmcp::service::SubscriptionSink)>> {
        self.listeners
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }
}

/// Checks that every name in `names` is a tool of `registry`.
fn check_names(registry: &ToolRegistry, what: &str, names: &[String]) -> Result<(), ServeError> {
    for name in names {
        if !registry.contains(name) {
            let hint = toolforge_names::closest(name, registry.names())
                .map(|close| format!(" (did you mean `{close}`?)"))
                .unwrap_or_default();
            return Err(ServeError::UnknownTool {
                what: what.to_owned(),
                name: name.clone(),
                hint,
            });
        }
    }
    Ok(())
}
