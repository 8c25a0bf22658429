//! Record keys in arguments: the value of an entity's unique field, text or a whole number.
//!
//! A key argument is a `String` in every argument struct, so one struct serves entities with
//! text keys and entities with integer keys (a mapped table's own `INTEGER PRIMARY KEY`).
//! It reads a JSON string or a JSON integer (`"7"` and `7` name the same record), and its
//! schema says `["integer", "string"]` when an entity of the spec has an integer key.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::ToolError;
use crate::spec::{EntitySpec, FieldType, SchemaSpec};
use crate::sql::value::SqlValue;

pub(crate) use crate::sql::key::{param, to_json};

/// A key as a model may send it.
#[derive(Deserialize)]
#[serde(untagged)]
enum Key {
    Text(String),
    Integer(i64),
}

impl From<Key> for String {
    fn from(key: Key) -> String {
        match key {
            Key::Text(text) => text,
            Key::Integer(value) => value.to_string(),
        }
    }
}

/// Reads a key: a string, or a whole number as its decimal text.
pub(crate) fn text_or_integer<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Key::deserialize(d)
        .map(String::from)
        .map_err(|_| serde::de::Error::custom("expected a string or a whole number"))
}

/// Reads a list of keys, each a string or a whole number.
pub(crate) fn texts_or_integers<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Vec::<Key>::deserialize(d)
        .map(|keys| keys.into_iter().map(String::from).collect())
        .map_err(|_| serde::de::Error::custom("expected a list of strings or whole numbers"))
}

/// The JSON Schema type of a key argument: `string`, or when an entity has an integer key
/// `["integer", "string"]` (a model that quotes the number still names the record).
pub(crate) fn schema_type(spec: &SchemaSpec) -> Value {
    let integer = |entity: &EntitySpec| entity.key_type() == FieldType::Integer;
    if spec.entities.iter().any(integer) {
        serde_json::json!(["integer", "string"])
    } else {
        Value::from("string")
    }
}

/// The value bound for the key `text` of `entity`: an integer for an integer key (an error
/// naming `path` when `text` is not one), else the text.
pub(crate) fn bound(entity: &EntitySpec, text: &str, path: &str) -> Result<SqlValue, ToolError> {
    match entity.key_type() {
        FieldType::Integer => text
            .trim()
            .parse::<i64>()
            .map(SqlValue::Integer)
            .map_err(|_| {
                ToolError::invalid_arguments(format!(
                    "`{path}`: the key of {} ({}) is a whole number, not {}",
                    entity.name,
                    entity.unique_field,
                    Value::from(text)
                ))
            }),
        _ => Ok(SqlValue::Text(text.to_owned())),
    }
}
