//! The SQL engine over embedded SQLite: tables from a [`SchemaSpec`](crate::spec::SchemaSpec),
//! JSON-lines import, a query builder and the database tools.
//!
//! - [`Database`]: a file database with one writer and a pool of read-only connections.
//! - [`ddl`] and [`schema_diff`]: the tables a spec needs, and how a database differs.
//! - [`import`]: loading records and relationships in one transaction.
//! - [`query`]: conditions, ordering and limits checked against the spec, compiled to SQL with
//!   bound parameters.
//! - [`tools`]: `get_schema`, `describe_entity`, `query_entities`, `get_entity_by_id`,
//!   `get_entities_by_ids`, `explore_relationships`, `glob_search`.

pub mod database;
pub mod ddl;
pub mod describe;
pub mod ident;
pub mod import;
pub mod names;
pub mod query;
pub mod schema_diff;
pub mod tools;
pub mod value;

pub use database::{Database, DbError, InitReport};
pub use import::{EndPoint, ImportError, ImportStats, Importer};
pub use schema_diff::SchemaDifference;
