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
mod tool;

pub use tool::{
    ErrorCode, Tool, ToolAnnotations, ToolContext, ToolDefinition, ToolError, ToolFuture,
    ToolResult,
};

pub mod arguments;
pub mod builtin;
pub mod dialect;
mod registry;

pub use arguments::ArgumentValidator;
pub use builtin::{BATCH_TOOL_NAME, BatchConfig, BatchTool, InvalidTool};
pub use dialect::Dialect;
pub use registry::{
    MAX_TOOL_NAME_LEN, RegistryBuilder, RegistryError, ToolRegistry, validate_tool_name,
};
