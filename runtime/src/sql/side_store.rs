//! toolforge's own objects beside an existing database's tables: the full-text index and the
//! vectors of an entity that reads a table the user owns (a config's `table:` with
//! `full_text_index` or `vector_indexes`).
//!
//! The user's tables are never written, so such an index cannot live in them or be kept by
//! triggers on them. It lives apart, in the [`SideStore`](crate::spec::SideStore):
//!
//! - on SQLite, in a file of its own beside the database (`shop.toolforge.db` for
//!   `shop.db`), attached to every connection as `toolforge`: an FTS5 table
//!   `toolforge."<table>__fts"` holding each record's indexed text, and beside it
//!   `toolforge."<table>__fts_keys"`: by the same rowid, the record's key and a hash of its
//!   text;
//! - on PostgreSQL, in a schema of its own (`toolforge` by default): the postings tables
//!   every full-text index has there (`full_text/pg_tables.rs`), keyed by the mapped key in
//!   its own type, their `__fts_docs` with each record's text hash. Read connections see them
//!   through temporary views of their usual names, so searches run as over any other index.
//!
//! A mapped entity's vectors are in a table of the side store, `"<table>__vectors"`: by the
//! record's key (named and typed as the key), each index's vector and the hash of the text it
//! was computed from, beside the [`VERSIONS_TABLE`] searches reload vectors by. The entity's
//! view on each read connection joins it (`mapping.rs`), so every vector tool reads the
//! vectors as the columns they are in toolforge's own tables. `toolforge db embed` (and `db
//! init`, `db refresh` with an embedding provider) computes those of new and changed texts and
//! removes those of records gone.
//!
//! `toolforge db init` creates these objects and fills them; `toolforge db refresh` brings
//! them up to date: one statement reads every record's key and text hash from the user's
//! table, only records whose hash changed (or that are new) are read in full and indexed
//! again, and records gone from the table leave the index. Searches see the index as of the
//! last refresh.

use std::collections::HashMap;

use crate::spec::{EntitySpec, FieldType, FullTextSpec, SchemaSpec};

use super::backend::{BlockingReader, ExecError, SqlDialect};
use super::ddl::VERSIONS_TABLE;
use super::full_text::pg_tables::{CHUNK, placeholders, text};
pub(crate) use super::mapping::vectors_table;
use super::value::SqlValue;
use crate::sql::text::ident::quote;

/// The name the side file is attached under on SQLite.
pub(crate) const SQLITE_SCHEMA: &str = "toolforge";

/// The SQLite function the refresh computes text hashes with.
pub(crate) const HASH_FUNCTION: &str = "toolforge_text_hash";

/// What a refresh of the side store did, per entity (in config order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RefreshReport {
    /// Where the objects are: the side file on SQLite, the schema on PostgreSQL.
    pub place: String,
    /// Each entity's full-text index.
    pub entities: Vec<EntityRefresh>,
    /// The entities whose vectors table this run created (it was not there, or was made for
    /// other vector indexes); `toolforge db embed` fills them.
    pub vectors_created: Vec<String>,
    /// The changes this run recorded, per entity that tracks them.
    pub changes: Vec<ChangesRefresh>,
}

/// What a refresh recorded of one entity's changes: the records that were created, updated
/// or deleted since the last refresh, each one change in the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChangesRefresh {
    /// The entity.
    pub entity: String,
    /// Whether this run took the entity's baseline instead (its first refresh, or the first
    /// since its `change_tracking` changed): what every record holds, and no change.
    pub baseline: bool,
    /// Records new since the last refresh.
    pub created: u64,
    /// Records whose tracked values changed.
    pub updated: u64,
    /// Records gone from the table.
    pub deleted: u64,
    /// Records as they were (or, for a baseline, the records taken).
    pub unchanged: u64,
}

/// What a refresh did to one entity's full-text index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntityRefresh {
    /// The entity.
    pub entity: String,
    /// Whether this run created the index (it was not there, or had another definition).
    pub created: bool,
    /// Records indexed for the first time.
    pub added: u64,
    /// Records whose text changed, indexed again.
    pub updated: u64,
    /// Records gone from the table, removed from the index.
    pub removed: u64,
    /// Records whose text was already indexed as it is.
    pub unchanged: u64,
}

/// Where a write of the side store finds the user's tables and the side store (quoted
/// schemas).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SidePlaces<'a> {
    /// The schema of the user's tables named without one.
    pub base: &'a str,
    /// The side store's schema.
    pub side: &'a str,
}

/// A record's key as the index holds it, the text of each indexed field, and their hash.
pub(crate) type Texts = (SqlValue, Vec<Option<String>>, String);

/// What a refresh of one entity must do: the keys to index (again), and what to remove (each
/// with what the index holds for it: its SQLite rowid, or the key itself).
pub(crate) struct Changes<T> {
    /// Keys new to the index.
    pub(crate) added: Vec<SqlValue>,
    /// Keys whose text changed, with what the index holds for them.
    pub(crate) updated: Vec<(SqlValue, T)>,
    /// What the index holds for records gone from the table.
    pub(crate) removed: Vec<T>,
    /// Records already indexed as they are.
    pub(crate) unchanged: u64,
}

impl<T> Changes<T> {
    /// The keys to index: the new ones, then the changed ones.
    pub(crate) fn to_index(&self) -> Vec<SqlValue> {
        self.added
            .iter()
            .cloned()
            .chain(self.updated.iter().map(|(key, _)| key.clone()))
            .collect()
    }

    /// What the refresh of `entity` did.
    pub(crate) fn report(&self, entity: &EntitySpec, created: bool) -> EntityRefresh {
        EntityRefresh {
            entity: entity.name.clone(),
            created,
            added: self.added.len() as u64,
            updated: self.updated.len() as u64,
            removed: self.removed.len() as u64,
            unchanged: self.unchanged,
        }
    }
}

/// The text of the `index` fields and the index's own definition, as the hash covers them: a
/// changed field list or analyzer changes every hash, so a refresh rewrites every record.
pub(crate) fn signature(index: &FullTextSpec) -> String {
    let fields: Vec<&str> = index.fields.iter().map(|f| f.name.as_str()).collect();
    format!("{:?}:{}", index.analyzer, fields.join(","))
}

/// The SQL of the hash of a record's indexed text on `dialect`, over the row alias `q`.
fn hash_sql(index: &FullTextSpec, dialect: SqlDialect) -> String {
    let signature = format!("'{}'", signature(index).replace('\'', "''"));
    let fields = index
        .fields
        .iter()
        .map(|f| format!("CAST(\"q\".{} AS TEXT)", quote(&f.name)));
    match dialect {
        SqlDialect::Sqlite => {
            let mut arguments = vec![signature];
            arguments.extend(fields);
            format!("{HASH_FUNCTION}({})", arguments.join(", "))
        }
        SqlDialect::Postgres => {
            let mut parts = vec![signature];
            parts.extend(fields.map(|field| format!("coalesce('+' || {field}, '-')")));
            format!("md5(concat_ws(chr(31), {}))", parts.join(", "))
        }
    }
}

/// The query presenting a mapped entity's rows (its `SELECT`, parenthesised for a `FROM`).
fn rows_sql(entity: &EntitySpec, dialect: SqlDialect, base: &str) -> Result<String, ExecError> {
    super::mapping::entity_query(entity, dialect, base, None)
        .map(|query| format!("({query}) AS \"q\""))
        .ok_or_else(|| ExecError::Unavailable(format!("{} reads no existing table", entity.name)))
}

/// A key's identity in maps: its type and its text.
fn key_of(value: &SqlValue) -> String {
    match value {
        SqlValue::Integer(n) => format!("i{n}"),
        other => format!("t{}", text(Some(other)).unwrap_or_default()),
    }
}

/// Compares what the index holds (`held`: key, what identifies it in the index, hash) with
/// the user's table as it is now.
pub(crate) fn changes<T>(
    conn: &dyn BlockingReader,
    entity: &EntitySpec,
    index: &FullTextSpec,
    base: &str,
    held: Vec<(SqlValue, T, String)>,
) -> Result<Changes<T>, ExecError> {
    let dialect = conn.dialect();
    let mut held: HashMap<String, (T, String)> = held
        .into_iter()
        .map(|(key, place, hash)| (key_of(&key), (place, hash)))
        .collect();
    let sql = format!(
        "SELECT \"q\".{}, {} FROM {}",
        quote(&entity.unique_field),
        hash_sql(index, dialect),
        rows_sql(entity, dialect, base)?
    );
    let mut changes = Changes {
        added: Vec::new(),
        updated: Vec::new(),
        removed: Vec::new(),
        unchanged: 0,
    };
    for row in conn.rows(&sql, &[])? {
        let mut row = row.into_iter();
        let (Some(key), hash) = (row.next(), text(row.next().as_ref())) else {
            continue;
        };
        if matches!(key, SqlValue::Null) {
            continue;
        }
        match held.remove(&key_of(&key)) {
            None => changes.added.push(key),
            Some((_, old)) if Some(&old) == hash.as_ref() => changes.unchanged += 1,
            Some((place, _)) => changes.updated.push((key, place)),
        }
    }
    changes.removed = held.into_values().map(|(place, _)| place).collect();
    Ok(changes)
}

/// The indexed text of the records `keys`, in chunks, with each record's hash.
pub(crate) fn texts(
    conn: &dyn BlockingReader,
    entity: &EntitySpec,
    index: &FullTextSpec,
    base: &str,
    keys: &[SqlValue],
) -> Result<Vec<Texts>, ExecError> {
    let dialect = conn.dialect();
    let columns: Vec<String> = index
        .fields
        .iter()
        .map(|f| format!("CAST(\"q\".{} AS TEXT)", quote(&f.name)))
        .collect();
    let key = quote(&entity.unique_field);
    let select = format!(
        "SELECT \"q\".{key}, {}, {} FROM {} WHERE \"q\".{key} IN",
        columns.join(", "),
        hash_sql(index, dialect),
        rows_sql(entity, dialect, base)?,
    );
    let width = index.fields.len();
    let mut out = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(CHUNK) {
        let sql = format!("{select} ({})", placeholders(1, chunk.len()));
        for row in conn.rows(&sql, chunk)? {
            let key = row.first().cloned().unwrap_or(SqlValue::Null);
            let values = (1..=width).map(|i| text(row.get(i))).collect();
            let hash = text(row.get(width + 1)).unwrap_or_default();
            out.push((key, values, hash));
        }
    }
    Ok(out)
}

/// The SQLite FTS5 table of `entity`'s index in the side file.
pub(crate) fn sqlite_table(entity: &EntitySpec) -> String {
    super::full_text::full_text_table_name(&entity.table)
}

/// The SQLite table beside it holding each indexed record's key and text hash, by the rowid
/// its text has in the FTS5 table: narrow, so a search reads keys without the text.
pub(crate) fn sqlite_keys_table(entity: &EntitySpec) -> String {
    format!("{}_keys", sqlite_table(entity))
}

/// The databases a SQLite connection has attached, and their files.
pub(crate) const SQLITE_DATABASES: &str = "SELECT name, file FROM pragma_database_list";

/// The statements attaching the side file to a SQLite read connection of `spec` (none when
/// no entity needs it, or when the right file is attached already). A side file not created
/// yet is an error naming it and the command that creates it.
///
/// `databases` is what [`SQLITE_DATABASES`] answers on the connection.
pub(crate) fn sqlite_attach(
    databases: Vec<Vec<SqlValue>>,
    spec: &SchemaSpec,
) -> Result<Vec<String>, ExecError> {
    let mut main = None;
    let mut attached = None;
    for row in databases {
        match (text(row.first()).as_deref(), text(row.get(1))) {
            (Some("main"), file) => main = file,
            (Some(SQLITE_SCHEMA), file) => attached = file,
            _ => {}
        }
    }
    let Some(main) = main.filter(|file| !file.is_empty()) else {
        return Err(ExecError::Unavailable(
            "a database in memory has no side file for the full-text indexes of existing tables"
                .into(),
        ));
    };
    let file = spec
        .tools
        .side_store
        .sqlite_file(std::path::Path::new(&main));
    let wanted = file.to_string_lossy().into_owned();
    let mut statements = Vec::new();
    match attached {
        Some(attached) if attached == wanted => return Ok(statements),
        Some(_) => statements.push(format!("DETACH DATABASE {}", quote(SQLITE_SCHEMA))),
        None => {}
    }
    if !file.is_file() {
        return Err(ExecError::Unavailable(format!(
            "the full-text indexes of existing tables are kept in {wanted}, which does not \
             exist yet: create it with `toolforge db init`"
        )));
    }
    statements.push(format!(
        "ATTACH DATABASE '{}' AS {}",
        wanted.replace('\'', "''"),
        quote(SQLITE_SCHEMA)
    ));
    Ok(statements)
}

/// PostgreSQL: the SQL (a text value) of the schema where `spec` finds tables named without
/// one: the current schema, or for a spec with a side store, the first schema of the search
/// path other than the side store's (a role named like it, as `toolforge` is, has that schema
/// first in the default `"$user", public`).
pub(crate) fn pg_base_schema(spec: &SchemaSpec) -> String {
    if spec.side_entities().next().is_none() {
        return "CAST(current_schema() AS TEXT)".to_owned();
    }
    format!(
        "(SELECT CAST(\"s\" AS TEXT) FROM unnest(current_schemas(false)) WITH ORDINALITY AS \
         \"t\"(\"s\", \"n\") WHERE \"s\" <> '{}' ORDER BY \"n\" LIMIT 1)",
        spec.tools.side_store.schema.replace('\'', "''")
    )
}

/// Whether the side store of `spec` holds the table `name` (on SQLite, in the side file
/// attached as [`SQLITE_SCHEMA`]).
pub(crate) fn side_table_exists(
    conn: &dyn BlockingReader,
    spec: &SchemaSpec,
    name: &str,
) -> Result<bool, ExecError> {
    let name = SqlValue::Text(name.to_owned());
    let found = match conn.dialect() {
        SqlDialect::Sqlite => conn.count(
            &format!(
                "SELECT count(*) FROM {}.sqlite_schema WHERE type = 'table' AND name = ?1",
                quote(SQLITE_SCHEMA)
            ),
            &[name],
        )?,
        SqlDialect::Postgres => conn.count(
            "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = ?1 AND tablename = ?2",
            &[SqlValue::Text(spec.tools.side_store.schema.clone()), name],
        )?,
    };
    Ok(found > 0)
}

/// The quoted name of the side store's schema on `dialect`: the side file's attachment on
/// SQLite, the configured schema on PostgreSQL.
pub(crate) fn side_schema(spec: &SchemaSpec, dialect: SqlDialect) -> String {
    match dialect {
        SqlDialect::Sqlite => quote(SQLITE_SCHEMA),
        SqlDialect::Postgres => quote(&spec.tools.side_store.schema),
    }
}

/// The columns of `entity`'s vectors table on `dialect`: the key (named and typed as the
/// entity's), then each vector index's vector and text hash, as toolforge's own tables name
/// them.
pub(crate) fn vectors_columns(entity: &EntitySpec, dialect: SqlDialect) -> String {
    let bytes = match dialect {
        SqlDialect::Sqlite => "BLOB",
        SqlDialect::Postgres => "BYTEA",
    };
    let mut columns = vec![key_column(entity, dialect)];
    for index in entity.side_vector_indexes() {
        columns.push(format!("{} {bytes}", quote(&index.column)));
        columns.push(format!("{} TEXT", quote(&index.hash_column())));
    }
    columns.join(", ")
}

/// Where paging through `entity`'s records in key order starts, and the SQL type a bound key
/// is cast to (`key > CAST(?1 AS <type>)`): the key's own, so that a mapped PostgreSQL key
/// narrower than the parameter still uses its index.
pub(crate) fn key_paging(entity: &EntitySpec) -> (SqlValue, &'static str) {
    match entity.key_type() {
        FieldType::Integer => (SqlValue::Integer(i64::MIN), "BIGINT"),
        _ => (SqlValue::Text(String::new()), "TEXT"),
    }
}

/// The key column of a side store table keyed by `entity`'s records: named and typed as the
/// entity's key (a whole number, or text).
pub(crate) fn key_column(entity: &EntitySpec, dialect: SqlDialect) -> String {
    let ty = match (dialect, entity.key_type()) {
        (SqlDialect::Sqlite, FieldType::Integer) => "INTEGER",
        (SqlDialect::Postgres, FieldType::Integer) => "BIGINT",
        _ => "TEXT",
    };
    format!("{} {ty} PRIMARY KEY", quote(&entity.unique_field))
}

/// What is missing of `entity`'s vectors table in the side store at `place` (the side file, or
/// `the schema "toolforge"`), from whether it is there and made for the config's vector
/// indexes (`None`: not there): `None` when nothing is.
pub(crate) fn vectors_gap(
    entity: &EntitySpec,
    place: &str,
    current: Option<bool>,
) -> Option<String> {
    match current {
        None => Some(format!(
            "the vectors of {} (table \"{}\" of {place})",
            entity.name,
            vectors_table(entity)
        )),
        Some(false) => Some(format!(
            "the vectors of {} in {place} were made for other vector indexes than the config's",
            entity.name
        )),
        Some(true) => None,
    }
}

/// The statements creating `entity`'s vectors table in the side store `schema` (quoted), and
/// the versions table beside it when it is not there.
pub(crate) fn vectors_create(
    entity: &EntitySpec,
    dialect: SqlDialect,
    schema: &str,
) -> [String; 2] {
    [
        format!(
            "CREATE TABLE {schema}.{} ({})",
            quote(&vectors_table(entity)),
            vectors_columns(entity, dialect)
        ),
        format!(
            "CREATE TABLE IF NOT EXISTS {schema}.{} (\"name\" TEXT PRIMARY KEY, \"version\" \
             BIGINT NOT NULL)",
            quote(VERSIONS_TABLE)
        ),
    ]
}
