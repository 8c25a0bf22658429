//! The [`Database`] handle: one writer connection and a pool of read-only connections.

mod error;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

use rusqlite::{Connection, OpenFlags};

use crate::CallBudget;
use crate::spec::SchemaSpec;
pub(crate) use crate::sql::backend::ReadFuture;
use crate::sql::backend::{Reader as AnyReader, SqlDialect};
use crate::sql::ddl::{ObjectKind, schema_objects};
#[cfg(feature = "ann")]
use crate::sql::handler_error::HandlerError;
use crate::sql::schema_diff::{SchemaDifference, SchemaPlan, plan};
use crate::sql::sqlite::data_stamp::{DataStamps, StampedReader};
use crate::sql::sqlite::functions::configure;
use crate::sql::sqlite::pool::{
    Access, CallSlot, InterruptOnDrop, Pool, PooledReader, SqliteDatabase, needs_write_access,
    open_reader, reader_count, wal_path,
};
use crate::sql::sqlite::watch::{Watch, lock};
#[cfg(feature = "ann")]
use crate::sql::vectors::cache::VectorHome;

#[cfg(feature = "postgres")]
use crate::sql::postgres::PgDatabase;
#[cfg(feature = "postgres")]
use crate::sql::postgres::pgvector;
#[cfg(feature = "postgres")]
use crate::sql::postgres::schema::{pg_plan, pg_schema_objects};

pub use crate::sql::backend::GLOB_FUNCTION;
pub use error::{DbError, InitReport};

use crate::sql::backend::import_sink::{ImportError, ImportSink};
#[cfg(feature = "postgres")]
use crate::sql::postgres::import_sink::PgSink;
use crate::sql::sqlite::import_sink::{SqliteSink, sqlite_error};

/// The PostgreSQL URL `path` spells, if it spells one.
#[cfg(feature = "postgres")]
fn postgres_url(path: &Path) -> Option<&str> {
    path.to_str()
        .filter(|text| crate::sql::postgres::is_postgres_url(text))
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
/// `sql/text/glob.rs`).
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
    vectors: Arc<crate::sql::vectors::cache::VectorCache>,
    /// The graphs `rank_entities` loads, shared by every clone of the handle.
    graphs: Arc<crate::sql::graphs::GraphCache>,
    /// The graphs `find_path` walks, kept per data stamp and shared by every clone.
    paths: Arc<crate::sql::path_graphs::PathGraphs>,
}

/// The backend a [`Database`] runs on.
#[derive(Clone)]
enum Backend {
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
        let stamps = DataStamps::new(
            open_reader(&path, access)?
                .conn
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner),
        )?;
        Ok(Database {
            embedder: None,
            vectors: Arc::default(),
            graphs: Arc::default(),
            paths: Arc::default(),
            backend: Backend::Sqlite(Arc::new(SqliteDatabase {
                path,
                writer: writer.map(Mutex::new),
                readers: Pool {
                    idle: Mutex::new(idle),
                    available: Condvar::new(),
                    size,
                },
                stamps,
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
            Backend::Sqlite(_) => SqlDialect::Sqlite,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => SqlDialect::Postgres,
        }
    }

    /// The SQLite side of the handle, or [`DbError::NotSqlite`].
    fn sqlite(&self) -> Result<&SqliteDatabase, DbError> {
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
            graphs: Arc::default(),
            paths: Arc::default(),
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
            return pg.db.read_statements(|conn| {
                let storage = pgvector::storage(conn)?;
                let objects = pg_schema_objects(spec, storage).map_err(DbError::from)?;
                pg_plan(conn, spec, &objects).map_err(|error| pg.db.error(error))
            })?;
        }
        let objects = schema_objects(spec)?;
        Ok(self.read_blocking(|conn| plan(conn, &objects))??)
    }

    /// Creates the tables and indexes the spec needs. Idempotent: existing objects with the
    /// expected definition are left alone. If any existing object differs, returns
    /// [`DbError::SchemaMismatch`] listing every difference and changes nothing.
    pub fn init(&self, spec: &SchemaSpec) -> Result<InitReport, DbError> {
        // Initialisation may convert vector columns: where each index is searched is looked
        // at again.
        self.vectors.forget_storage();
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            return pg.db.write(|session| {
                let storage = if spec.entities.iter().any(|e| !e.vector_indexes.is_empty()) {
                    pgvector::ensure(session)
                } else {
                    pgvector::storage(session)
                }
                .map_err(|error| pg.db.error(error))?;
                let objects = pg_schema_objects(spec, storage)?;
                let plan = pg_plan(session, spec, &objects).map_err(|error| pg.db.error(error))?;
                if !plan.differences.is_empty() {
                    return Err(DbError::SchemaMismatch(plan.differences));
                }
                let mut report = InitReport {
                    created: Vec::new(),
                    unchanged: plan.unchanged,
                    converted: Vec::new(),
                };
                for conversion in &plan.conversions {
                    session.batch(&conversion.sql).map_err(|error| {
                        DbError::Postgres(format!(
                            "{}: cannot convert {conversion} ({}); when `toolforge serve` \
                             processes use this database, stop them and run `toolforge db \
                             init` again (their row-rule views use the column)",
                            pg.db.label,
                            error.describe(),
                        ))
                    })?;
                    report.converted.push(conversion.to_string());
                }
                for object in &plan.missing {
                    session
                        .batch(&object.sql)
                        .map_err(|error| pg.db.error(error))?;
                    report.created.push(object.name.clone());
                }
                // A full-text index created over rows already stored indexes them now.
                for entity in &spec.entities {
                    let terms = crate::sql::full_text::pg_tables::terms_table(entity);
                    if report.created.contains(&terms) {
                        crate::sql::postgres::postings::reindex(session, entity, None)
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
                converted: Vec::new(),
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
                let table = crate::sql::text::ident::quote(table);
                tx.execute_batch(&format!("INSERT INTO {table}({table}) VALUES ('rebuild')"))?;
            }
            tx.commit()?;
            Ok(report)
        })?
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
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            return pg.db.write(|session| {
                crate::sql::postgres::side_store::refresh(session, spec)
                    .map_err(|error| pg.db.error(error))
            });
        }
        crate::sql::sqlite::side_store::refresh(&self.sqlite()?.path, spec)
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
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            return pg.db.write(|session| {
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
            });
        }
        let path = &self.sqlite().map_err(E::from)?.path;
        crate::sql::sqlite::side_store::write(path, spec, |conn, _, _| {
            let side = crate::sql::text::ident::quote(crate::sql::side_store::SQLITE_SCHEMA);
            f(
                conn,
                crate::sql::side_store::SidePlaces {
                    base: "\"main\"",
                    side: &side,
                },
            )
        })
    }

    /// What is missing of the side store a mapped `spec` needs (see
    /// [`Database::refresh_side_store`]): one line per missing index, none when it is
    /// complete or not needed.
    pub fn side_store_gaps(&self, spec: &SchemaSpec) -> Result<Vec<String>, DbError> {
        if spec.side_entities().next().is_none() {
            return Ok(Vec::new());
        }
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            return pg
                .db
                .read_statements(|conn| crate::sql::postgres::side_store::gaps(conn, spec))?
                .map_err(DbError::from);
        }
        Ok(crate::sql::sqlite::side_store::gaps(
            &self.sqlite()?.path,
            spec,
        )?)
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
        self.read_until(
            None,
            &CallSlot::default(),
            crate::ContextValues::new(),
            |read| f(&lock(read.conn)),
        )
    }

    /// Runs `f` on a read-only connection, stopping SQLite at `deadline` (and when `call` is
    /// abandoned); waits for a free connection no later than the deadline.
    fn read_until<T>(
        &self,
        deadline: Option<Instant>,
        call: &CallSlot,
        values: crate::ContextValues,
        f: impl FnOnce(StampedReader<'_>) -> T,
    ) -> Result<T, DbError> {
        let sqlite = self.sqlite()?;
        let pool = &sqlite.readers;
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
            reader: Option<PooledReader>,
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
            state.running = Some((
                lock(&reader.conn).get_interrupt_handle(),
                reader.watch.clone(),
            ));
        }
        let guard = Return {
            pool,
            call,
            reader: Some(reader),
        };
        let reader = guard
            .reader
            .as_ref()
            .expect("connection is present until drop");
        Ok(f(StampedReader {
            conn: &reader.conn,
            stamps: &sqlite.stamps,
        }))
    }

    /// Runs `f` on a read-only connection on tokio's blocking thread pool.
    ///
    /// Inside a call through a registry, the call's deadline ([`CallBudget::current_deadline`])
    /// applies: SQLite stops the running statement when it passes (the statement fails with
    /// `SQLITE_INTERRUPT`, see [`is_interrupt`](crate::sql::sqlite::is_interrupt)), and a wait for a free connection ends with
    /// [`DbError::Timeout`]. If the returned future is dropped before `f` finishes (a caller's
    /// timeout, a cancelled call), the running statement is interrupted the same way. Either
    /// way the connection goes back to the pool. Fails with [`DbError::Stopped`] if `f`
    /// panicked or the blocking task was cancelled.
    pub async fn read<T, F>(&self, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> T + Send + 'static,
    {
        self.read_with(crate::ContextValues::new(), |read| f(&lock(read.conn)))
            .await
    }

    /// [`Database::read`] for a call with context values (what row rules read), on the pooled
    /// reader with its stamps.
    async fn read_with<T, F>(&self, values: crate::ContextValues, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(StampedReader<'_>) -> T + Send + 'static,
    {
        let db = self.clone();
        let deadline = CallBudget::current_deadline();
        let call = Arc::new(CallSlot::default());
        let guard = InterruptOnDrop {
            call: call.clone(),
            armed: true,
        };
        // The statements' spans are children of the call's.
        let carried = crate::trace::Carried::capture();
        let task = tokio::task::spawn_blocking(move || {
            carried.run(|| db.read_until(deadline, &call, values, f))
        });
        let result = task.await.map_err(|_| DbError::Stopped).and_then(|r| r);
        let mut guard = guard;
        guard.armed = false;
        result
    }
}

impl Database {
    /// Runs the read `f` on a read-only connection of whatever backend (see
    /// [`Database::read`] for the deadline, cancellation and errors).
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
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            return pg.db.read(CallBudget::current_deadline(), f).await;
        }
        self.read_with(values, move |read| pollster::block_on(f(&read)))
            .await
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
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            return pg.db.read_blocking(f);
        }
        self.read_until(
            None,
            &CallSlot::default(),
            crate::ContextValues::new(),
            |read| pollster::block_on(f(&read)),
        )
    }

    /// Runs `f` on an import sink inside one write transaction, committed only when `f`
    /// succeeds: what [`Database::import`] and [`Database::embed`] write through.
    pub(crate) fn with_import_sink<T>(
        &self,
        f: impl FnOnce(&mut dyn ImportSink) -> Result<T, ImportError>,
    ) -> Result<T, ImportError> {
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(pg) = &self.backend {
            return pg.db.write(|session| f(&mut PgSink::new(session)));
        }
        self.write_blocking(|conn| {
            let tx = conn.transaction().map_err(|e| sqlite_error(None, e))?;
            let value = f(&mut SqliteSink::new(&tx))?;
            tx.commit().map_err(|e| sqlite_error(None, e))?;
            Ok(value)
        })?
    }
}
