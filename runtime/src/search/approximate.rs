//! Approximate nearest neighbours for large indexes: a hierarchical navigable small-world graph
//! (HNSW, from the `hnsw_rs` crate) over the rows of a [`VectorMatrix`].
//!
//! The graph only proposes candidates: each is scored again exactly from the matrix, so the
//! scores of an approximate search are the exact ones, and only a true neighbour the graph did
//! not reach can be missed. Cosine and Euclidean indexes get a graph; a dot-product index (not a
//! metric) is always searched exactly.

use hnsw_rs::anndists::dist::Distance;
use hnsw_rs::hnsw::Hnsw;

use super::vector::{Hit, VectorMatrix, dot, rank};
use crate::spec::Similarity;

/// How a graph is built and searched.
///
/// The defaults give a recall@10 of at least 0.95 against exact search on 384-dimension
/// embeddings (`cargo bench -p toolforge-runtime --features ann --bench vector_search`, figures in
/// docs/BENCHMARKS.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApproximateSettings {
    /// Indexes with fewer vectors are searched exactly (a full scan is fast enough below it).
    pub min_vectors: usize,
    /// Links kept per node and layer (HNSW's `M`).
    pub connections: usize,
    /// Candidates explored while inserting (HNSW's `ef_construction`).
    pub ef_construction: usize,
    /// Candidates explored per search, at least `k` (HNSW's `ef`).
    pub ef_search: usize,
}

impl Default for ApproximateSettings {
    fn default() -> Self {
        ApproximateSettings {
            min_vectors: 200_000,
            connections: 16,
            ef_construction: 100,
            ef_search: 128,
        }
    }
}

/// `1 - cos` of two normalised vectors, never negative (rounding can push a product over 1).
struct Angular;

impl Distance<f32> for Angular {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        (1.0 - dot(a, b)).max(0.0)
    }
}

/// The squared Euclidean distance (same order as the distance).
struct SquaredEuclidean;

impl Distance<f32> for SquaredEuclidean {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
    }
}

enum Graph {
    Cosine(Hnsw<'static, f32, Angular>),
    Euclidean(Hnsw<'static, f32, SquaredEuclidean>),
}

/// An HNSW graph over every row of one matrix.
pub struct ApproximateIndex {
    graph: Graph,
    ef_search: usize,
}

impl std::fmt::Debug for ApproximateIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApproximateIndex")
            .field("ef_search", &self.ef_search)
            .finish_non_exhaustive()
    }
}

impl ApproximateIndex {
    /// The graph of `matrix`'s rows, built on every core; `None` for a dot-product index or an
    /// empty matrix.
    pub fn build(matrix: &VectorMatrix, settings: &ApproximateSettings) -> Option<Self> {
        if matrix.is_empty() {
            return None;
        }
        let connections = settings.connections.clamp(2, 255);
        let ef_construction = settings.ef_construction.max(connections);
        let rows: Vec<(&[f32], usize)> = matrix.rows().enumerate().map(|(i, r)| (r, i)).collect();
        let graph = match matrix.similarity() {
            Similarity::Dot => return None,
            Similarity::Cosine => Graph::Cosine(insert(
                Hnsw::new(connections, rows.len(), 16, ef_construction, Angular),
                &rows,
            )),
            Similarity::Euclidean => Graph::Euclidean(insert(
                Hnsw::new(
                    connections,
                    rows.len(),
                    16,
                    ef_construction,
                    SquaredEuclidean,
                ),
                &rows,
            )),
        };
        Some(ApproximateIndex {
            graph,
            ef_search: settings.ef_search,
        })
    }

    /// The `k` rows closest to `query` that the graph reaches, among the rows `keep` accepts,
    /// scored exactly from `matrix` (the matrix the graph was built from), best first.
    pub fn top_k(
        &self,
        matrix: &VectorMatrix,
        query: &[f32],
        k: usize,
        keep: &(dyn Fn(usize) -> bool + Sync),
    ) -> Vec<Hit> {
        if k == 0 || query.len() != matrix.dimension() {
            return Vec::new();
        }
        let query = matrix.prepare_query(query);
        let ef = self.ef_search.max(k);
        let filter = |row: &usize| keep(*row);
        let neighbours = match &self.graph {
            Graph::Cosine(graph) => graph.search_filter(&query, k, ef, Some(&filter)),
            Graph::Euclidean(graph) => graph.search_filter(&query, k, ef, Some(&filter)),
        };
        let mut hits: Vec<Hit> = neighbours
            .into_iter()
            .filter(|n| n.d_id < matrix.len())
            .map(|n| Hit {
                row: n.d_id,
                score: matrix.score(&query, n.d_id),
            })
            .collect();
        rank(&mut hits);
        hits.truncate(k);
        hits
    }
}

fn insert<D: Distance<f32> + Send + Sync>(
    mut graph: Hnsw<'static, f32, D>,
    rows: &Vec<(&[f32], usize)>,
) -> Hnsw<'static, f32, D> {
    graph.parallel_insert_slice(rows);
    graph.set_searching_mode(true);
    graph
}
