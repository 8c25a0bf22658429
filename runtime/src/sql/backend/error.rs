//! Why a statement failed ([`ExecError`]), and what the engine asks of a backend's own error
//! ([`BackendError`]): whether it is a stop, what a model sees, what a person sees.

use crate::ToolError;

/// Why a statement failed: the backend's error, kept for its code (never shown as SQL text).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The backend reported an error.
    #[error("{0}")]
    Backend(Box<dyn BackendError>),
    /// The statement was stopped because the call's deadline passed or its caller went away.
    #[error("the statement was stopped")]
    Stopped,
    /// No connection to the database server could be had (the message names the server).
    #[error("{0}")]
    Unavailable(String),
}

impl ExecError {
    /// Whether the statement was stopped (deadline passed, caller gone) rather than failed.
    pub fn is_stop(&self) -> bool {
        match self {
            ExecError::Backend(error) => error.is_stop(),
            ExecError::Stopped => true,
            ExecError::Unavailable(_) => false,
        }
    }

    /// The structured error a model sees: the backend's error code only, never SQL text, file
    /// paths or server addresses.
    pub fn tool_error(&self) -> ToolError {
        match self {
            ExecError::Backend(error) => error.tool_error(),
            ExecError::Stopped => ToolError::execution_failed(
                "The database call was stopped before it finished; nothing was changed.",
            ),
            ExecError::Unavailable(_) => ToolError::new(
                crate::ErrorCode::Unavailable,
                "The database server cannot be reached right now; nothing was changed. Retrying later may help.",
            ),
        }
    }

    /// A message for a person running `db init` or an import: the backend's own message
    /// (which names constraints and columns, never the statement) and its code.
    pub fn describe(&self) -> String {
        match self {
            ExecError::Backend(error) => error.describe(),
            other => other.to_string(),
        }
    }
}

/// A backend's own error, as the engine asks about it. Each backend implements it for its
/// driver's error type (`sql/sqlite/error.rs`, `sql/postgres/error.rs`).
pub trait BackendError: std::error::Error + Send + Sync + 'static {
    /// Whether the statement was stopped (deadline passed, caller gone) rather than failed.
    fn is_stop(&self) -> bool;

    /// The structured error a model sees: the error's code only, never SQL text, file paths
    /// or server addresses.
    fn tool_error(&self) -> ToolError;

    /// A message for a person running `db init` or an import.
    fn describe(&self) -> String {
        self.to_string()
    }

    /// Whether the backend refused a write because the transaction is read-only.
    fn refuses_write(&self) -> bool {
        false
    }
}
