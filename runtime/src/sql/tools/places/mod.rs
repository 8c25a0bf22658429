//! The `places` family: `find_near`, for entities with a `point` field (the `WITHIN` box
//! condition of every conditions list is in [`query`](crate::sql::query)).

pub(crate) mod find_near;
