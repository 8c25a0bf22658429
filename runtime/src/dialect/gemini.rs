//! Gemini (google-genai) function declarations, built from the MCP input schema.
//!
//! Gemini reads a subset of OpenAPI 3.0 schemas. The converter writes only what that subset
//! has, the way google-genai names it (`anyOf`, `minItems`, ...):
//!
//! - `type` in upper case (`STRING`, `OBJECT`, ...), one type per node: `[T, "null"]` becomes
//!   `T` with `nullable: true`, several types an `anyOf`;
//! - an `anyOf` is the only field of its node (Gemini refuses other fields next to it): the
//!   description goes into each branch, a `null` branch becomes `nullable: true` on the others,
//!   and an `anyOf` left with one branch is that branch; `oneOf` is read as `anyOf`;
//! - `$ref`s into `$defs` are inlined, a single-schema `allOf` merged;
//! - `enum` lists strings only (other values are named in the description), `const` is a
//!   one-value `enum`;
//! - `default` is dropped and stated in the description, `format` kept only where Gemini knows
//!   it, and `additionalProperties`, `$schema`, `title`, `examples` and the other keywords
//!   outside the subset are dropped;
//! - an object without properties (a free-form object such as `batch`'s `args`), which Gemini
//!   refuses, becomes a string holding the object as JSON text; the registry reads such a text
//!   back as the object (see [`crate::ArgumentValidator::prepare`]). A recursive type is cut
//!   the same way where it refers to itself. A root without properties leaves `parameters`
//!   out, as Gemini wants for a tool without arguments.

use serde_json::{Map, Value, json};

use super::normalize::{description_with_default, fit_description, normalize_object_root};
use crate::ToolDefinition;

/// How deep the converter follows nested schemas before writing the rest as JSON text.
const MAX_DEPTH: usize = 32;

/// What a free-form value written as JSON text says in its description.
pub(crate) const JSON_TEXT_NOTE: &str = "Write it as a JSON object inside a string, e.g. \"{}\".";

/// `{name, description, parameters?}`: a google-genai `FunctionDeclaration`.
pub(super) fn export(definition: &ToolDefinition) -> Value {
    let mut declaration = Map::new();
    declaration.insert("name".into(), json!(definition.name));
    declaration.insert(
        "description".into(),
        json!(fit_description(&definition.description)),
    );
    let root = normalize_object_root(&definition.input_schema);
    let has_properties = root
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty());
    if has_properties {
        let mut converter = Converter {
            root: &root,
            stack: Vec::new(),
        };
        let mut parameters = converter.node(&root, 0);
        // The tool's description says what the arguments are for.
        if let Value::Object(parameters) = &mut parameters {
            parameters.remove("description");
        }
        declaration.insert("parameters".into(), parameters);
    }
    Value::Object(declaration)
}

/// Converts a JSON Schema (an MCP input schema) to Gemini's schema subset; see the module
/// documentation for the rules.
///
/// ```
/// use serde_json::json;
/// use toolforge::dialect::to_gemini_schema;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "mode": {"type": ["string", "null"], "enum": ["fast", "slow", null], "default": "fast"},
///         "extra": {"type": "object", "description": "Anything."}
///     },
///     "additionalProperties": false
/// });
/// assert_eq!(
///     to_gemini_schema(&schema),
///     json!({
///         "type": "OBJECT",
///         "properties": {
///             "mode": {"type": "STRING", "enum": ["fast", "slow"], "nullable": true,
///                      "description": "Default: \"fast\"."},
///             "extra": {"type": "STRING",
///                       "description": "Anything. Write it as a JSON object inside a string, e.g. \"{}\"."}
///         }
///     })
/// );
/// ```
pub fn to_gemini_schema(schema: &Value) -> Value {
    let mut converter = Converter {
        root: schema,
        stack: Vec::new(),
    };
    converter.node(schema, 0)
}

struct Converter<'a> {
    root: &'a Value,
    /// References being inlined, to cut recursion.
    stack: Vec<String>,
}

impl Converter<'_> {
    fn node(&mut self, node: &Value, depth: usize) -> Value {
        let Value::Object(object) = node else {
            // `true` (anything): a scalar of any kind.
            return any_scalar(None);
        };
        if depth > MAX_DEPTH {
            return json_text(description_of(object));
        }
        let mut object = object.clone();

        if let Some(reference) = object.remove("$ref") {
            let reference = reference.as_str().unwrap_or_default().to_owned();
            let target = if reference == "#" {
                Some(self.root.clone())
            } else {
                reference
                    .strip_prefix('#')
                    .and_then(|pointer| self.root.pointer(pointer))
                    .cloned()
            };
            let Some(Value::Object(target)) = target else {
                return json_text(description_of(&object));
            };
            if self.stack.contains(&reference) {
                let description = description_of(&object).or(description_of(&target));
                return json_text(description);
            }
            let mut merged = target;
            for (key, value) in object {
                merged.insert(key, value);
            }
            self.stack.push(reference);
            let converted = self.node(&Value::Object(merged), depth + 1);
            self.stack.pop();
            return converted;
        }

        if let Some(Value::Array(parts)) = object.remove("allOf") {
            let mut merged = Map::new();
            for part in &parts {
                if let Value::Object(part) = part {
                    merge_into(&mut merged, part);
                }
            }
            merge_into(&mut merged, &object);
            return self.node(&Value::Object(merged), depth + 1);
        }

        if let Some(one_of) = object.remove("oneOf")
            && !object.contains_key("anyOf")
        {
            object.insert("anyOf".into(), one_of);
        }

        let mut description = description_of(&object);
        if let Some(default) = object.get("default") {
            description = Some(description_with_default(description.as_deref(), default));
        }

        if let Some(Value::Array(branches)) = object.get("anyOf").cloned() {
            return self.any_of(&branches, &object, description, depth);
        }

        let (kinds, mut nullable) = match object.get("type") {
            Some(Value::String(kind)) => (vec![kind.clone()], false),
            Some(Value::Array(kinds)) => {
                let named: Vec<String> = kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect();
                let nullable = named.iter().any(|kind| kind == "null");
                (
                    named.into_iter().filter(|kind| kind != "null").collect(),
                    nullable,
                )
            }
            _ => (inferred_types(&object), false),
        };
        if let Some(Value::Array(values)) = object.get("enum") {
            nullable |= values.iter().any(Value::is_null);
        }
        match kinds.as_slice() {
            [] => any_scalar(description),
            [kind] => self.typed(kind, &object, description, nullable, depth),
            several => {
                let branches: Vec<Value> = several
                    .iter()
                    .map(|kind| self.typed(kind, &object, description.clone(), nullable, depth))
                    .collect();
                json!({ "anyOf": branches })
            }
        }
    }

    /// An `anyOf`: the only field of its node, its description in each branch, its `null`
    /// branches turned into `nullable` on the others.
    fn any_of(
        &mut self,
        branches: &[Value],
        object: &Map<String, Value>,
        description: Option<String>,
        depth: usize,
    ) -> Value {
        let is_null = |branch: &Value| branch.get("type").is_some_and(|kind| kind == "null");
        let nullable = branches.iter().any(is_null);
        let kept: Vec<&Value> = branches.iter().filter(|branch| !is_null(branch)).collect();
        let mut converted: Vec<Value> = kept
            .iter()
            .map(|branch| {
                // Keywords next to the `anyOf` (a sibling `items`, say) apply to each branch.
                let mut merged = object.clone();
                merged.remove("anyOf");
                merged.remove("description");
                merged.remove("default");
                if let Value::Object(branch) = branch {
                    merge_into(&mut merged, branch);
                }
                self.node(&Value::Object(merged), depth + 1)
            })
            .collect();
        for branch in &mut converted {
            let Value::Object(branch) = branch else {
                continue;
            };
            if branch.contains_key("anyOf") {
                continue;
            }
            if nullable {
                branch.insert("nullable".into(), json!(true));
            }
            if let Some(text) = &description {
                let combined = match branch.get("description").and_then(Value::as_str) {
                    Some(own) if own != text => format!("{text} {own}"),
                    _ => text.clone(),
                };
                branch.insert("description".into(), json!(combined));
            }
        }
        match <[Value; 1]>::try_from(converted) {
            Ok([single]) => single,
            Err(converted) if converted.is_empty() => {
                let mut only_null = any_scalar(description);
                if let Value::Object(branches) = &mut only_null
                    && let Some(Value::Array(branches)) = branches.get_mut("anyOf")
                {
                    for branch in branches.iter_mut() {
                        branch["nullable"] = json!(true);
                    }
                }
                only_null
            }
            Err(converted) => json!({ "anyOf": converted }),
        }
    }

    /// A node of one JSON type.
    fn typed(
        &mut self,
        kind: &str,
        object: &Map<String, Value>,
        description: Option<String>,
        nullable: bool,
        depth: usize,
    ) -> Value {
        let mut out = Map::new();
        let mut description = description;
        match kind {
            "object" => {
                let properties = object
                    .get("properties")
                    .and_then(Value::as_object)
                    .filter(|properties| !properties.is_empty());
                let Some(properties) = properties else {
                    let mut text = json_text(description);
                    if nullable {
                        text["nullable"] = json!(true);
                    }
                    return text;
                };
                out.insert("type".into(), json!("OBJECT"));
                let mut converted = Map::new();
                for (name, property) in properties {
                    converted.insert(name.clone(), self.node(property, depth + 1));
                }
                let required: Vec<Value> = object
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| {
                        names
                            .iter()
                            .filter(|name| name.as_str().is_some_and(|n| converted.contains_key(n)))
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert("properties".into(), Value::Object(converted));
                if !required.is_empty() {
                    out.insert("required".into(), Value::Array(required));
                }
            }
            "array" => {
                out.insert("type".into(), json!("ARRAY"));
                match object.get("items") {
                    Some(items @ Value::Object(_)) => {
                        out.insert("items".into(), self.node(items, depth + 1));
                    }
                    _ => {
                        out.insert("items".into(), any_scalar(None));
                    }
                }
                for key in ["minItems", "maxItems"] {
                    if let Some(value) = object.get(key).filter(|v| v.is_u64()) {
                        out.insert(key.into(), value.clone());
                    }
                }
            }
            "string" | "number" | "integer" | "boolean" => {
                out.insert("type".into(), json!(kind.to_uppercase()));
                let formats: &[&str] = match kind {
                    "string" => &["enum", "date-time"],
                    "number" => &["float", "double"],
                    "integer" => &["int32", "int64"],
                    _ => &[],
                };
                if let Some(format) = object.get("format").and_then(Value::as_str)
                    && formats.contains(&format)
                {
                    out.insert("format".into(), json!(format));
                }
                if kind == "string" {
                    for key in ["minLength", "maxLength"] {
                        if let Some(value) = object.get(key).filter(|v| v.is_u64()) {
                            out.insert(key.into(), value.clone());
                        }
                    }
                    if let Some(pattern) = object.get("pattern").filter(|v| v.is_string()) {
                        out.insert("pattern".into(), pattern.clone());
                    }
                }
                if matches!(kind, "number" | "integer") {
                    for key in ["minimum", "maximum"] {
                        if let Some(value) = object.get(key).filter(|v| v.is_number()) {
                            out.insert(key.into(), value.clone());
                        }
                    }
                }
                let values: Vec<Value> = match (object.get("enum"), object.get("const")) {
                    (Some(Value::Array(values)), _) => {
                        values.iter().filter(|v| !v.is_null()).cloned().collect()
                    }
                    (None, Some(value)) if !value.is_null() => vec![value.clone()],
                    _ => Vec::new(),
                };
                if !values.is_empty() {
                    if kind == "string" && values.iter().all(Value::is_string) {
                        out.insert("enum".into(), Value::Array(values));
                    } else {
                        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
                        let note = format!("One of: {}.", listed.join(", "));
                        description = Some(match description {
                            Some(text) => format!("{} {note}", text.trim_end()),
                            None => note,
                        });
                    }
                }
            }
            // `null` alone: a value that is always null; Gemini has no such type.
            _ => return any_scalar(description),
        }
        if nullable {
            out.insert("nullable".into(), json!(true));
        }
        if let Some(text) = description {
            out.insert("description".into(), json!(text));
        }
        Value::Object(out)
    }
}

/// The types an untyped node implies: from its `enum`/`const` values, or `object` when it has
/// properties.
fn inferred_types(object: &Map<String, Value>) -> Vec<String> {
    if object.contains_key("properties") {
        return vec!["object".into()];
    }
    if object.contains_key("items") {
        return vec!["array".into()];
    }
    let values: Vec<&Value> = match (object.get("enum"), object.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (None, Some(value)) => vec![value],
        _ => return Vec::new(),
    };
    let mut kinds: Vec<String> = Vec::new();
    for value in values {
        let kind = match value {
            Value::String(_) => "string",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            _ => continue,
        };
        if !kinds.iter().any(|k| k == kind) {
            kinds.push(kind.into());
        }
    }
    kinds
}

/// Any scalar value (a node without a type, which Gemini cannot express).
fn any_scalar(description: Option<String>) -> Value {
    let branch = |kind: &str| {
        let mut branch = json!({ "type": kind });
        if let Some(text) = &description {
            branch["description"] = json!(text);
        }
        branch
    };
    json!({ "anyOf": [branch("STRING"), branch("NUMBER"), branch("BOOLEAN")] })
}

/// A free-form object, written as JSON text in a string.
fn json_text(description: Option<String>) -> Value {
    let text = match description {
        Some(text) => format!("{} {JSON_TEXT_NOTE}", text.trim_end()),
        None => JSON_TEXT_NOTE.to_owned(),
    };
    json!({ "type": "STRING", "description": text })
}

fn description_of(object: &Map<String, Value>) -> Option<String> {
    object
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Merges `part` into `merged`: properties and required lists are joined, other keys of
/// `part` win.
fn merge_into(merged: &mut Map<String, Value>, part: &Map<String, Value>) {
    for (key, value) in part {
        match (key.as_str(), merged.get_mut(key), value) {
            ("properties", Some(Value::Object(existing)), Value::Object(more)) => {
                for (name, schema) in more {
                    existing.insert(name.clone(), schema.clone());
                }
            }
            ("required", Some(Value::Array(existing)), Value::Array(more)) => {
                for name in more {
                    if !existing.contains(name) {
                        existing.push(name.clone());
                    }
                }
            }
            _ => {
                merged.insert(key.clone(), value.clone());
            }
        }
    }
}

/// The keywords a Gemini schema node may have, as google-genai names them.
pub const GEMINI_KEYWORDS: [&str; 16] = [
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "anyOf",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
];

const GEMINI_TYPES: [&str; 6] = ["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"];

/// Checks a schema against the Gemini rules [`to_gemini_schema`] writes for: only
/// [`GEMINI_KEYWORDS`], a `type` of `STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`, `ARRAY` or
/// `OBJECT` on every node but an `anyOf` (which is alone in its node and has branches), an
/// `OBJECT` with at least one property and a `required` naming only its properties, an
/// `ARRAY` with `items`, an `enum` of strings on a `STRING`. The error lists every violation
/// with the JSON pointer of the node.
///
/// ```
/// use serde_json::json;
/// use toolforge::dialect::is_gemini_compatible;
///
/// assert!(is_gemini_compatible(&json!({"type": "OBJECT", "properties": {"q": {"type": "STRING"}}})).is_ok());
/// let problems = is_gemini_compatible(&json!({"type": "OBJECT", "properties": {},
///                                             "additionalProperties": false})).unwrap_err();
/// assert_eq!(problems.len(), 2, "{problems:?}");
/// assert!(is_gemini_compatible(&json!({"type": "object", "properties": {"q": {"type": "STRING"}}})).is_err());
/// ```
pub fn is_gemini_compatible(schema: &Value) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    check(schema, "", &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn check(node: &Value, path: &str, problems: &mut Vec<String>) {
    let at = if path.is_empty() { "#" } else { path };
    let Value::Object(object) = node else {
        problems.push(format!("{at}: a schema must be an object"));
        return;
    };
    for key in object.keys() {
        if !GEMINI_KEYWORDS.contains(&key.as_str()) {
            problems.push(format!("{at}: `{key}` is not a Gemini schema field"));
        }
    }
    if let Some(branches) = object.get("anyOf") {
        if object.len() > 1 {
            problems.push(format!("{at}: `anyOf` must be the only field of its node"));
        }
        match branches.as_array() {
            Some(branches) if !branches.is_empty() => {
                for (i, branch) in branches.iter().enumerate() {
                    check(branch, &format!("{path}/anyOf/{i}"), problems);
                }
            }
            _ => problems.push(format!("{at}: `anyOf` needs branches")),
        }
        return;
    }
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !GEMINI_TYPES.contains(&kind) {
        problems.push(format!(
            "{at}: `type` must be one of {GEMINI_TYPES:?}, found {}",
            object
                .get("type")
                .map_or("nothing".to_owned(), Value::to_string)
        ));
    }
    if let Some(values) = object.get("enum")
        && !(kind == "STRING"
            && values
                .as_array()
                .is_some_and(|values| values.iter().all(Value::is_string)))
    {
        problems.push(format!("{at}: `enum` must list strings of a STRING"));
    }
    if kind == "OBJECT" {
        match object.get("properties").and_then(Value::as_object) {
            Some(properties) if !properties.is_empty() => {
                for (name, property) in properties {
                    check(property, &format!("{path}/properties/{name}"), problems);
                }
                if let Some(required) = object.get("required") {
                    let valid = required.as_array().is_some_and(|names| {
                        names
                            .iter()
                            .all(|name| name.as_str().is_some_and(|n| properties.contains_key(n)))
                    });
                    if !valid {
                        problems.push(format!("{at}: `required` must name properties"));
                    }
                }
            }
            _ => problems.push(format!(
                "{at}: an OBJECT needs at least one property (Gemini refuses empty properties)"
            )),
        }
    }
    if kind == "ARRAY" {
        match object.get("items") {
            Some(items) => check(items, &format!("{path}/items"), problems),
            None => problems.push(format!("{at}: an ARRAY needs `items`")),
        }
    }
}
