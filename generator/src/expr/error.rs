//! [`ExprError`]: why a computed field (or declared clause) could not be compiled.

/// Why a computed field could not be compiled: `computed field `name`: message (hint)`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("computed field `{field}`: {message}{}", .hint.as_ref().map(|hint| format!(" ({hint})")).unwrap_or_default())]
pub struct ExprError {
    /// The computed field the error belongs to.
    pub field: String,
    /// What kind of problem this is.
    pub kind: ExprErrorKind,
    /// The problem, naming the offending operand / name.
    pub message: String,
    /// How to fix it (a did-you-mean, the rewrite to use...).
    pub hint: Option<String>,
    /// Byte range inside the body text that is wrong (`0..0` when it is the whole field).
    pub span: std::ops::Range<usize>,
}

/// The category of an [`ExprError`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprErrorKind {
    /// The text does not parse.
    Syntax,
    /// A name that is no field, computed field, relationship or function.
    UnknownName,
    /// Operand types do not fit the operator or function, or the declared type.
    Type,
    /// Computed fields referring to each other in a cycle.
    Cycle,
    /// A `cypher:` body that is not a translatable single-hop aggregate (a warning in
    /// non-strict mode: the field is left out).
    UntranslatableCypher,
}
