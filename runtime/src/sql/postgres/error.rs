//! PostgreSQL's errors as the engine asks about them: whether one is a stop (a passed
//! `statement_timeout`), what a model sees (the SQLSTATE only), what a person sees.

use crate::ToolError;
use crate::sql::backend::{BackendError, ExecError};

/// Whether the error is PostgreSQL's `query_canceled` (57014): `statement_timeout` passed.
pub fn is_cancel(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&tokio_postgres::error::SqlState::QUERY_CANCELED)
}

/// The SQLSTATE of an error, or `connection` when the server gave none.
fn sqlstate(error: &tokio_postgres::Error) -> String {
    error
        .code()
        .map_or_else(|| "connection".to_owned(), |code| code.code().to_owned())
}

/// The structured error a model sees when PostgreSQL fails: the SQLSTATE only, never SQL text,
/// server messages or addresses.
pub fn execution_error(error: &tokio_postgres::Error) -> ToolError {
    let code = sqlstate(error);
    // The connection went away (closed, reset, server shutting down or starting): the call
    // may succeed once the server is back.
    if code == "connection" || code.starts_with("08") || code.starts_with("57P0") {
        return ExecError::Unavailable(code.clone())
            .tool_error()
            .with_details(serde_json::json!({ "postgres_error": code }));
    }
    ToolError::execution_failed(format!(
        "The database could not answer this call (PostgreSQL: {code}). The arguments were valid; retrying later or simplifying the conditions may help."
    ))
    .with_details(serde_json::json!({ "postgres_error": code }))
}

/// A message for a person running `db init` or an import: the server's own message (which
/// names constraints and columns, never the statement) and its SQLSTATE.
pub fn describe(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => format!("{error}"),
    }
}

impl BackendError for tokio_postgres::Error {
    fn is_stop(&self) -> bool {
        is_cancel(self)
    }

    fn tool_error(&self) -> ToolError {
        execution_error(self)
    }

    fn describe(&self) -> String {
        describe(self)
    }

    fn refuses_write(&self) -> bool {
        self.code() == Some(&tokio_postgres::error::SqlState::READ_ONLY_SQL_TRANSACTION)
    }
}

impl From<tokio_postgres::Error> for ExecError {
    fn from(error: tokio_postgres::Error) -> Self {
        ExecError::Backend(Box::new(error))
    }
}
