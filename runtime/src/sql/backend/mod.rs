//! What the tools, the records API and the query builder need from a database backend: the
//! SQL [`SqlDialect`] to write statements in, and a reader (a crate-internal trait) that runs a
//! read-only statement with bound parameters.
//!
//! Statements are written with SQLite-style numbered placeholders (`?1`, `?2`, ...) whatever
//! the backend; a backend that spells them differently (PostgreSQL: `$1`) rewrites them
//! outside quoted strings and identifiers ([`numbered_placeholders`]). The few operators whose
//! SQL differs between backends (`REGEX`, `GLOB`, `CONTAINS`, array membership, boolean
//! literals) ask the dialect.

mod dialect;
mod error;
pub(crate) mod import_sink;
mod placeholders;
mod reader;
pub(crate) mod upsert;

pub(crate) use dialect::CONTEXT_FUNCTION;
#[allow(deprecated)]
pub use dialect::{Dialect, GLOB_FUNCTION, SqlDialect};
pub use error::{BackendError, ExecError};
pub use placeholders::numbered_placeholders;
pub(crate) use reader::{NamedRows, Reader, Refusal, Writer};
