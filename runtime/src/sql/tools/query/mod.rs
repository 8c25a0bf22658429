//! The `query` family: `query_entities`, `glob_search`.

pub(crate) mod glob_search;
pub(crate) mod query_entities;
