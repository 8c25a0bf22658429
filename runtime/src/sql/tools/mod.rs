//! The database tools, built at run time from a [`SchemaSpec`].
//!
//! Every tool is read-only and idempotent, checks entity and field names against the spec
//! before building SQL, binds every value as a parameter, and runs on the database's pool of
//! read-only connections. Lists are answered as
//! `{"entity_type", "total", "returned", "truncated", "results": [...]}`.

mod common;
mod describe_entity;
mod explore_relationships;
mod get_entities_by_ids;
mod get_entity_by_id;
mod get_schema;
mod glob_search;
mod query_entities;

use std::sync::Arc;

use crate::spec::{SchemaSpec, ToolFamily};
use serde_json::Value;

use crate::{RegistryBuilder, RegistryError, Tool, ToolDefinition, ToolFuture};

use super::Database;

pub use common::{Shared, optional_integer};

/// The tools the spec asks for (`spec.tools.families`, named with `spec.tools.name_prefix`),
/// in a stable order: `get_schema`, `describe_entity`, `query_entities`, `glob_search`,
/// `get_entity_by_id`, `get_entities_by_ids`, `explore_relationships` (only when the spec has
/// relationships).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["schema", "query", "lookup", "relationships"]}}))?;
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// let tools = toolforge::sql::tools::database_tools(std::sync::Arc::new(spec), db);
/// let names: Vec<&str> = tools.iter().map(|t| t.definition().name.as_str()).collect();
/// assert_eq!(names, ["get_schema", "describe_entity", "query_entities", "glob_search",
///                    "get_entity_by_id", "get_entities_by_ids"]);
/// # Ok(()) }
/// ```
pub fn database_tools(spec: Arc<SchemaSpec>, db: Database) -> Vec<Arc<dyn Tool>> {
    let shared = Arc::new(Shared::new(spec, db));
    plan(&shared.spec)
        .into_iter()
        .map(|kind| -> Arc<dyn Tool> {
            let shared = shared.clone();
            match kind {
                DatabaseTool::GetSchema => Arc::new(get_schema::GetSchema::new(shared)),
                DatabaseTool::DescribeEntity => {
                    Arc::new(describe_entity::DescribeEntity::new(shared))
                }
                DatabaseTool::QueryEntities => Arc::new(query_entities::QueryEntities::new(shared)),
                DatabaseTool::GlobSearch => Arc::new(glob_search::GlobSearch::new(shared)),
                DatabaseTool::GetEntityById => {
                    Arc::new(get_entity_by_id::GetEntityById::new(shared))
                }
                DatabaseTool::GetEntitiesByIds => {
                    Arc::new(get_entities_by_ids::GetEntitiesByIds::new(shared))
                }
                DatabaseTool::ExploreRelationships => {
                    Arc::new(explore_relationships::ExploreRelationships::new(shared))
                }
            }
        })
        .collect()
}

/// The definitions of the tools [`database_tools`] builds, in the same order and identical,
/// computed from the spec alone (no database needed): for listing or exporting tools.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["schema", "query"]}}))?;
/// let definitions = toolforge::sql::tools::database_tool_definitions(&spec);
/// let names: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
/// assert_eq!(names, ["get_schema", "describe_entity", "query_entities", "glob_search"]);
/// # Ok(()) }
/// ```
pub fn database_tool_definitions(spec: &SchemaSpec) -> Vec<ToolDefinition> {
    plan(spec)
        .into_iter()
        .map(|tool| tool.definition(spec))
        .collect()
}

/// Adds the database tools ([`database_tools`]) to a registry builder; a name clash with a
/// tool already registered is an error.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["schema"]}}))?;
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// let builder = toolforge::ToolRegistry::standard()?;
/// let registry = toolforge::sql::tools::register_database_tools(builder, std::sync::Arc::new(spec), db)?
///     .build();
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["batch", "get_schema", "describe_entity"]);
/// # Ok(()) }
/// ```
pub fn register_database_tools(
    mut builder: RegistryBuilder,
    spec: Arc<SchemaSpec>,
    db: Database,
) -> Result<RegistryBuilder, RegistryError> {
    for tool in database_tools(spec, db) {
        builder.add(tool)?;
    }
    Ok(builder)
}

/// One database tool of the engine, for code that needs one tool without the others (the
/// generated typed tools): its definition and its call, the same as the tool
/// [`database_tools`] builds.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["lookup"]}}))?;
/// use toolforge::sql::tools::{DatabaseTool, database_tool_definitions};
/// let definition = DatabaseTool::GetEntityById.definition(&spec);
/// assert_eq!(definition, database_tool_definitions(&spec)[0]);
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// let call = DatabaseTool::GetEntityById.call(
///     std::sync::Arc::new(spec),
///     db,
///     serde_json::json!({"entity_type": "Book", "id_value": "978-0"}),
/// );
/// let error = tokio::runtime::Runtime::new()?.block_on(call).unwrap_err();
/// assert_eq!(error.code, toolforge::ErrorCode::NotFound);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatabaseTool {
    /// `get_schema`.
    GetSchema,
    /// `describe_entity`.
    DescribeEntity,
    /// `query_entities`.
    QueryEntities,
    /// `glob_search`.
    GlobSearch,
    /// `get_entity_by_id`.
    GetEntityById,
    /// `get_entities_by_ids`.
    GetEntitiesByIds,
    /// `explore_relationships`.
    ExploreRelationships,
}

impl DatabaseTool {
    /// The tool's definition for `spec` (identical to the one [`database_tools`] registers).
    pub fn definition(self, spec: &SchemaSpec) -> ToolDefinition {
        match self {
            DatabaseTool::GetSchema => get_schema::GetSchema::definition_for(spec),
            DatabaseTool::DescribeEntity => describe_entity::DescribeEntity::definition_for(spec),
            DatabaseTool::QueryEntities => query_entities::QueryEntities::definition_for(spec),
            DatabaseTool::GlobSearch => glob_search::GlobSearch::definition_for(spec),
            DatabaseTool::GetEntityById => get_entity_by_id::GetEntityById::definition_for(spec),
            DatabaseTool::GetEntitiesByIds => {
                get_entities_by_ids::GetEntitiesByIds::definition_for(spec)
            }
            DatabaseTool::ExploreRelationships => {
                explore_relationships::ExploreRelationships::definition_for(spec)
            }
        }
    }

    /// Runs the tool on `arguments` over `spec` and `db`: the same answer, or the same error,
    /// as a call of the tool [`database_tools`] builds.
    pub fn call(
        self,
        spec: Arc<SchemaSpec>,
        db: Database,
        arguments: Value,
    ) -> ToolFuture<'static> {
        let shared = Arc::new(Shared::new(spec, db));
        match self {
            DatabaseTool::GetSchema => {
                common::run_pure(&shared.spec, arguments, get_schema::handle)
            }
            DatabaseTool::DescribeEntity => {
                common::run_pure(&shared.spec, arguments, describe_entity::handle)
            }
            DatabaseTool::QueryEntities => common::run(&shared, arguments, query_entities::handle),
            DatabaseTool::GlobSearch => common::run(&shared, arguments, glob_search::handle),
            DatabaseTool::GetEntityById => {
                common::run(&shared, arguments, get_entity_by_id::handle)
            }
            DatabaseTool::GetEntitiesByIds => {
                common::run(&shared, arguments, get_entities_by_ids::handle)
            }
            DatabaseTool::ExploreRelationships => {
                common::run(&shared, arguments, explore_relationships::handle)
            }
        }
    }
}

/// The tools `spec.tools.families` asks for, in a stable order.
fn plan(spec: &SchemaSpec) -> Vec<DatabaseTool> {
    let mut kinds = Vec::new();
    for family in &spec.tools.families {
        match family {
            ToolFamily::Schema => {
                kinds.extend([DatabaseTool::GetSchema, DatabaseTool::DescribeEntity])
            }
            ToolFamily::Query => {
                kinds.extend([DatabaseTool::QueryEntities, DatabaseTool::GlobSearch])
            }
            ToolFamily::Lookup => {
                kinds.extend([DatabaseTool::GetEntityById, DatabaseTool::GetEntitiesByIds])
            }
            ToolFamily::Relationships => {
                if !spec.relationships.is_empty() {
                    kinds.push(DatabaseTool::ExploreRelationships);
                }
            }
        }
    }
    kinds
}
