//! The `aggregates` family: `aggregate_entities`.

pub(crate) mod aggregate;

pub use aggregate::{AggregateEntitiesArgs, AggregateOrder, Aggregation, Along, Bucket};
