//! Moving [`SqlValue`]s to and from PostgreSQL's binary formats.
//!
//! A parameter is encoded as the type PostgreSQL inferred for its place in the statement
//! (a number compared with a `DOUBLE PRECISION` column is sent as one, a `0`/`1` compared with
//! a `BOOLEAN` as a boolean, JSON text as `jsonb`), so the query builder binds the same values
//! on both backends. A column is decoded by its type into the value SQLite would have given.
//!
//! pgvector's `vector` and `halfvec` travel as the engine's embedding bytes (little-endian
//! `f32`s, as SQLite stores them): a `Blob` bound where PostgreSQL expects a vector is sent in
//! the type's binary form, and a vector column reads back as such a `Blob`. Everything above
//! this module sees one form of embedding on both backends.

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

/// A pgvector type, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VectorType {
    /// `vector`: 32-bit floats.
    Full,
    /// `halfvec`: 16-bit floats.
    Half,
}

fn vector_type(ty: &Type) -> Option<VectorType> {
    match ty.name() {
        "vector" => Some(VectorType::Full),
        "halfvec" => Some(VectorType::Half),
        _ => None,
    }
}

/// Embedding bytes (little-endian `f32`s) in pgvector's binary form: the dimension and an
/// unused word (16 bits each), then each value big-endian, as 32 or 16 bits.
fn encode_vector(
    kind: VectorType,
    bytes: &[u8],
    out: &mut bytes::BytesMut,
) -> Result<(), BoxError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "an embedding of {} bytes is not a list of 32-bit floats",
            bytes.len()
        )
        .into());
    }
    let dimension = u16::try_from(bytes.len() / 4).map_err(|_| {
        format!(
            "an embedding of {} values is longer than pgvector takes",
            bytes.len() / 4
        )
    })?;
    out.extend_from_slice(&dimension.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    for value in bytes.chunks_exact(4) {
        let value = f32::from_le_bytes([value[0], value[1], value[2], value[3]]);
        match kind {
            VectorType::Full => out.extend_from_slice(&value.to_be_bytes()),
            VectorType::Half => out.extend_from_slice(&half::f16::from_f32(value).to_be_bytes()),
        }
    }
    Ok(())
}

/// pgvector's binary form back into embedding bytes (little-endian `f32`s).
fn decode_vector(kind: VectorType, raw: &[u8]) -> Result<Vec<u8>, BoxError> {
    let width = match kind {
        VectorType::Full => 4,
        VectorType::Half => 2,
    };
    let (Some(head), Some(values)) = (raw.get(..4), raw.get(4..)) else {
        return Err("a vector shorter than its header".into());
    };
    let dimension = usize::from(u16::from_be_bytes([head[0], head[1]]));
    if values.len() != dimension * width {
        return Err(format!("a vector of {dimension} values in {} bytes", values.len()).into());
    }
    let mut out = Vec::with_capacity(dimension * 4);
    for value in values.chunks_exact(width) {
        let value = match kind {
            VectorType::Full => f32::from_be_bytes([value[0], value[1], value[2], value[3]]),
            VectorType::Half => half::f16::from_be_bytes([value[0], value[1]]).to_f32(),
        };
        out.extend_from_slice(&value.to_le_bytes());
    }
    Ok(out)
}

impl<V: Borrow<SqlValue> + std::fmt::Debug> ToSql for PgParam<V> {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, BoxError> {
        let value = self.0.borrow();
        if matches!(value, SqlValue::Null) {
            return Ok(IsNull::Yes);
        }
        let fail = || wrong(value, ty);
        if let Some(kind) = vector_type(ty) {
            let SqlValue::Blob(bytes) = value else {
                return Err(fail());
            };
            encode_vector(kind, bytes, out)?;
            return Ok(IsNull::No);
        }
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
        if vector_type(ty).is_some() {
            return tokio_postgres::types::Format::Binary;
        }
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
    match sign {
        0xD000 => return Ok(f64::INFINITY),
        0xF000 => return Ok(f64::NEG_INFINITY),
        _ => {}
    }
    if digits == 0 {
        return Ok(0.0);
    }
    // The base-10000 digits as decimal text with an exponent, parsed (correctly rounded):
    // summing powers of ten would make 0.99 into 0.9900000000000001.
    let mut text = String::with_capacity(4 * digits + 8);
    if sign == 0x4000 {
        text.push('-');
    }
    for i in 0..digits {
        text.push_str(&format!("{:04}", word(4 + i)));
    }
    let exponent = 4 * (weight - digits as i32 + 1);
    text.push_str(&format!("e{exponent}"));
    text.parse::<f64>()
        .map_err(|_| format!("a numeric that is no number: {text}").into())
}

impl<'a> FromSql<'a> for PgCell {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        if let Some(kind) = vector_type(ty) {
            return Ok(PgCell(SqlValue::Blob(decode_vector(kind, raw)?)));
        }
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

#[cfg(test)]
mod tests {
    use super::{VectorType, decode_vector, encode_vector, numeric_to_f64};

    fn embedding(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn a_vector_goes_out_and_comes_back_as_the_same_bytes() {
        let bytes = embedding(&[1.5, -0.25, 3.0e-8, 42.0]);
        let mut out = bytes::BytesMut::new();
        encode_vector(VectorType::Full, &bytes, &mut out).unwrap();
        assert_eq!(&out[..4], &[0, 4, 0, 0]);
        assert_eq!(&out[4..8], &1.5f32.to_be_bytes());
        assert_eq!(decode_vector(VectorType::Full, &out).unwrap(), bytes);
    }

    #[test]
    fn a_halfvec_keeps_what_16_bits_hold() {
        let bytes = embedding(&[1.5, -0.25, 2048.0]);
        let mut out = bytes::BytesMut::new();
        encode_vector(VectorType::Half, &bytes, &mut out).unwrap();
        assert_eq!(out.len(), 4 + 3 * 2);
        assert_eq!(decode_vector(VectorType::Half, &out).unwrap(), bytes);
    }

    /// PostgreSQL's binary `numeric`: digit count, weight, sign, scale, base-10000 digits.
    fn numeric(weight: i16, sign: u16, digits: &[i16]) -> Vec<u8> {
        let mut raw = Vec::new();
        for word in [digits.len() as i16, weight, sign as i16, 4] {
            raw.extend_from_slice(&word.to_be_bytes());
        }
        for digit in digits {
            raw.extend_from_slice(&digit.to_be_bytes());
        }
        raw
    }

    #[test]
    fn a_numeric_is_the_nearest_double_of_its_decimal_digits() {
        // `NUMERIC(10,2)` prices, as the sample databases hold them.
        assert_eq!(numeric_to_f64(&numeric(-1, 0, &[9900])).unwrap(), 0.99);
        assert_eq!(
            numeric_to_f64(&numeric(-1, 0x4000, &[1990])).unwrap(),
            -0.199
        );
        assert_eq!(
            numeric_to_f64(&numeric(1, 0, &[1, 2345, 6780])).unwrap(),
            12345.678
        );
        assert_eq!(numeric_to_f64(&numeric(0, 0, &[])).unwrap(), 0.0);
        assert!(numeric_to_f64(&numeric(0, 0xC000, &[])).unwrap().is_nan());
        assert!(numeric_to_f64(&[0, 1]).is_err());
    }

    #[test]
    fn a_torn_vector_is_an_error_not_a_panic() {
        assert!(decode_vector(VectorType::Full, &[0, 2, 0, 0, 1]).is_err());
        assert!(decode_vector(VectorType::Full, &[0]).is_err());
        let mut out = bytes::BytesMut::new();
        assert!(encode_vector(VectorType::Full, &[1, 2, 3], &mut out).is_err());
    }
}
