//! The SQLite side file (see `sql/side_store.rs`): created, filled and refreshed from the
//! user's database, which is opened read-only (`mode=ro`) for it.

use std::path::Path;

use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, OpenFlags};

use crate::spec::SchemaSpec;
use crate::sql::backend::{ExecError, Reader};
use crate::sql::database::DbError;
use crate::sql::ident::quote;
use crate::sql::side_store::{
    HASH_COLUMN, HASH_FUNCTION, KEY_COLUMN, RefreshReport, SQLITE_SCHEMA, changes,
    sqlite_create, sqlite_table, text_hash, texts,
};
use crate::sql::value::SqlValue;

/// Creates what is missing of the side file of the database at `database` and brings every
/// index of `spec` up to date with the user's rows, in one transaction of the side file.
pub(crate) fn refresh(database: &Path, spec: &SchemaSpec) -> Result<RefreshReport, DbError> {
    let side = spec.tools.side_store.sqlite_file(database);
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if same(&side, database) {
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
        [uri(&side, "mode=rwc")?],
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
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let report = fill(&conn, spec, &side);
    match report {
        Ok(report) => {
            conn.execute_batch("COMMIT")?;
            Ok(report)
        }
        Err(error) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(error)
        }
    }
}

fn fill(conn: &Connection, spec: &SchemaSpec, side: &Path) -> Result<RefreshReport, DbError> {
    let mut report = RefreshReport {
        place: side.display().to_string(),
        ..RefreshReport::default()
    };
    let schema = quote(SQLITE_SCHEMA);
    for entity in spec.side_entities() {
        let Some(index) = &entity.full_text else {
            continue;
        };
        let name = sqlite_table(entity);
        let table = format!("{schema}.{}", quote(&name));
        // A table of another definition (other fields, another analyzer) is made anew.
        let wanted = sqlite_create(entity, index);
        let stored: Option<String> = conn
            .query_row(
                &format!("SELECT sql FROM {schema}.sqlite_schema WHERE name = ?1"),
                [&name],
                |row| row.get(0),
            )
            .ok();
        let unqualified = |sql: &str| sql.replace(&format!("{schema}."), "");
        let created = stored.as_deref().map(unqualified) != Some(unqualified(&wanted));
        if created {
            if stored.is_some() {
                conn.execute_batch(&format!("DROP TABLE {table}"))?;
            }
            conn.execute_batch(&wanted)?;
        }
        let held: Vec<(SqlValue, i64, String)> = conn
            .rows(
                &format!(
                    "SELECT {}, rowid, {} FROM {table}",
                    quote(KEY_COLUMN),
                    quote(HASH_COLUMN)
                ),
                &[],
            )?
            .into_iter()
            .map(|row| {
                let mut row = row.into_iter();
                let key = row.next().unwrap_or(SqlValue::Null);
                let rowid = match row.next() {
                    Some(SqlValue::Integer(rowid)) => rowid,
                    _ => 0,
                };
                let hash = match row.next() {
                    Some(SqlValue::Text(hash)) => hash,
                    _ => String::new(),
                };
                (key, rowid, hash)
            })
            .collect();
        let found = changes(conn, entity, index, "\"main\"", held)?;
        let mut delete = conn.prepare(&format!("DELETE FROM {table} WHERE rowid = ?1"))?;
        for rowid in found
            .removed
            .iter()
            .chain(found.updated.iter().map(|(_, rowid)| rowid))
        {
            delete.execute([rowid])?;
        }
        let keys = found.to_index();
        let mut columns: Vec<String> = index.fields.iter().map(|f| quote(&f.name)).collect();
        columns.push(quote(KEY_COLUMN));
        columns.push(quote(HASH_COLUMN));
        let marks: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
        let mut insert = conn.prepare(&format!(
            "INSERT INTO {table} ({}) VALUES ({})",
            columns.join(", "),
            marks.join(", ")
        ))?;
        for (key, values, hash) in texts(conn, entity, index, "\"main\"", &keys)? {
            let mut params: Vec<SqlValue> = values
                .into_iter()
                .map(|value| value.map_or(SqlValue::Null, SqlValue::Text))
                .collect();
            params.push(key);
            params.push(SqlValue::Text(hash));
            insert.execute(rusqlite::params_from_iter(params))?;
        }
        report.entities.push(found.report(entity, created));
    }
    Ok(report)
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
    let conn = Connection::open_with_flags(
        &side,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let mut missing = Vec::new();
    for entity in entities {
        let name = sqlite_table(entity);
        let found: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = ?1",
            [&name],
            |row| row.get(0),
        )?;
        if found == 0 {
            missing.push(format!(
                "the full-text index of {} (table \"{name}\" of {})",
                entity.name,
                side.display()
            ));
        }
    }
    Ok(missing)
}
