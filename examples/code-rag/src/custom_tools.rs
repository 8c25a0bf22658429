//! Tools written by hand next to the generated ones.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::{Tool, ToolContext, ToolError, ToolHandler};

use crate::loc::code_lines;
use crate::queries::scopes_named;

/// What custom tools read: the spec and the database (a registry context extension).
#[derive(Clone)]
pub struct CodeStore {
    /// The storage specification of the config.
    pub spec: Arc<SchemaSpec>,
    /// The loaded database.
    pub db: Database,
}

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
    /// How many scopes have that name.
    pub total: u64,
    /// The scopes, by uuid (at most 50).
    pub scopes: Vec<ScopeLines>,
}

impl ToolHandler for ScopeLoc {
    type Output = ScopeLocOutput;

    async fn run(self, context: &ToolContext) -> Result<ScopeLocOutput, ToolError> {
        let store = context.extension::<CodeStore>().ok_or_else(|| {
            ToolError::execution_failed("scope_loc needs a CodeStore in the registry context")
        })?;
        let page = scopes_named(
            store.spec.clone(),
            &store.db,
            &self.name,
            self.file.as_deref(),
        )
        .await?;
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
        let text = |record: &serde_json::Value, field: &str| {
            record[field].as_str().unwrap_or_default().to_string()
        };
        let scopes = page
            .results
            .iter()
            .map(|record| ScopeLines {
                uuid: text(record, "uuid"),
                kind: text(record, "kind"),
                file: text(record, "file"),
                line_count: record["line_count"].as_f64().unwrap_or(0.0) as u64,
                code_lines: code_lines(record["source"].as_str().unwrap_or_default()) as u64,
            })
            .collect();
        Ok(ScopeLocOutput {
            name: self.name,
            total: page.total,
            scopes,
        })
    }
}

/// The custom tools, ready to register.
pub fn custom_tools() -> Vec<Arc<dyn Tool>> {
    vec![Arc::new(ScopeLoc::into_tool())]
}
