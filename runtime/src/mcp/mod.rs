//! Serving a [`ToolRegistry`] over the Model Context Protocol, with rmcp (the official Rust
//! SDK): on stdio for desktop clients ([`McpServer::serve_stdio`]) and, with the `mcp-http`
//! feature, over Streamable HTTP ([`McpServer::router`] to mount in an axum app, or
//! [`McpServer::serve_http`]).
//!
//! Every tool of the registry is served the way the registry runs it (validation, deadlines,
//! answer caps, panic isolation), generated, custom and `#[derive(Tool)]` tools alike:
//! - `tools/list` in registration order, in pages of [`McpOptions::page_size`], with
//!   `ttlMs` / `cacheScope` caching hints; each tool has its `title`, annotations and, when
//!   its output is typed, its `outputSchema`;
//! - a result is `structuredContent` (when it is a JSON object) mirrored as JSON text;
//! - a failed call (invalid arguments, timeout, too large, the tool's own errors) is a result
//!   with `isError: true` whose text is the structured error the model can act on;
//! - an unknown tool is the JSON-RPC error `-32602` whose `data` carries the nearest names;
//! - at most [`McpOptions::max_concurrent_calls`] calls run at once; a call whose client
//!   cancels it (or disconnects) is dropped, which stops its database statement;
//! - with [`McpServer::with_data`] (what `toolforge serve` does), resources (the schema, each
//!   record through a URI template per entity, the config's documents, with subscriptions),
//!   prompts (the config's and generated ones) and completions of their arguments, all read
//!   through the registry's own tools under each caller's rules and scopes;
//! - `logging/setLevel`: a session then receives records about its own failed calls.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use toolforge::ToolRegistry;
//! use toolforge::mcp::McpServer;
//! let registry = ToolRegistry::standard()?.build();
//! McpServer::new(registry).with_server_info("notes", "1.0.0").serve_stdio().await?;
//! # Ok(()) }
//! ```
//!
//! [`ToolRegistry`]: crate::ToolRegistry

mod client_log;
mod convert;
mod handler;
#[cfg(feature = "mcp-http")]
mod http;
mod invalid_params;
mod offers;
mod origin;
mod paging;
mod served;
mod server;
mod shutdown;
mod stdio;
mod subscriptions;
mod telemetry;

pub use handler::McpHandler;
#[cfg(feature = "mcp-http")]
pub use http::HttpOptions;
#[cfg(feature = "mcp-oauth")]
pub use http::auth::{Introspection, OAuthOptions};
#[cfg(feature = "mcp-http")]
pub use http::connections::ConnectionLimits;
#[cfg(feature = "mcp-workbench")]
pub use http::workbench::Workbench;
pub use server::{McpOptions, McpServer, Readiness, ServeError};
pub use shutdown::shutdown_signal;
