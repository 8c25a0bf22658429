//! What can go wrong with a [`Database`](crate::sql::Database) ([`DbError`]), and what
//! [`Database::init`](crate::sql::Database::init) did ([`InitReport`]).

use std::path::PathBuf;

#[cfg(feature = "sqlite")]
use crate::sql::backend::BackendError;
use crate::sql::backend::ExecError;
use crate::sql::ddl::SpecError;
use crate::sql::schema_diff::SchemaDifference;

/// A database-level failure (opening, initialising, reading, writing).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DbError {
    /// SQLite reported an error.
    #[cfg(feature = "sqlite")]
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
    #[cfg(feature = "sqlite")]
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
    /// A path that is not a PostgreSQL URL was opened in a build without SQLite (the
    /// runtime's `sqlite` feature off).
    #[error(
        "{}: this build of toolforge has no SQLite (its `sqlite` feature is off); open a \
         postgres:// URL, or build with the feature",
        path.display()
    )]
    NoSqlite {
        /// The path that was opened.
        path: PathBuf,
    },
    /// PostgreSQL (or the connection to it) reported an error: its message and SQLSTATE,
    /// and the database (`user@host:port/name`, never a password).
    #[error("PostgreSQL: {0}")]
    Postgres(String),
    /// toolforge's side store beside an existing database cannot be used as configured (what
    /// is wrong, with what to do).
    #[error("{0}")]
    SideStore(String),
    /// The vectors of an index could not be kept in memory (the process's cap, with what to
    /// do about it).
    #[error("{0}")]
    Vectors(String),
}

impl DbError {
    /// Whether the error is SQLite's `SQLITE_INTERRUPT`: a statement was stopped because its
    /// call's deadline passed or its caller went away (see [`Database::read`](crate::sql::Database::read)).
    pub fn is_interrupt(&self) -> bool {
        #[cfg(feature = "sqlite")]
        if let DbError::Sqlite(error) = self {
            return error.is_stop();
        }
        false
    }

    /// What the model is told of a failure the backend's driver reported, worded for it
    /// (SQLite's own errors, whose messages say what to change); `None` for the others.
    pub(crate) fn backend_tool_error(&self) -> Option<crate::ToolError> {
        match self {
            #[cfg(feature = "sqlite")]
            DbError::Sqlite(error) => Some(error.tool_error()),
            _ => None,
        }
    }
}

impl From<ExecError> for DbError {
    fn from(error: ExecError) -> Self {
        match error {
            ExecError::Backend(error) => {
                let message = error.describe();
                #[cfg(feature = "sqlite")]
                {
                    let error: Box<dyn std::error::Error + Send + Sync> = error;
                    if let Ok(error) = error.downcast::<rusqlite::Error>() {
                        return DbError::Sqlite(*error);
                    }
                }
                DbError::Postgres(message)
            }
            ExecError::Stopped => DbError::Stopped,
            ExecError::Unavailable(message) => DbError::Postgres(message),
        }
    }
}

fn format_differences(differences: &[SchemaDifference]) -> String {
    differences
        .iter()
        .map(|d| format!("  - {d}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What [`Database::init`](crate::sql::Database::init) did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitReport {
    /// Tables and indexes created, in order.
    pub created: Vec<String>,
    /// Tables and indexes that already existed as expected.
    pub unchanged: Vec<String>,
    /// Columns converted in place (vectors moved from bytes into pgvector columns), each
    /// described as `table "name": what changed`.
    pub converted: Vec<String>,
}

impl InitReport {
    /// The report of an initialisation about to create what its plan found missing: refused
    /// with [`DbError::SchemaMismatch`] when an existing object differs (nothing is changed
    /// then), otherwise starting from the objects left as they are.
    pub(crate) fn begin(
        differences: Vec<SchemaDifference>,
        unchanged: Vec<String>,
    ) -> Result<InitReport, DbError> {
        if !differences.is_empty() {
            return Err(DbError::SchemaMismatch(differences));
        }
        Ok(InitReport {
            created: Vec::new(),
            unchanged,
            converted: Vec::new(),
        })
    }
}
