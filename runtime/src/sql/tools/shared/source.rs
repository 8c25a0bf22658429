//! Where the tools find their spec and database: their own ([`Shared`]), or each call's.

use std::sync::Arc;

use crate::ToolError;
use crate::spec::SchemaSpec;
use crate::sql::Database;

/// The spec and database the tools answer from.
#[derive(Debug)]
pub struct Shared {
    /// The storage spec.
    pub spec: Arc<SchemaSpec>,
    /// The database.
    pub db: Database,
}

impl Shared {
    /// Bundles a spec and a database.
    pub fn new(spec: Arc<SchemaSpec>, db: Database) -> Self {
        Shared { spec, db }
    }
}

/// The database of a call's context, or the error that says how to provide one.
pub(crate) fn context_database(context: &crate::ToolContext) -> Result<Database, ToolError> {
    context.extension::<Database>().cloned().ok_or_else(|| {
        ToolError::new(
            crate::ErrorCode::Unavailable,
            "no database in the call context: build the registry with the generated \
             `registry_builder(db)` (or add one with `with_extension(db)`)",
        )
    })
}

/// Where an engine tool finds its database.
pub(crate) enum DatabaseSource {
    /// Its own.
    Bound(Arc<Shared>),
    /// The [`Database`] of each call's context, with this spec.
    Context(Arc<SchemaSpec>),
}
