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

    /// `column` contains the text bound at `p`.
    pub fn contains(self, column: &str, p: &str) -> String {
        match self {
            SqlDialect::Sqlite => format!("instr({column}, {p}) > 0"),
            SqlDialect::Postgres => format!("strpos({column}, {p}) > 0"),
        }
    }

    /// `column` starts with the text bound at `p`.
    pub fn starts_with(self, column: &str, p: &str) -> String {
        match self {
            SqlDialect::Sqlite => format!("substr({column}, 1, length({p})) = {p}"),
            SqlDialect::Postgres => format!("left({column}, length({p})) = {p}"),
        }
    }

    /// `column` ends with the text bound at `p`.
    pub fn ends_with(self, column: &str, p: &str) -> String {
        match self {
            SqlDialect::Sqlite => {
                format!("substr({column}, length({column}) - length({p}) + 1) = {p}")
            }
            SqlDialect::Postgres => format!("right({column}, length({p})) = {p}"),
        }
    }

    /// `column` matches the regular expression bound at `p`.
    pub fn regex_match(self, column: &str, p: &str) -> String {
        match self {
            SqlDialect::Sqlite => format!("regexp({p}, {column})"),
            SqlDialect::Postgres => format!("{column} ~ {p}"),
        }
    }

    /// The direction of an `ORDER BY` term, nulls placed as SQLite places them (first
    /// ascending, last descending) on every backend.
    pub fn order(self, descending: bool) -> &'static str {
        match (descending, self) {
            (false, SqlDialect::Sqlite) => "ASC",
            (true, SqlDialect::Sqlite) => "DESC",
            (false, SqlDialect::Postgres) => "ASC NULLS FIRST",
            (true, SqlDialect::Postgres) => "DESC NULLS LAST",
        }
    }

    /// The JSON text of member `p` (a bound key) of the JSON object text `object`, or NULL
    /// when it has none.
    pub fn json_member(self, object: &str, p: &str) -> String {
        match self {
            SqlDialect::Sqlite => format!("({object}) -> ('$.\"' || {p} || '\"')"),
            SqlDialect::Postgres => {
                format!("CAST(CAST({object} AS jsonb) -> CAST({p} AS text) AS text)")
            }
        }
    }

    /// Seconds since the epoch of the instant text `column` (`2026-01-02T03:04:05Z`).
    pub fn epoch_seconds(self, column: &str) -> String {
        match self {
            SqlDialect::Sqlite => format!("CAST(strftime('%s', {column}) AS INTEGER)"),
            SqlDialect::Postgres => {
                format!("CAST(extract(epoch FROM CAST({column} AS timestamptz)) AS bigint)")
            }
        }
    }

    /// The backend's key in a config (`sql: {sqlite: ..., postgres: ...}`).
    pub fn config_key(self) -> &'static str {
        match self {
            SqlDialect::Sqlite => "sqlite",
            SqlDialect::Postgres => "postgres",
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
