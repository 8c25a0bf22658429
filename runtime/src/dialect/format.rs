//! [`Dialect`], the providers' tool-definition formats, and [`export`]: one definition in any
//! of them, by the dialect's own exporter.

use serde_json::Value;

use super::{anthropic, gemini, mcp, openai};
use crate::ToolDefinition;

/// A provider's tool-definition format.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Model Context Protocol, `tools/list`.
    Mcp,
    /// OpenAI Chat Completions `tools` entries.
    OpenAiChat,
    /// OpenAI Responses API `tools` entries.
    OpenAiResponses,
    /// Anthropic Messages API `tools` entries.
    Anthropic,
    /// Gemini (google-genai) function declarations, built from the MCP schema.
    Gemini,
}

impl Dialect {
    /// Every dialect, in a fixed order.
    pub const ALL: [Dialect; 5] = [
        Dialect::Mcp,
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
    ];
}

/// One definition in the given dialect.
///
/// ```
/// use serde_json::json;
/// use toolforge::ToolDefinition;
/// use toolforge::dialect::{export, Dialect};
///
/// let definition = ToolDefinition {
///     name: "get_schema".into(),
///     title: None,
///     description: "Describe the database.".into(),
///     input_schema: json!({"type": "object"}),
///     output_schema: None,
///     annotations: Default::default(),
///     capabilities: vec![],
///     keywords: vec![],
/// };
/// let openai = export(&definition, Dialect::OpenAiChat);
/// assert_eq!(openai["function"]["parameters"]["properties"], json!({}));
/// assert_eq!(openai["function"]["strict"], true);
/// let anthropic = export(&definition, Dialect::Anthropic);
/// assert_eq!(anthropic["input_schema"]["type"], "object");
/// ```
pub fn export(definition: &ToolDefinition, dialect: Dialect) -> Value {
    match dialect {
        Dialect::Mcp => mcp::export(definition),
        Dialect::OpenAiChat => openai::export_chat(definition),
        Dialect::OpenAiResponses => openai::export_responses(definition),
        Dialect::Anthropic => anthropic::export(definition),
        Dialect::Gemini => gemini::export(definition),
    }
}

/// A whole list of definitions in the given dialect, each as [`export`] gives it; in the MCP
/// dialect, a list that has `query_entities` also says its conditions once, and one that has
/// `explore_relationships` its relationships' directions (see `mcp::refer_conditions` and
/// `mcp::refer_relationships`).
pub fn export_all<'a>(
    definitions: impl IntoIterator<Item = &'a ToolDefinition>,
    dialect: Dialect,
) -> Vec<Value> {
    let mut tools: Vec<Value> = definitions
        .into_iter()
        .map(|definition| export(definition, dialect))
        .collect();
    if dialect == Dialect::Mcp {
        mcp::refer_conditions(&mut tools);
        mcp::refer_relationships(&mut tools);
    }
    tools
}
