//! The PostgreSQL backend: a pool of connections to a server (tokio-postgres, deadpool), the
//! tables a spec needs ([`schema`]), and values moved between JSON types and PostgreSQL's
//! ([`types`]).
//!
//! The pool's connections are driven by a small runtime of the database handle's own, so the
//! blocking APIs ([`Database::init`](super::Database::init), imports) work from any thread, and
//! tool calls (which run their handler on tokio's blocking pool, as over SQLite) send each
//! statement to it and wait for the answer.
//!
//! Tool calls use a pool of their own whose connections open with
//! `default_transaction_read_only = on`, so every statement they run is read-only (as on SQLite,
//! each statement is its own transaction); before a call's first statement, and in the same
//! round trip, `statement_timeout` is set to what is left of the call's deadline (0, no limit,
//! for a call without one). Writes (`init`, imports) use another pool, one transaction each.

mod bulk;
pub mod schema;
pub mod types;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

use super::backend::{Dialect, ExecError, Reader, numbered_placeholders};
use super::database::DbError;
use super::value::SqlValue;
use crate::ToolError;
pub(crate) use bulk::{BulkBatch, Refused, Rows, SAVEPOINT, Sent};
use types::{PgCell, PgParam};

/// Whether `url` names a PostgreSQL database (`postgres://...` or `postgresql://...`).
///
/// ```
/// use toolforge::sql::postgres::is_postgres_url;
/// assert!(is_postgres_url("postgres://app@127.0.0.1:5432/books"));
/// assert!(!is_postgres_url("books.db"));
/// ```
pub fn is_postgres_url(url: &str) -> bool {
    let lower = url.get(..13).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// Whether the error is PostgreSQL's `query_canceled` (57014): `statement_timeout` passed.
pub fn is_cancel(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&tokio_postgres::error::SqlState::QUERY_CANCELED)
}

/// The SQLSTATE of an error, or `connection` when the server gave none.
fn sqlstate(error: &tokio_postgres::Error) -> String {
    error
        .code()
        .map_or_else(|| "connection".to_owned(), |code| code.code().to_owned())
}

/// The structured error a model sees when PostgreSQL fails: the SQLSTATE only, never SQL text,
/// server messages or addresses.
pub fn execution_error(error: &tokio_postgres::Error) -> ToolError {
    let code = sqlstate(error);
    ToolError::execution_failed(format!(
        "The database could not answer this call (PostgreSQL: {code}). The arguments were valid; retrying later or simplifying the conditions may help."
    ))
    .with_details(serde_json::json!({ "postgres_error": code }))
}

/// A message for a person running `db init` or an import: the server's own message (which
/// names constraints and columns, never the statement) and its SQLSTATE.
pub fn describe(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => format!("{error}"),
    }
}

/// A runtime of the handle's own that drives the pool's connections.
struct Driver {
    runtime: Option<tokio::runtime::Runtime>,
}

impl Driver {
    fn new() -> std::io::Result<Driver> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("toolforge-postgres")
            .enable_all()
            .build()?;
        Ok(Driver {
            runtime: Some(runtime),
        })
    }

    /// Starts `future` on the driver without waiting for it.
    fn spawn<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        if let Some(runtime) = &self.runtime {
            runtime.spawn(future);
        }
    }

    /// Runs `future` on the driver and waits for it (blocking the current thread, which must
    /// not be one of the driver's own).
    fn block<F>(&self, future: F) -> Result<F::Output, ExecError>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let runtime = self.runtime.as_ref().ok_or(ExecError::Stopped)?;
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = sender.send(future.await);
        });
        receiver.recv().map_err(|_| ExecError::Stopped)
    }

    /// A handle to the driver's runtime (none once it has stopped).
    fn handle(&self) -> Option<tokio::runtime::Handle> {
        self.runtime
            .as_ref()
            .map(|runtime| runtime.handle().clone())
    }

    /// Starts `future` on the driver; its output is waited for with [`Pending::wait`].
    fn start<F>(&self, future: F) -> Pending<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        if let Some(runtime) = &self.runtime {
            runtime.spawn(async move {
                let _ = sender.send(future.await);
            });
        }
        Pending { receiver }
    }
}

/// Work started on the driver and not waited for yet.
pub(crate) struct Pending<T> {
    receiver: std::sync::mpsc::Receiver<T>,
}

impl<T> Pending<T> {
    /// Waits for the work's output.
    pub(crate) fn wait(self) -> Result<T, ExecError> {
        self.receiver.recv().map_err(|_| ExecError::Stopped)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            // Dropping a runtime blocks, which tokio refuses inside another runtime.
            runtime.shutdown_background();
        }
    }
}

/// A PostgreSQL database: the pools and the runtime driving them.
pub(crate) struct PgDatabase {
    driver: Driver,
    /// Read-only connections, for the tools and the records API.
    readers: Pool,
    /// Connections for `init` and imports.
    writers: Pool,
    /// Writes (`init`, imports) are refused.
    pub read_only: bool,
    /// `user@host:port/name`, without a password, for messages.
    pub label: String,
}

impl std::fmt::Debug for PgDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgDatabase")
            .field("database", &self.label)
            .field("read_only", &self.read_only)
            .field("pool_size", &self.readers.status().max_size)
            .finish()
    }
}

fn label(config: &tokio_postgres::Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|host| match host {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_default();
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "{}@{host}:{port}/{}",
        config.get_user().unwrap_or(""),
        config.get_dbname().unwrap_or("")
    )
}

impl PgDatabase {
    /// Connects to the database at `url` and checks that it answers.
    pub fn open(url: &str, read_only: bool) -> Result<PgDatabase, DbError> {
        let config: tokio_postgres::Config = url.parse().map_err(|error| {
            DbError::Postgres(format!(
                "the URL is not a PostgreSQL connection string ({error}); write it as \
                 postgres://user@host:port/database"
            ))
        })?;
        let label = label(&config);
        let mut reader_config = config.clone();
        let options = match config.get_options() {
            Some(options) => format!("{options} -c default_transaction_read_only=on"),
            None => "-c default_transaction_read_only=on".to_owned(),
        };
        reader_config.options(&options);
        let size = std::thread::available_parallelism().map_or(4, |n| n.get().max(2)) * 2;
        let pool = |config: tokio_postgres::Config, size: usize| {
            let manager = Manager::from_config(
                config,
                NoTls,
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .runtime(deadpool_postgres::Runtime::Tokio1)
                .build()
                .map_err(|error| DbError::Postgres(format!("cannot build the pool: {error}")))
        };
        let readers = pool(reader_config, size)?;
        let writers = pool(config, 2)?;
        let driver = Driver::new()
            .map_err(|error| DbError::Postgres(format!("cannot start the driver: {error}")))?;
        let db = PgDatabase {
            driver,
            readers,
            writers,
            read_only,
            label,
        };
        let session = db.session(&db.readers)?;
        session
            .rows("SELECT 1", &[])
            .map_err(|error| db.error(error))?;
        drop(session);
        Ok(db)
    }

    /// The most connections the pool opens.
    pub fn pool_size(&self) -> usize {
        self.readers.status().max_size
    }

    /// A [`DbError`] for a failed statement, naming the database.
    pub fn error(&self, error: ExecError) -> DbError {
        match error {
            ExecError::Postgres(error) => {
                DbError::Postgres(format!("{}: {}", self.label, describe(&error)))
            }
            other => DbError::from(other),
        }
    }

    /// A connection from the pool for writes, waited for without a deadline.
    fn session(&self, pool: &Pool) -> Result<Session<'_>, DbError> {
        let session = Session::new(
            &self.driver,
            Acquire {
                pool: pool.clone(),
                deadline: None,
                label: self.label.clone(),
            },
            Arc::new(CancelSlot::default()),
        );
        session.connect().map_err(|error| self.error(error))?;
        Ok(session)
    }

    /// Runs `f` on a read-only connection with `statement_timeout` set from `deadline`. The
    /// connection is taken from the pool with `f`'s first statement, in the same hand-off to
    /// the driver. `cancel` stops the call from another thread ([`PgDatabase::cancel`]).
    pub fn read<T>(
        &self,
        deadline: Option<Instant>,
        cancel: Arc<CancelSlot>,
        f: impl FnOnce(&dyn Reader) -> T,
    ) -> Result<T, DbError> {
        let session = Session::new(
            &self.driver,
            Acquire {
                pool: self.readers.clone(),
                deadline,
                label: self.label.clone(),
            },
            cancel,
        );
        let millis = match deadline {
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(DbError::Timeout);
                }
                left.as_millis().clamp(1, i32::MAX as u128)
            }
            None => 0,
        };
        *lock(&session.prefix) = Some(format!("SET statement_timeout = {millis}"));
        Ok(f(&session))
    }

    /// Stops the read that `slot` belongs to: it sends no further statement, the statement
    /// it runs is cancelled on the server (the request is repeated until the read lets go of
    /// its connection, so a statement still on its way is caught too), and its connection is
    /// closed rather than returned to the pool (so no cancel request can reach another
    /// call's statement).
    pub fn cancel(&self, slot: &Arc<CancelSlot>) {
        {
            let mut state = lock(&slot.state);
            state.abandoned = true;
            if state.token.is_none() {
                return;
            }
        }
        let slot = slot.clone();
        self.driver.spawn(async move {
            for _ in 0..CANCEL_ATTEMPTS {
                let token = lock(&slot.state).token.clone();
                let Some(token) = token else { return };
                let _ = token.cancel_query(NoTls).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
    }

    /// Runs `f` in a read-write transaction, committing when it returns `Ok` and rolling back
    /// otherwise.
    pub fn write<T, E>(&self, f: impl FnOnce(&Session<'_>) -> Result<T, E>) -> Result<T, E>
    where
        E: From<DbError>,
    {
        if self.read_only {
            return Err(DbError::ReadOnly.into());
        }
        let session = self.session(&self.writers)?;
        session.batch("BEGIN").map_err(|error| self.error(error))?;
        match f(&session) {
            Ok(value) => {
                session.batch("COMMIT").map_err(|error| self.error(error))?;
                Ok(value)
            }
            Err(error) => {
                let _ = session.batch("ROLLBACK");
                Err(error)
            }
        }
    }
}

/// How many times (50 ms apart) a dropped read's statement is cancelled at most.
const CANCEL_ATTEMPTS: usize = 100;

/// How a session gets its connection: from `pool`, waiting no later than `deadline`.
struct Acquire {
    pool: Pool,
    deadline: Option<Instant>,
    /// The database, for messages.
    label: String,
}

/// What stops a read from another thread: whether its caller went away, and while the
/// session holds a connection, how to cancel the statement running on it.
#[derive(Default)]
pub(crate) struct CancelSlot {
    state: std::sync::Mutex<CancelState>,
}

#[derive(Default)]
struct CancelState {
    abandoned: bool,
    token: Option<tokio_postgres::CancelToken>,
}

/// One pooled connection, used from a blocking thread; taken from the pool by the first
/// statement.
pub(crate) struct Session<'d> {
    driver: &'d Driver,
    acquire: Acquire,
    client: std::sync::OnceLock<Arc<Object>>,
    /// A statement to send before the next one, in the same round trip (`SET
    /// statement_timeout`).
    prefix: std::sync::Mutex<Option<String>>,
    cancel: Arc<CancelSlot>,
}

/// The connection a statement runs on: the session's, or one to take from the pool first.
enum Connection {
    Ready(Arc<Object>),
    Acquire(std::pin::Pin<Box<dyn Future<Output = Result<Object, ExecError>> + Send>>),
}

impl Connection {
    /// The connection; one taken from the pool becomes cancellable through `cancel` before
    /// any statement is sent on it.
    async fn get(self, cancel: &CancelSlot) -> Result<Arc<Object>, ExecError> {
        match self {
            Connection::Ready(client) => Ok(client),
            Connection::Acquire(future) => {
                let client = future.await?;
                let mut state = lock(&cancel.state);
                if state.abandoned {
                    return Err(ExecError::Stopped);
                }
                state.token = Some(client.cancel_token());
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

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<'d> Session<'d> {
    fn new(driver: &'d Driver, acquire: Acquire, cancel: Arc<CancelSlot>) -> Self {
        Session {
            driver,
            acquire,
            client: std::sync::OnceLock::new(),
            prefix: std::sync::Mutex::new(None),
            cancel,
        }
    }

    /// The session's connection, or how to take one from the pool.
    fn connection(&self) -> Result<Connection, ExecError> {
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
        Ok(Connection::Acquire(Box::pin(async move {
            let timeouts = deadpool_postgres::Timeouts {
                wait,
                create: Some(Duration::from_secs(10)),
                recycle: Some(Duration::from_secs(10)),
            };
            pool.timeout_get(&timeouts)
                .await
                .map_err(|error| match error {
                    deadpool_postgres::PoolError::Timeout(deadpool_postgres::TimeoutType::Wait) => {
                        ExecError::Stopped
                    }
                    deadpool_postgres::PoolError::Backend(error) => ExecError::Unavailable(
                        format!("cannot connect to {label}: {}", describe(&error)),
                    ),
                    other => ExecError::Unavailable(format!("cannot connect to {label}: {other}")),
                })
        })))
    }

    /// Keeps the connection a statement ran on.
    fn keep(&self, client: Arc<Object>) {
        if self.client.get().is_none() {
            let _ = self.client.set(client);
        }
    }

    /// Takes the session's connection now (for writes, which hold it for a transaction).
    fn connect(&self) -> Result<(), ExecError> {
        let connection = self.connection()?;
        let cancel = self.cancel.clone();
        let client = self
            .driver
            .block(async move { connection.get(&cancel).await })??;
        self.keep(client);
        Ok(())
    }

    /// Runs `statement` with the session's connection on the driver and waits for it.
    fn run<T, F, Fut>(&self, statement: F) -> Result<T, ExecError>
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
        let sql = numbered_placeholders(sql);
        self.run(move |client| async move {
            let statement = if cache {
                client.prepare_cached(&sql).await?
            } else {
                client.prepare(&sql).await?
            };
            let params: Vec<PgParam> = params.into_iter().map(PgParam).collect();
            let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = params
                .iter()
                .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
                .collect();
            client.execute(&statement, &refs).await
        })
    }
}

impl Reader for Session<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn enter_access(
        &self,
        spec: &crate::spec::SchemaSpec,
        values: &crate::ContextValues,
    ) -> Result<(), ExecError> {
        if spec.access.is_empty() {
            return Ok(());
        }
        let (sql, params) = super::access::postgres_enter(spec, values);
        let rows = self.rows(&sql, &params)?;
        let row = rows.into_iter().next().unwrap_or_default();
        let present = matches!(row.last(), Some(SqlValue::Integer(1)));
        if present {
            return Ok(());
        }
        let schema = match row.get(row.len().saturating_sub(2)) {
            Some(SqlValue::Text(schema)) => schema.clone(),
            _ => "public".to_owned(),
        };
        self.batch(&super::access::postgres_script(spec, &schema))
    }

    fn trusted_rows(
        &self,
        sql: &str,
        params: &[SqlValue],
        offset: u64,
        take: u64,
    ) -> Result<Result<crate::sql::trusted::NamedRows, crate::sql::trusted::Refusal>, ExecError>
    {
        // A subquery pages it (and refuses a data-modifying CTE, which must be at the top);
        // the transaction is read-only and rolled back, so not even a `set_config` survives.
        let sql = numbered_placeholders(&format!(
            "SELECT * FROM (\n{sql}\n) AS toolforge_sql LIMIT {take} OFFSET {offset}"
        ));
        let params: Vec<PgParam> = params.iter().cloned().map(PgParam).collect();
        let prefix = lock(&self.prefix).take();
        self.run(move |client| async move {
            if let Some(prefix) = &prefix {
                client.batch_execute(prefix).await?;
            }
            client.batch_execute("BEGIN TRANSACTION READ ONLY").await?;
            let query = async {
                let statement = client.prepare(&sql).await?;
                let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = params
                    .iter()
                    .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
                    .collect();
                let rows = client.query(&statement, &refs).await?;
                let columns: Vec<String> = statement
                    .columns()
                    .iter()
                    .map(|column| column.name().to_owned())
                    .collect();
                let mut out = Vec::with_capacity(rows.len());
                for row in rows {
                    let mut values = Vec::with_capacity(row.len());
                    for i in 0..row.len() {
                        values.push(row.try_get::<_, PgCell>(i)?.0);
                    }
                    out.push(values);
                }
                Ok::<_, tokio_postgres::Error>(crate::sql::trusted::NamedRows {
                    columns,
                    rows: out,
                })
            };
            let answer = query.await;
            let rolled_back = client.batch_execute("ROLLBACK").await;
            let answer = answer?;
            rolled_back?;
            Ok::<_, tokio_postgres::Error>(Ok(answer))
        })
    }

    fn rows(&self, sql: &str, params: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, ExecError> {
        let sql = numbered_placeholders(sql);
        let params: Vec<PgParam> = params.iter().cloned().map(PgParam).collect();
        let prefix = lock(&self.prefix).take();
        self.run(move |client| async move {
            let query = async {
                let statement = client.prepare_cached(&sql).await?;
                let refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = params
                    .iter()
                    .map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync))
                    .collect();
                client.query(&statement, &refs).await
            };
            let rows = match &prefix {
                // Both requests go out before either answer is awaited: one round trip.
                Some(prefix) => {
                    let (set, rows) = tokio::join!(client.batch_execute(prefix), query);
                    set?;
                    rows?
                }
                None => query.await?,
            };
            let mut out = Vec::with_capacity(rows.len());
            for row in rows {
                let mut values = Vec::with_capacity(row.len());
                for i in 0..row.len() {
                    values.push(row.try_get::<_, PgCell>(i)?.0);
                }
                out.push(values);
            }
            Ok::<_, tokio_postgres::Error>(out)
        })
    }
}
