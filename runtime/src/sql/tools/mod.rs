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

use crate::Tool;
use crate::spec::{SchemaSpec, ToolFamily};

use super::Database;

pub use common::Shared;

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
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    for family in &shared.spec.tools.families {
        match family {
            ToolFamily::Schema => {
                tools.push(Arc::new(get_schema::GetSchema::new(shared.clone())));
                tools.push(Arc::new(describe_entity::DescribeEntity::new(
                    shared.clone(),
                )));
            }
            ToolFamily::Query => {
                tools.push(Arc::new(query_entities::QueryEntities::new(shared.clone())));
                tools.push(Arc::new(glob_search::GlobSearch::new(shared.clone())));
            }
            ToolFamily::Lookup => {
                tools.push(Arc::new(get_entity_by_id::GetEntityById::new(
                    shared.clone(),
                )));
                tools.push(Arc::new(get_entities_by_ids::GetEntitiesByIds::new(
                    shared.clone(),
                )));
            }
            ToolFamily::Relationships => {
                if !shared.spec.relationships.is_empty() {
                    tools.push(Arc::new(explore_relationships::ExploreRelationships::new(
                        shared.clone(),
                    )));
                }
            }
        }
    }
    tools
}
