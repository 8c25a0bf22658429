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

#[cfg(feature = "engine")]
pub(crate) mod access;
#[cfg(feature = "engine")]
pub(crate) mod arg_name;
#[cfg(feature = "engine")]
pub(crate) mod backend;
#[cfg(feature = "engine")]
pub(crate) mod changes;
#[cfg(feature = "engine")]
pub(crate) mod database;
pub mod ddl;
#[cfg(feature = "engine")]
pub(crate) mod describe;
pub mod full_text;
#[cfg(feature = "engine")]
mod graphs;
#[cfg(feature = "engine")]
pub(crate) mod handler_error;
#[cfg(feature = "engine")]
pub mod import;
#[cfg(feature = "engine")]
pub mod introspect;
#[cfg(feature = "engine")]
pub(crate) mod key;
#[cfg(feature = "engine")]
pub(crate) mod mapping;
#[cfg(feature = "engine")]
mod path_graphs;
pub mod places;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "engine")]
pub mod query;
#[cfg(feature = "engine")]
pub mod records;
#[cfg(feature = "engine")]
pub(crate) mod schema_diff;
#[cfg(feature = "engine")]
pub(crate) mod side_changes;
#[cfg(feature = "engine")]
pub(crate) mod side_store;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "engine")]
mod standard_registry;
pub(crate) mod text;
#[cfg(feature = "engine")]
pub mod tools;
#[cfg(feature = "engine")]
pub(crate) mod value;
#[cfg(feature = "engine")]
pub(crate) mod vectors;

#[cfg(feature = "engine")]
pub use backend::{BackendError, ExecError, SqlDialect};
#[cfg(feature = "engine")]
pub use database::{Database, DbError, InitReport};
#[cfg(feature = "engine")]
pub use import::{EndPoint, ImportError, ImportStats, Importer};
#[cfg(feature = "engine")]
pub use records::RecordsError;
#[cfg(feature = "engine")]
pub use schema_diff::{SchemaConversion, SchemaDifference};
#[cfg(feature = "engine")]
pub use side_store::{ChangesRefresh, EntityRefresh, RefreshReport};
#[cfg(feature = "sqlite")]
pub use sqlite::check_sqlite_reads;
#[cfg(feature = "engine")]
pub use standard_registry::{registry, registry_builder, registry_definitions, schema_gaps};
#[cfg(feature = "engine")]
pub use value::{SqlValue, ValueError};
#[cfg(all(feature = "engine", feature = "ann"))]
pub use vectors::cache::ApproximateSettings;
#[cfg(feature = "engine")]
pub use vectors::embed_pass::{EmbedPassError, EmbedStats};
