//! The standard live registry over a database: the database tools, `batch`, and unknown names
//! answered by `InvalidTool`.

use std::sync::Arc;

use crate::builtin::{BatchConfig, BatchTool};
use crate::spec::SchemaSpec;
use crate::{RegistryBuilder, RegistryError, ToolDefinition, ToolRegistry};

use super::backend::SqlDialect;
use super::database::{Database, DbError};
use super::schema_diff::SchemaDifference;
use super::tools::{database_tool_definitions, register_database_tools};
use super::value::SqlValue;

/// The standard way to start: a registry with the database tools the spec asks for (see
/// [`database_tools`](super::tools::database_tools)) followed by the built-in `batch` tool;
/// unknown names are answered with the nearest names.
///
/// The database is used as it is: check it first with [`schema_gaps`] if it may not have
/// been initialised.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use serde_json::json;
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true},
/// #              {"name": "pages", "type": "number"}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["schema", "query", "lookup", "relationships"]}}))?;
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// db.import_jsonl(&spec, r#"{"entity":"Book","data":{"isbn":"978-0","pages":412}}"#.as_bytes())?;
/// let registry = toolforge::sql::registry(std::sync::Arc::new(spec), db)?;
///
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// runtime.block_on(async {
///     let found = registry
///         .call("get_entity_by_id", json!({"entity_type": "Book", "id_value": "978-0"}))
///         .await
///         .unwrap();
///     assert_eq!(found["record"]["pages"], 412.0);
///     let unknown = registry.call("get_entity_byid", json!({})).await.unwrap_err();
///     assert_eq!(unknown.details.unwrap()["candidates"][0], "get_entity_by_id");
/// });
/// # Ok(()) }
/// ```
pub fn registry(spec: Arc<SchemaSpec>, db: Database) -> Result<Arc<ToolRegistry>, RegistryError> {
    Ok(registry_builder(spec, db)?.build())
}

/// The builder of [`registry`], before it is built: the same tools in the same order, for
/// setting limits ([`RegistryBuilder::with_limits`], [`RegistryBuilder::with_tool_limits`]) or
/// adding tools.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["query"]}}))?;
/// use std::time::Duration;
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// let registry = toolforge::sql::registry_builder(std::sync::Arc::new(spec), db)?
///     .with_timeout(Duration::from_secs(5))
///     .with_max_answer_bytes(64 * 1024)
///     .build();
/// assert_eq!(registry.limits_for("query_entities").max_answer_bytes, Some(64 * 1024));
/// # Ok(()) }
/// ```
pub fn registry_builder(
    spec: Arc<SchemaSpec>,
    db: Database,
) -> Result<RegistryBuilder, RegistryError> {
    register_database_tools(ToolRegistry::builder(), spec, db)?.with_builtins()
}

/// The definitions of the tools [`registry`] holds, in the same order and identical, from the
/// spec alone (no database is opened): for `tools list` and exports.
///
/// ```
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["lookup"]}})).unwrap();
/// let names: Vec<String> = toolforge::sql::registry_definitions(&spec)
///     .into_iter()
///     .map(|d| d.name)
///     .collect();
/// assert_eq!(names, ["get_entity_by_id", "get_entities_by_ids", "batch"]);
/// ```
pub fn registry_definitions(spec: &SchemaSpec) -> Vec<ToolDefinition> {
    let mut definitions = database_tool_definitions(spec);
    let batch = BatchTool::definition_reaching(BatchConfig::default(), &definitions);
    definitions.push(batch);
    definitions
}

/// Every table or index the spec needs that the database lacks (`"does not exist"`) or holds
/// with another definition; empty when the database is ready for the tools. Changes nothing.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100, "families": []}}))?;
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// let gaps = toolforge::sql::schema_gaps(&db, &spec)?;
/// assert_eq!(gaps[0].to_string(), "table \"book\": does not exist");
/// db.init(&spec)?;
/// assert!(toolforge::sql::schema_gaps(&db, &spec)?.is_empty());
/// # Ok(()) }
/// ```
pub fn schema_gaps(db: &Database, spec: &SchemaSpec) -> Result<Vec<SchemaDifference>, DbError> {
    let plan = db.schema_plan(spec)?;
    // A missing vector index (pgvector's HNSW) is no gap: searches are exact without it.
    let mut gaps: Vec<SchemaDifference> = plan
        .missing
        .iter()
        .filter(|object| object.kind != crate::sql::ddl::ObjectKind::VectorIndex)
        .map(|object| SchemaDifference {
            object: format!("{} \"{}\"", object.kind.as_str(), object.name),
            message: "does not exist".into(),
        })
        .collect();
    gaps.extend(plan.differences);
    if spec.is_mapped() {
        gaps.extend(mapping_gaps(db, spec)?);
    }
    Ok(gaps)
}

/// The tables and columns of a mapped spec that the database lacks (dropped, renamed, or
/// not readable by this role): one statement per table and column, none of which reads a row.
fn mapping_gaps(db: &Database, spec: &SchemaSpec) -> Result<Vec<SchemaDifference>, DbError> {
    let spec = spec.clone();
    db.read_any_blocking(move |conn| {
        Box::pin(async move {
            let base = match conn.dialect() {
                SqlDialect::Sqlite => "\"main\"".to_owned(),
                SqlDialect::Postgres => match conn
                    .rows(
                        &format!("SELECT {}", crate::sql::side_store::pg_base_schema(&spec)),
                        &[],
                    )
                    .await?
                    .into_iter()
                    .next()
                    .and_then(|row| row.into_iter().next())
                {
                    Some(SqlValue::Text(schema)) => crate::sql::text::ident::quote(&schema),
                    _ => "\"public\"".to_owned(),
                },
            };
            let mut gaps: Vec<SchemaDifference> = Vec::new();
            let mut missing_tables: Vec<crate::spec::TableRef> = Vec::new();
            for probe in crate::sql::mapping::probes(&spec, &base) {
                if missing_tables.contains(&probe.table) {
                    continue;
                }
                let Err(error) = conn.rows(&probe.sql, &[]).await else {
                    continue;
                };
                // SQLite's message ends with the probe's text, which says nothing more.
                let message = error.to_string();
                let reason = message.split(" in SELECT ").next().unwrap_or(&message);
                match &probe.column {
                    None => {
                        missing_tables.push(probe.table.clone());
                        gaps.push(SchemaDifference {
                            object: format!("table {}", probe.table),
                            message: format!("cannot be read ({reason}); {} maps it", probe.what),
                        });
                    }
                    Some(column) => gaps.push(SchemaDifference {
                        object: format!("table {}", probe.table),
                        message: format!(
                            "column \"{column}\" cannot be read ({reason}); {} maps it",
                            probe.what
                        ),
                    }),
                }
            }
            Ok::<_, crate::sql::backend::ExecError>(gaps)
        })
    })?
    .map_err(DbError::from)
}
