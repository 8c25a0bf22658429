//! Your own tools, next to the ones generated from `corpus/ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml`.
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

use super::records::{Scope, ScopeField};

/// Lists Scope records whose `uuid` contains a text, sorted by `line_count` (descending).
#[derive(Tool)]
#[tool(name = "list_scope", read_only, idempotent)]
pub struct ListScope {
    /// Text the `uuid` field must contain; omit it to list every record.
    pub contains: Option<String>,
    /// The most records to return (default 10).
    pub limit: Option<u32>,
}

impl ToolHandler for ListScope {
    type Output = Vec<Scope>;

    async fn run(self, context: &ToolContext) -> Result<Self::Output, ToolError> {
        let db = database(context)?;
        let mut query = Scope::query()
            .order_by(ScopeField::LineCount, Direction::Desc)
            .limit(self.limit.unwrap_or(10));
        if let Some(text) = self.contains {
            query = query.filter(ScopeField::Uuid, Operator::Contains, text);
        }
        Ok(query.all(db).await?)
    }
}

// Edited by hand (the generator never touches this file): a second tool that filters on a
// computed field and follows a relationship with the typed API.

/// Large scopes (more than `min_lines` lines) and the scopes each one consumes.
#[derive(Tool)]
#[tool(read_only, idempotent)]
pub struct LargeScopes {
    /// The fewest lines a scope must have.
    pub min_lines: u32,
}

/// A large scope and what it consumes.
#[derive(toolforge::serde::Serialize, toolforge::schemars::JsonSchema)]
#[serde(crate = "toolforge::serde")]
#[schemars(crate = "toolforge::schemars")]
pub struct LargeScope {
    /// The scope.
    pub scope: Scope,
    /// The unique ids of the scopes it consumes.
    pub consumes: Vec<String>,
}

impl ToolHandler for LargeScopes {
    type Output = Vec<LargeScope>;

    async fn run(self, context: &ToolContext) -> Result<Self::Output, ToolError> {
        let db = database(context)?;
        let scopes = Scope::query()
            .filter(ScopeField::LineCount, Operator::Gt, self.min_lines)
            .order_by(ScopeField::LineCount, Direction::Desc)
            .all(db)
            .await?;
        let mut out = Vec::new();
        for scope in scopes {
            let consumes = scope.out_consumes_scope(db, 50).await?;
            out.push(LargeScope {
                consumes: consumes.into_iter().map(|s| s.uuid).collect(),
                scope,
            });
        }
        Ok(out)
    }
}

/// Adds your tools to the registry `setup_tool_registry` builds.
pub fn register(builder: RegistryBuilder) -> Result<RegistryBuilder, RegistryError> {
    builder
        .register(ListScope::into_tool())?
        .register(LargeScopes::into_tool())
}

/// The database `setup_tool_registry` put in the context.
#[allow(dead_code)]
fn database(context: &ToolContext) -> Result<&Database, ToolError> {
    context
        .extension::<Database>()
        .ok_or_else(|| ToolError::execution_failed("no database in the tool context"))
}
