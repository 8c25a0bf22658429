//! The SQLite side file (see `sql/side_store.rs`): created, filled and refreshed from the
//! user's database, which is opened read-only (`mode=ro`) for it.

use std::path::Path;

use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::spec::{EntitySpec, FullTextSpec, SchemaSpec};
use crate::sql::backend::{BlockingReader, ExecError, SqlDialect};
use crate::sql::database::DbError;
use crate::sql::side_store::{
    HASH_FUNCTION, RefreshReport, SQLITE_SCHEMA, SidePlaces, changes, sqlite_keys_table,
    sqlite_table, texts, vectors_create, vectors_gap, vectors_table,
};
use crate::sql::text::ident::quote;
use crate::sql::value::SqlValue;

/// Creates what is missing of the side file of the database at `database` and brings every
/// index of `spec` up to date with the user's rows, in one transaction of the side file.
pub(crate) fn refresh(database: &Path, spec: &SchemaSpec) -> Result<RefreshReport, DbError> {
    write(database, spec, |conn, side, vectors_created| {
        let mut report = fill(conn, spec, side)?;
        report.vectors_created = vectors_created.to_vec();
        let places = SidePlaces {
            base: "\"main\"",
            side: &quote(SQLITE_SCHEMA),
        };
        report.changes = crate::sql::side_changes::refresh(conn, spec, places)?;
        Ok(report)
    })
}

/// Runs `f` in one transaction of the side file of the database at `database` (created when
/// missing), on a connection where the database is `main`, opened read-only, and the side
/// file is attached as [`SQLITE_SCHEMA`] with its vectors tables ready. `f` is given the side
/// file's path and the entities whose vectors table was created; its error rolls everything
/// back.
pub(crate) fn write<T, E: From<DbError>>(
    database: &Path,
    spec: &SchemaSpec,
    f: impl FnOnce(&Connection, &Path, &[String]) -> Result<T, E>,
) -> Result<T, E> {
    let side = spec.tools.side_store.sqlite_file(database);
    let conn = open(database, &side)?;
    conn.execute_batch("BEGIN IMMEDIATE")
        .map_err(DbError::from)?;
    let done = ensure_vectors(&conn, spec)
        .map_err(E::from)
        .and_then(|created| f(&conn, &side, &created));
    match done {
        Ok(value) => {
            conn.execute_batch("COMMIT").map_err(DbError::from)?;
            Ok(value)
        }
        Err(error) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(error)
        }
    }
}

/// A connection to the database at `database` (read-only) with its side file `side` attached
/// (created when missing) and the text hash function the refresh computes.
fn open(database: &Path, side: &Path) -> Result<Connection, DbError> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if same(side, database) {
        return Err(DbError::SideStore(format!(
            "toolforge.side_store.file names the database itself ({}); toolforge never writes \
             your database: name another file, or leave the key out for {}",
            database.display(),
            crate::spec::SideStore::default()
                .sqlite_file(database)
                .display()
        )));
    }
    let uri = |path: &Path, query: &str| {
        super::pool::file_uri(path, query)
            .ok_or_else(|| DbError::Sqlite(rusqlite::Error::InvalidPath(path.to_path_buf())))
    };
    let conn = Connection::open_with_flags(
        uri(database, "mode=ro")?,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    super::functions::configure_scratch(&conn)?;
    conn.execute(
        &format!("ATTACH DATABASE ?1 AS {}", quote(SQLITE_SCHEMA)),
        [uri(side, "mode=rwc")?],
    )?;
    conn.pragma_update(Some(SQLITE_SCHEMA), "journal_mode", "WAL")?;
    conn.create_scalar_function(
        HASH_FUNCTION,
        -1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |context| {
            let values: Vec<Option<String>> = (0..context.len())
                .map(|i| context.get::<Option<String>>(i))
                .collect::<rusqlite::Result<_>>()?;
            Ok(text_hash(&values))
        },
    )?;
    Ok(conn)
}

/// Creates the vectors tables of `spec`'s mapped entities that are missing from the side file
/// (again, empty, those made for other vector indexes), and the versions table: the entities
/// whose table this created.
fn ensure_vectors(conn: &Connection, spec: &SchemaSpec) -> Result<Vec<String>, DbError> {
    let mut created = Vec::new();
    for entity in spec.entities.iter().filter(|e| e.has_side_vectors()) {
        let [table, versions] = vectors_create(entity, SqlDialect::Sqlite, &quote(SQLITE_SCHEMA));
        if vectors_current(conn, entity)? != Some(true) {
            let name = vectors_table(entity);
            conn.execute_batch(&format!("DROP TABLE IF EXISTS {}", qualified(&name)))?;
            conn.execute_batch(&table)?;
            created.push(entity.name.clone());
        }
        conn.execute_batch(&versions)?;
    }
    Ok(created)
}

/// Whether the side file attached as [`SQLITE_SCHEMA`] holds `entity`'s vectors table as the
/// config defines it (`None`: not at all).
fn vectors_current(
    conn: &Connection,
    entity: &crate::spec::EntitySpec,
) -> rusqlite::Result<Option<bool>> {
    let [wanted, _] = vectors_create(entity, SqlDialect::Sqlite, &quote(SQLITE_SCHEMA));
    Ok(stored_sql(conn, &vectors_table(entity))?
        .map(|stored| unqualified(&stored) == unqualified(&wanted)))
}

/// The statement the side file attached as [`SQLITE_SCHEMA`] stores for `name`.
fn stored_sql(conn: &Connection, name: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        &format!(
            "SELECT sql FROM {}.sqlite_schema WHERE name = ?1",
            quote(SQLITE_SCHEMA)
        ),
        [name],
        |row| row.get(0),
    )
    .optional()
}

/// `sql` without the side schema's name.
fn unqualified(sql: &str) -> String {
    sql.replace(&format!("{}.", quote(SQLITE_SCHEMA)), "")
}

fn fill(conn: &Connection, spec: &SchemaSpec, side: &Path) -> Result<RefreshReport, DbError> {
    let mut report = RefreshReport {
        place: side.display().to_string(),
        ..RefreshReport::default()
    };
    for entity in spec.side_entities() {
        let Some(index) = &entity.full_text else {
            continue;
        };
        let fts = qualified(&sqlite_table(entity));
        let keys = qualified(&sqlite_keys_table(entity));
        // Tables of another definition (other fields, another analyzer) are made anew.
        let created = !is_current(conn, entity, index)?;
        if created {
            conn.execute_batch(&format!(
                "DROP TABLE IF EXISTS {fts}; DROP TABLE IF EXISTS {keys}"
            ))?;
            for statement in sqlite_create(entity, index) {
                conn.execute_batch(&statement)?;
            }
        }
        let held: Vec<(SqlValue, i64, String)> = conn
            .rows(
                &format!("SELECT \"key\", \"id\", \"hash\" FROM {keys}"),
                &[],
            )?
            .into_iter()
            .map(|row| {
                let mut row = row.into_iter();
                let key = row.next().unwrap_or(SqlValue::Null);
                let id = match row.next() {
                    Some(SqlValue::Integer(id)) => id,
                    _ => 0,
                };
                let hash = match row.next() {
                    Some(SqlValue::Text(hash)) => hash,
                    _ => String::new(),
                };
                (key, id, hash)
            })
            .collect();
        let found = changes(conn, entity, index, "\"main\"", held)?;
        let mut delete_text = conn.prepare(&format!("DELETE FROM {fts} WHERE rowid = ?1"))?;
        let mut delete_key = conn.prepare(&format!("DELETE FROM {keys} WHERE \"id\" = ?1"))?;
        for id in found
            .removed
            .iter()
            .chain(found.updated.iter().map(|(_, id)| id))
        {
            delete_text.execute([id])?;
            delete_key.execute([id])?;
        }
        let columns: Vec<String> = index.fields.iter().map(|f| quote(&f.name)).collect();
        let marks: Vec<String> = (2..=columns.len() + 1).map(|i| format!("?{i}")).collect();
        let mut insert_key = conn.prepare(&format!(
            "INSERT INTO {keys} (\"key\", \"hash\") VALUES (?1, ?2)"
        ))?;
        let mut insert_text = conn.prepare(&format!(
            "INSERT INTO {fts} (rowid, {}) VALUES (?1, {})",
            columns.join(", "),
            marks.join(", ")
        ))?;
        for (key, values, hash) in texts(conn, entity, index, "\"main\"", &found.to_index())? {
            insert_key.execute(rusqlite::params![key, hash])?;
            let mut params = vec![SqlValue::Integer(conn.last_insert_rowid())];
            params.extend(
                values
                    .into_iter()
                    .map(|value| value.map_or(SqlValue::Null, SqlValue::Text)),
            );
            insert_text.execute(rusqlite::params_from_iter(params))?;
        }
        report.entities.push(found.report(entity, created));
    }
    Ok(report)
}

/// `table` of the side file, quoted.
fn qualified(table: &str) -> String {
    format!("{}.{}", quote(SQLITE_SCHEMA), quote(table))
}

/// Whether the side file `conn` has attached as [`SQLITE_SCHEMA`] holds `entity`'s index as
/// the config defines it (the statements stored in its schema, less the schema's name).
fn is_current(
    conn: &Connection,
    entity: &crate::spec::EntitySpec,
    index: &crate::spec::FullTextSpec,
) -> rusqlite::Result<bool> {
    let wanted = sqlite_create(entity, index);
    for (name, wanted) in [sqlite_table(entity), sqlite_keys_table(entity)]
        .iter()
        .zip(wanted.iter())
    {
        if stored_sql(conn, name)?.as_deref().map(unqualified) != Some(unqualified(wanted)) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// What is missing of the side file for `spec` beside the database at `database`: the file,
/// or an entity's index in it.
pub(crate) fn gaps(database: &Path, spec: &SchemaSpec) -> Result<Vec<String>, ExecError> {
    let side = spec.tools.side_store.sqlite_file(database);
    let entities: Vec<_> = spec.side_entities().collect();
    if entities.is_empty() {
        return Ok(Vec::new());
    }
    if !side.is_file() {
        return Ok(vec![format!(
            "the side file {} does not exist",
            side.display()
        )]);
    }
    let conn = Connection::open_in_memory()?;
    let uri = super::pool::file_uri(&side, "mode=ro")
        .ok_or_else(|| rusqlite::Error::InvalidPath(side.clone()))?;
    conn.execute(
        &format!("ATTACH DATABASE ?1 AS {}", quote(SQLITE_SCHEMA)),
        [uri],
    )?;
    let mut missing = Vec::new();
    let place = side.display().to_string();
    for entity in entities.iter().filter(|e| e.has_side_vectors()) {
        missing.extend(vectors_gap(entity, &place, vectors_current(&conn, entity)?));
    }
    missing.extend(crate::sql::side_changes::gaps(&conn, spec, &place)?);
    for entity in entities {
        let Some(index) = &entity.full_text else {
            continue;
        };
        let present: i64 = conn.query_row(
            &format!(
                "SELECT count(*) FROM {}.sqlite_schema WHERE name = ?1",
                quote(SQLITE_SCHEMA)
            ),
            [sqlite_table(entity)],
            |row| row.get(0),
        )?;
        if present == 0 {
            missing.push(format!(
                "the full-text index of {} (table \"{}\" of {})",
                entity.name,
                sqlite_table(entity),
                side.display()
            ));
        } else if !is_current(&conn, entity, index)? {
            missing.push(format!(
                "the full-text index of {} in {} was made for other fields or another \
                 analyzer than the config's",
                entity.name,
                side.display()
            ));
        }
    }
    Ok(missing)
}

/// The hash `HASH_FUNCTION` computes on SQLite: of the signature, then of each value
/// (marked present or absent).
fn text_hash(values: &[Option<String>]) -> String {
    let mut joined = String::new();
    for value in values {
        match value {
            Some(text) => {
                joined.push('+');
                joined.push_str(text);
            }
            None => joined.push('-'),
        }
        joined.push('\u{1f}');
    }
    crate::embed::content_hash("full_text", &joined)
}

/// The statements creating `entity`'s index in the side file: the FTS5 table of its indexed
/// fields (storing their text, for snippets), then the keys table.
fn sqlite_create(entity: &EntitySpec, index: &FullTextSpec) -> [String; 2] {
    let columns: Vec<String> = index.fields.iter().map(|f| quote(&f.name)).collect();
    let schema = quote(SQLITE_SCHEMA);
    [
        format!(
            "CREATE VIRTUAL TABLE {schema}.{} USING fts5({}, tokenize='{}')",
            quote(&sqlite_table(entity)),
            columns.join(", "),
            crate::sql::full_text::sqlite_ddl::tokenizer(index.analyzer)
        ),
        format!(
            "CREATE TABLE {schema}.{} (\"id\" INTEGER PRIMARY KEY, \"key\" NOT NULL UNIQUE, \
             \"hash\" TEXT NOT NULL)",
            quote(&sqlite_keys_table(entity))
        ),
    ]
}
