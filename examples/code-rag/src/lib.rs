//! A code-RAG toolbox over a Rust source tree.
//!
//! - [`corpus`]: the default tree, a crate's source pinned by `Cargo.lock`.
//! - [`ingest`]: parse the tree with syn into directories, files, scopes and their links.
//! - [`load`]: put those records into the SQLite database the config describes.
//! - [`tools`]: the module generated from the config at build time.
//! - [`registry`]: the config's database tools plus [`custom_tools`], in one registry.
//! - [`loc`]: counting lines of code (without blanks and comments).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod corpus;
pub mod custom_tools;
pub mod ingest;
pub mod load;
pub mod loc;
pub mod registry;
pub mod session;
pub mod setup;

/// The module generated from `ragforge.config.yaml` by `build.rs`: the storage spec, typed
/// records with typed queries, upserts and links, and the registry of database tools.
pub mod tools {
    toolforge::include_generated!();
}
