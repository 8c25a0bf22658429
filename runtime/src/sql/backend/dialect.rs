//! The SQL dialect of a backend ([`SqlDialect`]): what the few statements whose SQL differs
//! between backends ask.

/// The SQL dialect of a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SqlDialect {
    /// Embedded SQLite (rusqlite, bundled).
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

impl SqlDialect {
    /// The always-true condition (`WHERE` of a query without conditions).
    pub fn true_sql(self) -> &'static str {
        match self {
            SqlDialect::Sqlite => "1",
            SqlDialect::Postgres => "TRUE",
        }
    }

    /// The always-false condition (`IN` an empty list).
    pub fn false_sql(self) -> &'static str {
        match self {
            SqlDialect::Sqlite => "0",
            SqlDialect::Postgres => "FALSE",
        }
    }

    /// The backend's name in messages (`SQLite`, `PostgreSQL`).
    pub fn name(self) -> &'static str {
        match self {
            SqlDialect::Sqlite => "SQLite",
            SqlDialect::Postgres => "PostgreSQL",
        }
    }
}

/// The name of the GLOB function SQLite connections carry and the query builder calls:
/// SQLite's `GLOB` matched without recursion (see `sql/sqlite/functions.rs`).
pub const GLOB_FUNCTION: &str = "toolforge_glob";

/// The name of the function SQLite connections carry that answers a context value of the call
/// holding the connection (what row rules read).
pub(crate) const CONTEXT_FUNCTION: &str = "toolforge_context";

/// The former name of [`SqlDialect`].
#[deprecated(
    note = "renamed `SqlDialect` (`toolforge::Dialect` is the provider dialect of tool schemas)"
)]
pub type Dialect = SqlDialect;
