//! Serving over stdio: one client, newline-delimited JSON-RPC on stdin and stdout. Nothing
//! else may write to stdout (logs go to stderr).

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use super::server::{McpServer, ServeError};
use super::shutdown::shutdown_signal;
use crate::ToolRegistry;
use crate::limits::DEFAULT_TIMEOUT;

impl McpServer {
    /// Serves on stdin / stdout until the client closes stdin, or until SIGINT / SIGTERM,
    /// after which running calls get up to their deadline to finish.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let (stdin, stdout) = rmcp::transport::stdio();
        self.serve_io(stdin, stdout, shutdown_signal()).await
    }

    /// Serves one client on a pair of byte streams until the client closes them or `shutdown`
    /// resolves (then running calls get up to their deadline to finish).
    pub async fn serve_io<R, W>(
        self,
        reader: R,
        writer: W,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), ServeError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let cancel = CancellationToken::new();
        let running = self
            .handler()
            .serve_with_ct((reader, writer), cancel.clone())
            .await
            .map_err(|error| ServeError::Transport(error.to_string()))?;
        let mut waiting = Box::pin(running.waiting());
        tokio::select! {
            quit = &mut waiting => {
                tracing::info!(reason = ?quit, "the client closed the connection");
                return Ok(());
            }
            () = shutdown => {}
        }
        let grace = self.grace();
        tracing::info!(
            grace_ms = grace.as_millis() as u64,
            "shutting down: finishing running calls"
        );
        if !self.drain(grace).await {
            tracing::warn!("some calls were still running when the grace period ended");
        }
        cancel.cancel();
        let _ = waiting.await;
        Ok(())
    }

    /// How long running calls may take to finish on shutdown: the longest deadline of the
    /// registry (30 s when no deadline is set).
    pub(super) fn grace(&self) -> Duration {
        let registry = self.registry();
        registry
            .names()
            .filter_map(|name| registry.limits_for(name).timeout)
            .max()
            .unwrap_or(DEFAULT_TIMEOUT)
    }
}

impl ToolRegistry {
    /// Serves this registry over MCP on stdio until the client closes it or the process gets
    /// SIGINT / SIGTERM (running calls finish first). See [`McpServer`] to name the server
    /// or serve over HTTP.
    pub async fn serve_stdio(self: &Arc<Self>) -> Result<(), ServeError> {
        McpServer::new(self.clone()).serve_stdio().await
    }
}
