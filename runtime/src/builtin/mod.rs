//! Tools every registry can have: [`BatchTool`] (`batch`) and the unknown-name answer
//! [`InvalidTool`].

mod batch;
mod invalid;

pub use batch::{BATCH_TOOL_NAME, BatchConfig, BatchTool};
pub use invalid::{InvalidTool, MAX_CANDIDATES};
