//! MCP `tools/list` entries.

use serde_json::{Map, Value, json};

use super::normalize::{fit_description, normalize_object_root};
use crate::ToolDefinition;

/// `{name, title, description, inputSchema, outputSchema?, annotations}`.
///
/// Every tool has a `title` (its own, or its name in words: `search_code` gives
/// `Search code`), repeated in `annotations` with the hints that are set. `outputSchema` is
/// included only when the tool's output schema describes an object, as MCP requires
/// (structured content is always an object).
pub(super) fn export(definition: &ToolDefinition) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(definition.name));
    let title = definition
        .title
        .clone()
        .unwrap_or_else(|| title_from_name(&definition.name));
    tool.insert("title".into(), json!(title));
    tool.insert(
        "description".into(),
        json!(fit_description(&definition.description)),
    );
    tool.insert(
        "inputSchema".into(),
        normalize_object_root(&definition.input_schema),
    );
    if let Some(output) = &definition.output_schema
        && describes_object(output)
    {
        tool.insert("outputSchema".into(), normalize_object_root(output));
    }
    let hints = &definition.annotations;
    let mut annotations = Map::new();
    annotations.insert("title".into(), json!(title));
    for (key, value) in [
        ("readOnlyHint", hints.read_only),
        ("destructiveHint", hints.destructive),
        ("idempotentHint", hints.idempotent),
        ("openWorldHint", hints.open_world),
    ] {
        if let Some(value) = value {
            annotations.insert(key.into(), json!(value));
        }
    }
    tool.insert("annotations".into(), Value::Object(annotations));
    Value::Object(tool)
}

/// A tool name in words: `_` and `-` become spaces, the first letter is upper case.
fn title_from_name(name: &str) -> String {
    let words = name.replace(['_', '-'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => name.to_owned(),
    }
}

/// Whether an output schema's root is an object (explicit `"type": "object"`, or properties
/// without a type).
fn describes_object(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(_) => false,
        None => schema.get("properties").is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::title_from_name;

    #[test]
    fn titles_come_from_names_when_a_tool_has_none() {
        assert_eq!(title_from_name("search_code"), "Search code");
        assert_eq!(title_from_name("get-user"), "Get user");
        assert_eq!(title_from_name("x"), "X");
        assert_eq!(title_from_name("_"), "_");
    }
}
