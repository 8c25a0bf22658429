//! The objects a schema is made of ([`SchemaObject`]: tables, indexes, full-text tables,
//! triggers), why a spec cannot become one ([`SpecError`]), and the names and literals DDL
//! writes.

/// The kind of a schema object.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// A table.
    Table,
    /// An index.
    Index,
    /// A full-text (FTS5) table over an entity's table.
    FullTextTable,
    /// A trigger keeping a full-text table in sync (its `table` is that full-text table).
    Trigger,
    /// An approximate-search index over a vector column (pgvector's HNSW). Searches are exact
    /// without it, so a database that lacks one still serves.
    VectorIndex,
}

impl ObjectKind {
    /// `table`, `index` or `trigger`, as in `sqlite_schema.type`.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectKind::Table | ObjectKind::FullTextTable => "table",
            ObjectKind::Index | ObjectKind::VectorIndex => "index",
            ObjectKind::Trigger => "trigger",
        }
    }
}

/// One expected column of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    /// The column name.
    pub name: String,
    /// The declared type (`TEXT`, `NUMERIC`, ...).
    pub decl_type: String,
    /// True for generated columns.
    pub generated: bool,
}

/// One CREATE statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaObject {
    /// Table or index.
    pub kind: ObjectKind,
    /// The object's name.
    pub name: String,
    /// The table an index belongs to (the table itself for tables).
    pub table: String,
    /// The exact CREATE statement (SQLite stores it verbatim).
    pub sql: String,
    /// The table's columns (empty for indexes).
    pub columns: Vec<ColumnDef>,
}

/// A spec that cannot be turned into tables.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// Two columns of one table have the same name (a field, a vector index or a materialized
    /// computed field), compared ignoring ASCII case as SQLite does.
    #[error("entity `{entity}` has two columns named `{column}`")]
    DuplicateColumn {
        /// The entity.
        entity: String,
        /// The repeated column name.
        column: String,
    },
    /// A materialized computed field aggregates over a relationship, which a generated column
    /// cannot do.
    #[error(
        "computed field `{field}` of `{entity}` is materialized but aggregates over a \
         relationship; a generated column can only use the record's own fields (remove \
         `materialized`)"
    )]
    MaterializedAggregate {
        /// The entity.
        entity: String,
        /// The computed field.
        field: String,
    },
    /// A relationship names an entity the spec does not have.
    #[error("relationship `{relationship}` refers to the unknown entity `{entity}`")]
    UnknownEntity {
        /// The relationship type.
        relationship: String,
        /// The missing entity.
        entity: String,
    },
    /// A relationship property is named like an edge column or like another property.
    #[error(
        "relationship `{relationship}` has a property named `{property}`, which is reserved or \
         repeated"
    )]
    ReservedProperty {
        /// The relationship type.
        relationship: String,
        /// The property.
        property: String,
    },
    /// Two tables or indexes have the same name (compared ignoring ASCII case, as SQLite does).
    #[error("two schema objects are named `{name}`")]
    DuplicateObject {
        /// The name.
        name: String,
    },
    /// A field of a full-text index is named like a column FTS5 keeps for itself (`rank`,
    /// `rowid`) or like the full-text table.
    #[error(
        "the full-text index of `{entity}` lists the field `{field}`, a name the full-text \
         table keeps for itself; index another field, or rename this one"
    )]
    ReservedFullTextColumn {
        /// The entity.
        entity: String,
        /// The field.
        field: String,
    },
    /// A table or index name starts with `sqlite_`, which SQLite reserves for itself.
    #[error("the name `{name}` starts with `sqlite_`, which SQLite reserves for itself")]
    ReservedName {
        /// The name.
        name: String,
    },
}

/// The name of the index on an entity's `indexed` field: `<table>__<field>__idx`.
///
/// ```
/// assert_eq!(toolforge::sql::ddl::field_index_name("scope", "name"), "scope__name__idx");
/// ```
pub fn field_index_name(table: &str, field: &str) -> String {
    format!("{table}__{field}__idx")
}

/// The name of an edge table's index on its target: `<edge_table>__target_id__idx`.
///
/// ```
/// assert_eq!(
///     toolforge::sql::ddl::target_index_name("scope__defined_in__file"),
///     "scope__defined_in__file__target_id__idx"
/// );
/// ```
pub fn target_index_name(edge_table: &str) -> String {
    format!("{edge_table}__target_id__idx")
}

/// The columns every edge table has before the relationship's properties.
pub const EDGE_COLUMNS: [&str; 2] = ["source_id", "target_id"];

/// True when SQLite reserves `name` for itself: names starting with `sqlite_`, in any case.
///
/// ```
/// use toolforge::sql::ddl::is_reserved_name;
/// assert!(is_reserved_name("sqlite_master") && is_reserved_name("SQLite_stat1"));
/// assert!(!is_reserved_name("sqlite") && !is_reserved_name("my_sqlite_table"));
/// ```
pub fn is_reserved_name(name: &str) -> bool {
    name.get(..7)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("sqlite_"))
}

/// A SQL string literal: `'it''s'`.
pub fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
