//! One pooled PostgreSQL connection ([`Session`]): a read awaited on the caller's runtime, or
//! statements of a write sent to the driver from a blocking thread; and how a read running on
//! it is cancelled.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::{Object, Pool};

use crate::sql::backend::{
    Answer, BlockingReader, ExecError, NamedRows, Reader, Refusal, SqlDialect, Writer,
};
use crate::sql::ddl::literal;
use crate::sql::postgres::driver::{Driver, in_driver_context};
use crate::sql::postgres::error::describe;
use crate::sql::postgres::placeholders::numbered_placeholders;
use crate::sql::postgres::read_settings::{Change, ReadSettings};
use crate::sql::postgres::types::{PgCell, PgParam};
use crate::sql::value::SqlValue;

/// How many times (50 ms apart) a dropped read's statement is cancelled at most.
pub(crate) const CANCEL_ATTEMPTS: usize = 100;

/// How a session gets its connection: from `pool`, waiting no later than `deadline`.
pub(crate) struct Acquire {
    pub(crate) pool: Pool,
    pub(crate) deadline: Option<Instant>,
    /// The database, for messages.
    pub(crate) label: String,
}

/// What stops a read from another thread: whether its caller went away, and while the
/// session holds a connection, how to cancel the statement running on it.
#[derive(Default)]
pub(crate) struct CancelSlot {
    pub(crate) state: std::sync::Mutex<CancelState>,
}

impl CancelSlot {
    /// Makes the read's statements on `client` cancellable through this slot; fails when the
    /// read was abandoned already.
    fn reach(&self, client: &Object) -> Result<(), ExecError> {
        let mut state = lock(&self.state);
        if state.abandoned {
            return Err(ExecError::Stopped);
        }
        state.token = Some(client.cancel_token());
        Ok(())
    }
}

#[derive(Default)]
pub(crate) struct CancelState {
    pub(crate) abandoned: bool,
    pub(crate) token: Option<tokio_postgres::CancelToken>,
}

/// One pooled connection, used from a blocking thread; taken from the pool by the first
/// statement.
pub(crate) struct Session<'d> {
    pub(crate) driver: &'d Driver,
    pub(crate) acquire: Acquire,
    pub(crate) client: std::sync::OnceLock<Arc<Object>>,
    /// Statements to send before the next one, in the same round trip (session settings).
    pub(crate) prefix: std::sync::Mutex<Option<String>>,
    /// The call's `statement_timeout` and parallel workers, given to the connection with the
    /// first statement.
    pub(crate) settings: std::sync::Mutex<Option<ReadSettings>>,
    pub(crate) cancel: Arc<CancelSlot>,
}

/// The connection a statement runs on: the session's, or one to take from the pool first.
pub(crate) enum Connection {
    Ready(Arc<Object>),
    Acquire(std::pin::Pin<Box<dyn Future<Output = Result<Object, ExecError>> + Send>>),
}

impl Connection {
    /// The connection; one taken from the pool becomes cancellable through `cancel` before
    /// any statement is sent on it.
    pub(crate) async fn get(self, cancel: &CancelSlot) -> Result<Arc<Object>, ExecError> {
        match self {
            Connection::Ready(client) => Ok(client),
            Connection::Acquire(future) => {
                let client = future.await?;
                cancel.reach(&client)?;
                Ok(Arc::new(client))
            }
        }
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let abandoned = {
            let mut state = lock(&self.cancel.state);
            state.token = None;
            state.abandoned
        };
        // A cancelled call's connection may still receive the cancel request: close it.
        if abandoned
            && let Some(client) = self.client.take()
            && let Ok(object) = Arc::try_unwrap(client)
        {
            drop(Object::take(object));
        }
    }
}

pub(crate) use crate::sync::lock;

impl<'d> Session<'d> {
    pub(crate) fn new(driver: &'d Driver, acquire: Acquire, cancel: Arc<CancelSlot>) -> Self {
        Session {
            driver,
            acquire,
            client: std::sync::OnceLock::new(),
            prefix: std::sync::Mutex::new(None),
            settings: std::sync::Mutex::new(None),
            cancel,
        }
    }

    /// The session's connection, or how to take one from the pool.
    pub(crate) fn connection(&self) -> Result<Connection, ExecError> {
        if lock(&self.cancel.state).abandoned {
            return Err(ExecError::Stopped);
        }
        if let Some(client) = self.client.get() {
            return Ok(Connection::Ready(client.clone()));
        }
        let wait = match self.acquire.deadline {
            Some(deadline) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(ExecError::Stopped);
                }
                Some(deadline - now)
            }
            None => None,
        };
        let pool = self.acquire.pool.clone();
        let label = self.acquire.label.clone();
        let driver = self.driver.handle();
        Ok(Connection::Acquire(Box::pin(in_driver_context(
            driver,
            async move {
                let timeouts = deadpool_postgres::Timeouts {
                    wait,
                    create: Some(Duration::from_secs(10)),
                    recycle: Some(Duration::from_secs(10)),
                };
                pool.timeout_get(&timeouts)
                    .await
                    .map_err(|error| match error {
                        deadpool_postgres::PoolError::Timeout(
                            deadpool_postgres::TimeoutType::Wait,
                        ) => ExecError::Stopped,
                        deadpool_postgres::PoolError::Backend(error) => ExecError::Unavailable(
                            format!("cannot connect to {label}: {}", describe(&error)),
                        ),
                        other => {
                            ExecError::Unavailable(format!("cannot connect to {label}: {other}"))
                        }
                    })
            },
        ))))
    }

    /// Keeps the connection a statement ran on.
    pub(crate) fn keep(&self, client: Arc<Object>) {
        if self.client.get().is_none() {
            let _ = self.client.set(client);
        }
    }

    /// Takes the session's connection now (for writes, which hold it for a transaction).
    pub(crate) fn connect(&self) -> Result<(), ExecError> {
        let connection = self.connection()?;
        let cancel = self.cancel.clone();
        let client = self
            .driver
            .block(async move { connection.get(&cancel).await })??;
        self.keep(client);
        Ok(())
    }

    /// Runs `statement` with the session's connection on the driver and waits for it.
    pub(crate) fn run<T, F, Fut>(&self, statement: F) -> Result<T, ExecError>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Object>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, tokio_postgres::Error>> + Send,
    {
        let connection = self.connection()?;
        let cancel = self.cancel.clone();
        let (client, result) = self.driver.block(async move {
            let client = connection.get(&cancel).await?;
            let result = statement(client.clone()).await;
            Ok::<_, ExecError>((client, result))
        })??;
        self.keep(client);
        result.map_err(ExecError::from)
    }

    /// Runs `statement` with the session's connection on the caller's runtime (no hand-off
    /// to the driver); the connection is taken from the pool there if the session has none.
    pub(crate) async fn run_here<T, F, Fut>(&self, statement: F) -> Result<T, ExecError>
    where
        F: FnOnce(Arc<Object>) -> Fut,
        Fut: Future<Output = Result<T, tokio_postgres::Error>>,
    {
        let client = self.connection()?.get(&self.cancel).await?;
        self.keep(client.clone());
        statement(client).await.map_err(ExecError::from)
    }

    /// What goes before the next statement: the call's `statement_timeout` and parallel
    /// workers (sent only if the connection's differ, see [`ReadSettings`]) and the session
    /// settings.
    fn prelude(&self) -> Prelude {
        Prelude {
            read: lock(&self.settings).take(),
            change: None,
            settings: lock(&self.prefix).take(),
        }
    }

    /// Runs statements without parameters (`BEGIN`, DDL).
    pub(crate) fn batch(&self, sql: &str) -> Result<(), ExecError> {
        let sql = sql.to_owned();
        self.run(move |client| async move { client.batch_execute(&sql).await })
    }

    /// Runs one statement with `?N` placeholders and bound parameters; the rows changed. With
    /// `cache`, the prepared statement is kept for the next call with the same SQL.
    pub(crate) fn execute(
        &self,
        sql: &str,
        params: Vec<SqlValue>,
        cache: bool,
    ) -> Result<u64, ExecError> {
        let _span = crate::trace::statement("postgresql", sql);
        let sql = numbered_placeholders(sql);
        self.run(move |client| async move {
            let statement = if cache {
                client.prepare_cached(&sql).await?
            } else {
                client.prepare(&sql).await?
            };
            let params: Vec<PgParam> = params.into_iter().map(PgParam).collect();
            client.execute(&statement, &bound(&params)).await
        })
    }
}

/// What a session sends before its next statement.
struct Prelude {
    read: Option<ReadSettings>,
    /// What `read` changes on the connection, once [`Prelude::statements`] has looked.
    change: Option<Change>,
    settings: Option<String>,
}

impl Prelude {
    /// The statements to send on `client`, joined, if any. Read settings the connection
    /// already has closely enough are not sent, and then not noted by [`Prelude::ran`]
    /// either: what is remembered is always what the connection was given.
    fn statements(&mut self, client: &Object) -> Option<String> {
        self.change = self.read.as_ref().and_then(|read| read.change(client));
        match (&self.change, &self.settings) {
            (Some(change), Some(settings)) => Some(format!("{}; {settings}", change.statements)),
            (Some(change), None) => Some(change.statements.clone()),
            (None, settings) => settings.clone(),
        }
    }

    /// Notes that the statements ran on `client`.
    fn ran(&self, client: &Object) {
        if let (Some(read), Some(change)) = (&self.read, &self.change) {
            read.given(client, change);
        }
    }
}

impl Reader for Session<'_> {
    fn dialect(&self) -> SqlDialect {
        SqlDialect::Postgres
    }

    fn rows<'a>(&'a self, sql: &'a str, params: &'a [SqlValue]) -> Answer<'a, Vec<Vec<SqlValue>>> {
        Box::pin(async move {
            let _span = crate::trace::statement("postgresql", sql);
            let prelude = self.prelude();
            let (sql, params) = (numbered_placeholders(sql), pg_params(params));
            self.run_here(|client| rows(client, prelude, sql, params))
                .await
        })
    }

    fn temporary_objects<'a>(&'a self, statements: &'a [String]) -> Answer<'a, ()> {
        Box::pin(async move {
            let sql = statements.join("; ");
            self.run_here(|client| async move { client.batch_execute(&sql).await })
                .await
        })
    }

    fn session_settings(&self, settings: &[(&str, &str)]) {
        let mut prefix = lock(&self.prefix);
        let mut statements: Vec<String> = prefix.take().into_iter().collect();
        statements.extend(
            settings
                .iter()
                .map(|(name, value)| format!("SET {name} = {}", literal(value))),
        );
        *prefix = Some(statements.join("; "));
    }

    fn trusted_rows<'a>(
        &'a self,
        sql: &'a str,
        params: &'a [SqlValue],
        offset: u64,
        take: u64,
    ) -> Answer<'a, Result<NamedRows, Refusal>> {
        Box::pin(async move {
            let prelude = self.prelude();
            let (sql, params) = (sql.to_owned(), params.to_vec());
            self.run_here(|client| trusted_rows(client, prelude, sql, params, offset, take))
                .await
        })
    }

    /// The snapshot the session reads with: which transactions had completed. Two equal
    /// snapshots see the same data (it covers every database of the server, so a write to
    /// another changes it too).
    fn data_stamp(&self) -> Answer<'_, Option<String>> {
        Box::pin(async move {
            let rows = Reader::rows(self, "SELECT pg_current_snapshot()::text", &[]).await?;
            Ok(
                match rows
                    .into_iter()
                    .next()
                    .and_then(|row| row.into_iter().next())
                {
                    Some(SqlValue::Text(snapshot)) => Some(snapshot),
                    _ => None,
                },
            )
        })
    }
}

impl BlockingReader for Session<'_> {
    fn dialect(&self) -> SqlDialect {
        SqlDialect::Postgres
    }

    fn rows(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, ExecError> {
        let _span = crate::trace::statement("postgresql", sql);
        let prelude = self.prelude();
        let (sql, params) = (numbered_placeholders(sql), pg_params(params));
        self.run(move |client| rows(client, prelude, sql, params))
    }
}

/// Runs `sql` (placeholders already `$N`) with `params` on `client`, after what `prelude`
/// sends (in the same round trip); every row as its values.
async fn rows(
    client: Arc<Object>,
    mut prelude: Prelude,
    sql: String,
    params: Vec<PgParam>,
) -> Result<Vec<Vec<SqlValue>>, tokio_postgres::Error> {
    let prefix = prelude.statements(&client);
    let query = async {
        let statement = client.prepare_cached(&sql).await?;
        client.query(&statement, &bound(&params)).await
    };
    let rows = match &prefix {
        // Both requests go out before either answer is awaited: one round trip.
        Some(prefix) => {
            let (set, rows) = tokio::join!(client.batch_execute(prefix), query);
            set?;
            prelude.ran(&client);
            rows?
        }
        None => query.await?,
    };
    values(rows)
}

/// `params` as the driver encodes them.
fn pg_params(params: &[SqlValue]) -> Vec<PgParam> {
    params.iter().cloned().map(PgParam).collect()
}

/// `params` as the driver binds them.
fn bound(params: &[PgParam]) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
    params
        .iter()
        .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
        .collect()
}

/// Each row's values, in column order.
fn values(rows: Vec<tokio_postgres::Row>) -> Result<Vec<Vec<SqlValue>>, tokio_postgres::Error> {
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let mut values = Vec::with_capacity(row.len());
        for i in 0..row.len() {
            values.push(row.try_get::<_, PgCell>(i)?.0);
        }
        out.push(values);
    }
    Ok(out)
}

/// Runs a declared tool's trusted statement read-only on `client`: the rows after the first
/// `offset`, at most `take`, with the column names.
async fn trusted_rows(
    client: Arc<Object>,
    mut prelude: Prelude,
    sql: String,
    params: Vec<SqlValue>,
    offset: u64,
    take: u64,
) -> Result<Result<NamedRows, Refusal>, tokio_postgres::Error> {
    // A subquery pages it (and refuses a data-modifying CTE, which must be at the top);
    // the transaction is read-only and rolled back, so not even a `set_config` survives.
    let sql = numbered_placeholders(&format!(
        "SELECT * FROM (\n{sql}\n) AS toolforge_sql LIMIT {take} OFFSET {offset}"
    ));
    let params: Vec<PgParam> = params.into_iter().map(PgParam).collect();
    if let Some(statements) = prelude.statements(&client) {
        client.batch_execute(&statements).await?;
        prelude.ran(&client);
    }
    client.batch_execute("BEGIN TRANSACTION READ ONLY").await?;
    let query = async {
        let statement = client.prepare(&sql).await?;
        let rows = client.query(&statement, &bound(&params)).await?;
        let columns: Vec<String> = statement
            .columns()
            .iter()
            .map(|column| column.name().to_owned())
            .collect();
        let rows = values(rows)?;
        Ok::<_, tokio_postgres::Error>(NamedRows { columns, rows })
    };
    let answer = query.await;
    let rolled_back = client.batch_execute("ROLLBACK").await;
    let answer = answer?;
    rolled_back?;
    Ok(Ok(answer))
}

impl Writer for Session<'_> {
    fn execute(&self, sql: &str, params: Vec<SqlValue>) -> Result<u64, ExecError> {
        Session::execute(self, sql, params, true)
    }
}
