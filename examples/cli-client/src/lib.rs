//! The CLI workflow of toolforge on a small library of books and authors.
//!
//! - [`library`]: the client folder `toolforge generate` wrote from `ragforge.config.yaml`
//!   (`mod.rs` and `schema.sql` are generated and checked fresh in CI; `custom_tools.rs` was
//!   created once by the generator and then edited by hand).
//! - [`sample`]: a few books and authors, loaded in one transaction with the generated typed upserts
//!   and links.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// The client folder generated from `ragforge.config.yaml`: the storage spec, typed records,
/// the typed database tools and the hand-written custom tools.
pub mod library;
pub mod sample;
