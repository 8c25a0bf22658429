//! Number fields in JSON: integral values written as integers.
//!
//! Number fields are `f64` in typed records, so serde would write a year as `1968.0`. The
//! generated record structs put `#[serde(serialize_with = "…::number::serialize")]` on their
//! number fields (plain, optional, arrays), so a whole, finite value is written as an integer
//! (`1968`) and anything else as a float (`2.5`). Reading is unchanged: `1968` and `1968.0`
//! both deserialise to `1968.0`.
//!
//! ```
//! #[derive(serde::Serialize)]
//! struct Book {
//!     #[serde(serialize_with = "toolforge::sql::records::number::serialize")]
//!     year: Option<f64>,
//!     #[serde(serialize_with = "toolforge::sql::records::number::serialize")]
//!     ratings: Vec<f64>,
//! }
//!
//! let book = Book { year: Some(1968.0), ratings: vec![4.0, 4.5] };
//! assert_eq!(serde_json::to_string(&book).unwrap(), r#"{"year":1968,"ratings":[4,4.5]}"#);
//! ```

use serde::Serializer;
use serde::ser::SerializeSeq;

/// The largest magnitude written as an integer: every integer up to 2^53 is exact in an `f64`.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// Writes one number: as an integer when it is whole, finite and exact, else as a float.
fn number<S: Serializer>(value: f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() && value.fract() == 0.0 && value.abs() <= MAX_EXACT {
        // Exact: the value is whole and within the range where i64 and f64 agree.
        serializer.serialize_i64(value as i64)
    } else {
        serializer.serialize_f64(value)
    }
}

/// A value whose numbers [`serialize`] writes: `f64`, `Vec<f64>`, and `Option`s of them.
pub trait Numbers {
    /// Writes the value, each number as [`serialize`] does.
    fn serialize_numbers<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

impl Numbers for f64 {
    fn serialize_numbers<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        number(*self, serializer)
    }
}

impl Numbers for [f64] {
    fn serialize_numbers<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct One(f64);
        impl serde::Serialize for One {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                number(self.0, serializer)
            }
        }
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for value in self {
            seq.serialize_element(&One(*value))?;
        }
        seq.end()
    }
}

impl Numbers for Vec<f64> {
    fn serialize_numbers<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize_numbers(serializer)
    }
}

impl<T: Numbers> Numbers for Option<T> {
    fn serialize_numbers<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(value) => value.serialize_numbers(serializer),
            None => serializer.serialize_none(),
        }
    }
}

/// `serialize_with` helper for number fields: see the [module docs](self).
pub fn serialize<T: Numbers + ?Sized, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    value.serialize_numbers(serializer)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::serialize;

    fn json_of<T: super::Numbers>(value: &T) -> Value {
        serialize(value, serde_json::value::Serializer).unwrap()
    }

    #[test]
    fn whole_numbers_are_integers_and_others_stay_floats() {
        assert_eq!(json_of(&1968.0).to_string(), "1968");
        assert_eq!(json_of(&-3.0).to_string(), "-3");
        assert_eq!(json_of(&0.0).to_string(), "0");
        assert_eq!(json_of(&-0.0).to_string(), "0");
        assert_eq!(json_of(&2.5).to_string(), "2.5");
        assert_eq!(json_of(&1e300), json!(1e300));
        assert!(json_of(&1e300).is_f64());
        assert_eq!(
            json_of(&9_007_199_254_740_992.0).to_string(),
            "9007199254740992"
        );
        assert_eq!(json_of(&f64::NAN), Value::Null);
        assert_eq!(json_of(&f64::INFINITY), Value::Null);
    }

    #[test]
    fn options_and_arrays_are_written_number_by_number() {
        assert_eq!(json_of(&Some(412.0)), json!(412));
        assert_eq!(json_of(&None::<f64>), Value::Null);
        assert_eq!(json_of(&vec![1.0, 1.5, -2.0]).to_string(), "[1,1.5,-2]");
        assert_eq!(json_of(&Some(vec![3.0])).to_string(), "[3]");
        assert_eq!(json_of(&None::<Vec<f64>>), Value::Null);
    }
}
