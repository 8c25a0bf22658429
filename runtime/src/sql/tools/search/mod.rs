//! The `search` family: `full_text_search`, `semantic_search`, `hybrid_search`.

pub(crate) mod full_text_search;
pub(crate) mod hybrid_search;
pub(crate) mod semantic_search;

pub use full_text_search::FullTextSearchArgs;
pub use hybrid_search::HybridSearchArgs;
pub use semantic_search::SemanticSearchArgs;
