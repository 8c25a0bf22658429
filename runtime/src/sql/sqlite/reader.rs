//! A SQLite connection as the engine reads and writes through it: blocking, as SQLite is
//! ([`BlockingReader`], [`Writer`]); and, behind a lock so a future may share it, as a
//! [`Reader`] whose every statement runs when it is asked for, on the calling thread (its
//! future is ready when made). The pooled readers of the tools add their data stamp
//! (`data_stamp.rs`).

use std::sync::Mutex;

use rusqlite::Connection;

use crate::sql::backend::{
    Answer, BlockingReader, ExecError, NamedRows, Reader, Refusal, SqlDialect, Writer,
};
use crate::sql::sqlite::trusted::sqlite_rows;
use crate::sql::value::SqlValue;
use crate::sync::lock;

impl Reader for Mutex<Connection> {
    fn dialect(&self) -> SqlDialect {
        SqlDialect::Sqlite
    }

    fn rows<'a>(&'a self, sql: &'a str, params: &'a [SqlValue]) -> Answer<'a, Vec<Vec<SqlValue>>> {
        ready(BlockingReader::rows(&*lock(self), sql, params))
    }

    fn temporary_objects<'a>(&'a self, statements: &'a [String]) -> Answer<'a, ()> {
        ready(temporary_objects(&lock(self), statements))
    }

    fn trusted_rows<'a>(
        &'a self,
        sql: &'a str,
        params: &'a [SqlValue],
        offset: u64,
        take: u64,
    ) -> Answer<'a, Result<NamedRows, Refusal>> {
        ready(sqlite_rows(&lock(self), sql, params, offset, take))
    }
}

/// An answer already there.
pub(crate) fn ready<'a, T: Send + 'a>(result: Result<T, ExecError>) -> Answer<'a, T> {
    Box::pin(std::future::ready(result))
}

impl BlockingReader for Connection {
    fn dialect(&self) -> SqlDialect {
        SqlDialect::Sqlite
    }

    fn rows(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, ExecError> {
        let _span = crate::trace::statement("sqlite", sql);
        let mut statement = self.prepare_cached(sql)?;
        let width = statement.column_count();
        let mut rows = statement.query(rusqlite::params_from_iter(params.iter()))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let mut values = Vec::with_capacity(width);
            for i in 0..width {
                values.push(row.get::<_, SqlValue>(i)?);
            }
            out.push(values);
        }
        Ok(out)
    }
}

/// Runs `statements` (temporary objects) on a read-only connection, lifting `query_only`
/// while they run.
fn temporary_objects(conn: &Connection, statements: &[String]) -> Result<(), ExecError> {
    conn.pragma_update(None, "query_only", false)?;
    let created = statements
        .iter()
        .try_for_each(|statement| conn.execute_batch(statement));
    conn.pragma_update(None, "query_only", true)?;
    created.map_err(ExecError::from)
}

impl Writer for rusqlite::Connection {
    fn execute(&self, sql: &str, params: Vec<SqlValue>) -> Result<u64, ExecError> {
        let _span = crate::trace::statement("sqlite", sql);
        let mut statement = self.prepare_cached(sql)?;
        Ok(statement.execute(rusqlite::params_from_iter(params.iter()))? as u64)
    }
}
