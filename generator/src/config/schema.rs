//! [`json_schema`]: the JSON Schema of the config format.

use super::model::Config;

/// The JSON Schema (draft 2020-12) of the config format, for editors
/// (`# yaml-language-server: $schema=...`) and for `toolforge schema`.
///
/// ```
/// let schema = toolforge_generator::__private::config::json_schema();
/// assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
/// assert!(schema["properties"]["entities"].is_object());
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
