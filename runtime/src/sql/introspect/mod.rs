//! Reading an existing database's catalog, read only: its tables and views, their columns,
//! keys, foreign keys, enum types and `CHECK (... IN ...)` lists, as one backend-neutral
//! [`Catalog`], which `toolforge init --from-db` turns into a config and [`check_database`]
//! compares with one ([`drift`]).
//!
//! [`read_catalog`] opens a SQLite file (`SQLITE_OPEN_READONLY`: nothing created, nothing
//! written, the file byte for byte the same afterwards) or a `postgres://` URL (one
//! `READ ONLY` transaction; a role with `USAGE` on the schemas and `SELECT` on the tables is
//! enough, and a table it may not read is reported as such). The readers live in the backend
//! folders (`sql/sqlite/introspect.rs`, `sql/postgres/introspect.rs`); what they share is in
//! the leaves here: the model ([`Catalog`]), the errors, the options and the `CHECK` scanner.

pub(crate) mod catalog;
pub(crate) mod check_in;
pub(crate) mod drift;
pub(crate) mod error;
pub(crate) mod options;

pub use catalog::{Backend, Catalog, Column, ColumnKind, ForeignKey, Table, TableKind, TableName};
pub use check_in::{Quoting, check_in_condition};
pub use drift::drift;
pub use error::IntrospectError;
pub use options::IntrospectOptions;

use options::TableFilter;

use crate::spec::{Drift, SchemaSpec};

/// Reads the catalog of the database `target` names: a `postgres://` or `postgresql://` URL,
/// or the path of a SQLite file (which must exist; it is never created). Tables come sorted
/// by schema and name, columns by position; the include and exclude patterns of `options`
/// leave tables out ([`Catalog::filtered_out`]), and on PostgreSQL its schemas (default
/// `public`) say where to look.
///
/// A database with no table or view left to map is an error ([`IntrospectError::Empty`]).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use toolforge::sql::introspect::{ColumnKind, IntrospectOptions, read_catalog};
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("shop.db");
/// let db = toolforge::sql::sqlite::rusqlite::Connection::open(&path)?;
/// db.execute_batch("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC)")?;
/// drop(db);
/// let catalog = read_catalog(path.to_str().unwrap(), &IntrospectOptions::default())?;
/// let item = &catalog.tables[0];
/// assert_eq!((item.name.as_str(), item.primary_key.as_slice()), ("item", &["id".to_owned()][..]));
/// assert_eq!(item.columns[2].kind, ColumnKind::Number);
/// # Ok(()) }
/// ```
pub fn read_catalog(target: &str, options: &IntrospectOptions) -> Result<Catalog, IntrospectError> {
    let (mut catalog, label) = if is_postgres_url(target) {
        read_postgres(target, options)?
    } else {
        (read_sqlite(target)?, format!("`{target}`"))
    };
    let filter = TableFilter::new(options);
    let (kept, left): (Vec<Table>, Vec<Table>) = catalog
        .tables
        .into_iter()
        .partition(|table| filter.keeps(table.schema.as_deref().unwrap_or("main"), &table.name));
    catalog.tables = kept;
    catalog.filtered_out = left.iter().map(Table::table_name).collect();
    if catalog.tables.is_empty() {
        return Err(IntrospectError::Empty {
            target: label,
            filtered_out: catalog.filtered_out.len(),
        });
    }
    Ok(catalog)
}

/// Reads the catalog of the database `target` names (the schemas `spec`'s tables name, and
/// `public` for unqualified ones on PostgreSQL) and compares `spec` with it ([`drift`]). A
/// database with no table at all is compared as empty: every mapped table is then missing.
/// (The comparison itself is in `drift.rs`.)
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use toolforge::spec::{DriftLevel, SchemaSpec};
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("shop.db");
/// let db = toolforge::sql::sqlite::rusqlite::Connection::open(&path)?;
/// db.execute_batch("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price NUMERIC)")?;
/// drop(db);
/// let spec: SchemaSpec = serde_json::from_value(serde_json::json!({
///     "name": "shop", "relationships": [],
///     "tools": {"default_limit": 20, "max_limit": 100, "families": []},
///     "entities": [{
///         "name": "Item", "table": "item__mapped", "source": {"name": "item"},
///         "unique_field": "id",
///         "fields": [{"name": "id", "type": "integer"}, {"name": "title", "column": "label", "type": "string"}]
///     }]
/// }))?;
/// let found = toolforge::sql::introspect::check_database(path.to_str().unwrap(), &spec)?;
/// assert_eq!(found[0].level, DriftLevel::Breaks);
/// assert_eq!(found[0].message, "table \"item\": column \"label\" is not in the database");
/// assert_eq!(found[1].level, DriftLevel::Addition); // `name` and `price` are not mapped yet
/// # Ok(()) }
/// ```
pub fn check_database(target: &str, spec: &SchemaSpec) -> Result<Vec<Drift>, IntrospectError> {
    let options = IntrospectOptions {
        schemas: drift::mapped_schemas(spec),
        ..IntrospectOptions::default()
    };
    let catalog = match read_catalog(target, &options) {
        Ok(catalog) => catalog,
        Err(IntrospectError::Empty { .. }) => Catalog {
            backend: if is_postgres_url(target) {
                Backend::Postgres
            } else {
                Backend::Sqlite
            },
            database: String::new(),
            schemas: options.schemas.clone(),
            tables: Vec::new(),
            filtered_out: Vec::new(),
        },
        Err(error) => return Err(error),
    };
    Ok(drift::drift(&catalog, spec))
}

/// Whether `target` is a PostgreSQL URL (whether or not this build can open one).
fn is_postgres_url(target: &str) -> bool {
    let head = target.get(..13).unwrap_or(target).to_ascii_lowercase();
    head.starts_with("postgres://") || head.starts_with("postgresql://")
}

/// The catalog of the SQLite database file `path`.
#[cfg(feature = "sqlite")]
fn read_sqlite(path: &str) -> Result<Catalog, IntrospectError> {
    crate::sql::sqlite::introspect::read(std::path::Path::new(path))
}

/// Without SQLite support, a file is an error that says so.
#[cfg(not(feature = "sqlite"))]
fn read_sqlite(path: &str) -> Result<Catalog, IntrospectError> {
    Err(IntrospectError::NoSqlite {
        path: path.to_owned(),
    })
}

/// The catalog of the schemas `options` names, and the database's name for messages.
#[cfg(feature = "postgres")]
fn read_postgres(
    url: &str,
    options: &IntrospectOptions,
) -> Result<(Catalog, String), IntrospectError> {
    crate::sql::postgres::introspect::read(url, &options.schemas_or_default())
}

/// Without PostgreSQL support, a URL is an error that says so.
#[cfg(not(feature = "postgres"))]
fn read_postgres(
    url: &str,
    _options: &IntrospectOptions,
) -> Result<(Catalog, String), IntrospectError> {
    let target = match url.rsplit_once('@') {
        Some((head, tail)) => {
            let scheme_end = head.find("://").map_or(0, |i| i + 3);
            let user = head[scheme_end..].split(':').next().unwrap_or("");
            format!("{}{user}@{tail}", &head[..scheme_end])
        }
        None => url.to_owned(),
    };
    Err(IntrospectError::NoPostgres { target })
}
