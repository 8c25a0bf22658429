//! The `query` family: `query_entities`.

pub(crate) mod query_entities;
