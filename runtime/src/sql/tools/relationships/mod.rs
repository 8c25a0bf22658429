//! The `relationships` family: `explore_relationships`.

pub(crate) mod explore_relationships;
