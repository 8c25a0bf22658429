//! The `changes` family: `get_entity_change_history`, `find_recently_modified_entities`,
//! `get_most_modified_entities`, `get_change_statistics`, `compare_entity_versions`,
//! `analyze_churn`, and the change log they read ([`change_log`]).

pub(crate) mod change_history;
pub(crate) mod change_log;
pub(crate) mod change_statistics;
pub(crate) mod churn;
pub(crate) mod compare_versions;
pub(crate) mod most_modified;
pub(crate) mod recently_modified;
