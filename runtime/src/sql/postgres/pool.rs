//! A PostgreSQL database: the pools of read-only and write connections to one server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::{Hook, Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

use crate::sql::backend::{ExecError, Reader, SqlDialect};
use crate::sql::database::DbError;
use crate::sql::postgres::driver::Driver;
use crate::sql::postgres::read_settings::{Given, Parallel, Running};
use crate::sql::postgres::replay::{Log, Next, Replay};
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

/// The most statements [`PgDatabase::read_here`] awaits for one read before the rest goes to a
/// blocking thread (each one more runs the handler again).
pub(crate) const MAX_REPLAYS: usize = 8;

/// How [`PgDatabase::read_here`] ended.
pub(crate) enum Here<T> {
    /// With the handler's answer.
    Answered(T),
    /// With what is left for [`PgDatabase::read_continuing`].
    Continue(Continue),
}

/// A read to go on with on a blocking thread: what its statements answered so far, and its
/// connection.
pub(crate) struct Continue {
    log: Log,
    client: Option<Arc<deadpool_postgres::Object>>,
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
        let pool = |config: tokio_postgres::Config, size: usize, given: Option<Arc<Given>>| {
            let manager = Manager::from_config(
                config,
                NoTls,
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
        let driver = Driver::new()
            .map_err(|error| DbError::Postgres(format!("cannot start the driver: {error}")))?;
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
        cancel: Arc<CancelSlot>,
    ) -> Result<(Session<'_>, Running<'_>), DbError> {
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
        let (running, settings) = self.given.start(millis as u64, self.parallel);
        *lock(&session.settings) = Some(settings);
        Ok((session, running))
    }

    /// Runs `f` on a read-only connection with `statement_timeout` set from `deadline` and
    /// parallel workers as [`Parallel`] allows (sent only when the connection's differ, see
    /// `read_settings.rs`); `f` counts as a running read until it returns. The connection is
    /// taken from the pool with `f`'s first statement, in the same hand-off to the driver.
    /// `cancel` stops the call from another thread ([`PgDatabase::cancel`]).
    pub fn read<T>(
        &self,
        deadline: Option<Instant>,
        cancel: Arc<CancelSlot>,
        f: impl FnOnce(&dyn Reader) -> T,
    ) -> Result<T, DbError> {
        let (session, _running) = self.read_session(deadline, cancel)?;
        Ok(f(&session))
    }

    /// [`PgDatabase::read`] awaited on the caller's runtime, for an `f` that may run more than
    /// once (see `postgres/replay.rs`): `f` runs again each time one more of its statements has
    /// been answered, each statement awaited here without a hand-off to another thread. When
    /// `f` asks for more than [`MAX_REPLAYS`] statements, or not the same ones again, what is
    /// left is for [`PgDatabase::read_continuing`] on a blocking thread.
    pub(crate) async fn read_here<T>(
        &self,
        deadline: Option<Instant>,
        cancel: Arc<CancelSlot>,
        f: &(dyn Fn(&dyn Reader) -> T + Sync),
    ) -> Result<Here<T>, DbError> {
        let (mut session, _running) = self.read_session(deadline, cancel)?;
        let rounds = {
            // Declared after the session, so dropped before it when this future is dropped.
            let mut abandon = Abandon {
                db: self,
                session: &session,
                armed: true,
            };
            let rounds = rounds(&session, f).await;
            abandon.armed = false;
            rounds
        };
        match rounds {
            Rounds::Answered(value) => Ok(Here::Answered(value)),
            Rounds::Left(log) => Ok(Here::Continue(Continue {
                log,
                client: session.client.take(),
            })),
        }
    }

    /// Goes on with a read [`PgDatabase::read_here`] left (blocking the current thread): `f`
    /// runs once more, on the same connection, served from the log while it asks for what the
    /// log holds and live from there.
    pub(crate) fn read_continuing<T>(
        &self,
        deadline: Option<Instant>,
        cancel: Arc<CancelSlot>,
        rest: Continue,
        f: &dyn Fn(&dyn Reader) -> T,
    ) -> Result<T, DbError> {
        let (session, _running) = self.read_session(deadline, cancel)?;
        if let Some(client) = rest.client {
            session.adopt(client).map_err(|error| self.error(error))?;
        }
        let replay = Replay::continuing(&rest.log, &session);
        Ok(f(&replay))
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

/// How the rounds of [`PgDatabase::read_here`] ended.
enum Rounds<T> {
    /// With the handler's answer.
    Answered(T),
    /// With what its statements answered so far, the rest left to a blocking thread.
    Left(Log),
}

/// Runs `f` on `session` round after round, each round awaiting the statement the last one
/// wanted (see `postgres/replay.rs`).
async fn rounds<T>(session: &Session<'_>, f: &(dyn Fn(&dyn Reader) -> T + Sync)) -> Rounds<T> {
    let mut log = Log::new();
    let mut failed = None;
    for round in 0..=MAX_REPLAYS {
        let (value, next, told) = {
            let replay = Replay::new(SqlDialect::Postgres, &log, failed.take());
            let value = f(&replay);
            let told = replay.told_failure();
            (value, replay.next(), told)
        };
        match next {
            Next::Answered => return Rounds::Answered(value),
            // A run told that a statement failed that goes on to another one: the rest runs
            // live, where that statement fails again as it did here.
            Next::Wants(op) if !told && round < MAX_REPLAYS => match session.answer(&op).await {
                Ok(rows) => log.push((op, rows)),
                Err(error) => failed = Some((op, error)),
            },
            _ => break,
        }
    }
    Rounds::Left(log)
}

/// What a read awaited on the caller's runtime does when its future is dropped (a caller's
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

/// Whether a read may be awaited on the current runtime ([`PgDatabase::read_here`]): one with
/// several worker threads. The connections such a read opens are driven by that runtime;
/// one of a single thread could not drive them while that thread waits on a blocking read.
pub(crate) fn drives_here() -> bool {
    tokio::runtime::Handle::try_current().is_ok_and(|handle| {
        handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
            && handle.metrics().num_workers() >= 2
    })
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
