//! The catalog of a SQLite file, read only: `sqlite_schema` for the tables and views, the
//! `pragma_table_xinfo`, `pragma_foreign_key_list`, `pragma_index_list` and `pragma_index_info`
//! table-valued functions for their columns and keys, and each table's `CREATE TABLE` text for
//! its `CHECK (column IN (...))` lists.
//!
//! The file is opened `SQLITE_OPEN_READONLY`, so nothing is created or written. A database in
//! WAL mode whose `-wal` file is gone (every connection closed) is opened `immutable=1`: a
//! read-only connection would otherwise create the `-shm` (and `-wal`) file beside it.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::sql::introspect::catalog::{
    Backend, Catalog, Column, ColumnKind, ForeignKey, Table, TableKind,
};
use crate::sql::introspect::check_in::sqlite_check_ins;
use crate::sql::introspect::error::IntrospectError;

/// The first 16 bytes of every SQLite database file.
const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// The suffixes of the shadow tables FTS3/4/5 and R*Tree keep for a virtual table, used when
/// `pragma_table_list` (which names them) is not available.
const SHADOW_SUFFIXES: &[&str] = &[
    "_content",
    "_docsize",
    "_segments",
    "_segdir",
    "_stat",
    "_data",
    "_idx",
    "_config",
    "_node",
    "_parent",
    "_rowid",
];

/// Reads the catalog of the SQLite file at `path`.
pub(crate) fn read(path: &Path) -> Result<Catalog, IntrospectError> {
    let shown = path.display().to_string();
    let wal = check_file(path, &shown)?;
    let conn = open(path, wal).map_err(|error| sqlite_error(&shown, &error))?;
    let tables = read_tables(&conn).map_err(|error| sqlite_error(&shown, &error))?;
    let database = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "database".to_owned());
    Ok(Catalog {
        backend: Backend::Sqlite,
        database,
        schemas: Vec::new(),
        tables,
        filtered_out: Vec::new(),
    })
}

fn sqlite_error(path: &str, error: &rusqlite::Error) -> IntrospectError {
    if error.sqlite_error_code() == Some(rusqlite::ErrorCode::NotADatabase) {
        return IntrospectError::NotSqlite {
            path: path.to_owned(),
        };
    }
    IntrospectError::Sqlite {
        path: path.to_owned(),
        message: error.to_string().replace('\n', " "),
    }
}

/// Checks that `path` is a SQLite file; answers whether it is in WAL mode.
fn check_file(path: &Path, shown: &str) -> Result<bool, IntrospectError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(IntrospectError::NotFound {
                path: shown.to_owned(),
            });
        }
        Err(error) => {
            return Err(IntrospectError::Sqlite {
                path: shown.to_owned(),
                message: error.to_string(),
            });
        }
    };
    if !meta.is_file() {
        return Err(IntrospectError::NotAFile {
            path: shown.to_owned(),
        });
    }
    if meta.len() == 0 {
        // An empty file is an empty database to SQLite.
        return Err(IntrospectError::Empty {
            target: format!("`{shown}`"),
            filtered_out: 0,
        });
    }
    let mut header = [0u8; 100];
    let read = std::fs::File::open(path)
        .and_then(|mut file| {
            let mut filled = 0;
            while filled < header.len() {
                match file.read(&mut header[filled..])? {
                    0 => break,
                    n => filled += n,
                }
            }
            Ok(filled)
        })
        .map_err(|error| IntrospectError::Sqlite {
            path: shown.to_owned(),
            message: error.to_string(),
        })?;
    if read < header.len() || &header[..16] != HEADER {
        return Err(IntrospectError::NotSqlite {
            path: shown.to_owned(),
        });
    }
    // Bytes 18 and 19: the file format's write and read versions, 2 in WAL mode.
    Ok(header[18] == 2 || header[19] == 2)
}

/// Opens `path` read-only; a WAL database without a `-wal` file `immutable=1`, so that no
/// `-shm` or `-wal` file is created beside it.
fn open(path: &Path, wal: bool) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut wal_file = path.as_os_str().to_owned();
    wal_file.push("-wal");
    let conn = match super::pool::immutable_uri(path) {
        Some(uri) if wal && !Path::new(&wal_file).exists() => {
            Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)?
        }
        _ => Connection::open_with_flags(path, flags)?,
    };
    conn.pragma_update(None, "query_only", true)?;
    Ok(conn)
}

/// A row of `sqlite_schema`.
struct Entry {
    kind: String,
    name: String,
    sql: String,
}

fn read_tables(conn: &Connection) -> rusqlite::Result<Vec<Table>> {
    let mut entries: Vec<Entry> = conn
        .prepare(
            "SELECT type, name, coalesce(sql, '') FROM main.sqlite_schema \
             WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        )?
        .query_map([], |row| {
            Ok(Entry {
                kind: row.get(0)?,
                name: row.get(1)?,
                sql: row.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let shadows = shadow_tables(conn, &entries);
    let mut tables = Vec::with_capacity(entries.len());
    for entry in &entries {
        if shadows.contains(&entry.name.to_lowercase()) {
            continue;
        }
        tables.push(read_table(conn, entry)?);
    }
    resolve_references(&mut tables);
    Ok(tables)
}

/// The (lowercased) names of the shadow tables of virtual tables: `pragma_table_list` says
/// which they are; without it, the tables named like a virtual table's with a known suffix.
fn shadow_tables(conn: &Connection, entries: &[Entry]) -> Vec<String> {
    let listed = conn
        .prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'")
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        });
    match listed {
        Ok(names) => names.into_iter().map(|name| name.to_lowercase()).collect(),
        Err(_) => {
            let virtuals: Vec<String> = entries
                .iter()
                .filter(|entry| virtual_module(&entry.sql).is_some())
                .map(|entry| entry.name.to_lowercase())
                .collect();
            entries
                .iter()
                .map(|entry| entry.name.to_lowercase())
                .filter(|name| {
                    virtuals.iter().any(|v| {
                        name.strip_prefix(v.as_str())
                            .is_some_and(|suffix| SHADOW_SUFFIXES.contains(&suffix))
                    })
                })
                .collect()
        }
    }
}

/// The module of a `CREATE VIRTUAL TABLE ... USING module(...)` statement.
fn virtual_module(sql: &str) -> Option<String> {
    let words: Vec<&str> = sql.split_whitespace().take(3).collect();
    if words.len() < 3
        || !words[0].eq_ignore_ascii_case("CREATE")
        || !words[1].eq_ignore_ascii_case("VIRTUAL")
        || !words[2].eq_ignore_ascii_case("TABLE")
    {
        return None;
    }
    let upper = sql.to_ascii_uppercase();
    // The last `USING` before the module's arguments (names before it may be quoted).
    let head = upper.find('(').map_or(upper.as_str(), |i| &upper[..i]);
    let at = head.rfind("USING")?;
    let module: String = sql[at + 5..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    Some(module.to_lowercase())
}

fn read_table(conn: &Connection, entry: &Entry) -> rusqlite::Result<Table> {
    let mut table = Table {
        schema: None,
        name: entry.name.clone(),
        kind: if entry.kind == "view" {
            TableKind::View
        } else {
            TableKind::Table
        },
        comment: None,
        columns: Vec::new(),
        primary_key: Vec::new(),
        unique: Vec::new(),
        foreign_keys: Vec::new(),
        unreadable: None,
    };
    if let Some(module) = virtual_module(&entry.sql) {
        table.kind = TableKind::Virtual { module };
        return Ok(table);
    }
    // `pragma_table_xinfo` lists generated columns too (hidden 2 and 3); hidden 1 are the
    // hidden columns of virtual tables.
    let columns = conn
        .prepare(
            "SELECT name, coalesce(type, ''), \"notnull\", pk FROM pragma_table_xinfo(?1, 'main') \
             WHERE hidden <> 1 ORDER BY cid",
        )
        .and_then(|mut statement| {
            statement
                .query_map([&entry.name], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, i64>(2)? != 0,
                        row.get::<_, i64>(3)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
        });
    let columns = match columns {
        Ok(columns) => columns,
        // A view over a table that is gone, a table of a module this build lacks.
        Err(error) => {
            table.unreadable = Some(error.to_string().replace('\n', " "));
            return Ok(table);
        }
    };
    let mut key: Vec<(i64, String)> = Vec::new();
    for (name, declared, not_null, pk) in columns {
        if pk > 0 {
            key.push((pk, name.clone()));
        }
        table.columns.push(Column {
            kind: affinity_kind(&declared),
            name,
            declared_type: declared,
            not_null,
            comment: None,
            enum_values: None,
            check_in_values: None,
        });
    }
    key.sort();
    table.primary_key = key.into_iter().map(|(_, name)| name).collect();
    if table.kind != TableKind::Table {
        return Ok(table);
    }
    table.foreign_keys = foreign_keys(conn, &entry.name, &table.columns)?;
    table.unique = unique_sets(conn, &entry.name, &table.columns)?;
    for (column, values) in sqlite_check_ins(&entry.sql) {
        if let Some(found) = table
            .columns
            .iter_mut()
            .find(|c| c.name.eq_ignore_ascii_case(&column))
            && found.check_in_values.is_none()
        {
            found.check_in_values = Some(values);
        }
    }
    Ok(table)
}

/// The position of the column named `name` (SQLite compares names ignoring ASCII case).
fn position(columns: &[Column], name: &str) -> usize {
    columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))
        .unwrap_or(usize::MAX)
}

fn foreign_keys(
    conn: &Connection,
    table: &str,
    columns: &[Column],
) -> rusqlite::Result<Vec<ForeignKey>> {
    let mut statement = conn.prepare(
        "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1, 'main') \
         ORDER BY id, seq",
    )?;
    let rows = statement
        .query_map([table], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, Option<String>>(3)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut keys: BTreeMap<i64, ForeignKey> = BTreeMap::new();
    for (id, parent, from, to) in rows {
        let key = keys.entry(id).or_insert_with(|| ForeignKey {
            columns: Vec::new(),
            referenced_schema: None,
            referenced_table: parent,
            referenced_columns: Vec::new(),
        });
        // The child's own spelling of the column.
        let from = columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(&from))
            .map_or(from, |c| c.name.clone());
        key.columns.push(from);
        // Empty when the key names no parent columns: resolved to the parent's primary key.
        if let Some(to) = to {
            key.referenced_columns.push(to);
        }
    }
    let mut keys: Vec<ForeignKey> = keys.into_values().collect();
    keys.sort_by(|a, b| {
        let first = |key: &ForeignKey| {
            key.columns
                .first()
                .map_or(usize::MAX, |c| position(columns, c))
        };
        first(a)
            .cmp(&first(b))
            .then_with(|| {
                a.referenced_table
                    .as_bytes()
                    .cmp(b.referenced_table.as_bytes())
            })
            .then_with(|| a.columns.cmp(&b.columns))
    });
    keys.dedup();
    Ok(keys)
}

/// The column sets of the table's full unique indexes over plain columns (its `UNIQUE`
/// constraints, its primary key's index, `CREATE UNIQUE INDEX`).
fn unique_sets(
    conn: &Connection,
    table: &str,
    columns: &[Column],
) -> rusqlite::Result<Vec<Vec<String>>> {
    let indexes = conn
        .prepare(
            "SELECT name FROM pragma_index_list(?1, 'main') WHERE \"unique\" = 1 AND partial = 0 \
             ORDER BY name",
        )?
        .query_map([table], |row| row.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut sets: Vec<Vec<String>> = Vec::new();
    let mut info =
        conn.prepare("SELECT cid, name FROM pragma_index_info(?1, 'main') ORDER BY seqno")?;
    for index in indexes {
        let parts = info
            .query_map([&index], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, Option<String>>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        // cid -1 is the rowid, -2 an expression.
        if parts.is_empty() || parts.iter().any(|(cid, name)| *cid < 0 || name.is_none()) {
            continue;
        }
        let set: Vec<String> = parts
            .into_iter()
            .filter_map(|(_, name)| {
                let name = name?;
                Some(
                    columns
                        .iter()
                        .find(|c| c.name.eq_ignore_ascii_case(&name))
                        .map_or(name, |c| c.name.clone()),
                )
            })
            .collect();
        if !sets.contains(&set) {
            sets.push(set);
        }
    }
    sets.sort_by_key(|set| {
        set.iter()
            .map(|name| position(columns, name))
            .collect::<Vec<_>>()
    });
    Ok(sets)
}

/// Resolves each foreign key's parent to the table as the catalog spells it (SQLite compares
/// table and column names ignoring ASCII case), and a key without parent columns to the
/// parent's primary key.
fn resolve_references(tables: &mut [Table]) {
    let parents: Vec<(String, Vec<String>, Vec<String>)> = tables
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.primary_key.clone(),
                t.columns.iter().map(|c| c.name.clone()).collect(),
            )
        })
        .collect();
    for table in tables.iter_mut() {
        for key in &mut table.foreign_keys {
            let Some((name, primary_key, columns)) = parents
                .iter()
                .find(|(name, ..)| name.eq_ignore_ascii_case(&key.referenced_table))
            else {
                continue;
            };
            key.referenced_table = name.clone();
            if key.referenced_columns.is_empty() {
                key.referenced_columns = primary_key.clone();
            }
            for column in &mut key.referenced_columns {
                if let Some(spelled) = columns.iter().find(|c| c.eq_ignore_ascii_case(column)) {
                    *column = spelled.clone();
                }
            }
        }
    }
}

/// What a declared type holds, by SQLite's affinity rules (datatype3.html, 3.1), with the
/// types a config can tell apart: `BOOL` first (boolean), then `INT` (integer), `DATE` or
/// `TIME` (datetime), `CHAR`, `CLOB`, `TEXT` and the textual `JSON`, `UUID` and `GUID`
/// (text), `BLOB` (bytes), no type at all (untyped), `REAL`, `FLOA`, `DOUB` and everything
/// else (numeric affinity: a number).
pub(crate) fn affinity_kind(declared: &str) -> ColumnKind {
    let upper = declared.to_ascii_uppercase();
    let has = |part: &str| upper.contains(part);
    if upper.trim().is_empty() {
        ColumnKind::Untyped
    } else if has("BOOL") {
        ColumnKind::Boolean
    } else if has("INT") {
        ColumnKind::Integer
    } else if has("DATE") || has("TIME") {
        ColumnKind::DateTime
    } else if has("CHAR") || has("CLOB") || has("TEXT") || has("JSON") || has("UUID") || has("GUID")
    {
        ColumnKind::Text
    } else if has("BLOB") {
        ColumnKind::Binary
    } else {
        ColumnKind::Number
    }
}

#[cfg(test)]
mod tests {
    use super::{affinity_kind, virtual_module};
    use crate::sql::introspect::catalog::ColumnKind;

    #[test]
    fn declared_types_follow_the_affinity_rules() {
        for (declared, kind) in [
            ("INTEGER", ColumnKind::Integer),
            ("BIGINT", ColumnKind::Integer),
            ("unsigned big int", ColumnKind::Integer),
            ("BOOLEAN", ColumnKind::Boolean),
            ("NVARCHAR(160)", ColumnKind::Text),
            ("TEXT", ColumnKind::Text),
            ("CLOB", ColumnKind::Text),
            ("json", ColumnKind::Text),
            ("NUMERIC(10,2)", ColumnKind::Number),
            ("DECIMAL", ColumnKind::Number),
            ("REAL", ColumnKind::Number),
            ("DOUBLE PRECISION", ColumnKind::Number),
            ("FLOAT", ColumnKind::Number),
            ("DATETIME", ColumnKind::DateTime),
            ("DATE", ColumnKind::DateTime),
            ("TIMESTAMP", ColumnKind::DateTime),
            ("BLOB", ColumnKind::Binary),
            ("", ColumnKind::Untyped),
            ("WHATEVER", ColumnKind::Number),
        ] {
            assert_eq!(affinity_kind(declared), kind, "{declared}");
        }
    }

    #[test]
    fn virtual_tables_name_their_module() {
        assert_eq!(
            virtual_module("CREATE VIRTUAL TABLE docs USING fts5(title, body)").as_deref(),
            Some("fts5")
        );
        assert_eq!(
            virtual_module("create virtual table \"using x\" using RTree(id, a, b)").as_deref(),
            Some("rtree")
        );
        assert_eq!(virtual_module("CREATE TABLE t (x)"), None);
    }
}
