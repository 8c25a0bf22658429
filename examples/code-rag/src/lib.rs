//! A code-RAG toolbox over a Rust source tree.
//!
//! - [`ingest`]: parse the tree with syn into directories, files, scopes and their links.
//! - [`load`]: put those records into the SQLite database the config describes.
//! - [`registry`]: the config's database tools plus [`custom_tools`], in one registry.
//! - [`loc`]: counting lines of code (without blanks and comments).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod custom_tools;
pub mod ingest;
pub mod load;
pub mod loc;
pub mod queries;
pub mod registry;
pub mod session;
pub mod setup;
