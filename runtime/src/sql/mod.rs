//! The SQL engine: tables from a [`SchemaSpec`](crate::spec::SchemaSpec) on embedded SQLite
//! or a PostgreSQL server (feature `postgres`), JSON-lines import, a query builder and the
//! database tools.
//!
//! What it exposes: the one handle over either backend, [`Database`] (with [`DbError`]); the
//! database [`tools`] and their argument types; the typed [`records`] API; [`import`];
//! [`introspect`] (an existing database read into a config); [`query`]'s conditions and
//! orders; the standard live registry ([`registry()`], [`registry_definitions`]); and, behind
//! one explicit escape hatch, SQLite itself ([`sqlite::rusqlite`]).
//!
//! Its layers, bottom first (no module imports from a layer above its own; `docs/DESIGN.md`,
//! "Layers"): SQL text and values without a connection (`value`, the text helpers in `text`,
//! [`places`], [`ddl`], `schema_diff`, the full-text query language); `backend`, what the
//! engine asks of any backend, naming none; what the backends and the services share (the
//! vectors and graphs kept in memory, existing tables, the side store); the backends, one
//! folder each ([`sqlite`] and `postgres`); `database`, the handle; the services (the query
//! builder, [`full_text`] ranking, row rules, embeddings, the change log, import, records,
//! descriptions); and the tools, one folder per family, listed once in `spec/tool_table.rs`.
//!
//! Without the `sqlite` feature only the SQL text is available ([`ddl`], [`places`]):
//! the generator uses it to write `schema.sql` without linking SQLite.

#[cfg(feature = "sqlite")]
pub(crate) mod access;
#[cfg(feature = "sqlite")]
pub(crate) mod arg_name;
#[cfg(feature = "sqlite")]
pub(crate) mod backend;
#[cfg(feature = "sqlite")]
pub(crate) mod changes;
#[cfg(feature = "sqlite")]
pub(crate) mod database;
pub mod ddl;
#[cfg(feature = "sqlite")]
pub(crate) mod describe;
pub mod full_text;
#[cfg(feature = "sqlite")]
mod graphs;
#[cfg(feature = "sqlite")]
pub(crate) mod handler_error;
#[cfg(feature = "sqlite")]
pub mod import;
#[cfg(feature = "sqlite")]
pub mod introspect;
#[cfg(feature = "sqlite")]
pub(crate) mod key;
#[cfg(feature = "sqlite")]
pub(crate) mod mapping;
#[cfg(feature = "sqlite")]
mod path_graphs;
pub mod places;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "sqlite")]
pub mod query;
#[cfg(feature = "sqlite")]
pub mod records;
#[cfg(feature = "sqlite")]
pub(crate) mod schema_diff;
#[cfg(feature = "sqlite")]
pub(crate) mod side_changes;
#[cfg(feature = "sqlite")]
pub(crate) mod side_store;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "sqlite")]
mod standard_registry;
pub(crate) mod text;
#[cfg(feature = "sqlite")]
pub mod tools;
#[cfg(feature = "sqlite")]
pub(crate) mod value;
#[cfg(feature = "sqlite")]
pub(crate) mod vectors;

#[cfg(feature = "sqlite")]
pub use backend::{BackendError, ExecError, SqlDialect};
#[cfg(feature = "sqlite")]
pub use database::{Database, DbError, InitReport};
#[cfg(feature = "sqlite")]
pub use import::{EndPoint, ImportError, ImportStats, Importer};
#[cfg(feature = "sqlite")]
pub use records::RecordsError;
#[cfg(feature = "sqlite")]
pub use schema_diff::{SchemaConversion, SchemaDifference};
#[cfg(feature = "sqlite")]
pub use side_store::{ChangesRefresh, EntityRefresh, RefreshReport};
#[cfg(feature = "sqlite")]
pub use sqlite::check_sqlite_reads;
#[cfg(feature = "sqlite")]
pub use standard_registry::{registry, registry_builder, registry_definitions, schema_gaps};
#[cfg(feature = "sqlite")]
pub use value::{SqlValue, ValueError};
#[cfg(all(feature = "sqlite", feature = "ann"))]
pub use vectors::cache::ApproximateSettings;
#[cfg(feature = "sqlite")]
pub use vectors::embed_pass::{EmbedPassError, EmbedStats};
