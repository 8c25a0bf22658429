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
/// strings (`'...'`, escape strings `E'...'`, dollar-quoted `$$...$$` and `$tag$...$tag$`),
/// quoted identifiers (`"..."`) and comments alone.
///
/// ```
/// use toolforge::sql::backend::numbered_placeholders;
/// assert_eq!(
///     numbered_placeholders(r#"SELECT "a?1" FROM t WHERE x = ?1 AND y = '?2' AND z IN (?2, ?10)"#),
///     r#"SELECT "a?1" FROM t WHERE x = $1 AND y = '?2' AND z IN ($2, $10)"#
/// );
/// assert_eq!(
///     numbered_placeholders(r"SELECT E'\'?1', $$?2$$, $q$?3$q$ /* ?4 */, ?5"),
///     r"SELECT E'\'?1', $$?2$$, $q$?3$q$ /* ?4 */, $5"
/// );
/// ```
pub fn numbered_placeholders(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    // The start of the text not yet copied to `out`.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(end) = super::lex::postgres_quoted_end(sql, i) {
            i = end.unwrap_or(bytes.len());
            continue;
        }
        let next = |at: usize| bytes.get(at).copied();
        i = match bytes[i] {
            b'\'' | b'"' => {
                // A doubled quote reads as the end of one quoted run and the start of the next.
                sql[i + 1..]
                    .find(bytes[i] as char)
                    .map_or(bytes.len(), |n| i + 1 + n + 1)
            }
            b'-' if next(i + 1) == Some(b'-') => {
                sql[i..].find('\n').map_or(bytes.len(), |n| i + n + 1)
            }
            b'/' if next(i + 1) == Some(b'*') => {
                sql[i + 2..].find("*/").map_or(bytes.len(), |n| i + n + 4)
            }
            b'?' if next(i + 1).is_some_and(|b| b.is_ascii_digit()) => {
                out.push_str(&sql[copied..i]);
                out.push('$');
                copied = i + 1;
                i + 1
            }
            _ => i + 1,
        };
    }
    out.push_str(&sql[copied..]);
    out
}
