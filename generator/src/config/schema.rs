//! [`json_schema`]: the JSON Schema of the config format, with the defaults and examples of
//! its keys (the functions below, named by the `#[schemars(...)]` attributes of the model).

use serde_json::Value;
use toolforge::spec::{
    Analyzer, DocumentSpec, PromptRole, ResourcesSpec, Similarity, ToolFamily, ToolOptions,
    VectorSearchSettings,
};

use super::model::{Config, DEFAULT_UNIQUE_FIELD};
use super::options::{IterativeScanName, ToolFamilyName, VectorPrecision};

/// The JSON Schema (draft 2020-12) of the config format, for editors
/// (`# yaml-language-server: $schema=...`), for `toolforge schema` and for the config
/// reference ([`super::reference::config_reference`]).
///
/// ```
/// let schema = toolforge_generator::__private::config::json_schema();
/// assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
/// assert!(schema["properties"]["entities"].is_object());
/// // the value toolforge uses for an absent key, where it is one value
/// assert_eq!(schema["$defs"]["ToolforgeOptions"]["properties"]["default_limit"]["default"], 20);
/// ```
pub fn json_schema() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<Config>();
    schema.insert(
        "title".to_owned(),
        serde_json::Value::String("ragforge / toolforge config".to_owned()),
    );
    schema.to_value()
}

/// An example of the schema (`"examples"`), written as YAML in the model's attributes. Text
/// that is not YAML gives `null`, which the tests of the config reference refuse.
pub(super) fn yaml_example(text: &str) -> Value {
    // Read here rather than through `parse` (which reads the schema): the layers stay acyclic.
    <Value as serde::Deserialize>::deserialize(serde_yaml::Deserializer::from_str(text))
        .unwrap_or(Value::Null)
}

// The defaults of keys whose absence means one value, taken from where that value is applied
// (the runtime's settings, the lowering's constants) so that the schema cannot disagree.

/// `entities[].unique_field`.
pub(super) fn unique_field() -> Option<String> {
    Some(DEFAULT_UNIQUE_FIELD.to_owned())
}

/// `entities[].searchable_fields[].indexed`, `toolforge.strict`.
pub(super) fn no() -> Option<bool> {
    Some(false)
}

/// `mcp.tools[].expose`, `toolforge.prompts[].arguments[].required`.
pub(super) fn yes() -> Option<bool> {
    Some(true)
}

/// `entities[].vector_indexes[].field`.
pub(super) fn vector_column() -> Option<String> {
    Some(crate::facts::DEFAULT_VECTOR_COLUMN.to_owned())
}

/// `entities[].vector_indexes[].similarity` (and the pipelines').
pub(super) fn similarity() -> Option<String> {
    Some(Similarity::default().name().to_owned())
}

/// `entities[].full_text_index.analyzer`.
pub(super) fn analyzer() -> Option<String> {
    Some(Analyzer::default().name().to_owned())
}

/// `toolforge.default_limit`.
pub(super) fn default_limit() -> Option<u32> {
    Some(ToolOptions::default().default_limit)
}

/// `toolforge.max_limit`.
pub(super) fn max_limit() -> Option<u32> {
    Some(ToolOptions::default().max_limit)
}

/// `toolforge.tools`: the families built when a config does not list them.
pub(super) fn tool_families() -> Option<Vec<ToolFamilyName>> {
    Some(
        ToolFamily::DEFAULT
            .iter()
            .filter_map(|family| serde_json::from_value(Value::from(family.name())).ok())
            .collect(),
    )
}

/// `toolforge.vector_search.precision`.
pub(super) fn precision() -> Option<VectorPrecision> {
    Some(if VectorSearchSettings::default().half_precision {
        VectorPrecision::Half
    } else {
        VectorPrecision::Full
    })
}

/// `toolforge.vector_search.ef_search`.
pub(super) fn ef_search() -> Option<u32> {
    Some(VectorSearchSettings::default().ef_search)
}

/// `toolforge.vector_search.iterative_scan`.
pub(super) fn iterative_scan() -> Option<IterativeScanName> {
    serde_json::to_value(VectorSearchSettings::default().iterative_scan)
        .ok()
        .and_then(|name| serde_json::from_value(name).ok())
}

/// `toolforge.vector_search.max_vectors_in_memory`.
pub(super) fn max_vectors_in_memory() -> Option<u64> {
    Some(VectorSearchSettings::default().max_vectors_in_memory)
}

/// `toolforge.resources.listed`.
pub(super) fn listed() -> Option<u32> {
    Some(ResourcesSpec::DEFAULT_LISTED)
}

/// `toolforge.resources.documents[].mime_type`.
pub(super) fn mime_type() -> Option<String> {
    Some(DocumentSpec::new("", "", "").mime_type)
}

/// `toolforge.prompts[].messages[].role`.
pub(super) fn role() -> Option<String> {
    serde_json::to_value(PromptRole::default())
        .ok()
        .and_then(|role| role.as_str().map(str::to_owned))
}

/// `toolforge.http.header_timeout_seconds`.
pub(super) fn header_timeout_seconds() -> Option<u64> {
    Some(toolforge::spec::HttpSpec::DEFAULT_HEADER_TIMEOUT_SECONDS)
}

/// `toolforge.http.body_timeout_seconds`.
pub(super) fn body_timeout_seconds() -> Option<u64> {
    Some(toolforge::spec::HttpSpec::DEFAULT_BODY_TIMEOUT_SECONDS)
}

/// `toolforge.http.idle_timeout_seconds`.
pub(super) fn idle_timeout_seconds() -> Option<u64> {
    Some(toolforge::spec::HttpSpec::DEFAULT_IDLE_TIMEOUT_SECONDS)
}

/// `toolforge.http.max_connections`.
pub(super) fn max_connections() -> Option<u64> {
    Some(toolforge::spec::HttpSpec::DEFAULT_MAX_CONNECTIONS)
}

/// `toolforge.http.max_body_bytes`.
pub(super) fn max_body_bytes() -> Option<u64> {
    Some(toolforge::spec::HttpSpec::DEFAULT_MAX_BODY_BYTES)
}

/// `toolforge.auth.leeway_seconds` (what `toolforge serve` applies to an absent key).
pub(super) fn leeway_seconds() -> Option<u64> {
    Some(30)
}

/// `toolforge.auth.algorithms` (what `toolforge serve` accepts when the key is absent).
pub(super) fn algorithms() -> Option<Vec<String>> {
    Some(
        super::options::DEFAULT_TOKEN_ALGORITHMS
            .iter()
            .map(|name| (*name).to_owned())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `(path, schema)` of the schema `value` holding the keyword `key`, depth first.
    fn holding<'a>(
        path: String,
        value: &'a Value,
        key: &str,
        found: &mut Vec<(String, &'a Value)>,
    ) {
        match value {
            Value::Object(map) => {
                if map.contains_key(key) {
                    found.push((path.clone(), value));
                }
                for (name, inner) in map {
                    match (name.as_str(), inner) {
                        ("examples" | "default" | "enum" | "const", _) => {}
                        // maps of names to schemas: each value is a schema
                        ("properties" | "$defs", Value::Object(schemas)) => {
                            for (name_of, schema) in schemas {
                                holding(format!("{path}/{name}/{name_of}"), schema, key, found);
                            }
                        }
                        _ => holding(format!("{path}/{name}"), inner, key, found),
                    }
                }
            }
            Value::Array(items) => {
                for (i, inner) in items.iter().enumerate() {
                    holding(format!("{path}/{i}"), inner, key, found);
                }
            }
            _ => {}
        }
    }

    /// `schema` at the JSON pointer `path` of the root, as a schema validating against it.
    fn sub_schema(root: &Value, path: &str) -> Value {
        let mut schema = root.pointer(path).cloned().unwrap_or(Value::Null);
        if let Some(map) = schema.as_object_mut() {
            map.remove("examples");
            map.remove("default");
            map.insert("$defs".into(), root["$defs"].clone());
        }
        schema
    }

    /// The keys of `value` that no `properties` of `schema` (followed through `$ref`s,
    /// variants and items) declare: the schema allows unknown keys, the examples must not use
    /// any.
    fn unknown_keys(
        root: &Value,
        schema: &Value,
        value: &Value,
        path: &str,
        out: &mut Vec<String>,
    ) {
        if let Some(name) = schema.get("$ref").and_then(Value::as_str) {
            let name = name.trim_start_matches("#/$defs/");
            return unknown_keys(root, &root["$defs"][name], value, path, out);
        }
        if let Some(variants) = schema.get("anyOf").and_then(Value::as_array) {
            for variant in variants {
                if variant.get("type").and_then(Value::as_str) != Some("null") {
                    unknown_keys(root, variant, value, path, out);
                }
            }
            return;
        }
        match value {
            Value::Object(map) => {
                let properties = schema.get("properties").and_then(Value::as_object);
                for (key, inner) in map {
                    match (
                        properties.and_then(|p| p.get(key)),
                        schema.get("additionalProperties"),
                    ) {
                        (Some(property), _) => {
                            unknown_keys(root, property, inner, &format!("{path}.{key}"), out)
                        }
                        (None, Some(values)) if values.is_object() => {
                            unknown_keys(root, values, inner, &format!("{path}.{key}"), out)
                        }
                        (None, _) if properties.is_some() => out.push(format!("{path}.{key}")),
                        (None, _) => {}
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = schema.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        unknown_keys(root, item_schema, item, &format!("{path}[{i}]"), out);
                    }
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_example_is_valid_and_uses_known_keys_only() {
        let root = json_schema();
        let mut found = Vec::new();
        holding(String::new(), &root, "examples", &mut found);
        assert!(found.len() >= 15, "{} schemas with examples", found.len());
        for (path, schema) in found {
            let validator = jsonschema::validator_for(&sub_schema(&root, &path)).unwrap();
            for example in schema["examples"].as_array().unwrap() {
                assert!(!example.is_null(), "{path}: an example is not YAML");
                let errors: Vec<String> = validator
                    .iter_errors(example)
                    .map(|e| e.to_string())
                    .collect();
                assert!(errors.is_empty(), "{path}: {example}: {errors:?}");
                let mut unknown = Vec::new();
                unknown_keys(&root, &sub_schema(&root, &path), example, "", &mut unknown);
                assert!(unknown.is_empty(), "{path}: unknown keys {unknown:?}");
            }
        }
    }

    #[test]
    fn every_default_is_valid_for_its_key() {
        let root = json_schema();
        let mut found = Vec::new();
        holding(String::new(), &root, "default", &mut found);
        assert!(found.len() >= 20, "{} keys with defaults", found.len());
        for (path, schema) in found {
            let validator = jsonschema::validator_for(&sub_schema(&root, &path)).unwrap();
            let default = &schema["default"];
            assert!(!default.is_null(), "{path}");
            assert!(validator.is_valid(default), "{path}: default {default}");
        }
        let options = &root["$defs"]["ToolforgeOptions"]["properties"];
        assert_eq!(options["max_limit"]["default"], 500);
        assert_eq!(
            options["tools"]["default"].as_array().map(Vec::len),
            Some(ToolFamily::DEFAULT.len())
        );
        let search = &root["$defs"]["VectorSearchOptions"]["properties"];
        assert_eq!(search["iterative_scan"]["default"], "relaxed_order");
        assert_eq!(search["precision"]["default"], "full");
        assert_eq!(
            root["$defs"]["PromptMessageOptions"]["properties"]["role"]["default"],
            "user"
        );
    }

    #[test]
    fn the_config_example_is_a_valid_config() {
        let compiled = crate::compile_str(
            super::super::model::CONFIG_EXAMPLE,
            "example.yaml",
            &crate::CompileOptions::default().strict(true),
        )
        .unwrap_or_else(|diagnostics| panic!("{}", diagnostics.render()));
        assert_eq!(compiled.spec.entities.len(), 2);
    }

    #[test]
    fn the_reference_has_a_section_for_every_definition() {
        let root = json_schema();
        let page = super::super::reference::config_reference(&root);
        for name in root["$defs"].as_object().unwrap().keys() {
            assert!(
                page.contains(&format!("\n## {name}\n")),
                "no section {name}"
            );
        }
        // the top level first, then the entity and what it holds, then toolforge's options
        let position = |name: &str| page.find(&format!("\n## {name}\n")).unwrap();
        assert!(position("Top level") < position("Entity"));
        assert!(position("Entity") < position("Field"));
        assert!(position("Field") < position("ComputedField"));
        assert!(position("ChangeTracking") < position("ToolforgeOptions"));
        assert!(page.contains("| `default_limit` | integer | `20` |"));
    }
}
