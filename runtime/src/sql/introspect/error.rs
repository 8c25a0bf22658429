//! Why a database's catalog could not be read ([`IntrospectError`]). Each message is one line
//! that names the input and says what to do.

/// Why [`read_catalog`](super::read_catalog) could not read a database's catalog.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IntrospectError {
    /// No file at the path (nothing is created).
    #[error(
        "`{path}` does not exist: give the path of an existing SQLite database file, or a postgres:// URL"
    )]
    NotFound {
        /// The path given.
        path: String,
    },
    /// The path is a folder or something else that is not a file.
    #[error(
        "`{path}` is not a file: give the path of a SQLite database file, or a postgres:// URL"
    )]
    NotAFile {
        /// The path given.
        path: String,
    },
    /// The file does not start with SQLite's header.
    #[error(
        "`{path}` is not a SQLite database (it does not start with \"SQLite format 3\"): give a SQLite database file, or a postgres:// URL"
    )]
    NotSqlite {
        /// The path given.
        path: String,
    },
    /// SQLite could not read the file's catalog.
    #[error("cannot read the SQLite database `{path}`: {message}")]
    Sqlite {
        /// The path given.
        path: String,
        /// SQLite's message.
        message: String,
    },
    /// The URL is not a PostgreSQL connection string.
    #[error("{message}")]
    BadUrl {
        /// What is wrong with it.
        message: String,
    },
    /// No connection to the PostgreSQL server.
    #[error(
        "cannot connect to {target}: {message}; check that the server is running and that the URL's user, host, port and database are right"
    )]
    Connect {
        /// The database, as `postgres://user@host:port/name` (no password).
        target: String,
        /// Why not.
        message: String,
    },
    /// A catalog query failed on the PostgreSQL server.
    #[error("cannot read the catalog of {target}: {message}")]
    Postgres {
        /// The database, as `postgres://user@host:port/name` (no password).
        target: String,
        /// The server's message.
        message: String,
    },
    /// A schema asked for does not exist.
    #[error(
        "{target} has no schema \"{schema}\": name an existing schema with --schema (the default is public)"
    )]
    NoSuchSchema {
        /// The database, as `postgres://user@host:port/name` (no password).
        target: String,
        /// The schema asked for.
        schema: String,
    },
    /// A `postgres://` URL, in a build without PostgreSQL.
    #[error(
        "{target} is a PostgreSQL URL, but this build has no PostgreSQL support (the `postgres` feature of toolforge-runtime)"
    )]
    NoPostgres {
        /// The URL, without its password.
        target: String,
    },
    /// A file path, in a build without SQLite.
    #[error(
        "`{path}` is not a postgres:// URL, and this build has no SQLite support (the `sqlite` feature of toolforge-runtime)"
    )]
    NoSqlite {
        /// The path given.
        path: String,
    },
    /// Nothing to map: no table or view (left), perhaps after the include and exclude
    /// patterns.
    #[error("{target} has no tables or views{}", empty_hint(*.filtered_out))]
    Empty {
        /// The database (a path, or `postgres://user@host:port/name`).
        target: String,
        /// How many tables the include and exclude patterns left out.
        filtered_out: usize,
    },
}

fn empty_hint(filtered_out: usize) -> String {
    if filtered_out == 0 {
        " to map: create tables first, or point at another database (or, on PostgreSQL, another --schema)".to_owned()
    } else {
        format!(
            " left to map: the include and exclude patterns left out all {filtered_out}; widen --include or narrow --exclude"
        )
    }
}
