//! The [`Database`] handle: one writer connection and a pool of read-only connections.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, OpenFlags};

use crate::spec::SchemaSpec;

use super::ddl::{SpecError, schema_objects};
use super::schema_diff::{SchemaDifference, plan};

/// A database-level failure (opening, initialising, reading, writing).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DbError {
    /// SQLite reported an error.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The spec cannot be turned into tables.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The database's tables differ from the spec; nothing was changed.
    #[error("the database does not match the config; nothing was changed:\n{}", format_differences(.0))]
    SchemaMismatch(Vec<SchemaDifference>),
    /// The handle was opened read-only.
    #[error("the database was opened read-only")]
    ReadOnly,
    /// A call on the blocking thread pool ended before its closure returned: the closure
    /// panicked, or the runtime is shutting down. A read changes nothing.
    #[error("the database call stopped before it finished")]
    Stopped,
}

fn format_differences(differences: &[SchemaDifference]) -> String {
    differences
        .iter()
        .map(|d| format!("  - {d}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What [`Database::init`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitReport {
    /// Tables and indexes created, in order.
    pub created: Vec<String>,
    /// Tables and indexes that already existed as expected.
    pub unchanged: Vec<String>,
}

struct Pool {
    idle: Mutex<Vec<Connection>>,
    available: Condvar,
    size: usize,
}

struct Inner {
    path: PathBuf,
    writer: Option<Mutex<Connection>>,
    readers: Pool,
}

/// A SQLite database file: a writer connection (WAL mode) and a pool of read-only
/// connections (`SQLITE_OPEN_READ_ONLY` and `PRAGMA query_only`) sized to the available
/// parallelism. Cheap to clone; clones share the connections.
///
/// Every connection has a `regexp(pattern, text)` function (the `REGEXP` operator), backed by
/// the `regex` crate with the compiled pattern cached per statement.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("app.db"))?;
/// let n: i64 = db.read_blocking(|conn| conn.query_row("SELECT 'abc' REGEXP 'b+'", [], |r| r.get(0)))?;
/// assert_eq!(n, 1);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Database {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("path", &self.inner.path)
            .field("writable", &self.inner.writer.is_some())
            .field("readers", &self.inner.readers.size)
            .finish()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Registers `regexp(pattern, text)` on a connection.
pub fn register_regexp(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        "regexp",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let pattern = ctx.get_or_create_aux(0, |value| -> Result<regex::Regex, String> {
                let text = value
                    .as_str()
                    .map_err(|_| "REGEX pattern must be text".to_string())?;
                regex::RegexBuilder::new(text)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| format!("invalid REGEX pattern: {e}"))
            })?;
            let text = match ctx.get_raw(1) {
                rusqlite::types::ValueRef::Text(bytes) => String::from_utf8_lossy(bytes),
                rusqlite::types::ValueRef::Null => return Ok(None),
                other => match other {
                    rusqlite::types::ValueRef::Integer(i) => i.to_string().into(),
                    rusqlite::types::ValueRef::Real(f) => f.to_string().into(),
                    _ => return Ok(None),
                },
            };
            Ok(Some(pattern.is_match(&text)))
        },
    )
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.set_prepared_statement_cache_capacity(128);
    register_regexp(conn)
}

fn open_reader(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    configure(&conn)?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(conn)
}

fn reader_count() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get().max(2))
}

impl Database {
    /// Opens (creating if needed) a database file for reading and writing, in WAL mode.
    pub fn open(path: impl AsRef<Path>) -> Result<Database, DbError> {
        let path = path.as_ref().to_path_buf();
        let writer = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        configure(&writer)?;
        writer.set_prepared_statement_cache_capacity(512);
        writer.pragma_update(None, "journal_mode", "WAL")?;
        writer.pragma_update(None, "synchronous", "NORMAL")?;
        // A 64 MiB page cache keeps index pages of large imports in memory.
        writer.pragma_update(None, "cache_size", -65_536)?;
        writer.pragma_update(None, "temp_store", "MEMORY")?;
        Self::with_readers(path, Some(writer))
    }

    /// Opens an existing database file for reading only (no writer connection).
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Database, DbError> {
        Self::with_readers(path.as_ref().to_path_buf(), None)
    }

    fn with_readers(path: PathBuf, writer: Option<Connection>) -> Result<Database, DbError> {
        let size = reader_count();
        let mut idle = Vec::with_capacity(size);
        for _ in 0..size {
            idle.push(open_reader(&path)?);
        }
        Ok(Database {
            inner: Arc::new(Inner {
                path,
                writer: writer.map(Mutex::new),
                readers: Pool {
                    idle: Mutex::new(idle),
                    available: Condvar::new(),
                    size,
                },
            }),
        })
    }

    /// The number of read-only connections.
    pub fn reader_count(&self) -> usize {
        self.inner.readers.size
    }

    /// Compares the database with the spec without changing anything.
    pub fn check_schema(&self, spec: &SchemaSpec) -> Result<Vec<SchemaDifference>, DbError> {
        let objects = schema_objects(spec)?;
        let plan = self.read_blocking(|conn| plan(conn, &objects))?;
        Ok(plan.differences)
    }

    /// Creates the tables and indexes the spec needs. Idempotent: existing objects with the
    /// expected definition are left alone. If any existing object differs, returns
    /// [`DbError::SchemaMismatch`] listing every difference and changes nothing.
    pub fn init(&self, spec: &SchemaSpec) -> Result<InitReport, DbError> {
        let objects = schema_objects(spec)?;
        self.write_blocking(|conn| {
            let tx = conn.transaction()?;
            let plan = plan(&tx, &objects)?;
            if !plan.differences.is_empty() {
                return Err(DbError::SchemaMismatch(plan.differences));
            }
            let mut report = InitReport {
                created: Vec::new(),
                unchanged: plan.unchanged,
            };
            for object in &plan.missing {
                tx.execute_batch(&object.sql)?;
                report.created.push(object.name.clone());
            }
            tx.commit()?;
            Ok(report)
        })?
    }

    /// Runs `f` with the writer connection (blocking the current thread).
    pub fn write_blocking<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> Result<T, DbError> {
        let writer = self.inner.writer.as_ref().ok_or(DbError::ReadOnly)?;
        let mut conn = lock(writer);
        Ok(f(&mut conn))
    }

    /// Runs `f` with a read-only connection from the pool, waiting for one to be free
    /// (blocking the current thread).
    pub fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> T) -> T {
        let pool = &self.inner.readers;
        let conn = {
            let mut idle = lock(&pool.idle);
            loop {
                if let Some(conn) = idle.pop() {
                    break conn;
                }
                idle = pool
                    .available
                    .wait(idle)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        struct Return<'a> {
            pool: &'a Pool,
            conn: Option<Connection>,
        }
        impl Drop for Return<'_> {
            fn drop(&mut self) {
                if let Some(conn) = self.conn.take() {
                    lock(&self.pool.idle).push(conn);
                    self.pool.available.notify_one();
                }
            }
        }
        let guard = Return {
            pool,
            conn: Some(conn),
        };
        let conn = guard
            .conn
            .as_ref()
            .expect("connection is present until drop");
        f(conn)
    }

    /// Runs `f` on a read-only connection on tokio's blocking thread pool.
    ///
    /// If the returned future is dropped before `f` finishes (a caller's timeout, a cancelled
    /// call), the running statement is interrupted (`sqlite3_interrupt`) and the connection goes
    /// back to the pool. Fails with [`DbError::Stopped`] if `f` panicked or the blocking task was
    /// cancelled.
    pub async fn read<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> T + Send + 'static,
    {
        let db = self.clone();
        let slot: Arc<Mutex<Option<rusqlite::InterruptHandle>>> = Arc::new(Mutex::new(None));
        let guard = InterruptOnDrop {
            slot: slot.clone(),
            armed: true,
        };
        let task = tokio::task::spawn_blocking(move || {
            db.read_blocking(|conn| {
                struct Clear<'a>(&'a Mutex<Option<rusqlite::InterruptHandle>>);
                impl Drop for Clear<'_> {
                    fn drop(&mut self) {
                        lock(self.0).take();
                    }
                }
                *lock(&slot) = Some(conn.get_interrupt_handle());
                let _clear = Clear(&slot);
                f(conn)
            })
        });
        let result = task.await.map_err(|_| DbError::Stopped);
        let mut guard = guard;
        guard.armed = false;
        result
    }
}

/// Interrupts the statement running for a [`Database::read`] whose future was dropped.
struct InterruptOnDrop {
    slot: Arc<Mutex<Option<rusqlite::InterruptHandle>>>,
    armed: bool,
}

impl Drop for InterruptOnDrop {
    fn drop(&mut self) {
        if self.armed {
            // The slot holds a handle only while the caller's closure runs, so this never
            // interrupts another caller's statement on the same connection.
            if let Some(handle) = lock(&self.slot).as_ref() {
                handle.interrupt();
            }
        }
    }
}
