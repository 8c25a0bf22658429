//! # toolforge
//!
//! Run LLM tools generated from ragforge-style configs.
//!
//! - [`Tool`], [`ToolDefinition`], [`ToolError`], [`ToolContext`]: what every tool is.
//! - [`spec`]: the storage specification the generator compiles a config into.
//!
//! See the repository README for the whole picture.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod spec;
#[cfg(feature = "sqlite")]
pub mod sql;
mod tool;

pub use tool::{
    ErrorCode, Tool, ToolAnnotations, ToolContext, ToolDefinition, ToolError, ToolFuture,
    ToolResult,
};
