//! The `relationships` family: `explore_relationships`, `join_entities`.

pub(crate) mod explore_relationships;
pub(crate) mod join_entities;
