//! `include_config!`: a ragforge-style config expanded into toolforge's generated module at
//! compile time, the third way in next to `build.rs` (`toolforge_generator::Builder`) and the
//! checked-in client folder (`toolforge generate`).
//!
//! ```
//! # // This crate's own tests depend on the runtime renamed `tf`: the expansion finds that
//! # // name, and the example reads on as users write it.
//! # extern crate tf as toolforge;
//! mod tools {
//!     // in your crate: include_config!("ragforge.config.yaml")
//!     toolforge_config_macro::include_config!("tests/fixtures/notes.yaml");
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = std::env::temp_dir().join(format!("include-config-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! let db = toolforge::sql::Database::open(dir.join("notes.sqlite"))?;
//! tools::apply_schema(&db)?;
//! let note = tools::records::Note { slug: "hello".into(), title: Some("Hello".into()) };
//! tools::records::Note::upsert(&db, &[note])?;
//!
//! // `batch`, the database tools, and your own tools (none here).
//! let registry = tools::setup_tool_registry_with(db, Ok)?;
//! let found = tokio::runtime::Runtime::new()?.block_on(registry.call(
//!     "get_entity_by_id",
//!     serde_json::json!({"entity_type": "Note", "id_value": "hello"}),
//! ))?;
//! assert_eq!(found["record"]["title"], "Hello");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! The path is relative to the calling crate's root (`CARGO_MANIFEST_DIR`). The expansion is
//! the same module a build script generates (`spec()`, `SCHEMA_SQL`, `apply_schema`, `records`,
//! `tool_args`, `registry_builder`, `setup_tool_registry_with`), with the spec and the SQL
//! inline, and it is rebuilt whenever the config file changes. The crate needs `toolforge` as a
//! direct dependency, under any name: the expansion names the runtime as the crate's
//! `Cargo.toml` does (`tf = { package = "toolforge-runtime", ... }` gives `::tf`).
//!
//! A config error is a compile error at the macro's string literal, quoting the config
//! location (`file:line:col`), the message and the hint, exactly as the CLI prints it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod expand;

use proc_macro::TokenStream;

/// Expands the config at the given path (relative to the calling crate's `CARGO_MANIFEST_DIR`)
/// into the generated module's items. Use it inside a module of your own:
///
/// ```ignore
/// mod tools {
///     toolforge_config_macro::include_config!("ragforge.config.yaml");
/// }
/// ```
///
/// The argument must be one string literal. Config errors (and a missing or unreadable file)
/// are compile errors pointing at that literal, with the config's `file:line:col`, message and
/// hint. Editing the config rebuilds the crate.
#[proc_macro]
pub fn include_config(input: TokenStream) -> TokenStream {
    let path = syn::parse_macro_input!(input as expand::ConfigPath);
    match expand::expand(&path) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}
