//! The `schema` family: `get_schema`, `describe_entity`.

pub(crate) mod answer;
pub(crate) mod describe_entity;
pub(crate) mod get_schema;
