#![doc = include_str!("../README.md")]
//!
//! ## The main types
//!
//! - [`Tool`], [`ToolDefinition`], [`ToolError`], [`ToolContext`]: what every tool is;
//!   [`ToolHandler`] and [`TypedTool`] for typed arguments.
//! - [`ToolRegistry`] and [`RegistryBuilder`]: the tools an agent can call; [`Dialect`]: the
//!   provider formats of their definitions; [`BatchTool`] and [`InvalidTool`].
//! - [`spec`]: the storage specification the generator compiles a config into; [`sql`]: the
//!   engine and the database tools over it.
#![cfg_attr(feature = "mcp", doc = "- [`mcp`]: the MCP server.")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Lets `#[derive(Tool)]` expansions name this crate `::toolforge` from inside it too.
extern crate self as toolforge;

pub mod spec;
pub mod sql;
mod tool;
mod typed;

pub use tool::{
    ContextValues, ErrorCode, Tool, ToolAnnotations, ToolContext, ToolDefinition, ToolError,
    ToolFuture, ToolResult,
};

pub mod arguments;
pub mod builtin;
pub mod dialect;
pub mod embed;
mod gate;
pub mod limits;
#[cfg(feature = "mcp")]
pub mod mcp;
mod registry;
pub mod search;
mod sync;
pub mod trace;

pub use arguments::ArgumentValidator;
pub use builtin::{BATCH_TOOL_NAME, BatchConfig, BatchTool, InvalidTool};
pub use dialect::Dialect;
pub use gate::{ScopePolicy, ToolGate};
pub use limits::{CallBudget, CallLimits};
pub use registry::{
    InvalidToolName, MAX_TOOL_NAME_LEN, RegistryBuilder, RegistryError, ToolRegistry,
    validate_tool_name,
};
pub use typed::{
    ToolArgs, ToolHandler, TypedTool, deserialize_arguments, input_schema_for, output_schema_for,
};

/// Derives [`ToolArgs`] for a struct of tool arguments; see [`ToolHandler`] for a complete tool
/// and the macro's own documentation for every `#[tool(...)]` attribute.
#[cfg(feature = "derive")]
pub use toolforge_macros::Tool;

/// Re-exported so users can name the libraries toolforge's types are built on without depending
/// on them directly.
pub use schemars;
/// Re-exported so users can name the libraries toolforge's types are built on without depending
/// on them directly.
pub use serde;
/// Re-exported so users can name the libraries toolforge's types are built on without depending
/// on them directly.
pub use serde_json;

/// What `#[derive(Tool)]` expansions use. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::__database_tool_table as database_tool_table;
    #[cfg(feature = "engine")]
    pub use crate::sql::arg_name::{ArgName, IntoEngine, NamedType};
    /// Whether an error is SQLite's interrupt, for the tests of deadlines.
    #[cfg(feature = "sqlite")]
    pub use crate::sql::sqlite::is_interrupt;
    /// The matcher behind `GLOB`, for the tests that hold it against SQLite's own.
    pub use crate::sql::text::glob::GlobPattern;
    /// The generator's check of `sql:` statements skips PostgreSQL's quoted forms with it.
    pub use crate::sql::text::lex::postgres_quoted_end;
    pub use crate::typed::DeriveSpec;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    #[cfg(feature = "engine")]
    pub use toolforge_macros::IntoEngine;

    /// How many graphs `find_path` loaded on `db`, and how many times its calls searched one
    /// in memory (the rest walked statement by statement): what tests read to tell which
    /// search answered.
    #[cfg(feature = "engine")]
    pub fn path_graph_counts(db: &crate::sql::Database) -> (u64, u64) {
        db.path_graphs().counts()
    }

    /// How many semantic searches on `db` the HNSW graphs of its loaded vector indexes
    /// answered (the rest were exact scans): what tests read to tell which search answered.
    #[cfg(all(feature = "engine", feature = "ann"))]
    pub fn approximate_answers(db: &crate::sql::Database) -> u64 {
        db.vector_cache().approximate_answers()
    }

    /// The body of the placeholder impl the derive emits next to a compile error.
    pub fn derive_failed() -> crate::ToolError {
        crate::ToolError::new(
            crate::ErrorCode::Unavailable,
            "this tool's #[derive(Tool)] failed to compile",
        )
    }
}

/// Includes the module a build script generated with `toolforge_generator::Builder`
/// (`$OUT_DIR/toolforge/mod.rs`). Use it inside a module of your own:
///
/// ```ignore
/// mod tools {
///     toolforge::include_generated!();
/// }
/// ```
#[macro_export]
macro_rules! include_generated {
    () => {
        include!(concat!(env!("OUT_DIR"), "/toolforge/mod.rs"));
    };
}
