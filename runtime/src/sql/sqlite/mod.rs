//! The SQLite backend: a file database with one writer and a pool of read-only connections
//! (`pool`), the functions every connection carries (`functions`, its `REGEXP` matcher in
//! `stoppable_regex`), a connection as the
//! engine reads and writes through it (`reader`), SQLite's errors (`error`) and the
//! trusted statements of declared tools run read-only (`trusted`), and the stamps that tell
//! whether anything was committed since a read (`data_stamp`).

pub(crate) mod data_stamp;
pub(crate) mod database;
pub(crate) mod error;
pub(crate) mod functions;
pub(crate) mod import_sink;
pub(crate) mod introspect;
pub(crate) mod pool;
pub(crate) mod reader;
pub(crate) mod schema;
pub(crate) mod side_store;
pub(crate) mod stoppable_regex;
pub(crate) mod trusted;
pub(crate) mod value;
pub(crate) mod watch;

pub use error::{execution_error, is_interrupt};

pub use functions::{register_glob, register_regexp};
/// The escape hatch to SQLite itself: the binding whose `Connection` the raw reads and writes
/// of a SQLite [`Database`](crate::sql::Database) hand their closures
/// ([`Database::read`](crate::sql::Database::read), `read_blocking`, `write_blocking`; they
/// answer `NotSqlite` on PostgreSQL), re-exported so a caller names exactly the version
/// toolforge links. [`register_regexp`] and [`register_glob`] give a connection opened by hand
/// the engine's `REGEXP` and `GLOB`.
pub use rusqlite;
pub use trusted::check_sqlite_reads;
