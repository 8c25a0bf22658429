//! Tools written by hand next to the generated ones: they read the database through the
//! generated typed records and queries (no SQL, no JSON field names).

use schemars::JsonSchema;
use serde::Serialize;
use toolforge::sql::Database;
use toolforge::sql::query::Direction;
use toolforge::{RegistryBuilder, RegistryError, Tool, ToolContext, ToolError, ToolHandler};

use crate::loc::code_lines;
use crate::tools::records::{Scope, ScopeField};

/// The most scopes one name may match in `scope_loc`'s answer.
pub const MAX_MATCHES: u32 = 50;

/// Counts the lines of code of every scope with this exact name, leaving out blank lines and
/// comments (line, doc and block comments). Use it to compare real code size with the raw
/// line span (`line_count`).
#[derive(Tool, Debug)]
#[tool(read_only, idempotent)]
pub struct ScopeLoc {
    /// The scope's name, exactly as stored (`call`, `ToolRegistry`, `impl Tool for Echo`).
    pub name: String,
    /// Only scopes defined in this file (its path, as stored on File.path).
    pub file: Option<String>,
}

/// One scope's counts.
#[derive(Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ScopeLines {
    /// The scope's unique id.
    pub uuid: String,
    /// Its kind (`function`, `method`, `struct`...).
    pub kind: String,
    /// The defining file.
    pub file: String,
    /// Lines spanned, from the first to the last line.
    pub line_count: u64,
    /// Lines with code: not blank, not only comments.
    pub code_lines: u64,
}

/// The answer of `scope_loc`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ScopeLocOutput {
    /// The name asked for.
    pub name: String,
    /// How many scopes have that name (at least this many past 1,000).
    pub total: u64,
    /// The scopes, by uuid (at most 50).
    pub scopes: Vec<ScopeLines>,
}

impl ToolHandler for ScopeLoc {
    type Output = ScopeLocOutput;

    async fn run(self, context: &ToolContext) -> Result<ScopeLocOutput, ToolError> {
        let db = context.extension::<Database>().ok_or_else(|| {
            ToolError::execution_failed("scope_loc needs the database in the registry context")
        })?;
        let mut query = Scope::query()
            .eq(ScopeField::Name, self.name.as_str())
            .order_by(ScopeField::Uuid, Direction::Asc)
            .limit(MAX_MATCHES);
        if let Some(file) = &self.file {
            query = query.eq(ScopeField::File, file.as_str());
        }
        let page = query.fetch(db).await?;
        if page.total == 0 {
            let place = self
                .file
                .as_deref()
                .map(|f| format!(" in `{f}`"))
                .unwrap_or_default();
            return Err(ToolError::not_found(format!(
                "no scope is named `{}`{place}; find names with query_entities or glob_search on Scope.name",
                self.name
            )));
        }
        let scopes = page
            .records
            .into_iter()
            .map(|scope| ScopeLines {
                code_lines: code_lines(scope.source.as_deref().unwrap_or_default()) as u64,
                line_count: scope.line_count.unwrap_or(0.0) as u64,
                kind: scope.kind.map(String::from).unwrap_or_default(),
                file: scope.file.unwrap_or_default(),
                uuid: scope.uuid,
            })
            .collect();
        Ok(ScopeLocOutput {
            name: self.name,
            total: page.total,
            scopes,
        })
    }
}

/// Adds the custom tools to the registry the generated module builds.
pub fn register(builder: RegistryBuilder) -> Result<RegistryBuilder, RegistryError> {
    builder.register(ScopeLoc::into_tool())
}
