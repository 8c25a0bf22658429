//! A PostgreSQL database: the pools of read-only and write connections to one server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::{Hook, Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

use crate::sql::backend::{BlockingReader, ExecError, ReadFuture, Reader};
use crate::sql::database::DbError;
use crate::sql::postgres::driver::Driver;
use crate::sql::postgres::read_settings::{Given, Parallel, Running};
use crate::sql::postgres::session::{Acquire, CANCEL_ATTEMPTS, CancelSlot, Session, lock};

/// A PostgreSQL database: the pools and the runtime driving them.
pub(crate) struct PgDatabase {
    pub(crate) driver: Driver,
    /// Read-only connections, for the tools and the records API.
    pub(crate) readers: Pool,
    /// Connections for `init` and imports.
    pub(crate) writers: Pool,
    /// What each read connection was given, and how many reads run.
    pub(crate) given: Arc<Given>,
    /// When a read may use parallel workers.
    pub(crate) parallel: Parallel,
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
            .field("parallel", &self.parallel)
            .finish()
    }
}

/// The read pool's size without `pool_size`: twice the available parallelism (a call waits on
/// the server about as long as it works in the process).
pub(crate) fn default_pool_size() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get().max(2)) * 2
}

/// The most `pool_size` may be.
const MAX_POOL_SIZE: usize = 1_000;

/// toolforge's own parameters in a database URL's query.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct UrlOptions {
    /// `pool_size=N`: the most read connections open at once.
    pub(crate) pool_size: Option<usize>,
    /// `parallel=quiet|always|never`: when a read may use parallel workers.
    pub(crate) parallel: Parallel,
}

/// `url` without toolforge's own query parameters (`pool_size`, `parallel`), and their values.
pub(crate) fn take_url_options(url: &str) -> Result<(String, UrlOptions), DbError> {
    let mut options = UrlOptions::default();
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_owned(), options));
    };
    let mut kept = Vec::new();
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("pool_size", value)) => {
                let parsed = value
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX_POOL_SIZE).contains(n));
                let Some(n) = parsed else {
                    return Err(DbError::Postgres(format!(
                        "`pool_size={value}` in the URL: the most read connections open at \
                         once is a whole number from 1 to {MAX_POOL_SIZE} (default {}, twice \
                         the cores)",
                        default_pool_size()
                    )));
                };
                options.pool_size = Some(n);
            }
            Some(("parallel", value)) => {
                let Some(parallel) = Parallel::parse(value) else {
                    return Err(DbError::Postgres(format!(
                        "`parallel={value}` in the URL: when a read may use PostgreSQL's \
                         parallel workers is `quiet` (the default: while no read of this server \
                         has started beside another for a second), `always` (PostgreSQL's \
                         settings decide) or `never`"
                    )));
                };
                options.parallel = parallel;
            }
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((url, options))
}

pub(crate) fn label(config: &tokio_postgres::Config) -> String {
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
    ///
    /// toolforge's own parameters in the URL's query are taken out before the rest reaches
    /// the driver: `pool_size=N` sets the most read connections open at once (without it,
    /// twice the available parallelism); `parallel=quiet|always|never` when a read may use
    /// PostgreSQL's parallel workers (`quiet`: while no read of this server has started beside
    /// another for a second, see `read_settings.rs`). Writes (`init`, imports) use two
    /// connections of their own.
    pub fn open(url: &str, read_only: bool) -> Result<PgDatabase, DbError> {
        let (url, url_options) = take_url_options(url)?;
        let url = url.as_str();
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
        let size = url_options.pool_size.unwrap_or_else(default_pool_size);
        let given = Arc::new(Given::default());
        let driver = Driver::new()
            .map_err(|error| DbError::Postgres(format!("cannot start the driver: {error}")))?;
        let handle = driver.handle().ok_or(DbError::Stopped)?;
        let pool = |config: tokio_postgres::Config, size: usize, given: Option<Arc<Given>>| {
            let manager = Manager::from_connect(
                config,
                OnDriver {
                    handle: handle.clone(),
                },
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            let mut builder = Pool::builder(manager)
                .max_size(size)
                .runtime(deadpool_postgres::Runtime::Tokio1);
            if let Some(given) = given {
                builder = builder.post_create(Hook::sync_fn(move |client, _| {
                    given.forget(client);
                    Ok(())
                }));
            }
            builder
                .build()
                .map_err(|error| DbError::Postgres(format!("cannot build the pool: {error}")))
        };
        let readers = pool(reader_config, size, Some(given.clone()))?;
        let writers = pool(config, 2, None)?;
        let db = PgDatabase {
            driver,
            readers,
            writers,
            given,
            parallel: url_options.parallel,
            read_only,
            label,
        };
        let session = db.session(&db.readers)?;
        BlockingReader::rows(&session, "SELECT 1", &[]).map_err(|error| db.error(error))?;
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
            ExecError::Backend(error) => {
                DbError::Postgres(format!("{}: {}", self.label, error.describe()))
            }
            other => DbError::from(other),
        }
    }

    /// A connection from the pool for writes, waited for without a deadline.
    pub(crate) fn session(&self, pool: &Pool) -> Result<Session<'_>, DbError> {
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

    /// A read session for a call with `deadline`: its `statement_timeout` and parallel workers
    /// go with its first statement; it counts as a running read while the guard lives.
    fn read_session(
        &self,
        deadline: Option<Instant>,
    ) -> Result<(Session<'_>, Running<'_>), DbError> {
        let session = Session::new(
            &self.driver,
            Acquire {
                pool: self.readers.clone(),
                deadline,
                label: self.label.clone(),
            },
            Arc::default(),
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
        let (running, settings) = self.given.start(millis as u64, self.parallel);
        *lock(&session.settings) = Some(settings);
        Ok((session, running))
    }

    /// Runs the read `f` on a read-only connection, its statements awaited on the caller's
    /// runtime, with `statement_timeout` set from `deadline` and parallel workers as
    /// [`Parallel`] allows (sent with the first statement, and only when the connection's
    /// differ, see `read_settings.rs`); `f` counts as a running read until it ends. The
    /// connection is taken from the pool with `f`'s first statement.
    ///
    /// If the returned future is dropped before `f` ends (a caller's timeout, a cancelled
    /// call), the statement it was running is cancelled in the server and its connection
    /// closed rather than returned to the pool ([`Abandon`]).
    pub(crate) async fn read<T, F>(&self, deadline: Option<Instant>, f: F) -> Result<T, DbError>
    where
        F: for<'r> FnOnce(&'r dyn Reader) -> ReadFuture<'r, T>,
    {
        let (session, _running) = self.read_session(deadline)?;
        // Declared after the session, so dropped before it when this future is dropped.
        let mut abandon = Abandon {
            db: self,
            session: &session,
            armed: true,
        };
        let value = f(&session).await;
        abandon.armed = false;
        Ok(value)
    }

    /// [`PgDatabase::read`] without a deadline, blocking the current thread: the statements
    /// are driven by the handle's own runtime, which also drives every connection of the
    /// pool (see [`OnDriver`]), so this works from any thread, a runtime's too.
    pub(crate) fn read_blocking<T>(
        &self,
        f: impl for<'r> FnOnce(&'r dyn Reader) -> ReadFuture<'r, T>,
    ) -> Result<T, DbError> {
        let handle = self.driver.handle().ok_or(DbError::Stopped)?;
        let _driver = handle.enter();
        let (session, _running) = self.read_session(None)?;
        Ok(pollster::block_on(f(&session)))
    }

    /// Runs `f` on a read-only connection whose statements block the current thread (the
    /// checks of `init`, `validate` and a registry's start-up), without a deadline.
    pub(crate) fn read_statements<T>(
        &self,
        f: impl FnOnce(&dyn BlockingReader) -> T,
    ) -> Result<T, DbError> {
        let session = self.session(&self.readers)?;
        Ok(f(&session))
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

/// How the pools open a connection: on the handle's own runtime, which then drives it. A
/// connection opened on a caller's runtime would be driven by that one, which may end (a
/// test's, a command's) or be blocked by the very thread waiting on it (a blocking read on
/// a runtime of one thread); the driver outlives every connection and is never blocked.
struct OnDriver {
    handle: tokio::runtime::Handle,
}

impl deadpool_postgres::Connect for OnDriver {
    fn connect(
        &self,
        config: &tokio_postgres::Config,
    ) -> std::pin::Pin<
        Box<
            dyn std::future::Future<
                    Output = Result<
                        (tokio_postgres::Client, tokio::task::JoinHandle<()>),
                        tokio_postgres::Error,
                    >,
                > + Send
                + '_,
        >,
    > {
        let config = config.clone();
        let handle = self.handle.clone();
        Box::pin(async move {
            let driver = handle.clone();
            let opened = handle.spawn(async move {
                let (client, connection) = config.connect(NoTls).await?;
                let task = driver.spawn(async move {
                    // The client learns how the connection ended from its next request.
                    let _ = connection.await;
                });
                Ok((client, task))
            });
            match opened.await {
                Ok(opened) => opened,
                // The driver is shutting down (the handle is dropped): the pool's `create`
                // timeout ends the wait.
                Err(_) => std::future::pending().await,
            }
        })
    }
}

/// What a read does when its future is dropped (a caller's
/// timeout, a cancelled call): its statement may still run on its connection, or still be on
/// its way there. The connection is handed to [`drain`] on the driver, and the read counts as
/// abandoned, so its session closes the connection rather than return it to the pool.
struct Abandon<'a> {
    db: &'a PgDatabase,
    session: &'a Session<'a>,
    armed: bool,
}

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let token = {
            let mut state = lock(&self.session.cancel.state);
            state.abandoned = true;
            state.token.clone()
        };
        if let (Some(token), Some(client)) = (token, self.session.client.get().cloned()) {
            self.db.driver.spawn(drain(client, token));
        }
    }
}

/// Cancels what a dropped read may still run on `client`, again every 50 ms until the
/// connection answers a request sent after it (so a statement still on its way is caught
/// too), then closes the connection: a cancel request arriving late can reach no other
/// call's statement.
async fn drain(client: Arc<deadpool_postgres::Object>, token: tokio_postgres::CancelToken) {
    {
        let idle = client.batch_execute("");
        tokio::pin!(idle);
        for _ in 0..CANCEL_ATTEMPTS {
            let _ = token.cancel_query(NoTls).await;
            if tokio::time::timeout(Duration::from_millis(50), &mut idle)
                .await
                .is_ok()
            {
                break;
            }
        }
    }
    if let Ok(object) = Arc::try_unwrap(client) {
        drop(deadpool_postgres::Object::take(object));
    }
}

#[cfg(test)]
mod tests {
    use super::{Parallel, UrlOptions, default_pool_size, take_url_options};

    fn take_pool_size(url: &str) -> Result<(String, Option<usize>), crate::sql::DbError> {
        take_url_options(url).map(|(url, options)| (url, options.pool_size))
    }

    #[test]
    fn parallel_is_taken_out_of_the_url() {
        let (url, options) =
            take_url_options("postgres://app@db/books?parallel=never&pool_size=2&x=1").unwrap();
        assert_eq!(url, "postgres://app@db/books?x=1");
        assert_eq!(
            options,
            UrlOptions {
                pool_size: Some(2),
                parallel: Parallel::Never
            }
        );
        let (_, options) = take_url_options("postgres://app@db/books").unwrap();
        assert_eq!(options.parallel, Parallel::Quiet);
        let error = take_url_options("postgres://db/b?parallel=yes")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("parallel=yes") && error.contains("`quiet`"),
            "{error}"
        );
    }

    #[test]
    fn pool_size_is_taken_out_of_the_url() {
        let (url, size) = take_pool_size("postgres://app@db:5432/books?pool_size=16").unwrap();
        assert_eq!(
            (url.as_str(), size),
            ("postgres://app@db:5432/books", Some(16))
        );
        let (url, size) =
            take_pool_size("postgres://app@db/books?sslmode=disable&pool_size=3&options=x")
                .unwrap();
        assert_eq!(url, "postgres://app@db/books?sslmode=disable&options=x");
        assert_eq!(size, Some(3));
        let (url, size) = take_pool_size("postgres://app@db/books").unwrap();
        assert_eq!((url.as_str(), size), ("postgres://app@db/books", None));
        assert!(default_pool_size() >= 4);
        for bad in ["0", "-1", "many", "1001", ""] {
            let error = take_pool_size(&format!("postgres://db/b?pool_size={bad}"))
                .unwrap_err()
                .to_string();
            assert!(error.contains("1 to 1000"), "{bad}: {error}");
        }
    }
}
