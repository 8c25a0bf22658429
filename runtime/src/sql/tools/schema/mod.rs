//! The `schema` family: `get_schema`, `describe_entity`.

pub(crate) mod describe_entity;
pub(crate) mod get_schema;

pub use describe_entity::DescribeEntityArgs;
pub use get_schema::GetSchemaArgs;
