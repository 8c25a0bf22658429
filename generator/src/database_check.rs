//! [`DatabaseCheck`]: a host's comparison of a mapped config with the live database it maps,
//! which [`CompileOptions`](crate::CompileOptions) carries to validation.

use std::sync::Arc;

use toolforge::spec::{Drift, SchemaSpec};

/// A comparison of a spec's mapped tables with a database: every difference found, or why the
/// database could not be read. The CLI passes one that reads the catalog of `--db` with
/// `toolforge::sql::introspect::check_database`; the generator, which links no database,
/// locates each answer at the config's lines.
#[derive(Clone)]
pub struct DatabaseCheck(pub Arc<DatabaseCheckFn>);

/// The function a [`DatabaseCheck`] holds.
pub type DatabaseCheckFn = dyn Fn(&SchemaSpec) -> Result<Vec<Drift>, String> + Send + Sync;

impl std::fmt::Debug for DatabaseCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DatabaseCheck")
    }
}

impl PartialEq for DatabaseCheck {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for DatabaseCheck {}
