//! The `patterns` family: `query_entities_by_pattern`.

pub(crate) mod pattern;
