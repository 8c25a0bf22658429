//! The `logging` capability (2025-11-25): a client that sends `logging/setLevel` also receives
//! the server's log records about its own requests at or above that level, and the server-wide
//! ones (the tools changed), as `notifications/message`. Records carry the tool, the error
//! code and the time taken, never argument values nor the error's text (which may quote
//! them) unless the operator opts in ([`McpOptions::client_log_details`]).
//!
//! [`McpOptions::client_log_details`]: super::McpOptions::client_log_details
#![allow(deprecated)] // MCP's logging is deprecated by 2026-07-28 (SEP-2577), not by 2025-11-25.

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::Value;

use std::sync::Mutex;

use super::origin::Origin;

/// The name records are sent under.
const LOGGER: &str = "toolforge";

/// A level's severity, for comparing (debug 0 to emergency 7).
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The session a request belongs to: its `Mcp-Session-Id` over HTTP, "" on stdio (one client
/// per process); `None` for a stateless HTTP request, which has no session to log to.
pub(super) fn session_key(context: &RequestContext<RoleServer>) -> Option<String> {
    #[cfg(feature = "mcp-http")]
    if let Some(parts) = context.extensions.get::<axum::http::request::Parts>() {
        return parts
            .headers
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
    }
    let _ = context;
    Some(String::new())
}

/// The level each session asked for, and where to send its records.
#[derive(Default)]
pub(super) struct ClientLogs {
    levels: Mutex<Vec<(String, LoggingLevel, Peer<RoleServer>)>>,
}

impl ClientLogs {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, LoggingLevel, Peer<RoleServer>)>> {
        self.levels
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sets the level of the requesting client's session.
    pub(super) fn set_level(&self, context: &RequestContext<RoleServer>, level: LoggingLevel) {
        let Some(key) = session_key(context) else {
            return;
        };
        let mut levels = self.lock();
        levels.retain(|(other, _, peer)| *other != key && !peer.is_transport_closed());
        levels.push((key, level, context.peer.clone()));
    }

    /// Sends a record about a request to the client that made it, when its level lets it
    /// through (a request without a session, such as a stateless one, has nowhere to log to).
    pub(super) async fn to_caller(&self, origin: &Origin<'_>, level: LoggingLevel, data: Value) {
        let Some(context) = origin.context() else {
            return;
        };
        let Some(key) = session_key(context) else {
            return;
        };
        let wanted = self
            .lock()
            .iter()
            .find(|(other, _, _)| *other == key)
            .is_some_and(|(_, at, _)| severity(level) >= severity(*at));
        if wanted {
            send(&context.peer, level, data).await;
        }
    }

    /// Sends a server-wide record to every client whose level lets it through.
    pub(super) async fn to_all(&self, level: LoggingLevel, data: Value) {
        let peers: Vec<Peer<RoleServer>> = {
            let mut levels = self.lock();
            levels.retain(|(_, _, peer)| !peer.is_transport_closed());
            levels
                .iter()
                .filter(|(_, at, _)| severity(level) >= severity(*at))
                .map(|(_, _, peer)| peer.clone())
                .collect()
        };
        for peer in peers {
            send(&peer, level, data.clone()).await;
        }
    }
}

async fn send(peer: &Peer<RoleServer>, level: LoggingLevel, data: Value) {
    let mut param = LoggingMessageNotificationParam::new(level, data);
    param.logger = Some(LOGGER.to_owned());
    if let Err(error) = peer.notify_logging_message(param).await {
        tracing::debug!(%error, "a client did not take a log record");
    }
}
