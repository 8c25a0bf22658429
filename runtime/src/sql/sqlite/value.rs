//! The engine's values as SQLite binds and reads them.

use rusqlite::ToSql;
use rusqlite::types::{FromSql, FromSqlResult, ToSqlOutput, ValueRef};

use crate::sql::value::{Bound, SqlValue};

impl ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(value_ref(self)))
    }
}

impl FromSql for SqlValue {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        Ok(match value {
            ValueRef::Null => SqlValue::Null,
            ValueRef::Integer(n) => SqlValue::Integer(n),
            ValueRef::Real(n) => SqlValue::Real(n),
            ValueRef::Text(bytes) => SqlValue::Text(String::from_utf8_lossy(bytes).into_owned()),
            ValueRef::Blob(bytes) => SqlValue::Blob(bytes.to_vec()),
        })
    }
}

impl ToSql for Bound<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Bound::Text(text) => ValueRef::Text(text.as_bytes()),
            Bound::Value(value) => value_ref(value),
        }))
    }
}

/// `value` as SQLite reads a bound parameter.
fn value_ref(value: &SqlValue) -> ValueRef<'_> {
    match value {
        SqlValue::Null => ValueRef::Null,
        SqlValue::Integer(n) => ValueRef::Integer(*n),
        SqlValue::Real(n) => ValueRef::Real(*n),
        SqlValue::Text(text) => ValueRef::Text(text.as_bytes()),
        SqlValue::Blob(bytes) => ValueRef::Blob(bytes),
    }
}
