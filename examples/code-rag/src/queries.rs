//! Reads the custom tools need, through the engine's checked query builder.
//!
//! The one place custom tools touch the database: once the generated typed query API exists,
//! these functions become typed queries returning generated record structs.

use std::sync::Arc;

use serde_json::Value;
use toolforge::ToolError;
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::query::{Condition, EntityQuery, Operator, OrderBy, Page};

/// The most scopes one name may match in a custom tool's answer.
pub const MAX_MATCHES: u32 = 50;

/// The Scope records named exactly `name` (and defined in `file`, if given), ordered by uuid (at most [`MAX_MATCHES`]), as JSON
/// objects with every field and computed field.
pub async fn scopes_named(
    spec: Arc<SchemaSpec>,
    db: &Database,
    name: &str,
    file: Option<&str>,
) -> Result<Page, ToolError> {
    let equals = |field: &str, value: &str| Condition {
        field: field.into(),
        operator: Operator::Eq,
        value: Value::String(value.to_string()),
    };
    let mut conditions = vec![equals("name", name)];
    conditions.extend(file.map(|file| equals("file", file)));
    let order = OrderBy {
        field: "uuid".into(),
        direction: Default::default(),
    };
    db.read(move |conn| {
        let entity = spec
            .entity("Scope")
            .ok_or_else(|| ToolError::execution_failed("the config has no Scope entity"))?;
        let query = EntityQuery::new(entity, &conditions, Some(&order), MAX_MATCHES)?;
        query
            .run(conn)
            .map_err(|e| ToolError::execution_failed(format!("reading scopes failed: {e}")))
    })
    .await
    .ok_or_else(|| ToolError::execution_failed("reading scopes panicked"))?
}
