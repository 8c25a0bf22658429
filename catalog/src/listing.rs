//! Tool listings to index: a registry's tools, an MCP `tools/list` result or a JSON array of
//! definitions, and custom YAML definitions. Each function returns a complete listing or an
//! error naming the input and the tool at fault; nothing is indexed from a bad listing.

use serde::Deserialize;
use serde_json::{Map, Value};
use toolforge::{ToolAnnotations, ToolDefinition, ToolRegistry};

use crate::error::CatalogError;
use crate::model::CatalogEntry;

/// The longest tool name a listing may hold.
pub const MAX_NAME_CHARS: usize = 256;

/// The tools of a registry.
pub fn from_registry(registry: &ToolRegistry) -> Vec<CatalogEntry> {
    registry
        .definitions()
        .into_iter()
        .map(|definition| CatalogEntry::from(definition.clone()))
        .collect()
}

/// The tools of a JSON text `origin` (a file name, for messages): an MCP `tools/list` result
/// (`{"tools": [...]}`, or a whole JSON-RPC response holding one), or an array of
/// `{name, description, inputSchema}` objects (`input_schema` and OpenAI's `parameters` are
/// read too, and `{"type": "function", "function": {...}}` wrappers are unwrapped).
pub fn from_json(text: &str, origin: &str) -> Result<Vec<CatalogEntry>, CatalogError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|error| CatalogError::Listing(format!("{origin}: not JSON: {error}")))?;
    let tools = match &value {
        Value::Array(tools) => tools,
        Value::Object(object) => match object
            .get("tools")
            .or_else(|| object.get("result").and_then(|result| result.get("tools")))
        {
            Some(Value::Array(tools)) => tools,
            _ => {
                return Err(CatalogError::Listing(format!(
                    "{origin}: expected a `tools/list` result (an object with a `tools` array) or an array of tools"
                )));
            }
        },
        _ => {
            return Err(CatalogError::Listing(format!(
                "{origin}: expected a `tools/list` result or an array of tools"
            )));
        }
    };
    tools
        .iter()
        .enumerate()
        .map(|(position, tool)| entry_from_json(tool, &format!("{origin}: tool #{position}")))
        .collect()
}

fn entry_from_json(tool: &Value, at: &str) -> Result<CatalogEntry, CatalogError> {
    let mut tool = tool
        .as_object()
        .ok_or_else(|| CatalogError::Listing(format!("{at}: expected an object")))?;
    if let Some(Value::Object(function)) = tool.get("function") {
        tool = function;
    }
    let text = |key: &str| tool.get(key).and_then(Value::as_str).map(str::to_owned);
    let name = text("name")
        .ok_or_else(|| CatalogError::Listing(format!("{at}: `name` is missing or not a string")))?;
    let at = format!("{at} (`{name}`)");
    check_name(&name, &at)?;
    let input_schema = ["inputSchema", "input_schema", "parameters"]
        .iter()
        .find_map(|key| tool.get(*key))
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    if !input_schema.is_object() {
        return Err(CatalogError::Listing(format!(
            "{at}: the input schema is not an object"
        )));
    }
    let strings = |key: &str| -> Vec<String> {
        tool.get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let definition = ToolDefinition {
        name,
        title: text("title"),
        description: text("description").unwrap_or_default(),
        input_schema,
        output_schema: tool
            .get("outputSchema")
            .or_else(|| tool.get("output_schema"))
            .cloned(),
        annotations: annotations(tool.get("annotations").and_then(Value::as_object)),
        capabilities: strings("capabilities"),
        keywords: strings("keywords"),
    };
    Ok(CatalogEntry {
        definition,
        examples: tool
            .get("examples")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        version: text("version"),
    })
}

/// MCP annotations (`readOnlyHint`, ...) or toolforge's (`read_only`, ...).
fn annotations(object: Option<&Map<String, Value>>) -> ToolAnnotations {
    let mut annotations = ToolAnnotations::default();
    if let Some(object) = object {
        let flag = |mcp: &str, ours: &str| {
            object
                .get(mcp)
                .or_else(|| object.get(ours))
                .and_then(Value::as_bool)
        };
        annotations.read_only = flag("readOnlyHint", "read_only");
        annotations.destructive = flag("destructiveHint", "destructive");
        annotations.idempotent = flag("idempotentHint", "idempotent");
        annotations.open_world = flag("openWorldHint", "open_world");
    }
    annotations
}

fn check_name(name: &str, at: &str) -> Result<(), CatalogError> {
    if name.trim().is_empty() {
        return Err(CatalogError::Listing(format!("{at}: the name is empty")));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(CatalogError::Listing(format!(
            "{at}: the name has more than {MAX_NAME_CHARS} characters"
        )));
    }
    Ok(())
}

/// A custom tool definition in YAML.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CustomTool {
    name: String,
    #[serde(default)]
    title: Option<String>,
    description: String,
    #[serde(default, alias = "inputSchema", alias = "parameters")]
    input_schema: Option<Value>,
    #[serde(default, alias = "outputSchema")]
    output_schema: Option<Value>,
    #[serde(default)]
    capabilities: Vec<String>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    examples: Vec<Value>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    read_only: Option<bool>,
    #[serde(default)]
    destructive: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum CustomFile {
    Wrapped { tools: Vec<CustomTool> },
    List(Vec<CustomTool>),
}

/// The tools of a custom YAML file `origin`: a list of tools, or `tools:` holding one. Each
/// tool has `name`, `description`, and optionally `input_schema`, `output_schema`,
/// `capabilities`, `keywords`, `examples`, `version`, `read_only`, `destructive`.
pub fn from_yaml(text: &str, origin: &str) -> Result<Vec<CatalogEntry>, CatalogError> {
    let file: CustomFile = serde_yaml::from_str(text).map_err(|error| {
        // The untagged enum hides the field error: parse the list form again for it.
        let detail = serde_yaml::from_str::<Vec<CustomTool>>(text)
            .err()
            .filter(|_| !text.trim_start().starts_with("tools:"))
            .or_else(|| {
                #[derive(Deserialize)]
                #[allow(dead_code)]
                struct Wrapped {
                    tools: Vec<CustomTool>,
                }
                serde_yaml::from_str::<Wrapped>(text).err()
            })
            .map_or_else(|| error.to_string(), |detail| detail.to_string());
        CatalogError::Listing(format!("{origin}: {detail}"))
    })?;
    let tools = match file {
        CustomFile::Wrapped { tools } | CustomFile::List(tools) => tools,
    };
    tools
        .into_iter()
        .enumerate()
        .map(|(position, tool)| {
            let at = format!("{origin}: tool #{position} (`{}`)", tool.name);
            check_name(&tool.name, &at)?;
            let input_schema = tool
                .input_schema
                .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
            if !input_schema.is_object() {
                return Err(CatalogError::Listing(format!(
                    "{at}: `input_schema` is not a mapping"
                )));
            }
            let mut annotations = ToolAnnotations::default();
            annotations.read_only = tool.read_only;
            annotations.destructive = tool.destructive;
            Ok(CatalogEntry {
                definition: ToolDefinition {
                    name: tool.name,
                    title: tool.title,
                    description: tool.description,
                    input_schema,
                    output_schema: tool.output_schema,
                    annotations,
                    capabilities: tool.capabilities,
                    keywords: tool.keywords,
                },
                examples: tool.examples,
                version: tool.version,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_listings_in_every_shape() {
        let list = r#"{"tools": [{"name": "a", "description": "x", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}}]}"#;
        let tools = from_json(list, "list.json").unwrap();
        assert_eq!(tools[0].definition.annotations.read_only, Some(true));
        let array = r#"[{"type": "function", "function": {"name": "b", "parameters": {"type": "object"}}}]"#;
        assert_eq!(from_json(array, "a.json").unwrap()[0].definition.name, "b");
        let error = from_json(r#"[{"name": 3}]"#, "bad.json")
            .unwrap_err()
            .to_string();
        assert!(error.contains("bad.json: tool #0"), "{error}");
        assert!(
            from_json("{", "x.json")
                .unwrap_err()
                .to_string()
                .contains("line 1")
        );
    }

    #[test]
    fn yaml_errors_are_located() {
        let error = from_yaml("tools:\n  - name: a\n    descripton: x\n", "t.yaml")
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("t.yaml: "), "{error}");
        assert!(error.contains("descripton"), "{error}");
        let ok = from_yaml(
            "- name: a\n  description: x\n  examples: [{q: 1}]\n",
            "t.yaml",
        )
        .unwrap();
        assert_eq!(ok[0].examples.len(), 1);
    }
}
