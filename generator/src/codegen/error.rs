//! [`CodegenError`]: why code generation failed.

/// Why code generation failed. The config itself was valid; these are limits of code
/// generation (names that cannot coexist in Rust) or internal errors.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodegenError {
    /// The generated Rust did not parse: a generator bug.
    #[error("generated `{file}` is not valid Rust ({reason}); please report this with the config")]
    InvalidRust {
        /// The generated file.
        file: String,
        /// The parser's message.
        reason: String,
    },
    /// A template failed to render.
    #[error("template `{template}` failed: {reason}")]
    Template {
        /// The template.
        template: String,
        /// minijinja's message.
        reason: String,
    },
    /// The spec cannot be turned into SQL.
    #[error("the schema cannot be written as SQL")]
    Spec(#[source] toolforge::sql::ddl::SpecError),
    /// The spec cannot be embedded as JSON.
    #[error("the spec cannot be written as JSON: {reason}")]
    SpecJson {
        /// serde_json's message.
        reason: String,
    },
    /// Two config names need the same Rust name.
    #[error("{0}")]
    NameCollision(String),
    /// The configured crate path is not a Rust path.
    #[error(
        "the crate path `{path}` is not a Rust path ({reason}); write it like `::toolforge` or `crate::deps::toolforge`"
    )]
    InvalidCratePath {
        /// The path as given.
        path: String,
        /// The parser's message.
        reason: String,
    },
}
