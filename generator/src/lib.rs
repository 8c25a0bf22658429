//! # toolforge-generator
//!
//! Reads a ragforge-style `ragforge.config.yaml`, validates it, compiles it into the storage
//! specification ([`toolforge::spec`]) and generates Rust code from it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod expr;
pub mod output;
