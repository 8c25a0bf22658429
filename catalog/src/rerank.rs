//! The [`Reranker`] trait: a last re-ranking stage of `accurate` search that a user plugs in
//! (an LLM, a cross-encoder). The catalog's own semantic stage needs no re-ranker: it uses
//! the embedding model given with [`crate::Catalog::with_embedder`].

use std::time::Instant;

use crate::error::CatalogError;

/// A candidate tool shown to a re-ranker.
#[derive(Debug, Clone, Copy)]
pub struct RerankCandidate<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// The tool's description.
    pub description: &'a str,
}

/// Scores candidate tools for a query.
pub trait Reranker: Send + Sync {
    /// One relevance score in [0, 1] per candidate, in order.
    fn rerank(
        &self,
        query: &str,
        task_context: Option<&str>,
        candidates: &[RerankCandidate<'_>],
    ) -> Result<Vec<f64>, CatalogError>;

    /// [`Reranker::rerank`] giving up at `deadline` (the search's own); the default ignores
    /// it, which suits re-rankers that answer at once.
    fn rerank_before(
        &self,
        query: &str,
        task_context: Option<&str>,
        candidates: &[RerankCandidate<'_>],
        deadline: Option<Instant>,
    ) -> Result<Vec<f64>, CatalogError> {
        let _ = deadline;
        self.rerank(query, task_context, candidates)
    }
}
