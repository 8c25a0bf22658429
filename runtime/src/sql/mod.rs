//! The SQL engine: tables from a [`SchemaSpec`](crate::spec::SchemaSpec) on embedded SQLite
//! or a PostgreSQL server (feature `postgres`), JSON-lines import, a query builder and the
//! database tools. Its layers, bottom first (no module imports from a layer above its own;
//! `docs/DESIGN.md`, "Layers"):
//!
//! - SQL text and values, without a connection: [`value`], [`ident`], [`names`], [`dates`],
//!   [`glob`], [`places`], [`ddl`], [`schema_diff`], the full-text query language.
//! - [`backend`]: what the engine asks of any backend, naming none.
//! - What the backends and the services share: the vectors and the graphs kept in memory,
//!   the presentation of existing tables and toolforge's side store beside them.
//! - The backends, one folder each: [`sqlite`] and `postgres`.
//! - [`Database`] ([`database`]): the one handle over either backend.
//! - The services: [`query`] (conditions, ordering and limits checked against the spec,
//!   compiled to SQL with bound parameters), [`full_text`] (BM25 ranking), row rules,
//!   [`embeddings`], the change log, [`import`] (records and relationships in one
//!   transaction), [`records`], [`describe`].
//! - [`tools`]: the database tools, one folder per family, listed once in
//!   `spec/tool_table.rs`; [`registry()`] is the standard live registry (database tools +
//!   `batch`), and [`registry_definitions`] the same definitions without a database.
//!
//! Without the `sqlite` feature only the SQL text is available ([`ddl`], [`ident`], [`names`]):
//! the generator uses it to write `schema.sql` without linking SQLite.

#[cfg(feature = "sqlite")]
pub(crate) mod access;
#[cfg(feature = "sqlite")]
pub(crate) mod arg_name;
#[cfg(feature = "sqlite")]
pub mod backend;
#[cfg(feature = "sqlite")]
pub(crate) mod changes;
#[cfg(feature = "sqlite")]
pub mod database;
#[cfg(feature = "sqlite")]
pub mod dates;
pub mod ddl;
#[cfg(feature = "sqlite")]
pub mod describe;
#[cfg(feature = "sqlite")]
pub mod embeddings;
pub mod full_text;
pub mod glob;
#[cfg(feature = "sqlite")]
mod graphs;
#[cfg(feature = "sqlite")]
pub(crate) mod handler_error;
pub mod ident;
#[cfg(feature = "sqlite")]
pub mod import;
#[cfg(feature = "sqlite")]
pub mod introspect;
#[cfg(feature = "sqlite")]
pub(crate) mod key;
pub mod lex;
#[cfg(feature = "sqlite")]
pub(crate) mod mapping;
pub mod names;
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
pub mod schema_diff;
#[cfg(feature = "sqlite")]
pub(crate) mod side_changes;
#[cfg(feature = "sqlite")]
pub(crate) mod side_store;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "sqlite")]
mod standard_registry;
#[cfg(feature = "sqlite")]
pub mod tools;
#[cfg(feature = "sqlite")]
pub mod value;
#[cfg(feature = "sqlite")]
mod vector_search;
#[cfg(feature = "sqlite")]
mod vectors;

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
#[cfg(all(feature = "sqlite", feature = "ann"))]
pub use vectors::ApproximateSettings;

/// The SQLite binding whose types this module's signatures use (`Connection` in
/// [`Database::read_blocking`] and [`Database::write_blocking`], `rusqlite::Error` as the source
/// of [`DbError`]), re-exported so a caller names exactly the version toolforge links.
#[cfg(feature = "sqlite")]
pub use rusqlite;
