//! The `patterns` family: `glob_search`, `query_entities_by_pattern`.

pub(crate) mod glob_search;
pub(crate) mod pattern;
