//! What comparing the tables a spec needs with the tables a database has finds; each backend
//! compares in its own `schema` module.
//!
//! Initialisation is idempotent: objects that exist with exactly the expected definition are
//! left alone, missing ones are planned for creation, and any object that exists with a
//! different definition is reported as a [`SchemaDifference`] (and then nothing is changed).

use std::fmt;

use super::ddl::SchemaObject;

/// One way the database differs from the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaDifference {
    /// `table "scope"` or `index "scope__name__idx"`.
    pub object: String,
    /// What differs, precisely.
    pub message: String,
}

impl fmt::Display for SchemaDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.object, self.message)
    }
}

/// The result of comparing a database with a spec.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaPlan {
    /// Objects that do not exist yet, in creation order.
    pub missing: Vec<SchemaObject>,
    /// Names of objects that already exist as expected.
    pub unchanged: Vec<String>,
    /// Objects that exist with another definition.
    pub differences: Vec<SchemaDifference>,
    /// Columns that [`Database::init`](crate::sql::Database::init) converts in place, in
    /// order (vectors stored as bytes, moved into pgvector columns).
    pub conversions: Vec<SchemaConversion>,
}

/// A column that initialisation converts in place, keeping its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaConversion {
    /// The table's label (`table "scope"`).
    pub object: String,
    /// What changes, for a person.
    pub message: String,
    /// The statements that convert it, run in the initialisation's transaction.
    pub sql: String,
}

impl fmt::Display for SchemaConversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.object, self.message)
    }
}
