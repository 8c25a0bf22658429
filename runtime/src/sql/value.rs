//! The values the engine binds and reads ([`SqlValue`]), and converting them from and to JSON
//! according to field types.
//!
//! The same rules apply when data is imported and when a tool call compares against a field:
//! a value of the wrong type is refused with a message saying what was expected.

use serde_json::Value;

/// A value bound to a statement or read from a row, whatever the backend: SQLite's five
/// storage classes, which every backend maps its types to (`sql/sqlite/value.rs`,
/// `sql/postgres/types.rs`).
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// SQL `NULL`.
    Null,
    /// A 64-bit signed integer.
    Integer(i64),
    /// A 64-bit float.
    Real(f64),
    /// UTF-8 text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

use crate::spec::{FieldType, ValueType};

use crate::sql::text::names::shorten;

/// Why a JSON value cannot be stored in (or compared with) a field of some type. `Display` is
/// the sentence a model or a person reads: what was expected and what was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// The value has the wrong JSON type.
    #[error("expected {expected}, got {got}")]
    WrongType {
        /// What the field accepts (`a string`, `a boolean (true or false)`, ...).
        expected: String,
        /// The value given, described (`describe_json`).
        got: String,
    },
    /// A string that is not one of an enum field's values.
    #[error("\"{value}\" is not an allowed value; allowed values: {}", quoted_list(.allowed))]
    NotAllowed {
        /// The value given (shortened for messages).
        value: String,
        /// The field's values.
        allowed: Vec<String>,
    },
    /// An element of an array of the wrong type.
    #[error("expected an array of {expected}, but element {index} is {got}")]
    WrongElement {
        /// What the elements must be (`strings`, `numbers`).
        expected: &'static str,
        /// The element's 0-based position.
        index: usize,
        /// The element, described (`describe_json`).
        got: String,
    },
    /// A string that is not a datetime.
    #[error(
        "expected a datetime such as \"2024-05-01T12:00:00Z\", \"2024-05-01T14:00:00+02:00\" or \
         \"2024-05-01\", got \"{text}\""
    )]
    NotADatetime {
        /// The text given (shortened for messages).
        text: String,
    },
    /// A value that is not a place.
    #[error("{problem}")]
    NotAPoint {
        /// What is wrong with it, and the form a point takes.
        problem: String,
    },
}

/// Values listed for a message, each as a JSON string (`"a", "b"`): an empty value, a comma
/// or a control character inside one cannot blur where a value ends.
fn quoted_list(values: &[String]) -> String {
    values
        .iter()
        .map(|value| Value::String(value.clone()).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The stored-field type a computed field's result behaves like.
pub fn value_type_as_field_type(ty: ValueType) -> FieldType {
    match ty {
        ValueType::String => FieldType::String,
        ValueType::Number => FieldType::Number,
        ValueType::Boolean => FieldType::Boolean,
        ValueType::Datetime => FieldType::Datetime,
    }
}

/// A short description of a JSON value for error messages: `a string ("abc")`, `a number (3)`.
pub fn describe_json(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(s) => format!("a string (\"{}\")", shorten(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Normalises a datetime to UTC ISO-8601 (`2024-05-01T12:00:00Z`, fractional seconds kept).
///
/// Accepts RFC 3339 / ISO-8601 with an offset or `Z`, a civil date-time without offset (read as
/// UTC) and a plain date (midnight UTC).
///
/// Whole seconds are written without a fraction, so stored values compare chronologically as
/// text; the one exception is a value with a fraction against the whole second it falls in
/// (`…:00.5Z` sorts before `…:00Z`).
pub fn normalize_datetime(text: &str) -> Result<String, ValueError> {
    let trimmed = text.trim();
    if let Ok(timestamp) = trimmed.parse::<jiff::Timestamp>() {
        return Ok(timestamp.to_string());
    }
    if let Ok(datetime) = trimmed.parse::<jiff::civil::DateTime>() {
        return Ok(utc_text(datetime));
    }
    if let Ok(date) = trimmed.parse::<jiff::civil::Date>() {
        return Ok(utc_text(date.to_datetime(jiff::civil::Time::midnight())));
    }
    // A UTC value past the last instant an offset may be converted at (9999-12-30T22:00Z):
    // ISO 8601 all the same, written as given.
    if let Some(civil) = trimmed.strip_suffix(['Z', 'z'])
        && let Ok(datetime) = civil.parse::<jiff::civil::DateTime>()
    {
        return Ok(utc_text(datetime));
    }
    Err(ValueError::NotADatetime {
        text: shorten(text),
    })
}

/// A civil date-time read as UTC, written as a timestamp is (`…Z`, a fraction only when
/// there is one). Every civil date-time of years -9999 to 9999 can be, the last day included.
fn utc_text(datetime: jiff::civil::DateTime) -> String {
    match datetime.to_zoned(jiff::tz::TimeZone::UTC) {
        Ok(zoned) => zoned.timestamp().to_string(),
        Err(_) => format!("{datetime}Z"),
    }
}

/// Converts a JSON number to an SQLite integer (when integral and in range) or real.
pub fn number_to_sql(number: &serde_json::Number) -> SqlValue {
    if let Some(i) = number.as_i64() {
        SqlValue::Integer(i)
    } else {
        let f = number.as_f64().unwrap_or(f64::NAN);
        if f.fract() == 0.0 && f.abs() < 9.0e15 {
            SqlValue::Integer(f as i64)
        } else {
            SqlValue::Real(f)
        }
    }
}

impl SqlValue {
    /// A record key read from a row as the text the engine keeps keys in: text as it is, an
    /// integer key (a mapped table's own) as its decimal digits; anything else is no key.
    pub(crate) fn into_key_text(self) -> Option<String> {
        match self {
            SqlValue::Text(text) => Some(text),
            SqlValue::Integer(n) => Some(n.to_string()),
            _ => None,
        }
    }
}

/// Converts a non-null JSON value to the SQLite value stored for a field of type `ty`.
///
/// `values` are the allowed values of an enum field. The error says what was expected.
pub fn json_to_sql(
    ty: FieldType,
    values: &[String],
    value: &Value,
) -> Result<SqlValue, ValueError> {
    let wrong = |expected: &str| ValueError::WrongType {
        expected: expected.to_owned(),
        got: describe_json(value),
    };
    match ty {
        FieldType::String => match value {
            Value::String(s) => Ok(SqlValue::Text(s.clone())),
            _ => Err(wrong("a string")),
        },
        FieldType::Number => match value {
            Value::Number(n) => Ok(number_to_sql(n)),
            _ => Err(wrong("a number")),
        },
        // A whole number; text that spells one is read as it (a model may quote a key).
        FieldType::Integer => match value {
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Ok(SqlValue::Integer(i)),
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => {
                    Ok(SqlValue::Integer(f as i64))
                }
                _ => Err(wrong("a whole number")),
            },
            Value::String(s) => s
                .trim()
                .parse::<i64>()
                .map(SqlValue::Integer)
                .map_err(|_| wrong("a whole number")),
            _ => Err(wrong("a whole number")),
        },

        FieldType::Boolean => match value {
            Value::Bool(b) => Ok(SqlValue::Integer(i64::from(*b))),
            _ => Err(wrong("a boolean (true or false)")),
        },
        FieldType::Datetime => match value {
            Value::String(s) => normalize_datetime(s).map(SqlValue::Text),
            _ => Err(wrong("a datetime string")),
        },
        FieldType::Enum => match value {
            Value::String(s) if values.is_empty() || values.iter().any(|v| v == s) => {
                Ok(SqlValue::Text(s.clone()))
            }
            Value::String(s) => Err(ValueError::NotAllowed {
                value: shorten(s),
                allowed: values.to_vec(),
            }),
            _ if values.is_empty() => Err(wrong("a string")),
            _ => Err(wrong(&format!(
                "one of the strings {}",
                quoted_list(values)
            ))),
        },
        FieldType::StringArray => match value {
            Value::Array(items) => {
                if let Some((i, bad)) = items.iter().enumerate().find(|(_, v)| !v.is_string()) {
                    return Err(ValueError::WrongElement {
                        expected: "strings",
                        index: i,
                        got: describe_json(bad),
                    });
                }
                Ok(SqlValue::Text(value.to_string()))
            }
            _ => Err(wrong("an array of strings")),
        },
        FieldType::NumberArray => match value {
            Value::Array(items) => {
                if let Some((i, bad)) = items.iter().enumerate().find(|(_, v)| !v.is_number()) {
                    return Err(ValueError::WrongElement {
                        expected: "numbers",
                        index: i,
                        got: describe_json(bad),
                    });
                }
                Ok(SqlValue::Text(value.to_string()))
            }
            _ => Err(wrong("an array of numbers")),
        },
        FieldType::Point => crate::sql::places::Point::from_json(value)
            .map(|point| SqlValue::Text(point.to_json_text()))
            .map_err(|problem| ValueError::NotAPoint { problem }),
    }
}

/// A value bound to a statement parameter, borrowing text from the JSON input when it can.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Bound<'a> {
    /// Text borrowed from the input.
    Text(&'a str),
    /// Any other value.
    Value(SqlValue),
}

impl Bound<'_> {
    /// The text, when the value is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Bound::Text(text) => Some(text),
            Bound::Value(SqlValue::Text(text)) => Some(text),
            Bound::Value(_) => None,
        }
    }

    /// The value, owned.
    pub fn to_value(&self) -> SqlValue {
        match self {
            Bound::Text(text) => SqlValue::Text((*text).to_owned()),
            Bound::Value(value) => value.clone(),
        }
    }
}

/// Like [`json_to_sql`], but borrows string and enum values instead of copying them.
pub fn json_to_bound<'a>(
    ty: FieldType,
    values: &[String],
    value: &'a Value,
) -> Result<Bound<'a>, ValueError> {
    match (ty, value) {
        (FieldType::String, Value::String(s)) => Ok(Bound::Text(s)),
        (FieldType::Enum, Value::String(s))
            if values.is_empty() || values.iter().any(|v| v == s) =>
        {
            Ok(Bound::Text(s))
        }
        _ => json_to_sql(ty, values, value).map(Bound::Value),
    }
}

/// Converts a stored SQLite value back to JSON for a field of type `ty`: booleans as
/// `true`/`false`, arrays as JSON arrays, integral numbers as integers. Blobs become `null`.
pub fn sql_to_json(ty: FieldType, value: &SqlValue) -> Value {
    match value {
        SqlValue::Null | SqlValue::Blob(_) => Value::Null,
        SqlValue::Integer(i) => match ty {
            FieldType::Boolean => Value::Bool(*i != 0),
            _ => Value::from(*i),
        },
        SqlValue::Real(f) => {
            let f = *f;
            if ty == FieldType::Boolean {
                Value::Bool(f != 0.0)
            } else if f.fract() == 0.0 && f.abs() < 9.0e15 {
                Value::from(f as i64)
            } else {
                serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
            }
        }
        SqlValue::Text(text) => match ty {
            FieldType::StringArray | FieldType::NumberArray | FieldType::Point => {
                serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
            }
            _ => Value::String(text.clone()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn converts_by_type() {
        assert_eq!(
            json_to_sql(FieldType::Number, &[], &json!(3)).unwrap(),
            SqlValue::Integer(3)
        );
        assert_eq!(
            json_to_sql(FieldType::Number, &[], &json!(2.5)).unwrap(),
            SqlValue::Real(2.5)
        );
        let err = json_to_sql(FieldType::Number, &[], &json!("3")).unwrap_err();
        assert_eq!(err.to_string(), "expected a number, got a string (\"3\")");
        let allowed = vec!["a".to_string(), "b".to_string()];
        let err = json_to_sql(FieldType::Enum, &allowed, &json!("c")).unwrap_err();
        assert!(
            err.to_string().contains("allowed values: \"a\", \"b\""),
            "{err}"
        );
        assert!(matches!(err, ValueError::NotAllowed { .. }));
        // Every value is quoted, so an empty one or one with a comma stays readable.
        let odd = vec![String::new(), "typescript, python".to_string()];
        let err = json_to_sql(FieldType::Enum, &odd, &json!(true)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "expected one of the strings \"\", \"typescript, python\", got a boolean (true)"
        );
        assert_eq!(
            json_to_sql(FieldType::StringArray, &[], &json!(["x", "y"])).unwrap(),
            SqlValue::Text("[\"x\",\"y\"]".into())
        );
        assert!(json_to_sql(FieldType::StringArray, &[], &json!(["x", 1])).is_err());
        assert_eq!(
            json_to_sql(FieldType::Boolean, &[], &json!(true)).unwrap(),
            SqlValue::Integer(1)
        );
    }

    #[test]
    fn reads_back_as_json() {
        assert_eq!(
            sql_to_json(FieldType::Boolean, &SqlValue::Integer(1)),
            json!(true)
        );
        assert_eq!(
            sql_to_json(FieldType::Number, &SqlValue::Real(4.0)),
            json!(4)
        );
        assert_eq!(
            sql_to_json(FieldType::StringArray, &SqlValue::Text("[\"a\"]".into())),
            json!(["a"])
        );
    }

    #[test]
    fn normalises_datetimes() {
        assert_eq!(
            normalize_datetime("2024-05-01T12:00:00.250-01:00").unwrap(),
            "2024-05-01T13:00:00.25Z"
        );
        assert_eq!(
            normalize_datetime("2024-05-01 08:30:00").unwrap(),
            "2024-05-01T08:30:00Z"
        );
    }

    /// The last day of year 9999 is ISO 8601 like any other (it was refused: jiff's timestamps
    /// end a day earlier so that every offset can be applied).
    #[test]
    fn the_last_representable_days_are_dates_too() {
        for (given, stored) in [
            ("9999-12-31", "9999-12-31T00:00:00Z"),
            ("9999-12-31T23:59:59", "9999-12-31T23:59:59Z"),
            ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"),
            ("9999-12-31T23:59:59.5Z", "9999-12-31T23:59:59.5Z"),
        ] {
            assert_eq!(normalize_datetime(given).as_deref(), Ok(stored), "{given}");
        }
        assert!(normalize_datetime("10000-01-01").is_err());
        assert_eq!(
            crate::sql::text::dates::resolve("9999-12-31", jiff::Timestamp::UNIX_EPOCH).as_deref(),
            Ok("9999-12-31T00:00:00Z")
        );
    }
}

#[cfg(test)]
mod examples {
    #[test]
    fn normalize_datetime_as_documented() {
        use super::normalize_datetime;
        assert_eq!(
            normalize_datetime("2024-05-01T14:00:00+02:00").unwrap(),
            "2024-05-01T12:00:00Z"
        );
        assert_eq!(
            normalize_datetime("2024-05-01").unwrap(),
            "2024-05-01T00:00:00Z"
        );
        assert_eq!(
            normalize_datetime("9999-12-31").unwrap(),
            "9999-12-31T00:00:00Z"
        );
        assert!(normalize_datetime("yesterday").is_err());
    }
}
