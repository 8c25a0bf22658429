//! The `lookup` family: `get_entity_by_id`, `get_entities_by_ids`.

pub(crate) mod get_entities_by_ids;
pub(crate) mod get_entity_by_id;
