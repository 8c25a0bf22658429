//! Tool definitions in each provider's format, with one schema normaliser per dialect.
//!
//! | dialect | shape |
//! |---|---|
//! | [`Dialect::Mcp`] | MCP `tools/list` entry: `name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations` |
//! | [`Dialect::OpenAiChat`] | `{"type": "function", "function": {name, description, parameters, strict}}` |
//! | [`Dialect::OpenAiResponses`] | `{"type": "function", name, description, parameters, strict}` |
//! | [`Dialect::Anthropic`] | `{name, description, input_schema}` |
//! | [`Dialect::Gemini`] | google-genai `FunctionDeclaration`: `{name, description, parameters?}`, the schema in Gemini's subset (see [`to_gemini_schema`]) |
//!
//! [`export_deferred`] exports for deferred loading (the provider's tool search finds the
//! tools not loaded up front) in the Anthropic and OpenAI Responses dialects.
//!
//! Every exported input schema has an object root with `properties` present (never null) and
//! no `$schema` keyword. Every exported description is at most [`MAX_DESCRIPTION_CHARS`]
//! characters (Azure OpenAI and several gateways refuse a whole request over one longer
//! description): the database tools' descriptions are written to fit, and a longer one of
//! another tool is cut by [`fit_description`]. OpenAI schemas are made strict when possible (see [`openai_strict`]);
//! `strict: true` is only ever set on a schema that passes [`is_openai_strict_compatible`].

mod anthropic;
mod defer;
mod gemini;
mod mcp;
mod openai;
pub mod openai_strict;

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::ToolDefinition;

pub use defer::{
    ANTHROPIC_TOOL_SEARCH_NAME, ANTHROPIC_TOOL_SEARCH_TYPE, DeferError, export_deferred,
};
pub use gemini::{GEMINI_KEYWORDS, is_gemini_compatible, to_gemini_schema};
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

/// The longest tool description any dialect exports, in characters: Azure OpenAI and several
/// gateways refuse a request in which one tool description is longer.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// `text` cut to at most [`MAX_DESCRIPTION_CHARS`] characters: unchanged when it fits,
/// otherwise cut at the last space before the limit (when there is one close to it) and ended
/// with `…`.
///
/// ```
/// use toolforge::dialect::{MAX_DESCRIPTION_CHARS, fit_description};
/// assert_eq!(fit_description("Short."), "Short.");
/// let long = "word ".repeat(400);
/// let fitted = fit_description(&long);
/// assert!(fitted.chars().count() <= MAX_DESCRIPTION_CHARS);
/// assert!(fitted.ends_with("word…"));
/// ```
pub fn fit_description(text: &str) -> Cow<'_, str> {
    if text.chars().count() <= MAX_DESCRIPTION_CHARS {
        return Cow::Borrowed(text);
    }
    let kept: String = text.chars().take(MAX_DESCRIPTION_CHARS - 1).collect();
    let cut = match kept.rfind(char::is_whitespace) {
        Some(at) if kept[at..].chars().count() <= 80 => kept[..at].trim_end(),
        _ => kept.as_str(),
    };
    Cow::Owned(format!("{cut}…"))
}

/// The description of a schema node whose `default` a dialect drops, so that the default is
/// still stated: `description (default: X)`, or `Default: X.` without a description. A
/// description that already speaks of its default is kept as it is.
pub(crate) fn description_with_default(description: Option<&str>, default: &Value) -> String {
    match description {
        Some(text) if text.to_lowercase().contains("default") => text.to_owned(),
        Some(text) => format!("{} (default: {default})", text.trim_end()),
        None => format!("Default: {default}."),
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
