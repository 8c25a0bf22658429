//! Moving [`SqlValue`]s to and from PostgreSQL's binary formats.
//!
//! A parameter is encoded as the type PostgreSQL inferred for its place in the statement
//! (a number compared with a `DOUBLE PRECISION` column is sent as one, a `0`/`1` compared with
//! a `BOOLEAN` as a boolean, JSON text as `jsonb`), so the query builder binds the same values
//! on both backends. A column is decoded by its type into the value SQLite would have given.

use std::borrow::{Borrow, Cow};
use std::error::Error;

use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

use super::super::value::SqlValue;

type BoxError = Box<dyn Error + Sync + Send>;

/// A value bound as a parameter (owned or borrowed), encoded as the parameter's inferred type.
#[derive(Debug, Clone)]
pub struct PgParam<V = SqlValue>(pub V);

fn wrong(value: &SqlValue, ty: &Type) -> BoxError {
    let kind = match value {
        SqlValue::Null => "null",
        SqlValue::Integer(_) => "an integer",
        SqlValue::Real(_) => "a number",
        SqlValue::Text(_) => "a text",
        SqlValue::Blob(_) => "bytes",
    };
    format!("cannot send {kind} as {ty}").into()
}

fn as_f64(value: &SqlValue) -> Option<f64> {
    match value {
        SqlValue::Integer(n) => Some(*n as f64),
        SqlValue::Real(n) => Some(*n),
        SqlValue::Text(text) => text.trim().parse().ok(),
        _ => None,
    }
}

fn as_i64(value: &SqlValue) -> Option<i64> {
    match value {
        SqlValue::Integer(n) => Some(*n),
        SqlValue::Real(n) if n.fract() == 0.0 && n.abs() < 9.2e18 => Some(*n as i64),
        SqlValue::Text(text) => text.trim().parse().ok(),
        _ => None,
    }
}

fn as_text(value: &SqlValue) -> Option<Cow<'_, str>> {
    match value {
        SqlValue::Text(text) => Some(Cow::Borrowed(text)),
        SqlValue::Integer(n) => Some(Cow::Owned(n.to_string())),
        SqlValue::Real(n) => Some(Cow::Owned(n.to_string())),
        SqlValue::Blob(bytes) => std::str::from_utf8(bytes).ok().map(Cow::Borrowed),
        SqlValue::Null => None,
    }
}

impl<V: Borrow<SqlValue> + std::fmt::Debug> ToSql for PgParam<V> {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, BoxError> {
        let value = self.0.borrow();
        if matches!(value, SqlValue::Null) {
            return Ok(IsNull::Yes);
        }
        let fail = || wrong(value, ty);
        match *ty {
            Type::BOOL => {
                let flag = match value {
                    SqlValue::Integer(n) => *n != 0,
                    SqlValue::Real(n) => *n != 0.0,
                    _ => return Err(fail()),
                };
                flag.to_sql(ty, out)
            }
            Type::INT2 => i16::try_from(as_i64(value).ok_or_else(fail)?)
                .map_err(|_| fail())?
                .to_sql(ty, out),
            Type::INT4 => i32::try_from(as_i64(value).ok_or_else(fail)?)
                .map_err(|_| fail())?
                .to_sql(ty, out),
            Type::INT8 => as_i64(value).ok_or_else(fail)?.to_sql(ty, out),
            Type::FLOAT4 => (as_f64(value).ok_or_else(fail)? as f32).to_sql(ty, out),
            Type::FLOAT8 => as_f64(value).ok_or_else(fail)?.to_sql(ty, out),
            Type::BYTEA => match value {
                SqlValue::Blob(bytes) => bytes.as_slice().to_sql(ty, out),
                SqlValue::Text(text) => text.as_bytes().to_sql(ty, out),
                _ => Err(fail()),
            },
            Type::JSONB => {
                let text = as_text(value).ok_or_else(fail)?;
                out.extend_from_slice(&[1]);
                out.extend_from_slice(text.as_bytes());
                Ok(IsNull::No)
            }
            Type::JSON => {
                let text = as_text(value).ok_or_else(fail)?;
                out.extend_from_slice(text.as_bytes());
                Ok(IsNull::No)
            }
            _ => {
                // Text and every type PostgreSQL reads from text (`unknown`, `varchar`, ...).
                let text = as_text(value).ok_or_else(fail)?;
                out.extend_from_slice(text.as_bytes());
                Ok(IsNull::No)
            }
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn encode_format(&self, ty: &Type) -> tokio_postgres::types::Format {
        match *ty {
            Type::BOOL
            | Type::INT2
            | Type::INT4
            | Type::INT8
            | Type::FLOAT4
            | Type::FLOAT8
            | Type::BYTEA
            | Type::JSONB
            | Type::JSON
            | Type::TEXT
            | Type::VARCHAR
            | Type::BPCHAR
            | Type::NAME => tokio_postgres::types::Format::Binary,
            // Any other type is sent as text, which PostgreSQL parses with the type's input
            // function.
            _ => tokio_postgres::types::Format::Text,
        }
    }

    to_sql_checked!();
}

/// A column value decoded into the [`SqlValue`] SQLite would have given.
#[derive(Debug, Clone)]
pub struct PgCell(pub SqlValue);

/// Decodes PostgreSQL's binary `numeric` into the nearest `f64`.
fn numeric_to_f64(raw: &[u8]) -> Result<f64, BoxError> {
    if raw.len() < 8 {
        return Err("short numeric".into());
    }
    let word = |i: usize| i16::from_be_bytes([raw[2 * i], raw[2 * i + 1]]);
    let digits = word(0) as usize;
    let weight = i32::from(word(1));
    let sign = word(2) as u16;
    if sign == 0xC000 {
        return Ok(f64::NAN);
    }
    if raw.len() < 8 + 2 * digits {
        return Err("short numeric".into());
    }
    let mut value = 0f64;
    for i in 0..digits {
        let digit = f64::from(word(4 + i));
        value += digit * 10f64.powi(4 * (weight - i as i32));
    }
    Ok(if sign == 0x4000 { -value } else { value })
}

impl<'a> FromSql<'a> for PgCell {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        let value = match *ty {
            Type::BOOL => SqlValue::Integer(i64::from(bool::from_sql(ty, raw)?)),
            Type::INT2 => SqlValue::Integer(i64::from(i16::from_sql(ty, raw)?)),
            Type::INT4 => SqlValue::Integer(i64::from(i32::from_sql(ty, raw)?)),
            Type::INT8 => SqlValue::Integer(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => SqlValue::Real(f64::from(f32::from_sql(ty, raw)?)),
            Type::FLOAT8 => SqlValue::Real(f64::from_sql(ty, raw)?),
            Type::NUMERIC => SqlValue::Real(numeric_to_f64(raw)?),
            Type::BYTEA => SqlValue::Blob(raw.to_vec()),
            Type::JSONB => SqlValue::Text(
                String::from_utf8_lossy(raw.get(1..).unwrap_or_default()).into_owned(),
            ),
            _ => SqlValue::Text(String::from_utf8_lossy(raw).into_owned()),
        };
        Ok(PgCell(value))
    }

    fn from_sql_null(_: &Type) -> Result<Self, BoxError> {
        Ok(PgCell(SqlValue::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}
