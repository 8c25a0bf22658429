//! What an existing database holds that a config can map, whatever the backend: its tables and
//! views, their columns, keys and foreign keys ([`Catalog`]). Each backend's reader fills it
//! (`sql/sqlite/introspect.rs`, `sql/postgres/introspect.rs`); `toolforge init --from-db`
//! writes a config from it.

/// The backend a [`Catalog`] was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite database file.
    Sqlite,
    /// A PostgreSQL database.
    Postgres,
}

/// The tables and views of a database, in catalog order: sorted by schema, then by name
/// (byte order, whatever the server's collation), each one's columns by position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    /// The backend it was read from.
    pub backend: Backend,
    /// The database's name: the file's stem (SQLite) or the PostgreSQL database's name.
    pub database: String,
    /// The schemas read (PostgreSQL), in the order asked; empty for SQLite.
    pub schemas: Vec<String>,
    /// The tables and views kept (after `--include` / `--exclude`).
    pub tables: Vec<Table>,
    /// The tables and views left out by the include and exclude patterns, in catalog order.
    pub filtered_out: Vec<TableName>,
}

impl Catalog {
    /// The table or view named `schema`.`name` (SQLite: `schema` is `None`).
    pub fn table(&self, schema: Option<&str>, name: &str) -> Option<&Table> {
        self.tables
            .iter()
            .find(|table| table.name == name && table.schema.as_deref() == schema)
    }
}

/// A table's schema and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TableName {
    /// The schema (PostgreSQL); `None` for SQLite's one schema.
    pub schema: Option<String>,
    /// The table's name, exactly as the catalog spells it.
    pub name: String,
}

/// What kind of relation a [`Table`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableKind {
    /// An ordinary (or partitioned, or foreign) table.
    Table,
    /// A view: no keys of its own.
    View,
    /// A PostgreSQL materialized view (which may have unique indexes).
    MaterializedView,
    /// A SQLite virtual table (`CREATE VIRTUAL TABLE ... USING module`).
    Virtual {
        /// The module it uses (`fts5`, `rtree`, ...).
        module: String,
    },
}

/// A table or view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The schema (PostgreSQL); `None` for SQLite.
    pub schema: Option<String>,
    /// The name, exactly as the catalog spells it.
    pub name: String,
    /// Table, view, materialized view or virtual table.
    pub kind: TableKind,
    /// Its comment (PostgreSQL's `COMMENT ON TABLE`).
    pub comment: Option<String>,
    /// Its columns, by position.
    pub columns: Vec<Column>,
    /// The primary key's columns, in key order (empty without one).
    pub primary_key: Vec<String>,
    /// The column sets of its other unique constraints and unique indexes (full indexes over
    /// columns only: no partial or expression indexes), each in index order.
    pub unique: Vec<Vec<String>>,
    /// Its foreign keys, ordered by the position of their first column.
    pub foreign_keys: Vec<ForeignKey>,
    /// Why it cannot be read, when it cannot: PostgreSQL without the `SELECT` privilege (or
    /// `USAGE` on its schema), a SQLite view whose definition no longer compiles.
    pub unreadable: Option<String>,
}

impl Table {
    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|column| column.name == name)
    }

    /// The table's schema and name.
    pub fn table_name(&self) -> TableName {
        TableName {
            schema: self.schema.clone(),
            name: self.name.clone(),
        }
    }
}

/// What values a column holds, as far as a config can type them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnKind {
    /// Whole numbers (SQLite: a declared type containing `INT`; PostgreSQL: `int2`, `int4`,
    /// `int8`, serials).
    Integer,
    /// Other numbers (SQLite: `REAL`, `FLOAT`, `DOUBLE`, `NUMERIC`, `DECIMAL`, and any type
    /// SQLite gives numeric affinity; PostgreSQL: `numeric`, `real`, `double precision`).
    Number,
    /// Text (SQLite: `CHAR`, `CLOB`, `TEXT`, and `JSON`/`UUID` types; PostgreSQL: `text`,
    /// `varchar`, `char(n)`, `name`, `citext`, `uuid`).
    Text,
    /// True or false (SQLite: a declared type containing `BOOL`; PostgreSQL: `boolean`).
    Boolean,
    /// Dates and times (SQLite: a declared type containing `DATE` or `TIME`; PostgreSQL:
    /// `date`, `timestamp`, `timestamptz`).
    DateTime,
    /// JSON documents (PostgreSQL `json`, `jsonb`), read as text.
    Json,
    /// A PostgreSQL enum type (or a domain over one): [`Column::enum_values`] lists its values.
    Enum,
    /// A PostgreSQL array of elements of this kind.
    Array(Box<ColumnKind>),
    /// Bytes (SQLite `BLOB`, PostgreSQL `bytea`).
    Binary,
    /// A SQLite column declared without a type (any value, no affinity).
    Untyped,
    /// A type no tool can compare or show: `money`, `tsvector`, `interval`, geometries,
    /// ranges, composite types, ... ([`Column::declared_type`] names it).
    Unsupported,
}

/// A column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The name, exactly as the catalog spells it.
    pub name: String,
    /// The type as declared (SQLite: the declaration's text, possibly empty; PostgreSQL:
    /// `format_type`, e.g. `character varying(45)`, `mpaa_rating`, `text[]`).
    pub declared_type: String,
    /// What its values are.
    pub kind: ColumnKind,
    /// Declared `NOT NULL` (views: never known, so `false`).
    pub not_null: bool,
    /// Its comment (PostgreSQL's `COMMENT ON COLUMN`).
    pub comment: Option<String>,
    /// The values of its enum type, in the type's order (PostgreSQL enums and domains over
    /// them; for an array of enums, the element type's values).
    pub enum_values: Option<Vec<String>>,
    /// The values a `CHECK (column IN ('a', 'b'))` constraint allows (a domain's
    /// `CHECK (VALUE IN (...))` too), in the constraint's order.
    pub check_in_values: Option<Vec<String>>,
}

impl Column {
    /// The number of values of a pgvector column (`vector(N)`, `halfvec(N)`), `None` for any
    /// other type: what a vector index may read as it is.
    ///
    /// ```
    /// # use toolforge::sql::introspect::{Column, ColumnKind};
    /// let column = |ty: &str| Column {
    ///     name: "embedding".into(), declared_type: ty.into(), kind: ColumnKind::Unsupported,
    ///     not_null: false, comment: None, enum_values: None, check_in_values: None,
    /// };
    /// assert_eq!(column("vector(384)").pgvector_dimension(), Some(384));
    /// assert_eq!(column("halfvec(768)").pgvector_dimension(), Some(768));
    /// assert_eq!(column("bytea").pgvector_dimension(), None);
    /// ```
    pub fn pgvector_dimension(&self) -> Option<u32> {
        ["vector(", "halfvec("]
            .iter()
            .find_map(|prefix| self.declared_type.strip_prefix(prefix)?.strip_suffix(')'))
            .and_then(|n| n.parse().ok())
    }
}

/// A foreign key: columns of its table holding the referenced table's key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    /// The referencing columns, in key order.
    pub columns: Vec<String>,
    /// The referenced table's schema (PostgreSQL).
    pub referenced_schema: Option<String>,
    /// The referenced table, spelled as the catalog spells it when it exists.
    pub referenced_table: String,
    /// The referenced columns, in key order (a SQLite key written without them references
    /// the parent's primary key, whose columns are given here).
    pub referenced_columns: Vec<String>,
}

impl ForeignKey {
    /// The referenced table's schema and name.
    pub fn referenced(&self) -> TableName {
        TableName {
            schema: self.referenced_schema.clone(),
            name: self.referenced_table.clone(),
        }
    }
}
