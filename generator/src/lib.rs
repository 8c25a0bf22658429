//! # toolforge-generator
//!
//! Reads a ragforge-style `ragforge.config.yaml`, validates it, compiles it into the storage
//! specification ([`toolforge::spec`]) and generates Rust code from it. This is the crate a
//! `build.rs` depends on: it links neither SQLite nor a command-line parser (the `toolforge`
//! binary lives in the `toolforge-cli` crate).
//!
//! In a build script, [`Builder`] writes the config's module into `$OUT_DIR/toolforge/`:
//!
//! ```no_run
//! // build.rs, inside `fn main()`:
//! if let Err(error) = toolforge_generator::Builder::new("ragforge.config.yaml").generate() {
//!     eprintln!("{error}"); // config errors as file:line:col code frames
//!     std::process::exit(1);
//! }
//! ```
//!
//! and the crate includes it with `mod tools { toolforge::include_generated!(); }`.
//!
//! [`compile_str`] and [`compile_file`] check a config and lower it to its storage spec, with
//! every problem as a located [`Diagnostic`]:
//!
//! ```
//! let source = "name: demo\nentities:\n  - name: Note\n    searchable_fields:\n      - name: title\n        type: string\n";
//! let compiled = toolforge_generator::compile_str(source, "demo.yaml", &Default::default()).unwrap();
//! assert_eq!(compiled.spec.entities[0].table, "note");
//! // the unique field `uuid` is added as a string field
//! assert_eq!(compiled.spec.entities[0].fields[0].name, "uuid");
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod builder;
mod codegen;
mod compile;
mod config;
mod database_check;
mod diagnostics;
mod diagram;
mod expr;
mod facts;
mod ir;
mod naming;
mod output;
mod report;
mod sqlite_check;
mod validate;

pub use builder::{Builder, GenerateError};
pub use codegen::CodegenError;
pub use compile::{CompileOptions, Compiled, compile_file, compile_str};
pub use database_check::{DatabaseCheck, DatabaseCheckFn};
pub use diagnostics::{Diagnostic, Diagnostics, Related, Severity};
pub use output::{FileAction, OutputError, WriteReport};
pub use sqlite_check::{SqliteCheck, SqliteCheckFn};

/// Not public API: the generator's internals, for the `toolforge` CLI, the config macro and
/// the workspace's tests and benchmarks. Nothing here follows semantic versioning.
#[doc(hidden)]
pub mod __private {
    pub use crate::builder::{check_generated_folder, generate_folder, plan_files};

    /// Code generation: the generated module's tokens and files.
    pub mod codegen {
        pub use crate::codegen::*;
    }
    /// The config model, its JSON Schema and its YAML reading.
    pub mod config {
        pub use crate::config::*;
    }
    /// Computed-field expressions compiled to SQL.
    pub mod expr {
        pub use crate::expr::*;
    }
    /// Lowering a validated config to the storage spec.
    pub mod ir {
        pub use crate::ir::*;
    }
    /// Writing and checking generated folders.
    pub mod output {
        pub use crate::output::*;
    }
    /// Entity–relationship diagrams of a config: Mermaid, DOT and (feature `svg`) SVG.
    pub mod diagram {
        pub use crate::diagram::*;
    }
    /// Config validation.
    pub mod validate {
        pub use crate::validate::*;
    }
}
