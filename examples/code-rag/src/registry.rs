//! The config, the database and the registry of tools over them.
//!
//! The one place that turns the config into tools: once static code generation exists, the
//! generated setup module replaces [`spec`] (compiled at build time instead of at start-up)
//! and the `database_tools` call in [`build_registry`].

use std::sync::Arc;

use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::{RegistryError, ToolRegistry};

use crate::custom_tools::{CodeStore, custom_tools};

/// The example's config, embedded in the binary.
pub const CONFIG: &str = include_str!("../ragforge.config.yaml");

/// Compiles [`CONFIG`] into the storage specification.
pub fn spec() -> Result<SchemaSpec, toolforge_generator::Diagnostics> {
    toolforge_generator::compile_str(CONFIG, "ragforge.config.yaml", &Default::default())
        .map(|compiled| compiled.spec)
}

/// The registry: `batch`, the config's database tools, then the custom tools, which find the
/// database in the context as a [`CodeStore`].
pub fn build_registry(
    spec: Arc<SchemaSpec>,
    db: Database,
) -> Result<Arc<ToolRegistry>, RegistryError> {
    let mut builder = ToolRegistry::standard()?.with_extension(CodeStore {
        spec: spec.clone(),
        db: db.clone(),
    });
    for tool in toolforge::sql::tools::database_tools(spec, db) {
        builder.add(tool)?;
    }
    for tool in custom_tools() {
        builder.add(tool)?;
    }
    Ok(builder.build())
}
