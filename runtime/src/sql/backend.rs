//! What the tools, the records API and the query builder need from a database backend: the
//! SQL [`Dialect`] to write statements in, and a reader (a crate-internal trait) that runs a
//! read-only statement with bound parameters.
//!
//! Statements are written with SQLite-style numbered placeholders (`?1`, `?2`, ...) whatever
//! the backend; a backend that spells them differently (PostgreSQL: `$1`) rewrites them
//! outside quoted strings and identifiers ([`numbered_placeholders`]). The few operators whose
//! SQL differs between backends (`REGEX`, `GLOB`, `CONTAINS`, array membership, boolean
//! literals) ask the dialect.

use super::value::SqlValue;

/// The SQL dialect of a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Embedded SQLite (rusqlite, bundled).
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

impl Dialect {
    /// The always-true condition (`WHERE` of a query without conditions).
    pub fn true_sql(self) -> &'static str {
        match self {
            Dialect::Sqlite => "1",
            Dialect::Postgres => "TRUE",
        }
    }

    /// The always-false condition (`IN` an empty list).
    pub fn false_sql(self) -> &'static str {
        match self {
            Dialect::Sqlite => "0",
            Dialect::Postgres => "FALSE",
        }
    }

    /// The backend's name in messages (`SQLite`, `PostgreSQL`).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Sqlite => "SQLite",
            Dialect::Postgres => "PostgreSQL",
        }
    }
}

/// Why a statement failed: the backend's error, kept for its code (never shown as SQL text).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// SQLite reported an error.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL (or the connection to it) reported an error.
    #[cfg(feature = "postgres")]
    #[error(transparent)]
    Postgres(#[from] tokio_postgres::Error),
    /// The statement was stopped because the call's deadline passed or its caller went away.
    #[error("the statement was stopped")]
    Stopped,
    /// No connection to the database server could be had (the message names the server).
    #[cfg(feature = "postgres")]
    #[error("{0}")]
    Unavailable(String),
}

impl ExecError {
    /// Whether the statement was stopped (deadline passed, caller gone) rather than failed.
    pub fn is_stop(&self) -> bool {
        match self {
            ExecError::Sqlite(error) => super::database::is_interrupt(error),
            #[cfg(feature = "postgres")]
            ExecError::Postgres(error) => super::postgres::is_cancel(error),
            ExecError::Stopped => true,
            #[cfg(feature = "postgres")]
            ExecError::Unavailable(_) => false,
        }
    }
}

/// A read-only connection of some backend, as the tools use it.
pub(crate) trait Reader {
    /// The connection's dialect.
    fn dialect(&self) -> Dialect;

    /// Runs `sql` (numbered `?N` placeholders) with `params` bound, and returns every row as
    /// its column values.
    fn rows(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, ExecError>;

    /// Prepares the connection for a call of a spec with row rules (`spec.access`): the views
    /// that apply them, and the call's context values (see [`super::access`]).
    fn enter_access(
        &self,
        spec: &crate::spec::SchemaSpec,
        values: &crate::ContextValues,
    ) -> Result<(), ExecError>;

    /// Runs the trusted statement of a declared tool's `sql:` read-only (see
    /// [`super::trusted`]): the rows after the first `offset`, at most `take`, with the column
    /// names; `Ok(Err(_))` when the statement is refused before it runs.
    fn trusted_rows(
        &self,
        sql: &str,
        params: &[SqlValue],
        offset: u64,
        take: u64,
    ) -> Result<Result<super::trusted::NamedRows, super::trusted::Refusal>, ExecError>;

    /// Runs a statement answering one integer (`SELECT count(*) ...`).
    fn count(&self, sql: &str, params: &[SqlValue]) -> Result<u64, ExecError> {
        let rows = self.rows(sql, params)?;
        Ok(match rows.first().and_then(|row| row.first()) {
            Some(SqlValue::Integer(n)) => (*n).max(0) as u64,
            Some(SqlValue::Real(n)) => n.max(0.0) as u64,
            _ => 0,
        })
    }
}

impl Reader for rusqlite::Connection {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn enter_access(
        &self,
        spec: &crate::spec::SchemaSpec,
        _values: &crate::ContextValues,
    ) -> Result<(), ExecError> {
        // The values reach `toolforge_context` through the read holding the connection.
        super::access::enter_sqlite(self, spec)
    }

    fn trusted_rows(
        &self,
        sql: &str,
        params: &[SqlValue],
        offset: u64,
        take: u64,
    ) -> Result<Result<super::trusted::NamedRows, super::trusted::Refusal>, ExecError> {
        super::trusted::sqlite_rows(self, sql, params, offset, take)
    }

    fn rows(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, ExecError> {
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

/// `sql` with its SQLite-style numbered placeholders (`?1`) written as `$1`, leaving quoted
/// strings (`'...'`), quoted identifiers (`"..."`) and comments alone.
///
/// ```
/// use toolforge::sql::backend::numbered_placeholders;
/// assert_eq!(
///     numbered_placeholders(r#"SELECT "a?1" FROM t WHERE x = ?1 AND y = '?2' AND z IN (?2, ?10)"#),
///     r#"SELECT "a?1" FROM t WHERE x = $1 AND y = '?2' AND z IN ($2, $10)"#
/// );
/// ```
pub fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                out.push(c);
                // A doubled quote inside is an escaped quote: the loop sees it as the end and
                // the start of another quoted run, which reads the same.
                for inner in chars.by_ref() {
                    out.push(inner);
                    if inner == c {
                        break;
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                out.push(c);
                for inner in chars.by_ref() {
                    out.push(inner);
                    if inner == '\n' {
                        break;
                    }
                }
            }
            '?' if chars.peek().is_some_and(char::is_ascii_digit) => out.push('$'),
            other => out.push(other),
        }
    }
    out
}
