//! The PostgreSQL backend: a pool of connections to a server (tokio-postgres, deadpool), the
//! tables a spec needs ([`schema`]), and values moved between JSON types and PostgreSQL's
//! ([`types`]).
//!
//! The pool's connections are driven by a small runtime of the database handle's own, so the
//! blocking APIs ([`Database::init`](super::Database::init), imports) work from any thread, and
//! tool calls that run their handler on tokio's blocking pool (as over SQLite) send each
//! statement to it and wait for the answer. The light tools (lookups, lists, a relationship
//! hop: `EngineTool::ON_RUNTIME`), called on a runtime of several worker threads, run on that
//! runtime instead, their statements awaited there without a hand-off to another thread: the
//! synchronous handler runs again from its start each time one more of its statements has
//! been answered (`replay.rs`). The connections such calls open are driven by that runtime.
//!
//! Tool calls use a pool of their own whose connections open with
//! `default_transaction_read_only = on`, so every statement they run is read-only (as on SQLite,
//! each statement is its own transaction); before a call's first statement, and in the same
//! round trip, `statement_timeout` is set to what is left of the call's deadline (0, no limit,
//! for a call without one) unless the connection already has about that, and while the server
//! is busy a read goes without parallel workers (`read_settings.rs`). Writes (`init`, imports)
//! use another pool, one transaction each.

mod bulk;
pub(crate) mod driver;
pub(crate) mod error;
pub(crate) mod import_sink;
pub(crate) mod introspect;
pub mod pgvector;
pub(crate) mod pool;
pub(crate) mod postings;
#[cfg(test)]
mod read_here_tests;
pub(crate) mod read_settings;
pub(crate) mod replay;
pub mod schema;
pub(crate) mod session;
pub(crate) mod side_store;
pub mod types;

pub(crate) use bulk::{BulkBatch, Refused, Rows, SAVEPOINT, Sent};
pub use error::{describe, execution_error, is_cancel};
pub(crate) use pool::{Here, PgDatabase, drives_here};
pub(crate) use session::{CancelSlot, Session};

/// Whether `url` names a PostgreSQL database (`postgres://...` or `postgresql://...`).
///
/// ```
/// use toolforge::sql::postgres::is_postgres_url;
/// assert!(is_postgres_url("postgres://app@127.0.0.1:5432/books"));
/// assert!(!is_postgres_url("books.db"));
/// ```
pub fn is_postgres_url(url: &str) -> bool {
    let lower = url.get(..13).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}
