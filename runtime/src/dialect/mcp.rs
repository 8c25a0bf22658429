//! MCP `tools/list` entries.

use serde_json::{Map, Value, json};

use super::normalize::{fit_description, normalize_object_root};
use crate::ToolDefinition;

/// `{name, title, description, inputSchema, outputSchema?, annotations}`.
///
/// Every tool has a `title` (its own, or its name in words: `search_code` gives
/// `Search code`), and `annotations` with the hints that are set and that MCP reads.
/// `outputSchema` is
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
    let mut input = normalize_object_root(&definition.input_schema);
    compact(&mut input);
    tool.insert("inputSchema".into(), input);
    if let Some(output) = &definition.output_schema
        && describes_object(output)
    {
        tool.insert("outputSchema".into(), normalize_object_root(output));
    }
    let hints = &definition.annotations;
    // MCP reads `destructiveHint` and `idempotentHint` only when `readOnlyHint` is false: a
    // read-only tool leaves them out, as it leaves out the title `title` already gives.
    let writes = hints.read_only != Some(true);
    let mut annotations = Map::new();
    for (key, value, said) in [
        ("readOnlyHint", hints.read_only, true),
        ("destructiveHint", hints.destructive, writes),
        ("idempotentHint", hints.idempotent, writes),
        ("openWorldHint", hints.open_world, true),
    ] {
        if let (Some(value), true) = (value, said) {
            annotations.insert(key.into(), json!(value));
        }
    }
    tool.insert("annotations".into(), Value::Object(annotations));
    Value::Object(tool)
}

/// The same schema in fewer tokens, for a list every model request carries: what the keywords
/// already say is not said again. The limit slot's prose bounds (`(1 to 500, default 20)`,
/// there for providers that drop `minimum`, `maximum` and `default`) go where those keywords
/// are kept; an integer's `format` (`int64`, a schemars artifact JSON Schema does not check)
/// goes; an `anyOf` of bare types becomes one `type` list (the array branch's `items` kept:
/// `items` applies only to arrays).
fn compact(schema: &mut Value) {
    match schema {
        Value::Object(node) => {
            drop_restated_bounds(node);
            if node.get("type").and_then(Value::as_str) == Some("integer") {
                node.remove("format");
            }
            merge_bare_types(node);
            node.values_mut().for_each(compact);
        }
        Value::Array(items) => items.iter_mut().for_each(compact),
        _ => {}
    }
}

/// `"The most records to return (1 to 500, default 20)."` beside `minimum: 1, maximum: 500,
/// default: 20` becomes `"The most records to return."`.
fn drop_restated_bounds(node: &mut Map<String, Value>) {
    let (Some(min), Some(max), Some(default)) = (
        node.get("minimum"),
        node.get("maximum"),
        node.get("default"),
    ) else {
        return;
    };
    let said = format!(" ({min} to {max}, default {default}).");
    if let Some(Value::String(text)) = node.get_mut("description")
        && let Some(what) = text.strip_suffix(&said)
    {
        *text = format!("{what}.");
    }
}

/// `anyOf: [{type: string}, {type: number}, {type: array, items: X}]` becomes
/// `type: [string, number, array], items: X` when every branch is a bare type (at most one
/// of them an array with `items`) and the node has no `type` or `items` of its own.
fn merge_bare_types(node: &mut Map<String, Value>) {
    if node.contains_key("type") || node.contains_key("items") {
        return;
    }
    let Some(Value::Array(branches)) = node.get("anyOf") else {
        return;
    };
    let mut types = Vec::with_capacity(branches.len());
    let mut items = None;
    for branch in branches {
        let Some(branch) = branch.as_object() else {
            return;
        };
        let Some(Value::String(kind)) = branch.get("type") else {
            return;
        };
        match branch.len() {
            1 => {}
            2 if kind == "array" && items.is_none() && branch.contains_key("items") => {
                items = branch.get("items").cloned();
            }
            _ => return,
        }
        if types.contains(&Value::String(kind.clone())) {
            return;
        }
        types.push(Value::String(kind.clone()));
    }
    node.remove("anyOf");
    node.insert("type".into(), Value::Array(types));
    if let Some(items) = items {
        node.insert("items".into(), items);
    }
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
    use super::{compact, title_from_name};
    use serde_json::json;

    #[test]
    fn compact_schemas_say_each_thing_once() {
        let mut schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20,
                      "description": "The most records to return (1 to 500, default 20)."},
            "offset": {"type": "integer", "format": "int64", "minimum": 0},
            "value": {"description": "The value.", "anyOf": [
                {"type": "string"}, {"type": "number"},
                {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "boolean"}]}},
                {"type": "null"}]},
            "kept": {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]},
            "other": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2,
                      "description": "Not the same bounds (1 to 9, default 3)."}
        }});
        compact(&mut schema);
        let properties = &schema["properties"];
        assert_eq!(
            properties["limit"]["description"],
            "The most records to return."
        );
        assert_eq!(properties["limit"]["maximum"], 500);
        assert_eq!(
            properties["offset"],
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            properties["value"],
            json!({"description": "The value.", "type": ["string", "number", "array", "null"],
                   "items": {"type": ["string", "boolean"]}})
        );
        assert!(
            properties["kept"].get("anyOf").is_some(),
            "a branch with an enum is kept"
        );
        assert_eq!(
            properties["other"]["description"],
            "Not the same bounds (1 to 9, default 3)."
        );
    }

    #[test]
    fn titles_come_from_names_when_a_tool_has_none() {
        assert_eq!(title_from_name("search_code"), "Search code");
        assert_eq!(title_from_name("get-user"), "Get user");
        assert_eq!(title_from_name("x"), "X");
        assert_eq!(title_from_name("_"), "_");
    }
}
