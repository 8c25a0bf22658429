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
//! [`export_all`] exports a whole list: in MCP, a list with `query_entities` says the
//! condition schema once, there, and the other tools' condition lists point to it.
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
mod format;
mod gemini;
mod mcp;
mod normalize;
mod openai;
pub mod openai_strict;

pub use defer::{
    ANTHROPIC_TOOL_SEARCH_NAME, ANTHROPIC_TOOL_SEARCH_TYPE, DeferError, export_deferred,
};
pub use format::{Dialect, export, export_all};
pub use gemini::{GEMINI_KEYWORDS, is_gemini_compatible, to_gemini_schema};
pub use normalize::{MAX_DESCRIPTION_CHARS, fit_description, normalize_object_root};
pub use openai_strict::{is_openai_strict_compatible, to_openai_strict};
