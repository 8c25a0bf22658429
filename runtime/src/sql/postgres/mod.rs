//! The PostgreSQL backend: a pool of connections to a server (tokio-postgres, deadpool), the
//! tables a spec needs ([`schema`]), and values moved between JSON types and PostgreSQL's
//! ([`types`]).
//!
//! The pool's connections are opened on and driven by a small runtime of the database
//! handle's own (`driver.rs`), which outlives them all. A tool's handler is async: its
//! statements are awaited on the caller's runtime, each one a request to its connection, with
//! no hand-off to another thread; a dropped call cancels its running statement in the server.
//! The blocking APIs ([`Database::init`](super::Database::init), imports) send their statements
//! to the driver and wait, so they work from any thread.
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
mod placeholders;
pub(crate) mod pool;
pub(crate) mod postings;
pub(crate) mod read_settings;
#[cfg(test)]
mod read_tests;
pub mod schema;
pub(crate) mod session;
pub(crate) mod side_store;
pub mod types;

pub(crate) use bulk::{BulkBatch, Refused, Rows, SAVEPOINT, Sent};
pub use error::{describe, execution_error, is_cancel};
pub(crate) use pool::PgDatabase;
pub(crate) use session::Session;

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
