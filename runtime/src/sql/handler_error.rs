//! How a tool's handler fails ([`HandlerError`]): shared by the engine's services (query
//! builder, full text, vectors) and the tools above them.

use crate::sql::backend::ExecError;
use crate::{CallBudget, ToolError};

/// A handler failure: a tool error, or a backend error to be reported without SQL text.
pub(crate) enum HandlerError {
    /// An error the model sees as is.
    Tool(ToolError),
    /// A backend error, reported without SQL text.
    Exec(ExecError),
}

impl From<ToolError> for HandlerError {
    fn from(error: ToolError) -> Self {
        HandlerError::Tool(error)
    }
}

impl From<ExecError> for HandlerError {
    fn from(error: ExecError) -> Self {
        HandlerError::Exec(error)
    }
}

/// The error of a read SQLite stopped: the call's `timeout` error when it has a deadline,
/// otherwise (the caller went away) a plain failure nobody waits for.
pub(crate) fn stopped_error() -> ToolError {
    match CallBudget::current() {
        Some(budget) => budget.timeout_error(),
        None => {
            ToolError::execution_failed("The database call was cancelled; nothing was changed.")
        }
    }
}
