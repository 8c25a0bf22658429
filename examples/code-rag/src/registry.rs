//! The registry of tools over the loaded database.
//!
//! The config was compiled at build time (`build.rs`); the generated module registers `batch`
//! and the config's database tools, puts the database in every call's context, and
//! [`custom_tools::register`] adds the hand-written tools.

use std::sync::Arc;

use toolforge::sql::Database;
use toolforge::{RegistryError, ToolRegistry};

use crate::{custom_tools, tools};

/// `batch`, the config's database tools, then the custom tools (which find the database in
/// the call context).
pub fn build_registry(db: Database) -> Result<Arc<ToolRegistry>, RegistryError> {
    tools::setup_tool_registry_with(db, custom_tools::register)
}
