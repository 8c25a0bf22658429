//! The read-only connections of a SQLite database, each watched for its call's deadline, and
//! the slot through which a dropped call stops its statement.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};

use rusqlite::{Connection, OpenFlags};

use crate::sql::sqlite::functions::{configure, register_context};
use crate::sql::sqlite::watch::{Watch, lock};

/// A pooled read-only connection and what its progress handler watches.
pub(crate) struct PooledReader {
    /// Behind a lock so a call's future may share it (see `data_stamp.rs`).
    pub(crate) conn: Mutex<Connection>,
    pub(crate) watch: Arc<Watch>,
}

pub(crate) struct Pool {
    pub(crate) idle: Mutex<Vec<PooledReader>>,
    pub(crate) available: Condvar,
    pub(crate) size: usize,
}

/// How many SQLite virtual-machine steps run between two checks of a read's deadline.
const STEPS_BETWEEN_CHECKS: i32 = 1_000;

/// How the read-only connections open the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// As a file others may write (the normal case).
    Shared,
    /// With `immutable=1`: SQLite assumes nobody changes the file and needs no `-shm` or
    /// `-wal` file (read-only media).
    Immutable,
}

/// `file:` URI of `path` with `immutable=1` (`%`, `?` and `#` escaped), if `path` is text.
pub(crate) fn immutable_uri(path: &Path) -> Option<String> {
    file_uri(path, "immutable=1")
}

/// `file:` URI of `path` with the parameters `query` (`%`, `?` and `#` of the path escaped),
/// if `path` is text.
pub(crate) fn file_uri(path: &Path, query: &str) -> Option<String> {
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
    uri.push('?');
    uri.push_str(query);
    Some(uri)
}

pub(crate) fn open_reader(path: &Path, access: Access) -> rusqlite::Result<PooledReader> {
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
    crate::sql::sqlite::trusted::install_authorizer(&mut conn)?;
    conn.pragma_update(None, "query_only", true)?;
    let handler_watch = watch.clone();
    conn.progress_handler(
        STEPS_BETWEEN_CHECKS,
        Some(move || handler_watch.should_stop()),
    )?;
    Ok(PooledReader {
        conn: Mutex::new(conn),
        watch,
    })
}

/// Whether reading failed because SQLite needed to create or write a file next to the
/// database (its `-shm` or `-wal`) and could not.
pub(crate) fn needs_write_access(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
    )
}

/// The `-wal` file of the database at `path`.
pub(crate) fn wal_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

pub(crate) fn reader_count() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get().max(2))
}

/// The state of one read: whether its caller went away, and while its closure runs, how to
/// stop it.
#[derive(Default)]
pub(crate) struct CallSlot {
    pub(crate) state: Mutex<SlotState>,
}

#[derive(Default)]
pub(crate) struct SlotState {
    pub(crate) abandoned: bool,
    pub(crate) running: Option<(rusqlite::InterruptHandle, Arc<Watch>)>,
}

/// Interrupts the statement running for a [`Database::read`] whose future was dropped.
pub(crate) struct InterruptOnDrop {
    pub(crate) call: Arc<CallSlot>,
    pub(crate) armed: bool,
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
