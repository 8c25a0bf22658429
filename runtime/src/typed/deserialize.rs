//! Reading tool arguments from JSON, with errors that point at the faulty value.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use serde_path_to_error::Segment;

use crate::ToolError;

/// Deserialises the arguments of a call into `T`.
///
/// The arguments must be a JSON object; `null` (a call without arguments) reads as `{}`.
/// Anything else is refused before serde sees it (serde would read an array as a struct).
///
/// On failure the result is an [`ErrorCode::InvalidArguments`](crate::ErrorCode) error written
/// for the model, whose details hold the JSON pointer of the faulty value (`path`, `""` for the
/// arguments object itself) and serde's description of the problem (`reason`).
///
/// ```
/// use toolforge::deserialize_arguments;
/// use toolforge::serde::Deserialize;
///
/// #[derive(Deserialize)]
/// #[serde(crate = "toolforge::serde")]
/// struct Page {
///     #[allow(dead_code)]
///     limits: Vec<u32>,
/// }
///
/// let error = deserialize_arguments::<Page>(serde_json::json!({"limits": [1, -2]}))
///     .err()
///     .unwrap();
/// let details = error.details.unwrap();
/// assert_eq!(details["path"], "/limits/1");
/// assert!(details["reason"].as_str().unwrap().contains("expected u32"));
/// ```
pub fn deserialize_arguments<T: DeserializeOwned>(arguments: Value) -> Result<T, ToolError> {
    let arguments = match arguments {
        Value::Null => Value::Object(serde_json::Map::new()),
        Value::Object(_) => arguments,
        other => {
            let reason = format!(
                "expected an object of named arguments, got {}",
                kind(&other)
            );
            return Err(
                ToolError::invalid_arguments(format!("invalid arguments: {reason}"))
                    .with_details(json!({"path": "", "reason": reason})),
            );
        }
    };
    serde_path_to_error::deserialize(arguments).map_err(|error| {
        let pointer = json_pointer(error.path());
        let reason = error.inner().to_string();
        let message = if pointer.is_empty() {
            format!("invalid arguments: {reason}")
        } else {
            format!("invalid argument at `{pointer}`: {reason}")
        };
        ToolError::invalid_arguments(message).with_details(json!({
            "path": pointer,
            "reason": reason,
        }))
    })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The RFC 6901 JSON pointer of a serde path (`""` for the root).
fn json_pointer(path: &serde_path_to_error::Path) -> String {
    let mut pointer = String::new();
    for segment in path {
        match segment {
            Segment::Seq { index } => {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Segment::Enum { variant } => {
                pointer.push('/');
                pointer.push_str(&variant.replace('~', "~0").replace('/', "~1"));
            }
            // serde_path_to_error could not follow the deserializer any further: the pointer
            // stops at the deepest value it knows.
            Segment::Unknown => break,
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Filter {
        field: String,
        value: i64,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Arguments {
        query: String,
        #[serde(default)]
        filters: Vec<Filter>,
        #[serde(rename = "a/b~c", default)]
        odd: Option<u8>,
    }

    fn details(arguments: Value) -> Value {
        deserialize_arguments::<Arguments>(arguments)
            .unwrap_err()
            .details
            .unwrap()
    }

    #[test]
    fn good_arguments_deserialise() {
        let arguments: Arguments =
            deserialize_arguments(json!({"query": "q", "filters": [{"field": "f", "value": 1}]}))
                .unwrap();
        assert_eq!(arguments.query, "q");
        assert_eq!(arguments.filters.len(), 1);
    }

    #[test]
    fn nested_error_points_at_the_value() {
        let error = deserialize_arguments::<Arguments>(
            json!({"query": "q", "filters": [{"field": "f", "value": 1}, {"field": "g", "value": "x"}]}),
        )
        .unwrap_err();
        assert_eq!(error.code, crate::ErrorCode::InvalidArguments);
        assert_eq!(error.details.as_ref().unwrap()["path"], "/filters/1/value");
        assert!(
            error
                .message
                .starts_with("invalid argument at `/filters/1/value`: ")
        );
        assert!(error.message.contains("expected i64"), "{}", error.message);
    }

    #[test]
    fn missing_field_is_reported_at_the_root() {
        let details = details(json!({}));
        assert_eq!(details["path"], "");
        assert_eq!(details["reason"], "missing field `query`");
    }

    #[test]
    fn keys_are_escaped_in_the_pointer() {
        assert_eq!(
            details(json!({"query": "q", "a/b~c": 300}))["path"],
            "/a~1b~0c"
        );
    }

    #[test]
    fn non_object_arguments_are_rejected() {
        let details = details(json!(["q"]));
        assert_eq!(details["path"], "");
        assert_eq!(
            details["reason"],
            "expected an object of named arguments, got an array"
        );
    }

    #[test]
    fn null_arguments_read_as_an_empty_object() {
        assert_eq!(details(Value::Null)["reason"], "missing field `query`");

        #[derive(Deserialize)]
        struct Nothing {}
        assert!(deserialize_arguments::<Nothing>(Value::Null).is_ok());
    }
}
