//! OpenAI Chat Completions and Responses `tools` entries.

use serde_json::{Value, json};

use super::normalize::{fit_description, normalize_object_root};
use super::openai_strict::to_openai_strict;
use crate::ToolDefinition;

/// The parameters and the strict flag: the strict form when the schema can be made strict,
/// otherwise the cleaned original with `strict: false`.
fn parameters(definition: &ToolDefinition) -> (Value, bool) {
    match to_openai_strict(&definition.input_schema) {
        Ok(strict) => (strict, true),
        Err(_) => (normalize_object_root(&definition.input_schema), false),
    }
}

/// `{"type": "function", "function": {name, description, parameters, strict}}`.
pub(super) fn export_chat(definition: &ToolDefinition) -> Value {
    let (parameters, strict) = parameters(definition);
    json!({
        "type": "function",
        "function": {
            "name": definition.name,
            "description": fit_description(&definition.description),
            "parameters": parameters,
            "strict": strict,
        }
    })
}

/// `{"type": "function", name, description, parameters, strict}`.
pub(super) fn export_responses(definition: &ToolDefinition) -> Value {
    let (parameters, strict) = parameters(definition);
    json!({
        "type": "function",
        "name": definition.name,
        "description": fit_description(&definition.description),
        "parameters": parameters,
        "strict": strict,
    })
}
