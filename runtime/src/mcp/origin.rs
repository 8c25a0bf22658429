//! The request an MCP method answers, as the parts of the server that look at it see it:
//! handed over by rmcp's service, or a stateless `tools/call` over HTTP answered directly
//! (`direct_call.rs`). Its id, `_meta`, protocol version and HTTP request, and whether its
//! client has gone.

use rmcp::model::{RequestId, RequestMetaObject};
use rmcp::service::{RequestContext, RoleServer};

/// Where a request came from.
pub(super) enum Origin<'a> {
    /// A request of rmcp's service (stdio, a 2025-11-25 session, a stateless request that is
    /// not a plain `tools/call`).
    Service(&'a RequestContext<RoleServer>),
    /// A stateless `tools/call` of the 2026-07-28 protocol answered without rmcp's
    /// per-request service; its client going away drops the answer's future.
    #[cfg(feature = "mcp-http")]
    Direct {
        /// The JSON-RPC id.
        id: &'a RequestId,
        /// The request's `_meta`.
        meta: &'a RequestMetaObject,
        /// The HTTP request (headers, and what the authorization layer found).
        parts: &'a axum::http::request::Parts,
    },
}

impl Origin<'_> {
    /// The HTTP request behind it, if it came over HTTP.
    #[cfg(feature = "mcp-http")]
    pub(super) fn parts(&self) -> Option<&axum::http::request::Parts> {
        match self {
            Origin::Service(context) => context.extensions.get::<axum::http::request::Parts>(),
            Origin::Direct { parts, .. } => Some(parts),
        }
    }

    /// The JSON-RPC id.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(super) fn id(&self) -> &RequestId {
        match self {
            Origin::Service(context) => &context.id,
            #[cfg(feature = "mcp-http")]
            Origin::Direct { id, .. } => id,
        }
    }

    /// The request's `_meta`.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(super) fn meta(&self) -> &RequestMetaObject {
        match self {
            Origin::Service(context) => &context.meta,
            #[cfg(feature = "mcp-http")]
            Origin::Direct { meta, .. } => meta,
        }
    }

    /// The protocol version the request speaks, when known.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(super) fn protocol(&self) -> Option<rmcp::model::ProtocolVersion> {
        match self {
            Origin::Service(context) => context.protocol_version(),
            #[cfg(feature = "mcp-http")]
            Origin::Direct { meta, .. } => meta.protocol_version(),
        }
    }

    /// The rmcp request context, for what only a service request has (a session to log to).
    pub(super) fn context(&self) -> Option<&RequestContext<RoleServer>> {
        match self {
            Origin::Service(context) => Some(context),
            #[cfg(feature = "mcp-http")]
            Origin::Direct { .. } => None,
        }
    }

    /// Resolves when the client cancels the request or hangs up before its answer; never for
    /// a direct request, whose future is dropped instead.
    pub(super) async fn gone(&self) {
        match self {
            Origin::Service(context) => {
                #[cfg(feature = "mcp-http")]
                if let Some(hang_up) = super::http::hang_up::token(context) {
                    tokio::select! {
                        () = context.ct.cancelled() => {}
                        () = hang_up.cancelled() => {}
                    }
                    return;
                }
                context.ct.cancelled().await;
            }
            #[cfg(feature = "mcp-http")]
            Origin::Direct { .. } => std::future::pending().await,
        }
    }
}
