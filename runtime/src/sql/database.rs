//! The [`Database`] handle: one writer connection and a pool of read-only connections.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, OpenFlags};

use crate::CallBudget;

use crate::spec::SchemaSpec;

use super::backend::{Dialect, ExecError, Reader as AnyReader};
use super::ddl::{ObjectKind, SpecError, schema_objects};
use super::glob::GlobPattern;
use super::schema_diff::{SchemaDifference, SchemaPlan, plan};

#[cfg(feature = "postgres")]
use super::postgres::PgDatabase;
#[cfg(feature = "postgres")]
use super::postgres::schema::{pg_plan, pg_schema_objects};

/// The PostgreSQL URL `path` spells, if it spells one.
#[cfg(feature = "postgres")]
fn postgres_url(path: &Path) -> Option<&str> {
    path.to_str()
        .filter(|text| super::postgres::is_postgres_url(text))
}

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
    /// A write was committed but could not be copied from the `-wal` file into the database
    /// file: until a later write succeeds, the database file alone (without its `-wal`) lacks
    /// it.
    #[error(
        "the write was committed, but copying it from the -wal file into the database file \
         failed (keep the -wal file next to the database): {0}"
    )]
    Checkpoint(#[source] rusqlite::Error),
    /// The database lies in a folder the process cannot write and its `-wal` file holds
    /// changes not yet in the database file, which SQLite cannot read there.
    #[error(
        "{} holds changes that are not in the database file yet, and SQLite cannot read them \
         in a folder it cannot write; open the database once where it can be written (any \
         toolforge write copies them into the database file), or copy both files to a \
         writable folder",
        wal.display()
    )]
    UnreadableWal {
        /// The `-wal` file.
        wal: PathBuf,
    },
    /// The call's deadline passed before a connection was free; nothing was run.
    #[error("the call's deadline passed before a database connection was free")]
    Timeout,
    /// A call that hands out a SQLite connection was made on a PostgreSQL database.
    #[error(
        "this call hands out a SQLite connection, and the database is PostgreSQL; use the \
         tools, the records API or an import instead"
    )]
    NotSqlite,
    /// PostgreSQL (or the connection to it) reported an error: its message and SQLSTATE,
    /// and the database (`user@host:port/name`, never a password).
    #[cfg(feature = "postgres")]
    #[error("PostgreSQL: {0}")]
    Postgres(String),
}

impl DbError {
    /// Whether the error is SQLite's `SQLITE_INTERRUPT`: a statement was stopped because its
    /// call's deadline passed or its caller went away (see [`Database::read`]).
    pub fn is_interrupt(&self) -> bool {
        matches!(self, DbError::Sqlite(error) if is_interrupt(error))
    }
}

impl From<ExecError> for DbError {
    fn from(error: ExecError) -> Self {
        match error {
            ExecError::Sqlite(error) => DbError::Sqlite(error),
            ExecError::Stopped => DbError::Stopped,
            #[cfg(feature = "postgres")]
            ExecError::Unavailable(message) => DbError::Postgres(message),
            #[cfg(feature = "postgres")]
            ExecError::Postgres(error) => DbError::Postgres(super::postgres::describe(&error)),
        }
    }
}

/// Whether `error` is SQLite's `SQLITE_INTERRUPT`: the statement was stopped because its call's
/// deadline passed or its caller went away (see [`Database::read`]).
pub fn is_interrupt(error: &rusqlite::Error) -> bool {
    error.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted)
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

/// What a reader's progress handler and functions watch: the deadline of the call using the
/// connection, and whether that call's caller went away.
#[derive(Debug, Default)]
struct Watch {
    deadline: Mutex<Option<Instant>>,
    abandoned: AtomicBool,
    /// The context values of the call using the connection (what row rules read).
    values: Mutex<crate::ContextValues>,
}

impl Watch {
    fn should_stop(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed)
            || lock(&self.deadline).is_some_and(|deadline| Instant::now() >= deadline)
    }

    fn arm(&self, deadline: Option<Instant>, values: crate::ContextValues) {
        *lock(&self.deadline) = deadline;
        *lock(&self.values) = values;
        self.abandoned.store(false, Ordering::Relaxed);
    }
}

/// A pooled read-only connection and what its progress handler watches.
struct Reader {
    conn: Connection,
    watch: Arc<Watch>,
}

struct Pool {
    idle: Mutex<Vec<Reader>>,
    available: Condvar,
    size: usize,
}

struct Inner {
    path: PathBuf,
    writer: Option<Mutex<Connection>>,
    readers: Pool,
}

/// A SQLite database file: a writer connection (new databases in WAL mode) and a pool of
/// read-only connections (`SQLITE_OPEN_READ_ONLY` and `PRAGMA query_only`) sized to the
/// available parallelism. Cheap to clone; clones share the connections.
///
/// Every write ([`Database::write_blocking`], hence [`Database::init`] and
/// [`Database::import`]) ends with a checkpoint, so the database file alone holds everything
/// committed.
///
/// Every connection has a `regexp(pattern, text)` function (the `REGEXP` operator), backed by
/// the `regex` crate with the compiled pattern cached per statement, and a
/// `toolforge_glob(pattern, text)` function: SQLite's `GLOB` without its recursion (see
/// [`glob`](super::glob)).
///
/// A read run for a call through a registry ([`Database::read`] inside a tool) stops inside
/// SQLite when the call's deadline passes ([`CallBudget::deadline`]): a progress handler
/// checks it every thousand virtual-machine steps and `toolforge_glob` every few thousand
/// matching steps, the statement fails with `SQLITE_INTERRUPT`, and the connection goes back
/// to the pool ready for the next call.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("app.db"))?;
/// let n: i64 = db.read_blocking(|conn| conn.query_row("SELECT 'abc' REGEXP 'b+'", [], |r| r.get(0)))??;
/// assert_eq!(n, 1);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Database {
    backend: Backend,
    /// Computes embeddings on writes and for searches ([`Database::with_embedder`]).
    embedder: Option<Arc<dyn crate::embed::Embedder>>,
    /// Vectors kept in memory for searches, shared by every clone of the handle.
    vectors: Arc<super::vectors::VectorCache>,
}

/// The backend a [`Database`] runs on.
#[derive(Clone)]
enum Backend {
    Sqlite(Arc<Inner>),
    #[cfg(feature = "postgres")]
    Postgres(Arc<PgBackend>),
}

/// A PostgreSQL database and the PostgreSQL views of the specs used with it.
#[cfg(feature = "postgres")]
struct PgBackend {
    db: PgDatabase,
    views: Mutex<Vec<(Arc<SchemaSpec>, Arc<SchemaSpec>)>>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.backend {
            Backend::Sqlite(inner) => f
                .debug_struct("Database")
                .field("path", &inner.path)
                .field("writable", &inner.writer.is_some())
                .field("readers", &inner.readers.size)
                .finish(),
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => f
                .debug_struct("Database")
                .field("postgres", &pg.db.label)
                .field("writable", &!pg.db.read_only)
                .finish(),
        }
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

/// The name of the GLOB function the query builder uses (see [`register_glob`]).
pub const GLOB_FUNCTION: &str = "toolforge_glob";

/// Registers `toolforge_glob(pattern, text)` on a connection: SQLite's `GLOB` (`text GLOB
/// pattern`) matched without recursion (see [`glob`](super::glob)), the compiled pattern
/// cached per statement. NULL text gives NULL.
///
/// ```
/// let conn = toolforge::sql::rusqlite::Connection::open_in_memory().unwrap();
/// toolforge::sql::database::register_glob(&conn).unwrap();
/// let deep = "*a".repeat(20_000);
/// let matched: bool = conn
///     .query_row("SELECT toolforge_glob(?1, ?2)", (&deep, "a".repeat(20_000)), |r| r.get(0))
///     .unwrap();
/// assert!(matched);
/// ```
pub fn register_glob(conn: &Connection) -> rusqlite::Result<()> {
    register_glob_watched(conn, Arc::new(Watch::default()))
}

fn register_glob_watched(conn: &Connection, watch: Arc<Watch>) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        GLOB_FUNCTION,
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        move |ctx| {
            let pattern = ctx.get_or_create_aux(0, |value| -> Result<GlobPattern, String> {
                match value {
                    rusqlite::types::ValueRef::Text(bytes) => {
                        Ok(GlobPattern::new(&String::from_utf8_lossy(bytes)))
                    }
                    rusqlite::types::ValueRef::Null => Ok(GlobPattern::new("")),
                    _ => Err("GLOB pattern must be text".to_string()),
                }
            })?;
            let text = match ctx.get_raw(1) {
                rusqlite::types::ValueRef::Text(bytes) => String::from_utf8_lossy(bytes),
                rusqlite::types::ValueRef::Null => return Ok(None),
                rusqlite::types::ValueRef::Integer(i) => i.to_string().into(),
                rusqlite::types::ValueRef::Real(f) => f.to_string().into(),
                rusqlite::types::ValueRef::Blob(bytes) => String::from_utf8_lossy(bytes),
            };
            match pattern.is_match_until(&text, || watch.should_stop()) {
                Ok(matched) => Ok(Some(matched)),
                // No message: with one, SQLite would report SQLITE_ERROR instead of the code.
                Err(_) => Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_INTERRUPT),
                    None,
                )),
            }
        },
    )
}

fn configure(conn: &Connection, watch: Arc<Watch>) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.set_prepared_statement_cache_capacity(128);
    register_regexp(conn)?;
    register_glob_watched(conn, watch)
}

/// A connection of no database set up like a read connection (functions, no context
/// values): where `validate` prepares the trusted statements of declared tools.
pub(crate) fn configure_scratch(conn: &Connection) -> rusqlite::Result<()> {
    let watch = Arc::new(Watch::default());
    configure(conn, watch.clone())?;
    register_context(conn, watch)
}

/// `toolforge_context(name)`: the context value `name` of the call holding the connection, or
/// NULL (what row rules read, see [`super::access`]).
///
/// Declared deterministic: the values never change while a statement runs (they are set when
/// a call takes the connection, before its statements), so SQLite may compute
/// `toolforge_context('branch')` once per statement run instead of once per row.
fn register_context(conn: &Connection, watch: Arc<Watch>) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        super::access::CONTEXT_FUNCTION,
        1,
        rusqlite::functions::FunctionFlags::SQLITE_UTF8
            | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
        move |ctx| {
            let name: String = ctx.get(0)?;
            Ok(lock(&watch.values).get(&name).map(str::to_owned))
        },
    )
}

/// How many SQLite virtual-machine steps run between two checks of a read's deadline.
const STEPS_BETWEEN_CHECKS: i32 = 1_000;

/// How the read-only connections open the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// As a file others may write (the normal case).
    Shared,
    /// With `immutable=1`: SQLite assumes nobody changes the file and needs no `-shm` or
    /// `-wal` file (read-only media).
    Immutable,
}

/// `file:` URI of `path` with `immutable=1` (`%`, `?` and `#` escaped), if `path` is text.
fn immutable_uri(path: &Path) -> Option<String> {
    let text = path.to_str()?;
    let mut uri = String::from(if text.starts_with('/') {
        "file://"
    } else {
        "file:"
    });
    for c in text.chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            other => uri.push(other),
        }
    }
    uri.push_str("?immutable=1");
    Some(uri)
}

fn open_reader(path: &Path, access: Access) -> rusqlite::Result<Reader> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = match access {
        Access::Shared => Connection::open_with_flags(path, flags)?,
        Access::Immutable => {
            let uri = immutable_uri(path)
                .ok_or_else(|| rusqlite::Error::InvalidPath(path.to_path_buf()))?;
            Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)?
        }
    };
    let watch = Arc::new(Watch::default());
    configure(&conn, watch.clone())?;
    register_context(&conn, watch.clone())?;
    super::trusted::install_authorizer(&mut conn)?;
    conn.pragma_update(None, "query_only", true)?;
    let handler_watch = watch.clone();
    conn.progress_handler(
        STEPS_BETWEEN_CHECKS,
        Some(move || handler_watch.should_stop()),
    )?;
    Ok(Reader { conn, watch })
}

/// Whether reading failed because SQLite needed to create or write a file next to the
/// database (its `-shm` or `-wal`) and could not.
fn needs_write_access(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
    )
}

/// The `-wal` file of the database at `path`.
fn wal_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

fn reader_count() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get().max(2))
}

impl Database {
    /// Opens (creating if needed) a database file for reading and writing.
    ///
    /// A new (empty) database is put in WAL mode, so that reads go on while a write runs. An
    /// existing database keeps its journal mode: opening it changes nothing in the file, so a
    /// write that is refused leaves it exactly as it was.
    pub fn open(path: impl AsRef<Path>) -> Result<Database, DbError> {
        #[cfg(feature = "postgres")]
        if let Some(url) = postgres_url(path.as_ref()) {
            return Database::postgres(url, false);
        }
        let path = path.as_ref().to_path_buf();
        let writer = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        configure(&writer, Arc::new(Watch::default()))?;
        writer.set_prepared_statement_cache_capacity(512);
        let pages: i64 = writer.query_row("PRAGMA page_count", [], |row| row.get(0))?;
        if pages == 0 {
            writer.pragma_update(None, "journal_mode", "WAL")?;
        }
        let mode: String = writer.query_row("PRAGMA journal_mode", [], |row| row.get(0))?;
        if mode.eq_ignore_ascii_case("wal") {
            // Safe in WAL mode (a power loss can lose the last commits, never corrupt).
            writer.pragma_update(None, "synchronous", "NORMAL")?;
        }
        // A 64 MiB page cache keeps index pages of large imports in memory.
        writer.pragma_update(None, "cache_size", -65_536)?;
        writer.pragma_update(None, "temp_store", "MEMORY")?;
        Self::with_readers(path, Some(writer), Access::Shared)
    }

    /// Opens an existing database file for reading only (no writer connection).
    ///
    /// Works on read-only media too: a WAL database needs a `-shm` file next to it, which
    /// SQLite cannot create in a folder the process cannot write. When reading fails for that
    /// reason, the file is opened `immutable` (SQLite then assumes nobody changes it while it
    /// is open, which holds on read-only media). If a `-wal` file with content lies next to
    /// it, those changes could not be read that way: that is [`DbError::UnreadableWal`].
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Database, DbError> {
        #[cfg(feature = "postgres")]
        if let Some(url) = postgres_url(path.as_ref()) {
            return Database::postgres(url, true);
        }
        let path = path.as_ref().to_path_buf();
        let shared = Self::with_readers(path.clone(), None, Access::Shared).and_then(|db| {
            db.read_blocking(|conn| {
                conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
            })??;
            Ok(db)
        });
        match shared {
            Err(DbError::Sqlite(error)) if path.is_file() && needs_write_access(&error) => {
                let wal = wal_path(&path);
                if std::fs::metadata(&wal).is_ok_and(|meta| meta.len() > 0) {
                    return Err(DbError::UnreadableWal { wal });
                }
                Self::with_readers(path, None, Access::Immutable)
            }
            other => other,
        }
    }

    fn with_readers(
        path: PathBuf,
        writer: Option<Connection>,
        access: Access,
    ) -> Result<Database, DbError> {
        let size = reader_count();
        let mut idle = Vec::with_capacity(size);
        for _ in 0..size {
            idle.push(open_reader(&path, access)?);
        }
        Ok(Database {
            embedder: None,
            vectors: Arc::default(),
            backend: Backend::Sqlite(Arc::new(Inner {
                path,
                writer: writer.map(Mutex::new),
                readers: Pool {
                    idle: Mutex::new(idle),
                    available: Condvar::new(),
                    size,
                },
            })),
        })
    }

    /// The same database, computing embeddings with `embedder`: imports and typed writes fill
    /// the vector indexes that have a source field, and `semantic_search` embeds its query
    /// with it. Clones share the connections and the vectors kept in memory.
    pub fn with_embedder(mut self, embedder: Arc<dyn crate::embed::Embedder>) -> Database {
        self.embedder = Some(embedder);
        self
    }

    /// The embedder set with [`Database::with_embedder`].
    pub fn embedder(&self) -> Option<&Arc<dyn crate::embed::Embedder>> {
        self.embedder.as_ref()
    }

    /// Searches large vector indexes through an HNSW graph as `settings` say (by default from
    /// 200,000 vectors on): a graph is built on a background thread when an index's vectors are
    /// loaded, and searches are exact until it is ready. Forgets the vectors loaded so far.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolforge::sql::{ApproximateSettings, Database};
    /// let dir = tempfile::tempdir()?;
    /// let db = Database::open(dir.path().join("app.db"))?.with_approximate_search(
    ///     ApproximateSettings { min_vectors: 50_000, ..ApproximateSettings::default() },
    /// );
    /// # let _ = db; Ok(()) }
    /// ```
    #[cfg(feature = "ann")]
    pub fn with_approximate_search(
        mut self,
        settings: super::vectors::ApproximateSettings,
    ) -> Database {
        self.vectors = Arc::new(super::vectors::VectorCache::with_approximate(settings));
        self
    }

    /// Loads the vectors of every index of `spec` into memory and builds the graph of each
    /// large one now, so that the first searches are fast (for a server's start-up). Returns
    /// how many indexes are searched through a graph.
    #[cfg(feature = "ann")]
    pub async fn prepare_vector_search(&self, spec: &Arc<SchemaSpec>) -> Result<usize, DbError> {
        let spec = self.spec_for(spec);
        let db = self.clone();
        self.read_any(move |conn| {
            let mut graphs = 0;
            for entity in &spec.entities {
                for index in &entity.vector_indexes {
                    let vectors = db.vectors.vectors_ready(conn, entity, index)?;
                    graphs += usize::from(vectors.is_approximate());
                }
            }
            Ok::<_, ExecError>(graphs)
        })
        .await?
        .map_err(DbError::from)
    }

    /// The vectors kept in memory for searches.
    pub(crate) fn vector_cache(&self) -> &super::vectors::VectorCache {
        &self.vectors
    }

    /// The SQL dialect of the database's backend.
    pub fn dialect(&self) -> Dialect {
        match &self.backend {
            Backend::Sqlite(_) => Dialect::Sqlite,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Dialect::Postgres,
        }
    }

    /// The SQLite side of the handle, or [`DbError::NotSqlite`].
    fn sqlite(&self) -> Result<&Inner, DbError> {
        match &self.backend {
            Backend::Sqlite(inner) => Ok(inner),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Err(DbError::NotSqlite),
        }
    }

    /// Connects to a PostgreSQL database (see [`Database::open`]).
    #[cfg(feature = "postgres")]
    fn postgres(url: &str, read_only: bool) -> Result<Database, DbError> {
        Ok(Database {
            embedder: None,
            vectors: Arc::default(),
            backend: Backend::Postgres(Arc::new(PgBackend {
                db: PgDatabase::open(url, read_only)?,
                views: Mutex::new(Vec::new()),
            })),
        })
    }

    /// `spec` as this database's backend runs it: on PostgreSQL, with every computed field's
    /// PostgreSQL expression in place of its SQLite one (cached per spec).
    pub fn spec_for(&self, spec: &Arc<SchemaSpec>) -> Arc<SchemaSpec> {
        match &self.backend {
            Backend::Sqlite(_) => spec.clone(),
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => {
                let mut views = lock(&pg.views);
                if let Some((_, view)) = views.iter().find(|(source, _)| Arc::ptr_eq(source, spec))
                {
                    return view.clone();
                }
                let view = Arc::new(spec.for_postgres());
                views.push((spec.clone(), view.clone()));
                view
            }
        }
    }

    /// The number of read-only connections.
    pub fn reader_count(&self) -> usize {
        match &self.backend {
            Backend::Sqlite(inner) => inner.readers.size,
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => pg.db.pool_size(),
        }
    }

    /// Compares the database with the spec without changing anything.
    pub fn check_schema(&self, spec: &SchemaSpec) -> Result<Vec<SchemaDifference>, DbError> {
        Ok(self.schema_plan(spec)?.differences)
    }

    /// What [`Database::init`] would do: the objects missing, unchanged and different.
    /// Changes nothing.
    pub fn schema_plan(&self, spec: &SchemaSpec) -> Result<SchemaPlan, DbError> {
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            let objects = pg_schema_objects(spec)?;
            return pg
                .db
                .read(None, Default::default(), |conn| pg_plan(conn, &objects))?
                .map_err(|error| pg.db.error(error));
        }
        let objects = schema_objects(spec)?;
        Ok(self.read_blocking(|conn| plan(conn, &objects))??)
    }

    /// Creates the tables and indexes the spec needs. Idempotent: existing objects with the
    /// expected definition are left alone. If any existing object differs, returns
    /// [`DbError::SchemaMismatch`] listing every difference and changes nothing.
    pub fn init(&self, spec: &SchemaSpec) -> Result<InitReport, DbError> {
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            let objects = pg_schema_objects(spec)?;
            return pg.db.write(|session| {
                let plan = pg_plan(session, &objects).map_err(|error| pg.db.error(error))?;
                if !plan.differences.is_empty() {
                    return Err(DbError::SchemaMismatch(plan.differences));
                }
                let mut report = InitReport {
                    created: Vec::new(),
                    unchanged: plan.unchanged,
                };
                for object in &plan.missing {
                    session
                        .batch(&object.sql)
                        .map_err(|error| pg.db.error(error))?;
                    report.created.push(object.name.clone());
                }
                // A full-text index created over rows already stored indexes them now.
                for entity in &spec.entities {
                    let terms = super::full_text::pg_terms_table(entity);
                    if report.created.contains(&terms) {
                        super::full_text::reindex(session, entity, None)
                            .map_err(|error| pg.db.error(error))?;
                    }
                }
                Ok(report)
            });
        }
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
            let mut rebuild: Vec<&str> = Vec::new();
            for object in &plan.missing {
                tx.execute_batch(&object.sql)?;
                report.created.push(object.name.clone());
                if matches!(object.kind, ObjectKind::FullTextTable | ObjectKind::Trigger)
                    && !rebuild.contains(&object.table.as_str())
                {
                    rebuild.push(&object.table);
                }
            }
            // A full-text table created (or a trigger restored) over rows already stored
            // indexes them now.
            for table in rebuild {
                let table = super::ident::quote(table);
                tx.execute_batch(&format!("INSERT INTO {table}({table}) VALUES ('rebuild')"))?;
            }
            tx.commit()?;
            Ok(report)
        })?
    }

    /// Runs `f` with the writer connection (blocking the current thread), then copies what
    /// it wrote from the `-wal` file into the database file (`PRAGMA
    /// wal_checkpoint(TRUNCATE)`), so that the database file alone holds every committed
    /// write: copying only the `.db` file gives all the data. A checkpoint that fails is
    /// [`DbError::Checkpoint`] (the write itself was committed); one that cannot finish
    /// because readers still use older data is completed by a later write.
    pub fn write_blocking<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> Result<T, DbError> {
        let writer = self.sqlite()?.writer.as_ref().ok_or(DbError::ReadOnly)?;
        let mut conn = lock(writer);
        let result = f(&mut conn);
        if conn.is_autocommit() {
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .map_err(DbError::Checkpoint)?;
        }
        Ok(result)
    }

    /// Runs `f` with a read-only connection from the pool, waiting for one to be free
    /// (blocking the current thread). No deadline applies. On a PostgreSQL database, which
    /// has no SQLite connection to hand out, the answer is [`DbError::NotSqlite`] (check with
    /// [`Database::dialect`]).
    pub fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> T) -> Result<T, DbError> {
        self.read_until(None, &CallSlot::default(), crate::ContextValues::new(), f)
    }

    /// Runs `f` on a read-only connection, stopping SQLite at `deadline` (and when `call` is
    /// abandoned); waits for a free connection no later than the deadline.
    fn read_until<T>(
        &self,
        deadline: Option<Instant>,
        call: &CallSlot,
        values: crate::ContextValues,
        f: impl FnOnce(&Connection) -> T,
    ) -> Result<T, DbError> {
        let pool = &self.sqlite()?.readers;
        let reader = {
            let mut idle = lock(&pool.idle);
            loop {
                if let Some(reader) = idle.pop() {
                    break reader;
                }
                if lock(&call.state).abandoned {
                    return Err(DbError::Stopped);
                }
                idle = match deadline {
                    None => pool
                        .available
                        .wait(idle)
                        .unwrap_or_else(PoisonError::into_inner),
                    Some(deadline) => {
                        let now = Instant::now();
                        if now >= deadline {
                            return Err(DbError::Timeout);
                        }
                        pool.available
                            .wait_timeout(idle, deadline - now)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0
                    }
                };
            }
        };
        struct Return<'a> {
            pool: &'a Pool,
            call: &'a CallSlot,
            reader: Option<Reader>,
        }
        impl Drop for Return<'_> {
            fn drop(&mut self) {
                lock(&self.call.state).running = None;
                if let Some(reader) = self.reader.take() {
                    reader.watch.arm(None, crate::ContextValues::new());
                    lock(&self.pool.idle).push(reader);
                    self.pool.available.notify_one();
                }
            }
        }
        reader.watch.arm(deadline, values);
        {
            let mut state = lock(&call.state);
            if state.abandoned {
                reader.watch.abandoned.store(true, Ordering::Relaxed);
            }
            state.running = Some((reader.conn.get_interrupt_handle(), reader.watch.clone()));
        }
        let guard = Return {
            pool,
            call,
            reader: Some(reader),
        };
        let conn = &guard
            .reader
            .as_ref()
            .expect("connection is present until drop")
            .conn;
        Ok(f(conn))
    }

    /// Runs `f` on a read-only connection on tokio's blocking thread pool.
    ///
    /// Inside a call through a registry, the call's deadline ([`CallBudget::current_deadline`])
    /// applies: SQLite stops the running statement when it passes (the statement fails with
    /// `SQLITE_INTERRUPT`, see [`is_interrupt`]), and a wait for a free connection ends with
    /// [`DbError::Timeout`]. If the returned future is dropped before `f` finishes (a caller's
    /// timeout, a cancelled call), the running statement is interrupted the same way. Either
    /// way the connection goes back to the pool. Fails with [`DbError::Stopped`] if `f`
    /// panicked or the blocking task was cancelled.
    pub async fn read<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> T + Send + 'static,
    {
        self.read_with(crate::ContextValues::new(), f).await
    }

    /// [`Database::read`] for a call with context values (what row rules read).
    async fn read_with<T, F>(&self, values: crate::ContextValues, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> T + Send + 'static,
    {
        let db = self.clone();
        let deadline = CallBudget::current_deadline();
        let call = Arc::new(CallSlot::default());
        let guard = InterruptOnDrop {
            call: call.clone(),
            armed: true,
        };
        let task = tokio::task::spawn_blocking(move || db.read_until(deadline, &call, values, f));
        let result = task.await.map_err(|_| DbError::Stopped).and_then(|r| r);
        let mut guard = guard;
        guard.armed = false;
        result
    }
}

impl Database {
    /// Runs `f` on a read-only connection of whatever backend (see [`Database::read`] for the
    /// deadline, cancellation and errors).
    pub(crate) async fn read_any<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn AnyReader) -> T + Send + 'static,
    {
        self.read_any_with(crate::ContextValues::new(), f).await
    }

    /// [`Database::read_any`] for a call with context values: on SQLite they are what the
    /// connection's `toolforge_context` answers while `f` runs.
    pub(crate) async fn read_any_with<T, F>(
        &self,
        values: crate::ContextValues,
        f: F,
    ) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn AnyReader) -> T + Send + 'static,
    {
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            let pg = pg.clone();
            let deadline = CallBudget::current_deadline();
            let slot = Arc::new(super::postgres::CancelSlot::default());
            // Dropped before the read ends (a caller's timeout, a cancelled call): the
            // running statement is cancelled on the server.
            let guard = CancelPgOnDrop {
                pg: pg.clone(),
                slot: slot.clone(),
                armed: true,
            };
            let result = tokio::task::spawn_blocking(move || pg.db.read(deadline, slot, f))
                .await
                .map_err(|_| DbError::Stopped);
            let mut guard = guard;
            guard.armed = false;
            return result?;
        }
        self.read_with(values, move |conn| f(conn)).await
    }

    /// Runs `f` on a read-only connection of whatever backend, blocking the current thread,
    /// without a deadline: for checks when a registry is built.
    pub(crate) fn read_any_blocking<T>(
        &self,
        f: impl FnOnce(&dyn AnyReader) -> T + Send + 'static,
    ) -> Result<T, DbError>
    where
        T: Send + 'static,
    {
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            return pg
                .db
                .read(None, Arc::new(super::postgres::CancelSlot::default()), f);
        }
        self.read_blocking(|conn| f(conn))
    }

    /// The PostgreSQL side of the handle, if it is one.
    #[cfg(feature = "postgres")]
    pub(crate) fn postgres_db(&self) -> Option<&PgDatabase> {
        match &self.backend {
            Backend::Postgres(pg) => Some(&pg.db),
            Backend::Sqlite(_) => None,
        }
    }
}

/// Cancels a PostgreSQL read whose future was dropped before it finished.
#[cfg(feature = "postgres")]
struct CancelPgOnDrop {
    pg: Arc<PgBackend>,
    slot: Arc<super::postgres::CancelSlot>,
    armed: bool,
}

#[cfg(feature = "postgres")]
impl Drop for CancelPgOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.pg.db.cancel(&self.slot);
        }
    }
}

/// The state of one read: whether its caller went away, and while its closure runs, how to
/// stop it.
#[derive(Default)]
struct CallSlot {
    state: Mutex<SlotState>,
}

#[derive(Default)]
struct SlotState {
    abandoned: bool,
    running: Option<(rusqlite::InterruptHandle, Arc<Watch>)>,
}

/// Interrupts the statement running for a [`Database::read`] whose future was dropped.
struct InterruptOnDrop {
    call: Arc<CallSlot>,
    armed: bool,
}

impl Drop for InterruptOnDrop {
    fn drop(&mut self) {
        if self.armed {
            let mut state = lock(&self.call.state);
            state.abandoned = true;
            // The slot holds a handle only while the caller's closure runs, so this never
            // interrupts another caller's statement on the same connection.
            if let Some((handle, watch)) = state.running.as_ref() {
                watch.abandoned.store(true, Ordering::Relaxed);
                handle.interrupt();
            }
        }
    }
}
