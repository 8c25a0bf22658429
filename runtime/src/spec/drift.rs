//! How a mapped config and the live database it maps differ ([`Drift`]): what a comparison of
//! the two finds (`toolforge::sql::introspect::drift`), and what `toolforge validate --db`
//! reports at the place in the config each difference concerns.

use serde::Serialize;

/// How much a [`Drift`] matters.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftLevel {
    /// A tool would fail or answer wrongly: a mapped table or column is gone, unreadable, or
    /// holds values of another type than the config says.
    Breaks,
    /// Tools keep working, but may surprise: a key no longer declared unique, a column whose
    /// declared type differs in a way the backend still reads.
    Risky,
    /// Something the database has that the config does not map yet (a table, a column).
    Addition,
}

/// Where in the config a [`Drift`] belongs, by names (the config paths are the validator's
/// business).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DriftPlace {
    /// The database as a whole (a table no entity maps).
    Database,
    /// An entity's `table:`.
    Entity {
        /// The entity's name.
        entity: String,
    },
    /// A field of an entity (its `column:`, or its name when that is the column).
    Field {
        /// The entity's name.
        entity: String,
        /// The field's name.
        field: String,
    },
    /// A relationship's `foreign_key:` or `join_table:`.
    Relationship {
        /// The source entity's name.
        source: String,
        /// The relationship type.
        rel_type: String,
        /// The target entity's name.
        target: String,
    },
    /// A property of a relationship read from its join table.
    Property {
        /// The source entity's name.
        source: String,
        /// The relationship type.
        rel_type: String,
        /// The target entity's name.
        target: String,
        /// The property's name.
        property: String,
    },
}

/// One difference between a mapped config and the database it maps.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Drift {
    /// How much it matters.
    pub level: DriftLevel,
    /// Where in the config it belongs.
    pub place: DriftPlace,
    /// What differs, naming the table and column (`table "Track": column "Milliseconds" is
    /// gone`).
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}
