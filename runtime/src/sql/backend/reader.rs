//! What the engine runs statements on: a read-only connection of some backend ([`Reader`]),
//! and one that may also write ([`Writer`]).

use std::future::Future;
use std::pin::Pin;

use crate::sql::backend::dialect::SqlDialect;
use crate::sql::backend::error::ExecError;
use crate::sql::value::SqlValue;

/// The rows of a trusted statement: column names, then each row's values in that order.
#[derive(Debug, Default)]
pub(crate) struct NamedRows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<SqlValue>>,
}

/// Why a trusted statement was refused before it ran (shown to the caller as is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal(pub String);

/// What a read answers, awaited on its reader: the future a read's work gives for the
/// [`Reader`] it is handed.
pub(crate) type ReadFuture<'r, T> = Pin<Box<dyn Future<Output = T> + Send + 'r>>;

/// What a statement of a [`Reader`] answers, when it has run.
pub(crate) type Answer<'a, T> = Pin<Box<dyn Future<Output = Result<T, ExecError>> + Send + 'a>>;

/// A read-only connection of some backend, as the tools and every read use it: each statement
/// is a future. PostgreSQL's are awaited on the caller's runtime, a dropped one cancelled in the
/// server; SQLite's are ready when they are made (the statement ran on the calling thread, a
/// blocking one, where its progress handler can interrupt it).
pub(crate) trait Reader: Sync {
    /// The connection's dialect.
    fn dialect(&self) -> SqlDialect;

    /// Runs `sql` (numbered `?N` placeholders) with `params` bound, and answers every row as
    /// its column values.
    fn rows<'a>(&'a self, sql: &'a str, params: &'a [SqlValue]) -> Answer<'a, Vec<Vec<SqlValue>>>;

    /// Runs `statements`, which (re)create the connection's own temporary objects (the views
    /// of row rules, see `sql/access.rs`), on a connection otherwise read-only: SQLite lifts
    /// `query_only` while they run; PostgreSQL runs them as given (the script opens its own
    /// read-write transaction).
    fn temporary_objects<'a>(&'a self, statements: &'a [String]) -> Answer<'a, ()>;

    /// Runs the trusted statement of a declared tool's `sql:` read-only (see
    /// `sql/sqlite/trusted.rs` and the PostgreSQL session): the rows after the first `offset`,
    /// at most `take`, with the column names; `Ok(Err(_))` when the statement is refused
    /// before it runs.
    fn trusted_rows<'a>(
        &'a self,
        sql: &'a str,
        params: &'a [SqlValue],
        offset: u64,
        take: u64,
    ) -> Answer<'a, Result<NamedRows, Refusal>>;

    /// Sets session settings (trusted names, values sent as literals) for the statements that
    /// follow on this connection, sent with the next one in the same round trip. PostgreSQL
    /// has them (pgvector's `hnsw.ef_search`, ...); a backend without such settings ignores
    /// them.
    fn session_settings(&self, settings: &[(&str, &str)]) {
        let _ = settings;
    }

    /// A stamp of what the database holds as this connection reads it: two equal stamps of
    /// one database mean that nothing was committed between the reads that gave them, so
    /// what was read at the first still holds at the second (a stamp may also change when
    /// nothing did). `None` when the backend cannot tell: then nothing read may be kept.
    fn data_stamp(&self) -> Answer<'_, Option<String>> {
        Box::pin(std::future::ready(Ok(None)))
    }

    /// Runs a statement answering one integer (`SELECT count(*) ...`).
    fn count<'a>(&'a self, sql: &'a str, params: &'a [SqlValue]) -> Answer<'a, u64> {
        Box::pin(async move { Ok(first_count(&self.rows(sql, params).await?)) })
    }
}

/// The count in the first column of the first row (0 when there is none).
fn first_count(rows: &[Vec<SqlValue>]) -> u64 {
    match rows.first().and_then(|row| row.first()) {
        Some(SqlValue::Integer(n)) => (*n).max(0) as u64,
        Some(SqlValue::Real(n)) => n.max(0.0) as u64,
        _ => 0,
    }
}

/// A connection whose statements block the calling thread: the writer of an import, `init`
/// or a refresh, and the checks made when a database is opened. Reads of the tools go through
/// [`Reader`].
pub(crate) trait BlockingReader {
    /// The connection's dialect.
    fn dialect(&self) -> SqlDialect;

    /// Runs `sql` (numbered `?N` placeholders) with `params` bound, and returns every row as
    /// its column values.
    fn rows(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, ExecError>;

    /// Runs a statement answering one integer (`SELECT count(*) ...`).
    fn count(&self, sql: &str, params: &[SqlValue]) -> Result<u64, ExecError> {
        Ok(first_count(&self.rows(sql, params)?))
    }
}

/// A connection that may also write (the writer of an import or `init`, the PostgreSQL write
/// session).
pub(crate) trait Writer: BlockingReader {
    /// Runs one statement with bound parameters, its prepared form kept for the next call
    /// with the same SQL; the rows changed.
    fn execute(&self, sql: &str, params: Vec<SqlValue>) -> Result<u64, ExecError>;
}
