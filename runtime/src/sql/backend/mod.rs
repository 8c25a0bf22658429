//! The backend layer: what the engine asks of a database backend, naming none. Everything
//! above it (the services, the tools) reaches a backend only through what is here; each
//! backend (`sql/sqlite/`, `sql/postgres/`) implements it for its connections and its
//! driver's error, and the database handle (`sql/database/`) is the one place that picks one.
//!
//! - [`SqlDialect`]: the SQL a backend reads, and the few spellings that differ (`CONTAINS`,
//!   `STARTS WITH`, `ENDS WITH`, `REGEX`, null order, boolean literals).
//! - [`ExecError`] and [`BackendError`]: why a statement failed; the backend's own error
//!   answers whether it was a stop, what a model sees and what a person sees.
//! - The reader and writer traits (crate-internal): a read-only connection that runs a
//!   statement with bound parameters, creates its own temporary objects (the views of row
//!   rules) and runs a declared tool's trusted statement; one that also writes.
//! - The import sink (crate-internal): a write transaction an import upserts rows into.
//!
//! Statements are written with SQLite-style numbered placeholders (`?1`, `?2`, ...) whatever
//! the backend; a backend that spells them differently (PostgreSQL: `$1`) rewrites them
//! outside quoted strings and identifiers (`postgres/placeholders.rs`).

mod dialect;
mod error;
pub(crate) mod import_sink;
mod reader;
pub(crate) mod upsert;

pub use dialect::{GLOB_FUNCTION, SqlDialect};
pub use error::{BackendError, ExecError};
pub(crate) use reader::{Answer, BlockingReader, NamedRows, ReadFuture, Reader, Refusal, Writer};
