//! Deferred tool loading: a provider's own tool search lists the core tools up front and
//! loads the others' definitions only when the model searches for them.
//!
//! | dialect | search tool | deferred tool |
//! |---|---|---|
//! | [`Dialect::Anthropic`] | `{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}` | its definition with `"defer_loading": true` |
//! | [`Dialect::OpenAiResponses`] | `{"type": "tool_search"}` | its `function` entry with `"defer_loading": true` |
//!
//! Other dialects have no deferred loading; [`export_deferred`] refuses them.

use serde_json::{Value, json};

use super::format::{Dialect, export};
use crate::ToolDefinition;

/// The type of Anthropic's BM25 tool search tool.
pub const ANTHROPIC_TOOL_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";

/// The name of Anthropic's BM25 tool search tool.
pub const ANTHROPIC_TOOL_SEARCH_NAME: &str = "tool_search_tool_bm25";

/// Why definitions could not be exported for deferred loading.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeferError {
    /// The dialect has no deferred loading.
    #[error(
        "deferred tool loading is offered by the Anthropic Messages API and the OpenAI Responses API only, not by {0:?}"
    )]
    Unsupported(Dialect),
    /// A core tool is not among the definitions.
    #[error("the core tool `{name}` is not a tool of this listing{hint}")]
    UnknownCoreTool {
        /// The name.
        name: String,
        /// ` (did you mean ...?)` or empty.
        hint: String,
    },
}

/// The `tools` array of a request with deferred loading: the provider's tool search tool
/// first, then every definition in order, those not named in `core` marked
/// `"defer_loading": true`.
///
/// ```
/// use serde_json::json;
/// use toolforge::ToolDefinition;
/// use toolforge::dialect::{Dialect, export_deferred};
///
/// let tool = |name: &str| ToolDefinition {
///     name: name.into(),
///     title: None,
///     description: "A tool.".into(),
///     input_schema: json!({"type": "object"}),
///     output_schema: None,
///     annotations: Default::default(),
///     capabilities: vec![],
///     keywords: vec![],
/// };
/// let definitions = [tool("get_schema"), tool("query_entities")];
/// let tools = export_deferred(&definitions, Dialect::Anthropic, &["get_schema".into()]).unwrap();
/// assert_eq!(tools[0]["type"], "tool_search_tool_bm25_20251119");
/// assert_eq!(tools[1].get("defer_loading"), None);
/// assert_eq!(tools[2]["defer_loading"], true);
/// ```
pub fn export_deferred(
    definitions: &[ToolDefinition],
    dialect: Dialect,
    core: &[String],
) -> Result<Vec<Value>, DeferError> {
    let search = match dialect {
        Dialect::Anthropic => json!({
            "type": ANTHROPIC_TOOL_SEARCH_TYPE,
            "name": ANTHROPIC_TOOL_SEARCH_NAME,
        }),
        Dialect::OpenAiResponses => json!({"type": "tool_search"}),
        other => return Err(DeferError::Unsupported(other)),
    };
    for name in core {
        if !definitions
            .iter()
            .any(|definition| definition.name == *name)
        {
            let hint = toolforge_names::closest(
                name,
                definitions
                    .iter()
                    .map(|definition| definition.name.as_str()),
            )
            .map(|close| format!(" (did you mean `{close}`?)"))
            .unwrap_or_default();
            return Err(DeferError::UnknownCoreTool {
                name: name.clone(),
                hint,
            });
        }
    }
    let mut tools = Vec::with_capacity(definitions.len() + 1);
    tools.push(search);
    for definition in definitions {
        let mut entry = export(definition, dialect);
        if !core.contains(&definition.name)
            && let Value::Object(fields) = &mut entry
        {
            fields.insert("defer_loading".to_owned(), Value::Bool(true));
        }
        tools.push(entry);
    }
    Ok(tools)
}
