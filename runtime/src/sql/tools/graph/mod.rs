//! The `graph` family: `find_path`, `rank_entities`, `find_clusters` (Louvain, [`louvain`]),
//! and the walks over relationship tables they share ([`walk`]).

pub(crate) mod find_clusters;
pub(crate) mod find_path;
pub(crate) mod louvain;
pub(crate) mod rank_entities;
pub(crate) mod walk;
