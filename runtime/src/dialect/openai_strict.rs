//! OpenAI strict mode (Structured Outputs for function calling): the normaliser and the checker.
//!
//! Strict mode accepts a subset of JSON Schema. The rules we enforce (from OpenAI's
//! "Structured Outputs: supported schemas" documentation):
//!
//! - the root is an object schema (`"type": "object"`), not an `anyOf`;
//! - every object has `properties`, `additionalProperties: false`, and lists **every** property
//!   in `required` (optional values are expressed as nullable: an `anyOf` with
//!   `{"type": "null"}`, as the OpenAI SDK writes them; a list type such as
//!   `"type": ["string", "null"]` is valid too, but the normaliser never emits one);
//! - every schema has a `type` (or is an `anyOf` / a `$ref`); arrays have `items`;
//! - only these keywords: `type`, `description`, `properties`, `required`,
//!   `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `$ref`, `$defs` (root only),
//!   `pattern`, `format`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//!   `multipleOf`, `minItems`, `maxItems`;
//! - `format` only among `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`,
//!   `ipv6`, `uuid`;
//! - at most 5,000 object properties in total, 10 levels of object nesting, 1,000 enum values.
//!
//! [`to_openai_strict`] rewrites a schema to follow them: `$defs`/`$ref` are inlined (a
//! recursive reference makes the schema non-strict), `oneOf` becomes `anyOf`, a single-element
//! `allOf` is merged, unsupported keywords (`default`, `title`, `minLength`, `uniqueItems`, ...)
//! and formats (`uint32`, `double`, ...) are dropped (a dropped `default` is stated in the
//! description instead: `(default: X)`), objects are closed and optional
//! properties made nullable. Dropping a keyword only widens what the model may send: the
//! registry still validates every call against the original schema, and treats a `null` sent
//! for an optional property the original schema does not allow to be null as absent (see
//! [`crate::ArgumentValidator::prepare`]).
//!
//! Some schemas cannot be made strict without changing their meaning: free-form objects
//! (`{"type": "object"}` without properties), maps (`additionalProperties` with a schema),
//! tuples (`prefixItems`), untyped values, arrays without `items`, `allOf` with several parts,
//! recursive types. Those are exported non-strict.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::normalize::{description_with_default, normalize_object_root};

/// The string formats strict mode supports.
pub const SUPPORTED_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The keywords strict mode supports on any schema (`$defs` is accepted at the root only).
pub const SUPPORTED_KEYWORDS: [&str; 20] = [
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "$defs",
];

/// Most object properties in one strict schema.
pub const MAX_PROPERTIES: usize = 5_000;
/// Most levels of object nesting in one strict schema.
pub const MAX_OBJECT_DEPTH: usize = 10;
/// Most enum values in one strict schema.
pub const MAX_ENUM_VALUES: usize = 1_000;

const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Rewrites `schema` into an equivalent-or-wider schema that satisfies strict mode, or says
/// why it cannot (each reason names the JSON pointer of the schema node).
///
/// ```
/// use serde_json::json;
/// use toolforge::dialect::{is_openai_strict_compatible, to_openai_strict};
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "name": {"type": "string"},
///         "limit": {"type": "integer", "format": "uint32", "minimum": 0, "default": 10}
///     },
///     "required": ["name"]
/// });
/// let strict = to_openai_strict(&schema).unwrap();
/// assert_eq!(strict["required"], json!(["name", "limit"]));
/// assert_eq!(
///     strict["properties"]["limit"],
///     json!({
///         "anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}],
///         "description": "Default: 10."
///     })
/// );
/// assert_eq!(strict["additionalProperties"], false);
/// assert!(is_openai_strict_compatible(&strict).is_ok());
///
/// let free_form = json!({"type": "object", "properties": {"filter": {"type": "object"}}});
/// assert!(to_openai_strict(&free_form).is_err());
/// ```
pub fn to_openai_strict(schema: &Value) -> Result<Value, Vec<String>> {
    let root = normalize_object_root(schema);
    let mut definitions = Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Value::Object(defs)) = root.get(key) {
            for (name, def) in defs {
                definitions.insert(format!("#/{key}/{}", escape_pointer(name)), def.clone());
            }
        }
    }
    let mut rewriter = Rewriter {
        definitions,
        stack: Vec::new(),
        problems: Vec::new(),
    };
    let strict = rewriter.node(&root, "", true);
    if !rewriter.problems.is_empty() {
        return Err(rewriter.problems);
    }
    is_openai_strict_compatible(&strict)?;
    Ok(strict)
}

struct Rewriter {
    /// `#/$defs/Name` → definition.
    definitions: Map<String, Value>,
    /// References being inlined, to detect recursion.
    stack: Vec<String>,
    problems: Vec<String>,
}

impl Rewriter {
    fn node(&mut self, node: &Value, path: &str, is_root: bool) -> Value {
        let Value::Object(object) = node else {
            self.problems.push(format!(
                "{}: a boolean schema has no type; strict mode needs one",
                at(path)
            ));
            return node.clone();
        };
        let mut object = object.clone();

        if let Some(reference) = object.remove("$ref") {
            let reference = reference.as_str().unwrap_or_default().to_owned();
            if reference == "#" || self.stack.contains(&reference) {
                self.problems.push(format!(
                    "{}: `{reference}` refers to itself (a recursive type); strict mode needs \
                     every definition inlined",
                    at(path)
                ));
                return Value::Object(object);
            }
            let Some(Value::Object(target)) = self.definitions.get(&reference).cloned() else {
                self.problems.push(format!(
                    "{}: `$ref` `{reference}` does not point into `$defs`",
                    at(path)
                ));
                return Value::Object(object);
            };
            // Sibling keywords (a field's own description) win over the definition's.
            let mut merged = target;
            for (key, value) in object {
                merged.insert(key, value);
            }
            self.stack.push(reference);
            let result = self.node(&Value::Object(merged), path, is_root);
            self.stack.pop();
            return result;
        }

        if let Some(all_of) = object.remove("allOf") {
            match all_of.as_array().map(Vec::as_slice) {
                Some([Value::Object(single)]) => {
                    let mut merged = single.clone();
                    for (key, value) in object {
                        merged.insert(key, value);
                    }
                    return self.node(&Value::Object(merged), path, is_root);
                }
                _ => {
                    self.problems.push(format!(
                        "{}: `allOf` with several schemas cannot be expressed in strict mode",
                        at(path)
                    ));
                    return Value::Object(object);
                }
            }
        }

        if let Some(one_of) = object.remove("oneOf") {
            if object.contains_key("anyOf") {
                self.problems.push(format!(
                    "{}: both `oneOf` and `anyOf` are present",
                    at(path)
                ));
            } else {
                object.insert("anyOf".into(), one_of);
            }
        }

        if !object.contains_key("type")
            && let Some(kind) = inferred_type(&object)
        {
            object.insert("type".into(), json!(kind));
        }

        let mut out = Map::new();
        for (key, value) in &object {
            match key.as_str() {
                "type" | "description" | "enum" | "const" | "pattern" | "minimum" | "maximum"
                | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" | "minItems"
                | "maxItems" => {
                    out.insert(key.clone(), value.clone());
                }
                "format"
                    if value
                        .as_str()
                        .is_some_and(|f| SUPPORTED_FORMATS.contains(&f)) =>
                {
                    out.insert(key.clone(), value.clone());
                }
                "items" => {
                    if value.is_array() {
                        self.problems.push(format!(
                            "{}: tuple `items` cannot be expressed in strict mode",
                            at(path)
                        ));
                    } else {
                        let child = self.node(value, &format!("{path}/items"), false);
                        out.insert(key.clone(), child);
                    }
                }
                "prefixItems" => self.problems.push(format!(
                    "{}: tuples (`prefixItems`) cannot be expressed in strict mode",
                    at(path)
                )),
                "anyOf" => {
                    let branches = value
                        .as_array()
                        .map(|branches| {
                            branches
                                .iter()
                                .enumerate()
                                .map(|(i, b)| self.node(b, &format!("{path}/anyOf/{i}"), false))
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default();
                    out.insert(key.clone(), Value::Array(branches));
                }
                // `properties`, `required` and `additionalProperties` are handled below;
                // everything else is unsupported and dropped.
                _ => {}
            }
        }

        if let Some(default) = object.get("default") {
            let description = description_with_default(
                object.get("description").and_then(Value::as_str),
                default,
            );
            out.insert("description".into(), json!(description));
        }
        if is_object_schema(&object) {
            self.close_object(&object, &mut out, path, is_root);
        }
        if !is_root {
            split_null_type(&mut out);
        }
        Value::Object(out)
    }

    /// Copies the properties, lists all of them as required, makes the optional ones nullable
    /// and sets `additionalProperties: false`.
    fn close_object(
        &mut self,
        object: &Map<String, Value>,
        out: &mut Map<String, Value>,
        path: &str,
        is_root: bool,
    ) {
        match object.get("additionalProperties") {
            None | Some(Value::Bool(_)) => {}
            Some(Value::Object(schema)) if schema.is_empty() => {}
            Some(_) => {
                self.problems.push(format!(
                    "{}: a map (`additionalProperties` with a schema) cannot be expressed in \
                     strict mode",
                    at(path)
                ));
                return;
            }
        }
        let properties = match object.get("properties") {
            Some(Value::Object(properties)) => properties.clone(),
            _ if is_root => Map::new(),
            _ => {
                self.problems.push(format!(
                    "{}: a free-form object (no `properties`) cannot be expressed in strict mode",
                    at(path)
                ));
                return;
            }
        };
        let required: BTreeSet<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out_properties = Map::new();
        for (name, schema) in &properties {
            let child_path = format!("{path}/properties/{}", escape_pointer(name));
            let mut child = self.node(schema, &child_path, false);
            if !required.contains(name.as_str()) {
                make_nullable(&mut child);
            }
            out_properties.insert(name.clone(), child);
        }
        let names: Vec<Value> = out_properties.keys().map(|n| json!(n)).collect();
        out.insert("properties".into(), Value::Object(out_properties));
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// Lets `schema` also accept `null` (an optional property in strict mode), the way the OpenAI
/// SDK writes an optional value: `{"anyOf": [{...}, {"type": "null"}]}`, the description kept
/// outside. An untyped `anyOf` gets a `null` branch instead.
fn make_nullable(schema: &mut Value) {
    if accepts_null(schema) {
        return;
    }
    let Value::Object(object) = schema else {
        return;
    };
    if !object.contains_key("type")
        && let Some(Value::Array(branches)) = object.get_mut("anyOf")
    {
        branches.push(json!({"type": "null"}));
        return;
    }
    let description = object.remove("description");
    let inner = std::mem::take(object);
    object.insert(
        "anyOf".into(),
        json!([Value::Object(inner), {"type": "null"}]),
    );
    if let Some(description) = description {
        object.insert("description".into(), description);
    }
}

/// Rewrites a node typed `[T, "null"]` into `{"anyOf": [{"type": T, ...}, {"type": "null"}]}`
/// (a `null` in its `enum` dropped): the list-typed nullable shape, above all with an `enum`
/// listing `null`, breaks schema readers such as google-genai's.
fn split_null_type(object: &mut Map<String, Value>) {
    let Some(Value::Array(kinds)) = object.get("type") else {
        return;
    };
    if !kinds.iter().any(|kind| kind == "null") {
        return;
    }
    let others: Vec<Value> = kinds
        .iter()
        .filter(|kind| *kind != "null")
        .cloned()
        .collect();
    let description = object.remove("description");
    let mut inner = std::mem::take(object);
    match <[Value; 1]>::try_from(others) {
        Ok([single]) => {
            inner.insert("type".into(), single);
        }
        Err(others) if others.is_empty() => {
            object.insert("type".into(), json!("null"));
            if let Some(description) = description {
                object.insert("description".into(), description);
            }
            return;
        }
        Err(others) => {
            inner.insert("type".into(), Value::Array(others));
        }
    }
    if let Some(Value::Array(values)) = inner.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    object.insert(
        "anyOf".into(),
        json!([Value::Object(inner), {"type": "null"}]),
    );
    if let Some(description) = description {
        object.insert("description".into(), description);
    }
}

/// The type of an untyped `enum`/`const` whose values all have one JSON type.
fn inferred_type(object: &Map<String, Value>) -> Option<&'static str> {
    let values: Vec<&Value> = match (object.get("enum"), object.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (None, Some(value)) => vec![value],
        _ => return None,
    };
    let kind_of = |value: &Value| match value {
        Value::String(_) => Some("string"),
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_f64() => Some("number"),
        Value::Number(_) => Some("integer"),
        _ => None,
    };
    let first = kind_of(values.first()?)?;
    values
        .iter()
        .all(|value| kind_of(value) == Some(first))
        .then_some(first)
}

fn accepts_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "null"),
        _ => schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(accepts_null)),
    }
}

fn is_object_schema(object: &Map<String, Value>) -> bool {
    match object.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "object"),
        _ => object.contains_key("properties"),
    }
}

/// Checks `schema` against the strict-mode rules listed in the module documentation; the
/// error lists every violation with the JSON pointer of the schema node.
///
/// ```
/// use serde_json::json;
/// use toolforge::dialect::is_openai_strict_compatible;
///
/// let ok = json!({
///     "type": "object",
///     "properties": {"q": {"type": ["string", "null"]}},
///     "required": ["q"],
///     "additionalProperties": false
/// });
/// assert!(is_openai_strict_compatible(&ok).is_ok());
/// let open = json!({"type": "object", "properties": {"q": {"type": "string"}}});
/// let problems = is_openai_strict_compatible(&open).unwrap_err();
/// assert!(problems.iter().any(|p| p.contains("additionalProperties")), "{problems:?}");
/// ```
pub fn is_openai_strict_compatible(schema: &Value) -> Result<(), Vec<String>> {
    let mut checker = Checker {
        root: schema,
        problems: Vec::new(),
        properties: 0,
        enum_values: 0,
    };
    match schema {
        Value::Object(root) => {
            if root.get("type") != Some(&json!("object")) {
                checker
                    .problems
                    .push("the root must be `\"type\": \"object\"`".into());
            }
            if root.contains_key("anyOf") {
                checker
                    .problems
                    .push("the root must not be an `anyOf`".into());
            }
            checker.check(schema, "", 0, true);
            if let Some(defs) = root.get("$defs") {
                match defs.as_object() {
                    Some(defs) => {
                        for (name, def) in defs {
                            let path = format!("/$defs/{}", escape_pointer(name));
                            checker.check(def, &path, 0, false);
                        }
                    }
                    None => checker.problems.push("`/$defs` must be an object".into()),
                }
            }
        }
        _ => checker
            .problems
            .push("the root must be an object schema".into()),
    }
    if checker.properties > MAX_PROPERTIES {
        checker.problems.push(format!(
            "{} object properties in total; the limit is {MAX_PROPERTIES}",
            checker.properties
        ));
    }
    if checker.enum_values > MAX_ENUM_VALUES {
        checker.problems.push(format!(
            "{} enum values in total; the limit is {MAX_ENUM_VALUES}",
            checker.enum_values
        ));
    }
    if checker.problems.is_empty() {
        Ok(())
    } else {
        Err(checker.problems)
    }
}

struct Checker<'a> {
    root: &'a Value,
    problems: Vec<String>,
    properties: usize,
    enum_values: usize,
}

impl Checker<'_> {
    fn check(&mut self, node: &Value, path: &str, depth: usize, is_root: bool) {
        let Value::Object(object) = node else {
            self.problems
                .push(format!("{}: boolean schemas are not supported", at(path)));
            return;
        };
        for key in object.keys() {
            if !SUPPORTED_KEYWORDS.contains(&key.as_str()) || (key == "$defs" && !is_root) {
                self.problems.push(format!(
                    "{}: keyword `{key}` is not supported in strict mode",
                    at(path)
                ));
            }
        }
        if let Some(format) = object.get("format")
            && !format
                .as_str()
                .is_some_and(|f| SUPPORTED_FORMATS.contains(&f))
        {
            self.problems.push(format!(
                "{}: format {format} is not supported in strict mode",
                at(path)
            ));
        }
        if let Some(reference) = object.get("$ref") {
            let target = reference.as_str().unwrap_or_default();
            let resolves = target == "#"
                || (target.starts_with("#/$defs/") && self.root.pointer(&target[1..]).is_some());
            if !resolves {
                self.problems.push(format!(
                    "{}: `$ref` {reference} does not resolve to `#` or into `#/$defs`",
                    at(path)
                ));
            }
            return;
        }
        let types = match object.get("type") {
            Some(Value::String(kind)) => vec![kind.as_str()],
            Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
            Some(other) => {
                self.problems
                    .push(format!("{}: `type` {other} is not a type name", at(path)));
                return;
            }
            None => Vec::new(),
        };
        for kind in &types {
            if !JSON_TYPES.contains(kind) {
                self.problems
                    .push(format!("{}: unknown type `{kind}`", at(path)));
            }
        }
        if types.is_empty() && !object.contains_key("anyOf") {
            self.problems.push(format!(
                "{}: every schema needs a `type` (or an `anyOf`)",
                at(path)
            ));
        }
        if let Some(values) = object.get("enum") {
            match values.as_array() {
                Some(values) => {
                    self.enum_values += values.len();
                    for value in values {
                        if !types.is_empty() && !types.iter().any(|kind| has_type(value, kind)) {
                            self.problems.push(format!(
                                "{}: enum value {value} does not match the type {types:?}",
                                at(path)
                            ));
                        }
                    }
                }
                None => self
                    .problems
                    .push(format!("{}: `enum` must be an array", at(path))),
            }
        }
        if let Some(branches) = object.get("anyOf") {
            match branches.as_array() {
                Some(branches) if !branches.is_empty() => {
                    for (i, branch) in branches.iter().enumerate() {
                        self.check(branch, &format!("{path}/anyOf/{i}"), depth, false);
                    }
                }
                _ => self
                    .problems
                    .push(format!("{}: `anyOf` must be a non-empty array", at(path))),
            }
        }
        if types.contains(&"object") {
            self.check_object(object, path, depth);
        }
        if types.contains(&"array") {
            match object.get("items") {
                Some(items @ Value::Object(_)) => {
                    self.check(items, &format!("{path}/items"), depth, false)
                }
                _ => self
                    .problems
                    .push(format!("{}: an array needs an `items` schema", at(path))),
            }
        }
    }

    fn check_object(&mut self, object: &Map<String, Value>, path: &str, depth: usize) {
        if depth >= MAX_OBJECT_DEPTH {
            self.problems.push(format!(
                "{}: objects are nested more than {MAX_OBJECT_DEPTH} levels deep",
                at(path)
            ));
        }
        if object.get("additionalProperties") != Some(&Value::Bool(false)) {
            self.problems.push(format!(
                "{}: every object needs `additionalProperties: false`",
                at(path)
            ));
        }
        let Some(properties) = object.get("properties").and_then(Value::as_object) else {
            self.problems
                .push(format!("{}: every object needs `properties`", at(path)));
            return;
        };
        self.properties += properties.len();
        let required: BTreeSet<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, schema) in properties {
            if !required.contains(name.as_str()) {
                self.problems.push(format!(
                    "{}: property `{name}` must be listed in `required` (make it nullable \
                     instead of optional)",
                    at(path)
                ));
            }
            let child = format!("{path}/properties/{}", escape_pointer(name));
            self.check(schema, &child, depth + 1, false);
        }
        for name in &required {
            if !properties.contains_key(*name) {
                self.problems.push(format!(
                    "{}: `required` lists `{name}`, which is not a property",
                    at(path)
                ));
            }
        }
    }
}

fn has_type(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => false,
    }
}

fn at(path: &str) -> String {
    if path.is_empty() {
        "`#` (root)".to_owned()
    } else {
        format!("`#{path}`")
    }
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
