//! An entity's key as a value: the text a tool or a record holds (`"7"`), as the statement
//! parameter and the JSON answer of its type — a whole number for an integer key (a mapped
//! table's own `INTEGER PRIMARY KEY`), else the text.

use serde_json::Value;

use crate::spec::{EntitySpec, FieldType};
use crate::sql::value::SqlValue;

/// The key `text` of `entity` as an answer gives it: a number for an integer key, else the
/// text.
pub(crate) fn to_json(entity: &EntitySpec, text: &str) -> Value {
    match entity.key_type() {
        FieldType::Integer => text
            .parse::<i64>()
            .map_or_else(|_| Value::from(text), Value::from),
        _ => Value::from(text),
    }
}

/// The key `text` of `entity` as a statement parameter: an integer for an integer key (when
/// it spells one), else the text. Keys the engine read itself always spell one.
pub(crate) fn param(entity: &EntitySpec, text: &str) -> SqlValue {
    match entity.key_type() {
        FieldType::Integer => text
            .parse::<i64>()
            .map_or_else(|_| SqlValue::Text(text.to_owned()), SqlValue::Integer),
        _ => SqlValue::Text(text.to_owned()),
    }
}
