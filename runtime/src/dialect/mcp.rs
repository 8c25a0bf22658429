//! MCP `tools/list` entries.

use serde_json::{Map, Value, json};

use super::{fit_description, normalize_object_root};
use crate::ToolDefinition;

/// `{name, title?, description, inputSchema, outputSchema?, annotations?}`.
///
/// `outputSchema` is included only when the tool's output schema describes an object, as MCP
/// requires (structured content is always an object); `annotations` only when a hint is set.
pub(super) fn export(definition: &ToolDefinition) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(definition.name));
    if let Some(title) = &definition.title {
        tool.insert("title".into(), json!(title));
    }
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
    if !annotations.is_empty() {
        tool.insert("annotations".into(), Value::Object(annotations));
    }
    Value::Object(tool)
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
