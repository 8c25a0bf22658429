//! [`SqliteCheck`]: a host's check of declared tools' SQLite statements against a spec, which
//! [`CompileOptions`](crate::CompileOptions) carries to lowering.

use std::sync::Arc;

use toolforge::spec::SchemaSpec;

/// A check of SQLite statements against a spec's schema: for each statement (`?N`
/// placeholders), `None` when it prepares as a read, or what is wrong (SQLite's message).
/// The CLI passes `toolforge::sql::check_sqlite_reads`.
#[derive(Clone)]
pub struct SqliteCheck(pub Arc<SqliteCheckFn>);

/// The function a [`SqliteCheck`] holds: the spec and the statements in, one answer per
/// statement out.
pub type SqliteCheckFn = dyn Fn(&SchemaSpec, &[&str]) -> Vec<Option<String>> + Send + Sync;

impl std::fmt::Debug for SqliteCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SqliteCheck")
    }
}

impl PartialEq for SqliteCheck {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SqliteCheck {}
