//! # toolforge-generator
//!
//! Reads a ragforge-style `ragforge.config.yaml`, validates it, compiles it into the storage
//! specification ([`toolforge::spec`]) and generates Rust code from it.
//!
//! ```
//! let source = "name: demo\nentities:\n  - name: Note\n    searchable_fields:\n      - name: title\n        type: string\n";
//! let compiled = toolforge_generator::compile_str(source, "demo.yaml", &Default::default()).unwrap();
//! assert_eq!(compiled.spec.entities[0].table, "note");
//! // the unique field `uuid` is added as a string field
//! assert_eq!(compiled.spec.entities[0].fields[0].name, "uuid");
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod builder;
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
mod compile;
pub mod config;
pub mod diagnostics;
#[cfg(feature = "dynamic")]
pub mod dynamic;
pub mod expr;
pub mod ir;
pub mod output;
mod report;
pub mod validate;

pub use builder::{Builder, GenerateError, check_generated_folder, generate_folder, plan_files};
pub use compile::{CompileOptions, Compiled, compile_file, compile_str};
pub use diagnostics::{Diagnostic, Diagnostics, Severity};
