//! A computed field's declaration ([`ComputedSource`], [`ComputedBody`]), its compiled form
//! ([`CompiledField`]) and the size limit on its SQL ([`MAX_SQL_LEN`]).

use toolforge::spec::ValueType;

/// The largest compiled SQL accepted for one computed field, in bytes. Computed fields that
/// use each other are inlined, so a few fields using each other twice over could otherwise
/// grow exponentially.
pub const MAX_SQL_LEN: usize = 64 * 1024;

/// One computed field as the config declares it.
#[derive(Debug, Clone, Copy)]
pub struct ComputedSource<'a> {
    /// The field's name.
    pub name: &'a str,
    /// The declared result type as written in the config (`number`, `boolean`, ...).
    pub declared_type: &'a str,
    /// What computes it.
    pub body: ComputedBody<'a>,
}

/// The body of a computed field.
#[non_exhaustive]
#[derive(Debug, Clone, Copy)]
pub enum ComputedBody<'a> {
    /// `expression:` in the expression language.
    Expression(&'a str),
    /// `cypher:`: only single-hop aggregate patterns can be translated.
    Cypher(&'a str),
    /// `sql:`: a trusted raw SQLite fragment over the row alias `n`.
    Sql(&'a str),
}

/// A successfully compiled computed field.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledField {
    /// The field's name.
    pub name: String,
    /// The inferred result type (checked against the declared one).
    pub ty: ValueType,
    /// The SQLite expression over the row alias `n`, computed fields it references inlined.
    pub sql: String,
    /// The same expression with bare column names, for a generated column; `None` when the
    /// expression is not row-local (aggregates over relationships, `now()`), which is what
    /// `materialized` needs.
    pub row_local_sql: Option<String>,
    /// The same expression for PostgreSQL, when it is not `sql` itself.
    pub postgres_sql: Option<String>,
    /// The canonical source text, for descriptions (the translated form for `cypher:`).
    pub source: String,
}
