//! Validation of call arguments against a tool's input schema.
//!
//! An [`ArgumentValidator`] is compiled once, when a tool is registered, and checks every call's
//! arguments before the handler runs. A failure becomes an [`ErrorCode::InvalidArguments`]
//! [`ToolError`] whose `details.problems` lists one entry per problem:
//!
//! - `path`: the JSON pointer of the offending value (`""` is the arguments object itself, a
//!   missing property is reported at the path it should have had),
//! - `keyword`: the schema rule that failed (`type`, `enum`, `required`, `maximum`, ...),
//! - `message`: one sentence the model can act on,
//! - and, where it helps, `expected` (types or limit), `allowed` (enum values or known property
//!   names) and `did_you_mean`: for unexpected properties, each one's closest known property
//!   (`{"nmae": "name"}`); for a string outside an enum, the nearest allowed values
//!   (`["name"]`), which the message names too.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::{Map, Value, json};

use crate::{ErrorCode, ToolError};

/// At most this many problems are reported for one call (the rest are counted).
const MAX_REPORTED_PROBLEMS: usize = 16;

/// The most problems counted in one error (`total_problems` says "at least" past it).
const MAX_COUNTED_PROBLEMS: usize = 256;

/// Arguments larger than this (compact JSON) get their first problem only.
const MAX_LISTED_BYTES: usize = 64 << 10;

/// The largest arguments checked against a schema, as compact JSON: what one request of the
/// MCP HTTP transport carries. Checking tens of megabytes of nested items against a schema
/// takes seconds, and the check runs before the call's deadline applies.
pub(crate) const MAX_ARGUMENT_BYTES: usize = 4 << 20;

/// The compiled input schema of one tool.
///
/// ```
/// use serde_json::json;
/// use toolforge::ArgumentValidator;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"unit": {"type": "string", "enum": ["C", "F"]}},
///     "required": ["unit"]
/// });
/// let validator = ArgumentValidator::compile(&schema).unwrap();
/// assert!(validator.validate(&json!({"unit": "C"})).is_ok());
/// let error = validator.validate(&json!({"unit": "K"})).unwrap_err();
/// let problem = &error.details.unwrap()["problems"][0];
/// assert_eq!(problem["path"], "/unit");
/// assert_eq!(problem["allowed"], json!(["C", "F"]));
/// ```
pub struct ArgumentValidator {
    /// `None` when the schema accepts every object (nothing to check beyond "is an object").
    validator: Option<Validator>,
    /// The schema, kept to describe problems (known property names).
    schema: Value,
}

impl std::fmt::Debug for ArgumentValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgumentValidator")
            .field("accepts_any_object", &self.validator.is_none())
            .finish()
    }
}

/// Why an input schema cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema is `false`, which accepts nothing.
    #[error(
        "the input schema is `false`, which accepts no arguments at all; use \
         `{{\"type\": \"object\", \"properties\": {{}}}}` for a tool without arguments"
    )]
    AcceptsNothing,
    /// The schema's root `type` is not `object`.
    #[error(
        "the input schema must describe a JSON object (`\"type\": \"object\"`), found \
         `\"type\": {found}`; wrap the value in an object property"
    )]
    NotAnObject {
        /// The root `type` found, as JSON.
        found: String,
    },
    /// The schema is neither an object nor `true`.
    #[error("the input schema must be a JSON object or `true`, found `{found}`")]
    NotASchema {
        /// The value found, as JSON.
        found: String,
    },
    /// The JSON Schema validator refused the schema.
    #[error("the input schema is not valid: {reason}")]
    Invalid {
        /// The validator's description of the problem.
        reason: String,
    },
}

impl ArgumentValidator {
    /// Compiles `schema` (JSON Schema draft 2020-12 unless it names another draft in `$schema`).
    ///
    /// The root must describe an object: `"type": "object"`, no `type` at all, or `true`/`{}`.
    /// Formats (`date-time`, `uuid`, `email`, ...) are checked. Remote `$ref`s are not fetched:
    /// a schema that needs one is refused.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        check_root_is_object(schema)?;
        if accepts_any_object(schema) {
            return Ok(ArgumentValidator {
                validator: None,
                schema: schema.clone(),
            });
        }
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map_err(|error| SchemaError::Invalid {
                reason: error.to_string(),
            })?;
        Ok(ArgumentValidator {
            validator: Some(validator),
            schema: schema.clone(),
        })
    }

    /// Whether this schema accepts every arguments object (validation is skipped).
    pub fn accepts_any_object(&self) -> bool {
        self.validator.is_none()
    }

    /// Validates `arguments` and returns them ready for the handler.
    ///
    /// Clients of OpenAI strict mode send `null` for every optional property they leave out
    /// (strict schemas make optional properties required and nullable). When the arguments
    /// do not validate as sent, a `null` given for an optional property whose own schema does
    /// not accept `null` is treated as absent: it is removed and the arguments are checked
    /// again.
    ///
    /// Gemini cannot declare an object without properties (a free-form object such as
    /// `batch`'s `args`), so the Gemini dialect declares it as a string holding the object as
    /// JSON text (see [`crate::dialect::to_gemini_schema`]). When the arguments do not validate
    /// as sent, such a string given where the schema wants a free-form object is read as the
    /// object it holds. Everything else is reported as by [`ArgumentValidator::validate`].
    ///
    /// ```
    /// use serde_json::json;
    /// use toolforge::ArgumentValidator;
    ///
    /// let schema = json!({
    ///     "type": "object",
    ///     "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}},
    ///     "required": ["q"]
    /// });
    /// let validator = ArgumentValidator::compile(&schema).unwrap();
    /// let prepared = validator.prepare(json!({"q": "x", "limit": null})).unwrap();
    /// assert_eq!(prepared, json!({"q": "x"}));
    /// assert!(validator.prepare(json!({"q": null})).is_err());
    ///
    /// let free_form = json!({"type": "object", "properties": {"args": {"type": "object"}}});
    /// let validator = ArgumentValidator::compile(&free_form).unwrap();
    /// let prepared = validator.prepare(json!({"args": "{\"a\": 1}"})).unwrap();
    /// assert_eq!(prepared, json!({"args": {"a": 1}}));
    /// assert!(validator.prepare(json!({"args": "[1]"})).is_err());
    /// ```
    pub fn prepare(&self, arguments: Value) -> Result<Value, ToolError> {
        let first = match self.validate(&arguments) {
            Ok(()) => return Ok(arguments),
            // Too large to read again: no repair makes it smaller.
            Err(error) if error.code == ErrorCode::TooLarge => return Err(error),
            Err(error) => error,
        };
        let mut pruned = arguments;
        let dropped = drop_optional_nulls(&self.schema, &self.schema, &mut pruned, 0);
        let decoded = decode_object_texts(&self.schema, &self.schema, &mut pruned, 0);
        if dropped || decoded {
            self.validate(&pruned).map(|()| pruned)
        } else {
            Err(first)
        }
    }

    /// Checks `arguments`; on failure returns an `invalid_arguments` error listing the problems
    /// (the first 16, of at most 256 counted; only the first for arguments over 64 KiB).
    pub fn validate(&self, arguments: &Value) -> Result<(), ToolError> {
        let Some(validator) = &self.validator else {
            if arguments.is_object() {
                return Ok(());
            }
            return Err(not_an_object(arguments));
        };
        if crate::limits::json_len_over(arguments, MAX_ARGUMENT_BYTES) {
            return Err(ToolError::new(
                ErrorCode::TooLarge,
                format!(
                    "the arguments take more than {} MiB as JSON, more than a call carries: \
                     ask for less in one call (fewer items, shorter values) and split the rest \
                     into further calls",
                    MAX_ARGUMENT_BYTES >> 20
                ),
            )
            .with_details(json!({
                "limit": "max_argument_bytes",
                "max_argument_bytes": MAX_ARGUMENT_BYTES,
            })));
        }
        if validator.is_valid(arguments) {
            return Ok(());
        }
        // Large arguments get their first problem only: listing every problem of thousands of
        // items (each copying its item) would take longer than a call may, and the validation
        // runs before the call's deadline applies.
        if crate::limits::json_len(arguments) > MAX_LISTED_BYTES {
            let problems = validator
                .validate(arguments)
                .err()
                .map(|error| describe(&error, &self.schema))
                .into_iter()
                .collect();
            return Err(problems_error(problems, 1));
        }
        let mut problems = Vec::new();
        let mut total = 0usize;
        for error in validator.iter_errors(arguments).take(MAX_COUNTED_PROBLEMS) {
            total += 1;
            if problems.len() < MAX_REPORTED_PROBLEMS {
                problems.push(describe(&error, &self.schema));
            }
        }
        Err(problems_error(problems, total))
    }
}

/// How deep [`drop_optional_nulls`] follows nested schemas.
const MAX_PRUNE_DEPTH: usize = 64;

/// Removes `null`s given for optional properties whose schema rejects `null`, following
/// `properties`, `items`, local `$ref`s, single-schema `allOf` and the object branch of an
/// `anyOf`/`oneOf`. Returns whether anything was removed.
fn drop_optional_nulls(root: &Value, schema: &Value, value: &mut Value, depth: usize) -> bool {
    if depth > MAX_PRUNE_DEPTH {
        return false;
    }
    let schema = resolve(root, schema);
    let mut changed = false;
    if let Some(Value::Array(parts)) = schema.get("allOf")
        && let [single] = parts.as_slice()
    {
        changed |= drop_optional_nulls(root, single, value, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key)
            && let Some(branch) = branches
                .iter()
                .find(|branch| shape_matches(resolve(root, branch), value))
        {
            changed |= drop_optional_nulls(root, branch, value, depth + 1);
        }
    }
    match value {
        Value::Object(object) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return changed;
            };
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            object.retain(|name, item| {
                let keep = !item.is_null()
                    || required.contains(&name.as_str())
                    || properties
                        .get(name)
                        .is_none_or(|property| accepts_null(root, property, 0));
                changed |= !keep;
                keep
            });
            for (name, item) in object.iter_mut() {
                if let Some(property) = properties.get(name) {
                    changed |= drop_optional_nulls(root, property, item, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|items| items.is_object()) {
                for item in items {
                    changed |= drop_optional_nulls(root, item_schema, item, depth + 1);
                }
            }
        }
        _ => {}
    }
    changed
}

/// Replaces each string given where the schema wants a free-form object (an object schema
/// without properties) by the JSON object the string holds, following `properties`, `items`,
/// local `$ref`s, single-schema `allOf` and the object branch of an `anyOf`/`oneOf`. Returns
/// whether anything was replaced.
fn decode_object_texts(root: &Value, schema: &Value, value: &mut Value, depth: usize) -> bool {
    if depth > MAX_PRUNE_DEPTH {
        return false;
    }
    let schema = resolve(root, schema);
    if let Value::String(text) = value
        && is_free_form_object(schema)
    {
        return match serde_json::from_str::<Value>(text) {
            Ok(object @ Value::Object(_)) => {
                *value = object;
                true
            }
            _ => false,
        };
    }
    let mut changed = false;
    if let Some(Value::Array(parts)) = schema.get("allOf")
        && let [single] = parts.as_slice()
    {
        changed |= decode_object_texts(root, single, value, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key)
            && let Some(branch) = branches
                .iter()
                .find(|branch| shape_matches(resolve(root, branch), value))
        {
            changed |= decode_object_texts(root, branch, value, depth + 1);
        }
    }
    match value {
        Value::Object(object) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, item) in object.iter_mut() {
                    if let Some(property) = properties.get(name) {
                        changed |= decode_object_texts(root, property, item, depth + 1);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|items| items.is_object()) {
                for item in items {
                    changed |= decode_object_texts(root, item_schema, item, depth + 1);
                }
            }
        }
        _ => {}
    }
    changed
}

/// An object schema without properties that does not also accept a string.
fn is_free_form_object(schema: &Value) -> bool {
    let object_typed = match schema.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => {
            kinds.iter().any(|kind| kind == "object") && !kinds.iter().any(|kind| kind == "string")
        }
        _ => false,
    };
    object_typed
        && schema
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty)
}

/// Follows a local `$ref` (`#/...`) to its target, once per level.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some("#") => root,
        Some(reference) => reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or(schema),
        None => schema,
    }
}

/// Whether an `anyOf` branch is the one describing `value`'s shape (object or array).
fn shape_matches(schema: &Value, value: &Value) -> bool {
    match value {
        Value::Object(_) => schema.get("properties").is_some(),
        Value::Array(_) => schema.get("items").is_some(),
        _ => false,
    }
}

/// Whether `schema` may accept `null` (conservative: unknown shapes count as accepting).
fn accepts_null(root: &Value, schema: &Value, depth: usize) -> bool {
    if depth > MAX_PRUNE_DEPTH {
        return true;
    }
    let schema = resolve(root, schema);
    let Value::Object(object) = schema else {
        return schema != &Value::Bool(false);
    };
    if let Some(kind) = object.get("type") {
        return match kind {
            Value::String(kind) => kind == "null",
            Value::Array(kinds) => kinds.iter().any(|kind| kind == "null"),
            _ => true,
        };
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        return values.contains(&Value::Null);
    }
    if let Some(value) = object.get("const") {
        return value.is_null();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(key) {
            return branches
                .iter()
                .any(|branch| accepts_null(root, branch, depth + 1));
        }
    }
    if let Some(Value::Array(parts)) = object.get("allOf") {
        return parts.iter().all(|part| accepts_null(root, part, depth + 1));
    }
    true
}

/// Rejects schemas whose root cannot describe an arguments object.
fn check_root_is_object(schema: &Value) -> Result<(), SchemaError> {
    match schema {
        Value::Bool(true) => Ok(()),
        Value::Bool(false) => Err(SchemaError::AcceptsNothing),
        Value::Object(object) => match object.get("type") {
            None => Ok(()),
            Some(Value::String(kind)) if kind == "object" => Ok(()),
            Some(Value::Array(kinds)) if kinds.iter().any(|kind| kind == "object") => Ok(()),
            Some(other) => Err(SchemaError::NotAnObject {
                found: other.to_string(),
            }),
        },
        other => Err(SchemaError::NotASchema {
            found: other.to_string(),
        }),
    }
}

/// `true`, `{}`, `{"type": "object"}` and the like, with no rule that could reject an object.
fn accepts_any_object(schema: &Value) -> bool {
    match schema {
        Value::Bool(true) => true,
        Value::Object(object) => object.iter().all(|(key, value)| match key.as_str() {
            "type" => value == "object",
            "properties" => value.as_object().is_some_and(Map::is_empty),
            "additionalProperties" => value == &Value::Bool(true),
            "required" => value.as_array().is_some_and(Vec::is_empty),
            "$schema" | "title" | "description" | "$comment" | "examples" | "default" => true,
            _ => false,
        }),
        _ => false,
    }
}

fn not_an_object(arguments: &Value) -> ToolError {
    let problem = json!({
        "path": "",
        "keyword": "type",
        "message": format!(
            "the arguments must be a JSON object, got {}",
            json_kind(arguments)
        ),
        "expected": "object",
    });
    problems_error(vec![problem], 1)
}

fn problems_error(problems: Vec<Value>, total: usize) -> ToolError {
    let summary = problems
        .iter()
        .filter_map(|problem| problem["message"].as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let counted = if total >= MAX_COUNTED_PROBLEMS {
        format!("at least {total}")
    } else {
        total.to_string()
    };
    let message = if total > problems.len() {
        format!(
            "the arguments do not match the input schema ({counted} problems, first {}): {summary}",
            problems.len()
        )
    } else {
        format!("the arguments do not match the input schema: {summary}")
    };
    let mut details = Map::new();
    details.insert("problems".into(), Value::Array(problems));
    if total > MAX_REPORTED_PROBLEMS {
        details.insert("total_problems".into(), json!(total));
    }
    ToolError::new(ErrorCode::InvalidArguments, message).with_details(Value::Object(details))
}

/// One problem as the JSON object described in the module documentation.
fn describe(error: &ValidationError<'_>, schema: &Value) -> Value {
    let path = error.instance_path().as_str().to_owned();
    let at = if path.is_empty() {
        "the arguments".to_owned()
    } else {
        format!("`{path}`")
    };
    let instance = error.instance();
    // A given value is quoted in the message at most this long: an argument may hold a megabyte.
    let shown = bounded(instance, MAX_QUOTED_CHARS);
    let mut problem = Map::new();
    problem.insert("keyword".into(), json!(error.kind().keyword()));
    let message = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let missing = format!("{path}/{}", escape_pointer(name));
            problem.insert("path".into(), json!(missing));
            format!("`{missing}` is required but missing")
        }
        ValidationErrorKind::Type { kind } => {
            let expected = expected_types(kind);
            let message = format!(
                "{at} must be {}, got {}",
                expected.join(" or "),
                json_kind(instance)
            );
            problem.insert("expected".into(), json!(expected));
            message
        }
        ValidationErrorKind::Enum { options } => {
            problem.insert("allowed".into(), options.clone());
            let mut message = format!("{at} must be one of {options}, got {shown}");
            if let (Some(given), Some(options)) = (instance.as_str(), options.as_array())
                && given.len() <= MAX_QUOTED_CHARS
            {
                let near =
                    toolforge_names::did_you_mean(given, options.iter().filter_map(Value::as_str));
                if !near.is_empty() {
                    let listed: Vec<String> = near.iter().map(|n| format!("\"{n}\"")).collect();
                    message.push_str(&format!(" (did you mean {}?)", listed.join(" or ")));
                    problem.insert("did_you_mean".into(), json!(near));
                }
            }
            message
        }
        ValidationErrorKind::Constant { expected_value } => {
            problem.insert("allowed".into(), json!([expected_value]));
            format!("{at} must be exactly {expected_value}, got {shown}")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let known = known_properties(schema, error.schema_path().as_str());
            let mut hints = Vec::new();
            for name in unexpected {
                if let Some(best) = toolforge_names::closest(name, known.iter().map(String::as_str))
                {
                    hints.push(format!("`{name}` (did you mean `{best}`?)"));
                    problem
                        .entry("did_you_mean")
                        .or_insert_with(|| Value::Object(Map::new()))
                        .as_object_mut()
                        .map(|map| map.insert(name.clone(), json!(best)));
                } else {
                    hints.push(format!("`{name}`"));
                }
            }
            problem.insert("unexpected".into(), json!(unexpected));
            if !known.is_empty() {
                problem.insert("allowed".into(), json!(known));
            }
            format!(
                "{at} has unknown properties {}; allowed properties are {}",
                hints.join(", "),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known
                        .iter()
                        .map(|name| format!("`{name}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )
        }
        ValidationErrorKind::Maximum { limit } => {
            problem.insert("expected".into(), json!({"maximum": limit}));
            format!("{at} must be at most {limit}, got {shown}")
        }
        ValidationErrorKind::Minimum { limit } => {
            problem.insert("expected".into(), json!({"minimum": limit}));
            format!("{at} must be at least {limit}, got {shown}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            problem.insert("expected".into(), json!({"exclusiveMaximum": limit}));
            format!("{at} must be less than {limit}, got {shown}")
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            problem.insert("expected".into(), json!({"exclusiveMinimum": limit}));
            format!("{at} must be greater than {limit}, got {shown}")
        }
        ValidationErrorKind::MaxLength { limit } => {
            problem.insert("expected".into(), json!({"maxLength": limit}));
            format!("{at} must be at most {limit} characters long")
        }
        ValidationErrorKind::MinLength { limit } => {
            problem.insert("expected".into(), json!({"minLength": limit}));
            format!("{at} must be at least {limit} characters long")
        }
        ValidationErrorKind::MaxItems { limit } => {
            problem.insert("expected".into(), json!({"maxItems": limit}));
            format!("{at} must have at most {limit} items")
        }
        ValidationErrorKind::MinItems { limit } => {
            problem.insert("expected".into(), json!({"minItems": limit}));
            format!("{at} must have at least {limit} items")
        }
        ValidationErrorKind::Format { format } => {
            problem.insert("expected".into(), json!({"format": format}));
            format!("{at} must be a valid `{format}`, got {shown}")
        }
        ValidationErrorKind::Pattern { pattern } => {
            problem.insert("expected".into(), json!({"pattern": pattern}));
            format!("{at} must match the pattern `{pattern}`, got {shown}")
        }
        _ => format!("{at}: {}", bounded(error, 4 * MAX_QUOTED_CHARS)),
    };
    problem.entry("path").or_insert_with(|| json!(path));
    problem.insert("message".into(), json!(message));
    Value::Object(problem)
}

/// The most characters of a given value a problem's message quotes.
const MAX_QUOTED_CHARS: usize = 120;

/// `value` as `Display` writes it, cut after `max` characters (with `…`); writing stops there,
/// so a megabyte value costs no more than a short one.
fn bounded(value: impl std::fmt::Display, max: usize) -> String {
    struct Cut {
        text: String,
        left: usize,
        cut: bool,
    }
    impl std::fmt::Write for Cut {
        fn write_str(&mut self, part: &str) -> std::fmt::Result {
            for c in part.chars() {
                if self.left == 0 {
                    self.cut = true;
                    return Err(std::fmt::Error);
                }
                self.text.push(c);
                self.left -= 1;
            }
            Ok(())
        }
    }
    let mut out = Cut {
        text: String::new(),
        left: max,
        cut: false,
    };
    let _ = std::fmt::write(&mut out, format_args!("{value}"));
    if out.cut {
        out.text.push('…');
    }
    out.text
}

/// The property names declared next to the `additionalProperties` keyword that failed.
fn known_properties(schema: &Value, schema_path: &str) -> Vec<String> {
    let parent = schema_path
        .strip_suffix("/additionalProperties")
        .or_else(|| schema_path.strip_suffix("/unevaluatedProperties"))
        .unwrap_or(schema_path);
    schema
        .pointer(parent)
        .and_then(|node| node.get("properties"))
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

fn expected_types(kind: &TypeKind) -> Vec<String> {
    match kind {
        TypeKind::Single(single) => vec![single.as_str().to_owned()],
        TypeKind::Multiple(set) => set.iter().map(|kind| kind.as_str().to_owned()).collect(),
    }
}

/// `a string`, `a number`, ... for messages.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Escapes a property name for use in a JSON pointer (RFC 6901).
fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_past_the_cap_are_too_large_without_a_repair_attempt() {
        let schema = json!({
            "type": "object",
            "properties": {"ids": {"type": "array", "items": {"type": "string"}, "maxItems": 4}}
        });
        let validator = ArgumentValidator::compile(&schema).unwrap();
        let ids: Vec<String> = (0..400_000).map(|i| format!("id-{i:08}")).collect();
        let error = validator.prepare(json!({ "ids": ids })).unwrap_err();
        assert_eq!(error.code, ErrorCode::TooLarge, "{}", error.message);
        assert!(error.message.contains("4 MiB"), "{}", error.message);
        // Under the cap, the schema's own problem is reported.
        let error = validator
            .prepare(json!({"ids": ["a", "b", "c", "d", "e"]}))
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArguments, "{}", error.message);
    }
}
