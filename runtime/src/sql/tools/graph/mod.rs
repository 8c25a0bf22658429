//! The `graph` family: `find_path`, `rank_entities`, and the walks over relationship tables
//! they share ([`walk`]).

pub(crate) mod find_path;
pub(crate) mod rank_entities;
pub(crate) mod walk;
