//! A SQLite database file as the [`Database`](crate::sql::Database) handle holds it: one
//! writer connection (none when opened read-only), a pool of read-only connections, and the
//! reads, writes and initialisation over them.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

use rusqlite::{Connection, OpenFlags};

use crate::CallBudget;
use crate::sql::database::{DbError, InitReport};
use crate::sql::ddl::{ObjectKind, SchemaObject};
use crate::sql::schema_diff::SchemaPlan;
use crate::sql::sqlite::data_stamp::{DataStamps, StampedReader};
use crate::sql::sqlite::functions::configure;
use crate::sql::sqlite::pool::{
    Access, CallSlot, InterruptOnDrop, Pool, PooledReader, needs_write_access, open_reader,
    reader_count, wal_path,
};
use crate::sql::sqlite::schema::plan;
use crate::sql::sqlite::watch::{Watch, lock};

/// A SQLite database file: its path, writer (none when opened read-only) and readers.
pub(crate) struct SqliteDatabase {
    pub(crate) path: PathBuf,
    pub(crate) writer: Option<Mutex<Connection>>,
    pub(crate) readers: Pool,
    /// What tells whether anything was committed since a read (see `data_stamp.rs`).
    pub(crate) stamps: DataStamps,
}

impl SqliteDatabase {
    /// Opens (creating if needed) a database file for reading and writing; see
    /// [`Database::open`](crate::sql::Database::open).
    pub(crate) fn open(path: PathBuf) -> Result<SqliteDatabase, DbError> {
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

    /// Opens an existing database file for reading only; see
    /// [`Database::open_read_only`](crate::sql::Database::open_read_only).
    pub(crate) fn open_read_only(path: PathBuf) -> Result<SqliteDatabase, DbError> {
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
    ) -> Result<SqliteDatabase, DbError> {
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
        Ok(SqliteDatabase {
            path,
            writer: writer.map(Mutex::new),
            readers: Pool {
                idle: Mutex::new(idle),
                available: Condvar::new(),
                size,
            },
            stamps,
        })
    }

    /// What [`Database::init`](crate::sql::Database::init) would do with `objects`.
    pub(crate) fn schema_plan(&self, objects: &[SchemaObject]) -> Result<SchemaPlan, DbError> {
        Ok(self.read_blocking(|conn| plan(conn, objects))??)
    }

    /// Creates the missing `objects` in one transaction, or changes nothing when an existing
    /// one differs; see [`Database::init`](crate::sql::Database::init).
    pub(crate) fn init(&self, objects: &[SchemaObject]) -> Result<InitReport, DbError> {
        self.write_blocking(|conn| {
            let tx = conn.transaction()?;
            let plan = plan(&tx, objects)?;
            let mut report = InitReport::begin(plan.differences, plan.unchanged)?;
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

    /// Runs `f` with the writer connection, then checkpoints; see
    /// [`Database::write_blocking`](crate::sql::Database::write_blocking).
    pub(crate) fn write_blocking<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> T,
    ) -> Result<T, DbError> {
        let writer = self.writer.as_ref().ok_or(DbError::ReadOnly)?;
        let mut conn = lock(writer);
        let result = f(&mut conn);
        if conn.is_autocommit() {
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .map_err(DbError::Checkpoint)?;
        }
        Ok(result)
    }

    /// Runs `f` with a read-only connection from the pool, waiting for one to be free
    /// (blocking the current thread), without a deadline.
    pub(crate) fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> T) -> Result<T, DbError> {
        self.read_until(
            None,
            &CallSlot::default(),
            crate::ContextValues::new(),
            |read| f(&lock(read.conn)),
        )
    }

    /// Runs `f` on a read-only connection, stopping SQLite at `deadline` (and when `call` is
    /// abandoned); waits for a free connection no later than the deadline.
    pub(crate) fn read_until<T>(
        &self,
        deadline: Option<Instant>,
        call: &CallSlot,
        values: crate::ContextValues,
        f: impl FnOnce(StampedReader<'_>) -> T,
    ) -> Result<T, DbError> {
        let pool = &self.readers;
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
            stamps: &self.stamps,
        }))
    }

    /// Runs `f` on a read-only connection on tokio's blocking thread pool, under the call's
    /// deadline, interrupting its statement when the returned future is dropped; see
    /// [`Database::read`](crate::sql::Database::read).
    pub(crate) async fn read_with<T, F>(
        self: &Arc<Self>,
        values: crate::ContextValues,
        f: F,
    ) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(StampedReader<'_>) -> T + Send + 'static,
    {
        let db = Arc::clone(self);
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
