//! Tool definitions in each provider's format, with one schema normaliser per dialect.
//!
//! | dialect | shape |
//! |---|---|
//! | [`Dialect::Mcp`] | MCP `tools/list` entry: `name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations` |
//! | [`Dialect::OpenAiChat`] | `{"type": "function", "function": {name, description, parameters, strict}}` |
//! | [`Dialect::OpenAiResponses`] | `{"type": "function", name, description, parameters, strict}` |
//! | [`Dialect::Anthropic`] | `{name, description, input_schema}` |
//!
//! Every exported input schema has an object root with `properties` present (never null) and
//! no `$schema` keyword. OpenAI schemas are made strict when possible (see [`openai_strict`]);
//! `strict: true` is only ever set on a schema that passes [`is_openai_strict_compatible`].

mod anthropic;
mod mcp;
mod openai;
pub mod openai_strict;

use serde_json::{Map, Value};

use crate::ToolDefinition;

pub use openai_strict::{is_openai_strict_compatible, to_openai_strict};

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
}

impl Dialect {
    /// Every dialect, in a fixed order.
    pub const ALL: [Dialect; 4] = [
        Dialect::Mcp,
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
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
    }
}

/// The base normalisation every dialect shares: an object root (`true`/`{}` become an empty
/// object schema), `"type": "object"` set when missing, `properties` present (a `null` or
/// missing one becomes `{}`), and `$schema` removed.
pub fn normalize_object_root(schema: &Value) -> Value {
    let mut root = match schema {
        Value::Object(object) => object.clone(),
        _ => Map::new(),
    };
    root.remove("$schema");
    if !root.contains_key("type") {
        root.insert("type".into(), Value::String("object".into()));
    }
    match root.get("properties") {
        Some(Value::Object(_)) => {}
        _ => {
            root.insert("properties".into(), Value::Object(Map::new()));
        }
    }
    Value::Object(root)
}
