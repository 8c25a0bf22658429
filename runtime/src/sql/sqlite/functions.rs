//! The functions every SQLite connection carries: `regexp` (the `REGEXP` operator),
//! `toolforge_glob` (GLOB without recursion), `toolforge_context` (what row rules read),
//! `ln` (the natural logarithm PostgreSQL has, which bundled SQLite leaves out) and
//! `toolforge_distance_km` (great-circle distances for `find_near`).

use std::sync::Arc;

use rusqlite::Connection;
use rusqlite::functions::FunctionFlags;

use crate::sql::backend::GLOB_FUNCTION;
use crate::sql::sqlite::stoppable_regex::{StoppableRegex, Unanswered};
use crate::sql::sqlite::watch::{Watch, lock};
use crate::sql::text::glob::GlobPattern;

/// The name of the function SQLite connections carry that answers a context value of the call
/// holding the connection (what row rules read).
pub(crate) const CONTEXT_FUNCTION: &str = "toolforge_context";

/// Registers `regexp(pattern, text)` on a connection (SQLite's `text REGEXP pattern`): the
/// regex crate's syntax, the compiled pattern cached per statement, matched by a lazy DFA that
/// stops when the connection's call does (see `stoppable_regex`). NULL text gives NULL.
///
/// ```
/// let conn = toolforge::sql::sqlite::rusqlite::Connection::open_in_memory().unwrap();
/// toolforge::sql::sqlite::register_regexp(&conn).unwrap();
/// let matched: bool = conn
///     .query_row("SELECT 'UserService' REGEXP 'Service$'", [], |r| r.get(0))
///     .unwrap();
/// assert!(matched);
/// ```
pub fn register_regexp(conn: &Connection) -> rusqlite::Result<()> {
    register_regexp_watched(conn, Arc::new(Watch::default()))
}

fn register_regexp_watched(conn: &Connection, watch: Arc<Watch>) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        "regexp",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        move |ctx| {
            let pattern = ctx.get_or_create_aux(0, |value| -> Result<StoppableRegex, String> {
                let text = value
                    .as_str()
                    .map_err(|_| "REGEX pattern must be text".to_string())?;
                StoppableRegex::new(text)
            })?;
            let text = match ctx.get_raw(1) {
                rusqlite::types::ValueRef::Text(bytes) => String::from_utf8_lossy(bytes),
                rusqlite::types::ValueRef::Null => return Ok(None),
                rusqlite::types::ValueRef::Integer(i) => i.to_string().into(),
                rusqlite::types::ValueRef::Real(f) => f.to_string().into(),
                rusqlite::types::ValueRef::Blob(_) => return Ok(None),
            };
            match pattern.is_match_until(&text, || watch.should_stop()) {
                Ok(matched) => Ok(Some(matched)),
                Err(Unanswered::Stopped) => Err(interrupted()),
                Err(Unanswered::TooCostly(refusal)) => {
                    Err(rusqlite::Error::UserFunctionError(Box::new(refusal)))
                }
            }
        },
    )
}

/// SQLite's `SQLITE_INTERRUPT`, without a message: with one, SQLite would report
/// `SQLITE_ERROR` instead of the code.
fn interrupted() -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_INTERRUPT),
        None,
    )
}

/// Registers `toolforge_glob(pattern, text)` on a connection: SQLite's `GLOB` (`text GLOB
/// pattern`) matched without recursion (see `sql/text/glob.rs`), the compiled pattern
/// cached per statement. NULL text gives NULL.
///
/// ```
/// let conn = toolforge::sql::sqlite::rusqlite::Connection::open_in_memory().unwrap();
/// toolforge::sql::sqlite::register_glob(&conn).unwrap();
/// let deep = "*a".repeat(20_000);
/// let matched: bool = conn
///     .query_row("SELECT toolforge_glob(?1, ?2)", (&deep, "a".repeat(20_000)), |r| r.get(0))
///     .unwrap();
/// assert!(matched);
/// ```
pub fn register_glob(conn: &Connection) -> rusqlite::Result<()> {
    register_glob_watched(conn, Arc::new(Watch::default()))
}

fn register_glob_watched(conn: &Connection, watch: Arc<Watch>) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        GLOB_FUNCTION,
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        move |ctx| {
            let pattern = ctx.get_or_create_aux(0, |value| -> Result<GlobPattern, String> {
                match value {
                    rusqlite::types::ValueRef::Text(bytes) => {
                        Ok(GlobPattern::new(&String::from_utf8_lossy(bytes)))
                    }
                    rusqlite::types::ValueRef::Null => Ok(GlobPattern::new("")),
                    _ => Err("GLOB pattern must be text".to_string()),
                }
            })?;
            let text = match ctx.get_raw(1) {
                rusqlite::types::ValueRef::Text(bytes) => String::from_utf8_lossy(bytes),
                rusqlite::types::ValueRef::Null => return Ok(None),
                rusqlite::types::ValueRef::Integer(i) => i.to_string().into(),
                rusqlite::types::ValueRef::Real(f) => f.to_string().into(),
                rusqlite::types::ValueRef::Blob(bytes) => String::from_utf8_lossy(bytes),
            };
            match pattern.is_match_until(&text, || watch.should_stop()) {
                Ok(matched) => Ok(Some(matched)),
                Err(_) => Err(interrupted()),
            }
        },
    )
}

pub(crate) fn configure(conn: &Connection, watch: Arc<Watch>) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    // The query planner's stability guarantee: a cached statement keeps its plan whatever
    // values are bound. Without it SQLite marks a statement to be prepared again whenever a
    // parameter it compared at planning time is bound anew, and the edge lookup of every
    // `explore_relationships` call was parsed and planned again on each call (16 % of the
    // server's CPU in a hop; docs/BENCHMARKS.md, "Statements planned once"). toolforge's
    // statements gain nothing from value-dependent plans: no LIKE prefix ranges, no
    // partial indexes, no STAT4 samples.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    conn.set_prepared_statement_cache_capacity(128);
    register_regexp_watched(conn, watch.clone())?;
    register_glob_watched(conn, watch)?;
    register_ln(conn)?;
    register_distance(conn)
}

/// `toolforge_distance_km(lat1, lon1, lat2, lon2)`: the great-circle distance in kilometres
/// between two places in degrees ([`great_circle_km`](crate::sql::places::great_circle_km),
/// what `find_near` orders by). NULL when any argument is NULL or not a number.
fn register_distance(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        crate::sql::places::DISTANCE_FUNCTION,
        4,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let mut degrees = [0.0; 4];
            for (i, slot) in degrees.iter_mut().enumerate() {
                *slot = match ctx.get_raw(i) {
                    rusqlite::types::ValueRef::Integer(n) => n as f64,
                    rusqlite::types::ValueRef::Real(x) => x,
                    _ => return Ok(None),
                };
            }
            let [lat1, lon1, lat2, lon2] = degrees;
            Ok(Some(crate::sql::places::great_circle_km(
                lat1, lon1, lat2, lon2,
            )))
        },
    )
}

/// `ln(x)`: the natural logarithm, as PostgreSQL's (used by `find_similar`'s Adamic–Adar
/// weights). NULL for NULL, for text and for `x <= 0` (where PostgreSQL raises an error).
fn register_ln(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        "ln",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let x = match ctx.get_raw(0) {
                rusqlite::types::ValueRef::Integer(i) => i as f64,
                rusqlite::types::ValueRef::Real(f) => f,
                _ => return Ok(None),
            };
            Ok((x > 0.0).then(|| x.ln()))
        },
    )
}

/// A connection of no database set up like a read connection (functions, no context
/// values): where `validate` prepares the trusted statements of declared tools.
pub(crate) fn configure_scratch(conn: &Connection) -> rusqlite::Result<()> {
    let watch = Arc::new(Watch::default());
    configure(conn, watch.clone())?;
    register_context(conn, watch)
}

/// `toolforge_context(name)`: the context value `name` of the call holding the connection, or
/// NULL (what row rules read, see `sql/access.rs`).
///
/// Declared deterministic: the values never change while a statement runs (they are set when
/// a call takes the connection, before its statements), so SQLite may compute
/// `toolforge_context('branch')` once per statement run instead of once per row.
pub(crate) fn register_context(conn: &Connection, watch: Arc<Watch>) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        CONTEXT_FUNCTION,
        1,
        rusqlite::functions::FunctionFlags::SQLITE_UTF8
            | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
        move |ctx| {
            let name: String = ctx.get(0)?;
            Ok(lock(&watch.values).get(&name).map(str::to_owned))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::StatementStatus;

    /// A cached statement bound with new values keeps its plan: not parsed and planned again
    /// on every call (what the edge lookup of `explore_relationships`, this statement, did).
    #[test]
    fn a_cached_statement_is_not_prepared_again_for_new_values() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE book (isbn TEXT NOT NULL UNIQUE, title TEXT);
             CREATE TABLE edge (source_id TEXT NOT NULL, target_id TEXT NOT NULL,
                                PRIMARY KEY (source_id, target_id)) WITHOUT ROWID;
             CREATE INDEX edge_target ON edge (target_id, source_id);
             INSERT INTO book VALUES ('b1', 'One'), ('b2', 'Two'), ('b3', 'Three');
             INSERT INTO edge VALUES ('b1', 'a1'), ('b2', 'a1'), ('b3', 'a2');",
        )
        .unwrap();
        configure(&conn, Arc::new(Watch::default())).unwrap();
        let sql = "SELECT \"e\".\"target_id\", \"r\".\"isbn\", \"r\".\"title\" \
                   FROM \"edge\" AS \"e\" JOIN \"book\" AS \"r\" ON \"r\".\"isbn\" = \"e\".\"source_id\" \
                   WHERE \"e\".\"target_id\" = ?1 ORDER BY 1, \"e\".\"source_id\" LIMIT 21 OFFSET 0";
        let mut answers = Vec::new();
        for author in ["a1", "a2", "a1", "a3"] {
            let mut statement = conn.prepare_cached(sql).unwrap();
            let isbns: Vec<String> = statement
                .query_map([author], |row| row.get(1))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            answers.push(isbns);
        }
        assert_eq!(
            answers,
            [vec!["b1", "b2"], vec!["b3"], vec!["b1", "b2"], vec![]]
        );
        let statement = conn.prepare_cached(sql).unwrap();
        assert_eq!(statement.get_status(StatementStatus::RePrepare), 0);
    }
}
