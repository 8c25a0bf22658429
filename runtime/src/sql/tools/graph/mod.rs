//! The `graph` family: `find_path` (its two searches: [`path_in_memory`] over a kept graph,
//! [`path_by_statements`] otherwise), `rank_entities`, `find_clusters` (Louvain, [`louvain`]),
//! and the walks over relationship tables they share ([`walk`]).

pub(crate) mod find_clusters;
pub(crate) mod find_path;
pub(crate) mod louvain;
pub(crate) mod path_by_statements;
pub(crate) mod path_in_memory;
pub(crate) mod rank_entities;
pub(crate) mod walk;
