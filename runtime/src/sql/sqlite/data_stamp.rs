//! Whether anything was committed to a SQLite file since a moment: `PRAGMA data_version`
//! changes on a connection when another connection (of this process or another) committed
//! since that connection last asked, but its values mean nothing across connections. So one
//! read-only connection of the database answers for all: behind a lock, it asks, and bumps an
//! epoch when the value changed; the epoch is the stamp every reader of the database agrees
//! on. Two calls given the same epoch had no commit between them: every check between theirs
//! saw the same value.

use std::sync::Mutex;

use rusqlite::Connection;

use crate::sql::backend::{Answer, ExecError, NamedRows, Reader, Refusal, SqlDialect};
use crate::sql::sqlite::reader::ready;
use crate::sql::value::SqlValue;
use crate::sync::lock;

/// The connection that answers for the database, what it last saw and the epoch.
struct Checker {
    conn: Connection,
    seen: i64,
    epoch: u64,
}

/// The stamps of one database file.
pub(crate) struct DataStamps(Mutex<Checker>);

impl DataStamps {
    /// The stamps `conn` (read-only, used for nothing else) answers.
    pub(crate) fn new(conn: Connection) -> rusqlite::Result<DataStamps> {
        let seen = data_version(&conn)?;
        Ok(DataStamps(Mutex::new(Checker {
            conn,
            seen,
            epoch: 0,
        })))
    }

    /// The stamp now.
    fn stamp(&self) -> Result<String, ExecError> {
        let mut checker = lock(&self.0);
        let now = data_version(&checker.conn)?;
        if now != checker.seen {
            checker.seen = now;
            checker.epoch += 1;
        }
        Ok(checker.epoch.to_string())
    }
}

fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA data_version", [], |row| row.get(0))
}

/// A pooled reader as the tools read through it: the connection (behind a lock, so the reader
/// may be shared by the call's future; one call holds it at a time, so the lock is never
/// waited for), and its database's stamps. Every statement runs when it is asked for, on the
/// calling thread: its future is ready when made.
pub(crate) struct StampedReader<'a> {
    /// The read-only connection.
    pub(crate) conn: &'a Mutex<Connection>,
    /// Its database's stamps.
    pub(crate) stamps: &'a DataStamps,
}

impl Reader for StampedReader<'_> {
    fn dialect(&self) -> SqlDialect {
        SqlDialect::Sqlite
    }

    fn rows<'a>(&'a self, sql: &'a str, params: &'a [SqlValue]) -> Answer<'a, Vec<Vec<SqlValue>>> {
        self.conn.rows(sql, params)
    }

    fn temporary_objects<'a>(&'a self, statements: &'a [String]) -> Answer<'a, ()> {
        self.conn.temporary_objects(statements)
    }

    fn trusted_rows<'a>(
        &'a self,
        sql: &'a str,
        params: &'a [SqlValue],
        offset: u64,
        take: u64,
    ) -> Answer<'a, Result<NamedRows, Refusal>> {
        self.conn.trusted_rows(sql, params, offset, take)
    }

    fn data_stamp(&self) -> Answer<'_, Option<String>> {
        ready(self.stamps.stamp().map(Some))
    }
}
