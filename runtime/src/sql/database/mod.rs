//! The [`Database`] handle: one writer connection and a pool of read-only connections.

mod error;

use std::path::Path;
use std::sync::Arc;
#[cfg(feature = "postgres")]
use std::sync::Mutex;

use crate::spec::SchemaSpec;
pub(crate) use crate::sql::backend::ReadFuture;
use crate::sql::backend::import_sink::{ImportError, ImportSink};
use crate::sql::backend::{Reader as AnyReader, SqlDialect};
#[cfg(feature = "ann")]
use crate::sql::handler_error::HandlerError;
use crate::sql::schema_diff::{SchemaDifference, SchemaPlan};
#[cfg(feature = "ann")]
use crate::sql::vectors::cache::VectorHome;

#[cfg(feature = "postgres")]
use crate::sql::postgres::PgDatabase;
#[cfg(feature = "postgres")]
use crate::sql::postgres::import_sink::PgSink;
#[cfg(feature = "postgres")]
use crate::sql::postgres::pgvector;
#[cfg(feature = "sqlite")]
use crate::sql::sqlite::{
    data_stamp::StampedReader,
    database::SqliteDatabase,
    import_sink::{SqliteSink, sqlite_error},
    pool::CallSlot,
    watch::lock,
};
#[cfg(feature = "sqlite")]
use rusqlite::Connection;

pub use crate::sql::backend::GLOB_FUNCTION;
pub use error::{DbError, InitReport};

/// A database: a SQLite file (feature `sqlite`) or a PostgreSQL server (feature `postgres`,
/// opened from a `postgres://` URL). Cheap to clone; clones share the connections.
///
/// On SQLite: a writer connection (new databases in WAL mode) and a pool of read-only
/// connections (`SQLITE_OPEN_READ_ONLY` and `PRAGMA query_only`) sized to the available
/// parallelism.
///
/// Every write ([`Database::write_blocking`], hence [`Database::init`] and
/// [`Database::import`]) ends with a checkpoint, so the database file alone holds everything
/// committed.
///
/// Every connection has a `regexp(pattern, text)` function (the `REGEXP` operator), backed by
/// the `regex` crate with the compiled pattern cached per statement, and a
/// `toolforge_glob(pattern, text)` function: SQLite's `GLOB` without its recursion (see
/// `sql/text/glob.rs`).
///
/// A read run for a call through a registry ([`Database::read`] inside a tool) stops inside
/// SQLite when the call's deadline passes ([`CallBudget::deadline`](crate::CallBudget::deadline)): a progress handler
/// checks it every thousand virtual-machine steps and `toolforge_glob` every few thousand
/// matching steps, the statement fails with `SQLITE_INTERRUPT`, and the connection goes back
/// to the pool ready for the next call.
///
/// ```
/// # #[cfg(feature = "sqlite")]
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("app.db"))?;
/// let n: i64 = db.read_blocking(|conn| conn.query_row("SELECT 'abc' REGEXP 'b+'", [], |r| r.get(0)))??;
/// assert_eq!(n, 1);
/// # Ok(()) }
/// # #[cfg(not(feature = "sqlite"))]
/// # fn main() {}
/// ```
#[derive(Clone)]
pub struct Database {
    backend: Backend,
    /// Computes embeddings on writes and for searches ([`Database::with_embedder`]).
    embedder: Option<Arc<dyn crate::embed::Embedder>>,
    /// Vectors kept in memory for searches, shared by every clone of the handle.
    vectors: Arc<crate::sql::vectors::cache::VectorCache>,
    /// The graphs `rank_entities` loads, shared by every clone of the handle.
    graphs: Arc<crate::sql::graphs::GraphCache>,
    /// The graphs `find_path` walks, kept per data stamp and shared by every clone.
    paths: Arc<crate::sql::path_graphs::PathGraphs>,
}

/// The backend a [`Database`] runs on.
#[derive(Clone)]
enum Backend {
    #[cfg(feature = "sqlite")]
    Sqlite(Arc<SqliteDatabase>),
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
            #[cfg(feature = "sqlite")]
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

impl Database {
    /// Opens (creating if needed) a database file for reading and writing, or connects to
    /// the PostgreSQL database a `postgres://` (or `postgresql://`) URL names.
    ///
    /// A new (empty) SQLite database is put in WAL mode, so that reads go on while a write
    /// runs. An existing database keeps its journal mode: opening it changes nothing in the
    /// file, so a write that is refused leaves it exactly as it was.
    pub fn open(path: impl AsRef<Path>) -> Result<Database, DbError> {
        Database::open_as(path.as_ref(), false)
    }

    /// Opens an existing database file for reading only (no writer connection), or connects
    /// read-only to the PostgreSQL database a URL names.
    ///
    /// Works on read-only media too: a WAL database needs a `-shm` file next to it, which
    /// SQLite cannot create in a folder the process cannot write. When reading fails for that
    /// reason, the file is opened `immutable` (SQLite then assumes nobody changes it while it
    /// is open, which holds on read-only media). If a `-wal` file with content lies next to
    /// it, those changes could not be read that way: that is [`DbError::UnreadableWal`].
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Database, DbError> {
        Database::open_as(path.as_ref(), true)
    }

    fn open_as(path: &Path, read_only: bool) -> Result<Database, DbError> {
        #[cfg(feature = "postgres")]
        if let Some(url) = path
            .to_str()
            .filter(|text| crate::sql::postgres::is_postgres_url(text))
        {
            return Ok(Database::on(Backend::Postgres(Arc::new(PgBackend {
                db: PgDatabase::open(url, read_only)?,
                views: Mutex::new(Vec::new()),
            }))));
        }
        #[cfg(feature = "sqlite")]
        {
            let path = path.to_path_buf();
            let sqlite = if read_only {
                SqliteDatabase::open_read_only(path)?
            } else {
                SqliteDatabase::open(path)?
            };
            Ok(Database::on(Backend::Sqlite(Arc::new(sqlite))))
        }
        #[cfg(not(feature = "sqlite"))]
        {
            let _ = read_only;
            Err(DbError::NoSqlite {
                path: path.to_path_buf(),
            })
        }
    }

    fn on(backend: Backend) -> Database {
        Database {
            backend,
            embedder: None,
            vectors: Arc::default(),
            graphs: Arc::default(),
            paths: Arc::default(),
        }
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
        settings: crate::sql::vectors::cache::ApproximateSettings,
    ) -> Database {
        self.vectors = Arc::new(crate::sql::vectors::cache::VectorCache::with_approximate(
            settings,
        ));
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
            Box::pin(async move {
                let mut graphs = 0;
                for entity in &spec.entities {
                    for index in &entity.vector_indexes {
                        // An index the server searches (pgvector) is not loaded.
                        let VectorHome::Process { version } =
                            db.vector_home(conn, entity, index).await?
                        else {
                            continue;
                        };
                        let vectors = db
                            .vectors
                            .vectors_ready(
                                conn,
                                (entity, index),
                                version,
                                &spec.tools.vector_search,
                            )
                            .await?;
                        graphs += usize::from(vectors.is_approximate());
                    }
                }
                Ok::<_, HandlerError>(graphs)
            })
        })
        .await?
        .map_err(|error| match error {
            HandlerError::Exec(error) => DbError::from(error),
            HandlerError::Tool(error) => DbError::Vectors(error.message),
        })
    }

    /// Where the vectors of `index` are searched: by the server when the column is
    /// pgvector's, otherwise in memory (with the table's version, read for this search).
    pub(crate) async fn vector_home(
        &self,
        conn: &dyn AnyReader,
        entity: &crate::spec::EntitySpec,
        index: &crate::spec::VectorIndexSpec,
    ) -> Result<crate::sql::vectors::cache::VectorHome, crate::sql::handler_error::HandlerError>
    {
        let server_column = async {
            match &self.backend {
                #[cfg(feature = "sqlite")]
                Backend::Sqlite(_) => Ok(None),
                #[cfg(feature = "postgres")]
                Backend::Postgres(_) => {
                    pgvector::server_column(conn, &entity.table, &index.column).await
                }
            }
        };
        self.vectors.home(conn, entity, index, server_column).await
    }

    /// The vectors kept in memory for searches.
    pub(crate) fn vector_cache(&self) -> &crate::sql::vectors::cache::VectorCache {
        &self.vectors
    }

    /// The graphs the graph tools load.
    pub(crate) fn graph_cache(&self) -> &crate::sql::graphs::GraphCache {
        &self.graphs
    }

    /// The graphs `find_path` walks.
    pub(crate) fn path_graphs(&self) -> &crate::sql::path_graphs::PathGraphs {
        &self.paths
    }

    /// The SQL dialect of the database's backend.
    pub fn dialect(&self) -> SqlDialect {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(_) => SqlDialect::Sqlite,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => SqlDialect::Postgres,
        }
    }

    /// The SQLite side of the handle, or [`DbError::NotSqlite`].
    #[cfg(feature = "sqlite")]
    fn sqlite(&self) -> Result<&Arc<SqliteDatabase>, DbError> {
        match &self.backend {
            Backend::Sqlite(inner) => Ok(inner),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Err(DbError::NotSqlite),
        }
    }

    /// `spec` as this database's backend runs it: on PostgreSQL, with every computed field's
    /// PostgreSQL expression in place of its SQLite one (cached per spec).
    pub fn spec_for(&self, spec: &Arc<SchemaSpec>) -> Arc<SchemaSpec> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(_) => spec.clone(),
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => {
                let mut views = crate::sync::lock(&pg.views);
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
            #[cfg(feature = "sqlite")]
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
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => sqlite.schema_plan(&crate::sql::ddl::schema_objects(spec)?),
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => pg.db.schema_plan(spec),
        }
    }

    /// Creates the tables and indexes the spec needs. Idempotent: existing objects with the
    /// expected definition are left alone. If any existing object differs, returns
    /// [`DbError::SchemaMismatch`] listing every difference and changes nothing.
    pub fn init(&self, spec: &SchemaSpec) -> Result<InitReport, DbError> {
        // Initialisation may convert vector columns: where each index is searched is looked
        // at again.
        self.vectors.forget_storage();
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => sqlite.init(&crate::sql::ddl::schema_objects(spec)?),
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => pg.db.init(spec),
        }
    }

    /// Creates toolforge's own objects beside the existing tables a mapped `spec` reads (the
    /// full-text indexes of its mapped entities, kept in its
    /// [`SideStore`](crate::spec::SideStore)) and brings them up to date with the user's rows:
    /// only records that are new or whose indexed text changed are indexed again, and records
    /// gone from the table leave the index, all in one transaction. The user's tables are
    /// only read: on SQLite the database file is opened read-only and the side file beside it
    /// is written; on PostgreSQL only the side store's schema is.
    pub fn refresh_side_store(
        &self,
        spec: &SchemaSpec,
    ) -> Result<crate::sql::side_store::RefreshReport, DbError> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => crate::sql::sqlite::side_store::refresh(&sqlite.path, spec),
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => pg.db.write(|session| {
                crate::sql::postgres::side_store::refresh(session, spec)
                    .map_err(|error| pg.db.error(error))
            }),
        }
    }

    /// Runs `f` in one write transaction of the side store of the mapped `spec`, its vectors
    /// tables ready: `f` gets a writer that reads the user's tables (never writing them) and
    /// writes the side store, and where each is (quoted schemas: the tables named without
    /// one, the side store). An error of `f` rolls back everything it wrote.
    pub(crate) fn write_side_store<T, E: From<DbError>>(
        &self,
        spec: &SchemaSpec,
        f: impl FnOnce(
            &dyn crate::sql::backend::Writer,
            crate::sql::side_store::SidePlaces<'_>,
        ) -> Result<T, E>,
    ) -> Result<T, E> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => {
                crate::sql::sqlite::side_store::write(&sqlite.path, spec, |conn, _, _| {
                    let side =
                        crate::sql::text::ident::quote(crate::sql::side_store::SQLITE_SCHEMA);
                    f(
                        conn,
                        crate::sql::side_store::SidePlaces {
                            base: "\"main\"",
                            side: &side,
                        },
                    )
                })
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => pg.db.write(|session| {
                let prepared = crate::sql::postgres::side_store::ensure_vectors(session, spec)
                    .and_then(|_| crate::sql::postgres::side_store::base_schema(session, spec));
                let base = prepared.map_err(|error| E::from(pg.db.error(error)))?;
                let side = crate::sql::text::ident::quote(&spec.tools.side_store.schema);
                f(
                    session,
                    crate::sql::side_store::SidePlaces {
                        base: &base,
                        side: &side,
                    },
                )
            }),
        }
    }

    /// What is missing of the side store a mapped `spec` needs (see
    /// [`Database::refresh_side_store`]): one line per missing index, none when it is
    /// complete or not needed.
    pub fn side_store_gaps(&self, spec: &SchemaSpec) -> Result<Vec<String>, DbError> {
        if spec.side_entities().next().is_none() {
            return Ok(Vec::new());
        }
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => {
                Ok(crate::sql::sqlite::side_store::gaps(&sqlite.path, spec)?)
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => pg
                .db
                .read_statements(|conn| crate::sql::postgres::side_store::gaps(conn, spec))?
                .map_err(DbError::from),
        }
    }

    /// Runs the read `f` on a read-only connection of whatever backend (see
    /// [`Database::read_any_with`] for the deadline, cancellation and errors).
    pub(crate) async fn read_any<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: for<'r> FnOnce(&'r dyn AnyReader) -> ReadFuture<'r, T> + Send + 'static,
    {
        self.read_any_with(crate::ContextValues::new(), f).await
    }

    /// [`Database::read_any`] for a call with context values: on SQLite they are what the
    /// connection's `toolforge_context` answers while `f` runs.
    ///
    /// The one read path of the tools. On PostgreSQL, `f`'s statements are awaited on the
    /// caller's runtime; if the returned future is dropped before `f` finishes, the statement
    /// running is cancelled in the server and its connection closed ([`PgDatabase::read`]).
    /// On SQLite, `f` runs on tokio's blocking pool, where its statements run as they are
    /// asked for (each of its futures is ready when made), stopped by the deadline or the
    /// dropped future through SQLite's progress handler.
    pub(crate) async fn read_any_with<T, F>(
        &self,
        values: crate::ContextValues,
        f: F,
    ) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: for<'r> FnOnce(&'r dyn AnyReader) -> ReadFuture<'r, T> + Send + 'static,
    {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => {
                sqlite
                    .read_with(values, move |read| pollster::block_on(f(&read)))
                    .await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => {
                let _ = values;
                pg.db.read(crate::CallBudget::current_deadline(), f).await
            }
        }
    }

    /// Whether the database answers: one trivial statement on a read connection (what a
    /// readiness probe asks). The error says why not.
    pub async fn ping(&self) -> Result<(), DbError> {
        self.read_any(|conn| Box::pin(async move { conn.rows("SELECT 1", &[]).await.map(|_| ()) }))
            .await?
            .map_err(DbError::from)
    }

    /// Runs the read `f` on a read-only connection of whatever backend, blocking the current
    /// thread (which must not be a worker of a runtime of one thread), without a deadline:
    /// for checks when a registry is built.
    pub(crate) fn read_any_blocking<T>(
        &self,
        f: impl for<'r> FnOnce(&'r dyn AnyReader) -> ReadFuture<'r, T>,
    ) -> Result<T, DbError> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => sqlite.read_until(
                None,
                &CallSlot::default(),
                crate::ContextValues::new(),
                |read| pollster::block_on(f(&read)),
            ),
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => pg.db.read_blocking(f),
        }
    }

    /// Runs `f` on an import sink inside one write transaction, committed only when `f`
    /// succeeds: what [`Database::import`] and [`Database::embed`] write through.
    pub(crate) fn with_import_sink<T>(
        &self,
        f: impl FnOnce(&mut dyn ImportSink) -> Result<T, ImportError>,
    ) -> Result<T, ImportError> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(sqlite) => sqlite.write_blocking(|conn| {
                let tx = conn.transaction().map_err(|e| sqlite_error(None, e))?;
                let value = f(&mut SqliteSink::new(&tx))?;
                tx.commit().map_err(|e| sqlite_error(None, e))?;
                Ok(value)
            })?,
            #[cfg(feature = "postgres")]
            Backend::Postgres(pg) => pg.db.write(|session| f(&mut PgSink::new(session))),
        }
    }
}

/// The escape hatch to SQLite itself (feature `sqlite`): closures run with a `rusqlite`
/// connection of the handle ([`sqlite::rusqlite`](crate::sql::sqlite::rusqlite)). On a
/// PostgreSQL database, which has no SQLite connection to hand out, each answers
/// [`DbError::NotSqlite`] (check with [`Database::dialect`]).
#[cfg(feature = "sqlite")]
impl Database {
    /// Runs `f` with the writer connection (blocking the current thread), then copies what
    /// it wrote from the `-wal` file into the database file (`PRAGMA
    /// wal_checkpoint(TRUNCATE)`), so that the database file alone holds every committed
    /// write: copying only the `.db` file gives all the data. A checkpoint that fails is
    /// [`DbError::Checkpoint`] (the write itself was committed); one that cannot finish
    /// because readers still use older data is completed by a later write.
    pub fn write_blocking<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> Result<T, DbError> {
        self.sqlite()?.write_blocking(f)
    }

    /// Runs `f` with a read-only connection from the pool, waiting for one to be free
    /// (blocking the current thread). No deadline applies.
    pub fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> T) -> Result<T, DbError> {
        self.sqlite()?.read_blocking(f)
    }

    /// Runs `f` on a read-only connection on tokio's blocking thread pool.
    ///
    /// Inside a call through a registry, the call's deadline ([`CallBudget::current_deadline`](crate::CallBudget::current_deadline))
    /// applies: SQLite stops the running statement when it passes (the statement fails with
    /// `SQLITE_INTERRUPT`, see [`is_interrupt`](crate::sql::sqlite::is_interrupt)), and a wait
    /// for a free connection ends with [`DbError::Timeout`]. If the returned future is dropped
    /// before `f` finishes (a caller's timeout, a cancelled call), the running statement is
    /// interrupted the same way. Either way the connection goes back to the pool. Fails with
    /// [`DbError::Stopped`] if `f` panicked or the blocking task was cancelled.
    pub async fn read<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> T + Send + 'static,
    {
        self.sqlite()?
            .read_with(crate::ContextValues::new(), |read: StampedReader<'_>| {
                f(&lock(read.conn))
            })
            .await
    }
}
