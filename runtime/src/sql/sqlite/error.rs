//! SQLite's errors as the engine asks about them: whether one is a stop, what a model sees.

use crate::ToolError;
use crate::sql::backend::{BackendError, ExecError};
use crate::sql::handler_error::HandlerError;
use crate::sql::sqlite::stoppable_regex::{FALLBACK_BUDGET, TOO_COSTLY_MARK};

/// Whether `error` is SQLite's `SQLITE_INTERRUPT`: the statement was stopped because its call's
/// deadline passed or its caller went away (see [`Database::read`](crate::sql::Database::read)).
pub fn is_interrupt(error: &rusqlite::Error) -> bool {
    error.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted)
}

impl BackendError for rusqlite::Error {
    fn is_stop(&self) -> bool {
        is_interrupt(self)
    }

    fn tool_error(&self) -> ToolError {
        execution_error(self)
    }
}

impl From<rusqlite::Error> for ExecError {
    fn from(error: rusqlite::Error) -> Self {
        ExecError::Backend(Box::new(error))
    }
}

impl From<rusqlite::Error> for HandlerError {
    fn from(error: rusqlite::Error) -> Self {
        HandlerError::Exec(ExecError::from(error))
    }
}

/// The structured error a model sees when SQLite fails: the SQLite error code only, never SQL
/// text or file paths; a `REGEX` match refused for its cost says so (see `stoppable_regex`).
pub fn execution_error(error: &rusqlite::Error) -> ToolError {
    if let rusqlite::Error::SqliteFailure(_, Some(message)) = error
        && let Some(refusal) = message.strip_prefix(TOO_COSTLY_MARK)
    {
        return ToolError::invalid_arguments(refusal.to_owned()).with_details(
            serde_json::json!({ "limit": "regex_work", "maximum": FALLBACK_BUDGET }),
        );
    }
    let code = match error {
        rusqlite::Error::SqliteFailure(failure, _) => format!("{:?}", failure.code),
        rusqlite::Error::UserFunctionError(_) => "FunctionError".into(),
        rusqlite::Error::QueryReturnedNoRows => "NoRows".into(),
        _ => "Other".into(),
    };
    ToolError::execution_failed(format!(
        "The database could not answer this call (SQLite: {code}). The arguments were valid; retrying later or simplifying the conditions may help."
    ))
    .with_details(serde_json::json!({ "sqlite_error": code }))
}
