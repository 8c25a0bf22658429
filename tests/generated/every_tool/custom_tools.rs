//! Your own tools, next to the ones generated from `fixtures/every-tool.yaml`.
//!
//! toolforge created this file once and never overwrites it: edit it freely. Every tool you add
//! to `register` is served by `setup_tool_registry` together with the database tools.
//!
//! A tool is a struct of arguments deriving `Tool` (its doc comment is the description the
//! model reads) plus a `ToolHandler` impl. The database is in the call's context; the typed
//! records in `super::records` query it without writing SQL.

use toolforge::sql::Database;
use toolforge::{RegistryBuilder, RegistryError, ToolContext, ToolError};

use toolforge::sql::query::{Direction, Operator};
use toolforge::{Tool, ToolHandler};

use super::records;

/// Lists Person records whose `name` contains a text, sorted by `height` (descending).
#[derive(Tool)]
#[tool(name = "list_person", read_only, idempotent)]
pub struct ListPerson {
    /// Text the `name` field must contain; omit it to list every record.
    pub contains: Option<String>,
    /// The most records to return (default 10).
    pub limit: Option<u32>,
}

impl ToolHandler for ListPerson {
    type Output = Vec<records::Person>;

    async fn run(self, context: &ToolContext) -> Result<Self::Output, ToolError> {
        let db = database(context)?;
        let mut query = records::Person::query()
            .order_by(records::PersonField::Height, Direction::Desc)
            .limit(self.limit.unwrap_or(10));
        if let Some(text) = self.contains {
            query = query.filter(records::PersonField::Name, Operator::Contains, text);
        }
        Ok(query.all(db).await?)
    }
}

/// Adds your tools to the registry `setup_tool_registry` builds.
pub fn register(builder: RegistryBuilder) -> Result<RegistryBuilder, RegistryError> {
    builder.register(ListPerson::into_tool())
}

/// The database `setup_tool_registry` put in the context.
#[allow(dead_code)]
fn database(context: &ToolContext) -> Result<&Database, ToolError> {
    context
        .extension::<Database>()
        .ok_or_else(|| ToolError::execution_failed("no database in the tool context"))
}
