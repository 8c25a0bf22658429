//! The `ranges` family: `query_entities_by_date_range`, `query_entities_by_number_range`, and
//! what they share ([`bounds`]).

pub(crate) mod bounds;
pub(crate) mod date_range;
pub(crate) mod number_range;
