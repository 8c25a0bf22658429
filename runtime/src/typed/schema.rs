//! JSON Schemas (draft 2020-12) of typed arguments and outputs.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The input schema of an arguments type: draft 2020-12, describing how the type is
/// deserialised, with an object root whose `properties` is always present (MCP requires it,
/// even for a tool without arguments).
///
/// ```
/// use toolforge::input_schema_for;
/// use toolforge::schemars::JsonSchema;
///
/// #[derive(JsonSchema)]
/// #[schemars(crate = "toolforge::schemars")]
/// struct NoArguments {}
///
/// let schema = input_schema_for::<NoArguments>();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["properties"], serde_json::json!({}));
/// ```
pub fn input_schema_for<T: JsonSchema + ?Sized>() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(root) = &mut schema
        && root.get("type").and_then(Value::as_str) == Some("object")
    {
        root.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    schema
}

/// The output schema of a result type: draft 2020-12, describing how the type is serialised.
///
/// ```
/// let schema = toolforge::output_schema_for::<Vec<String>>();
/// assert_eq!(schema["type"], "array");
/// assert_eq!(schema["items"]["type"], "string");
/// ```
pub fn output_schema_for<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}
