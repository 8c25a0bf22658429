//! The `aggregates` family: `aggregate_entities`.

pub(crate) mod aggregate;
