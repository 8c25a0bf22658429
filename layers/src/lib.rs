//! Checks the module layering of a crate from its source text, so CI can keep the
//! architecture honest.
//!
//! [`CrateGraph::load`] reads a crate's `src/` directory: the module tree (following `mod`
//! declarations from `lib.rs`), the names each module defines and re-exports, and every path
//! its non-test code mentions. Each path is resolved to the module that *defines* what it
//! names, following re-exports (so importing `crate::facade::X`, where `facade` only does
//! `pub use child::X`, depends on `facade::child`, not on `facade`). The resolved
//! dependencies between file modules are the graph's edges, each with the first `file:line`
//! it arises at.
//!
//! Rules are data ([`Rule`]) checked with [`check`], or one at a time with [`acyclic`],
//! [`layers`], [`forbidden_crates`] and [`cfg_confined`]:
//!
//! ```no_run
//! use toolforge_layers::{Rule, check};
//!
//! check("runtime/src", &[
//!     Rule::Acyclic { under: "sql" },
//!     Rule::Layers(&[&["sql::ident", "sql::lex"], &["sql::query"], &["sql::tools"]]),
//!     Rule::ForbiddenCrates { under: "sql::tools", crates: &["tokio_postgres"] },
//!     Rule::CfgConfined { feature: "postgres", allowed: &["sql/postgres"] },
//! ])?;
//! # Ok::<(), toolforge_layers::Error>(())
//! ```
//!
//! # What counts as a dependency
//!
//! - Every leaf of every `use` (private or public; `use a::{b::X, c::*}` is two leaves).
//! - Every path of two or more segments in the code — types, expressions, patterns, trait
//!   bounds, macro names — whose first segment is `crate`, `self`, `super`, an alias of the
//!   crate (`extern crate self as name`), a child module, or a name brought in by a `use`.
//! - Not: attributes, visibilities (`pub(crate)`), the token bodies of macro invocations and
//!   `macro_rules!`, `mod x;` declarations (ownership, not dependency), and anything gated by
//!   `#[cfg(test)]` or `#[test]`. Other `cfg`s are ignored: code behind every feature counts.
//! - Inline `mod x { ... }` blocks are modules for name resolution, but their code counts as
//!   their file module's: only file modules are nodes of the graph.
//!
//! Paths that start at an external crate (`std::`, `serde::`, `rusqlite::`) are not edges; the
//! crate is recorded per module, for [`Rule::ForbiddenCrates`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cfg;
mod error;
mod graph;
mod module_path;
mod resolve;
mod rules;
mod tree;

pub use cfg::{CfgMention, counts as cfg_counts, feature_cfgs};
pub use error::LoadError;
pub use graph::{CrateGraph, Cycle, Edge, Resolution, Unresolved};
pub use module_path::ModulePath;
pub use rules::{
    Error, Report, Rule, Violation, acyclic, cfg_confined, check, forbidden_crates, layers,
};
pub use tree::{ItemKind, Location, Module, ReExport, Warning};
