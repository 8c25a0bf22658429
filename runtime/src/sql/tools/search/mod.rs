//! The `search` family: `full_text_search`, `semantic_search`, `hybrid_search`,
//! `find_similar`.

pub(crate) mod find_similar;
pub(crate) mod full_text_search;
pub(crate) mod hybrid_search;
pub(crate) mod semantic_search;
