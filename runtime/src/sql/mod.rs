//! The SQL engine over embedded SQLite: tables from a [`SchemaSpec`](crate::spec::SchemaSpec),
//! JSON-lines import, a query builder and the database tools.
//!
//! - [`Database`]: a file database with one writer and a pool of read-only connections.
//! - [`ddl`] and [`schema_diff`]: the tables a spec needs, and how a database differs.
//! - [`import`]: loading records and relationships in one transaction.
//! - [`query`]: conditions, ordering and limits checked against the spec, compiled to SQL with
//!   bound parameters.
//! - [`registry()`]: the standard live registry (database tools + `batch`), and
//!   [`registry_definitions`] for the same definitions without a database.
//! - [`tools`]: `get_schema`, `describe_entity`, `query_entities`, `get_entity_by_id`,
//!   `get_entities_by_ids`, `explore_relationships`, `glob_search`, `full_text_search`, the
//!   range, pattern, aggregate and graph tools.
//! - [`full_text`]: full-text indexes (FTS5 on SQLite) and BM25 ranking.
//! - [`dates`]: the relative dates (`7 days ago`) the range tools read.

//!
//! Without the `sqlite` feature only the SQL text is available ([`ddl`], [`ident`], [`names`]): the generator uses it to write `schema.sql` without linking SQLite.

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
pub(crate) mod handler_error;
pub mod ident;
#[cfg(feature = "sqlite")]
pub mod import;
pub mod lex;
pub mod names;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "sqlite")]
pub mod query;
#[cfg(feature = "sqlite")]
pub mod records;
#[cfg(feature = "sqlite")]
pub mod schema_diff;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "sqlite")]
mod standard_registry;
#[cfg(feature = "sqlite")]
pub mod tools;
#[cfg(feature = "sqlite")]
pub mod value;
#[cfg(feature = "sqlite")]
mod vectors;

#[cfg(feature = "sqlite")]
pub use database::{Database, DbError, InitReport};
#[cfg(feature = "sqlite")]
pub use import::{EndPoint, ImportError, ImportStats, Importer};
#[cfg(feature = "sqlite")]
pub use records::RecordsError;
#[cfg(feature = "sqlite")]
pub use schema_diff::SchemaDifference;
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
