//! Waiting for the signals that ask a server to stop.

/// Resolves when the process gets SIGINT (Ctrl-C) or SIGTERM (on Unix; Ctrl-C elsewhere).
/// If the signal handlers cannot be installed it never resolves (the server then stops only
/// when its clients go away), and the reason is logged.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => tracing::info!("SIGINT received"),
                    _ = terminate.recv() => tracing::info!("SIGTERM received"),
                }
            }
            (Err(error), _) | (_, Err(error)) => {
                tracing::warn!(%error, "cannot listen for SIGINT / SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        match tokio::signal::ctrl_c().await {
            Ok(()) => tracing::info!("Ctrl-C received"),
            Err(error) => {
                tracing::warn!(%error, "cannot listen for Ctrl-C");
                std::future::pending::<()>().await;
            }
        }
    }
}
