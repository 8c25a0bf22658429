//! DDL from a [`SchemaSpec`](crate::spec::SchemaSpec): one table per entity, one edge table per relationship, indexes.
//!
//! Column types: `string`, `datetime` and `enum` → `TEXT` (enum with a `CHECK` on its values),
//! `number` → `NUMERIC`, `boolean` → `INTEGER` with `CHECK (x IN (0, 1))`, arrays and points → `TEXT`
//! with `CHECK (json_valid(x))` (a point with an index on each coordinate), embeddings → `BLOB`. The unique field is `TEXT NOT NULL UNIQUE`.
//! Materialized computed fields become `STORED` generated columns (computed once on write,
//! indexable, read like any column). An entity with a `full_text_index` gets an FTS5 table and
//! the triggers that keep it in sync ([`full_text`](super::full_text)).

pub(crate) mod objects;
pub(crate) mod tables;

pub use objects::{
    ColumnDef, EDGE_COLUMNS, ObjectKind, SchemaObject, SpecError, field_index_name,
    is_reserved_name, literal, target_index_name,
};
pub use tables::{
    ChangeLogTypes, VERSIONS_TABLE, changes_objects, entity_objects, point_index_name,
    point_indexes, relationship_objects, schema_objects, schema_sql, versions_table,
};
