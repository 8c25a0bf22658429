//! Exact vector search: the vectors of one index held as one contiguous matrix, scored
//! against a query and the best `k` kept.
//!
//! Scores are "higher is closer" for every [`Similarity`]: the cosine, the dot product, or
//! `1 / (1 + d²)` of the Euclidean distance `d`. Cosine vectors are normalised once when the
//! matrix is built, so a search is one pass of dot products over memory.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::spec::Similarity;

/// The vectors of one index, one row per record.
#[derive(Debug, Clone, Default)]
pub struct VectorMatrix {
    dimension: usize,
    similarity: Similarity,
    /// The records' unique ids, by row.
    ids: Vec<String>,
    /// Row-major values (normalised for cosine).
    values: Vec<f32>,
    /// Squared norms by row (Euclidean only).
    squared_norms: Vec<f32>,
}

/// One search hit: the row and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The row in the matrix.
    pub row: usize,
    /// The score (higher is closer).
    pub score: f32,
}

impl VectorMatrix {
    /// An empty matrix of `dimension` columns.
    pub fn new(dimension: usize, similarity: Similarity) -> Self {
        VectorMatrix {
            dimension,
            similarity,
            ..VectorMatrix::default()
        }
    }

    /// Adds a record's vector; a vector of another length is refused (returns false).
    pub fn push(&mut self, id: String, vector: &[f32]) -> bool {
        if vector.len() != self.dimension || vector.iter().any(|x| !x.is_finite()) {
            return false;
        }
        let start = self.values.len();
        self.values.extend_from_slice(vector);
        let row = &mut self.values[start..];
        match self.similarity {
            Similarity::Cosine => crate::embed::normalize(row),
            Similarity::Euclidean => self.squared_norms.push(dot(row, row)),
            Similarity::Dot => {}
        }
        self.ids.push(id);
        true
    }

    /// The number of vectors.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The vector length.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// The unique id of `row`.
    pub fn id(&self, row: usize) -> &str {
        &self.ids[row]
    }

    /// The memory the values take, in bytes.
    pub fn bytes(&self) -> usize {
        self.values.len() * 4 + self.ids.iter().map(|id| id.len() + 24).sum::<usize>()
    }

    /// The similarity the scores use.
    pub fn similarity(&self) -> Similarity {
        self.similarity
    }

    /// The stored vectors by row (normalised for cosine).
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[f32]> {
        self.values.chunks_exact(self.dimension.max(1))
    }

    /// `query` as [`VectorMatrix::score`] takes it (normalised for cosine).
    pub fn prepare_query(&self, query: &[f32]) -> Vec<f32> {
        let mut query = query.to_vec();
        if self.similarity == Similarity::Cosine {
            crate::embed::normalize(&mut query);
        }
        query
    }

    /// The score of `row` for a query from [`VectorMatrix::prepare_query`].
    pub fn score(&self, query: &[f32], row: usize) -> f32 {
        let start = row * self.dimension;
        self.score_of(
            query,
            dot(query, query),
            row,
            &self.values[start..start + self.dimension],
        )
    }

    fn score_of(&self, query: &[f32], query_norm: f32, row: usize, vector: &[f32]) -> f32 {
        let product = dot(query, vector);
        match self.similarity {
            Similarity::Cosine | Similarity::Dot => product,
            Similarity::Euclidean => {
                let squared = (query_norm + self.squared_norms[row] - 2.0 * product).max(0.0);
                1.0 / (1.0 + squared)
            }
        }
    }

    /// The `k` rows closest to `query` (best first, ties by row), among the rows `keep`
    /// accepts. `query` must have the matrix's dimension.
    pub fn top_k(&self, query: &[f32], k: usize, keep: impl Fn(usize) -> bool) -> Vec<Hit> {
        if k == 0 || query.len() != self.dimension || self.dimension == 0 {
            return Vec::new();
        }
        let query = self.prepare_query(query);
        let query_norm = dot(&query, &query);
        // A min-heap of the best k so far.
        let mut best: BinaryHeap<Worst> = BinaryHeap::with_capacity(k + 1);
        for (row, vector) in self.rows().enumerate() {
            if !keep(row) {
                continue;
            }
            let hit = Hit {
                row,
                score: self.score_of(&query, query_norm, row, vector),
            };
            if best.len() < k {
                best.push(Worst(hit));
            } else if let Some(worst) = best.peek()
                && better(&hit, &worst.0)
            {
                best.pop();
                best.push(Worst(hit));
            }
        }
        let mut hits: Vec<Hit> = best.into_iter().map(|w| w.0).collect();
        rank(&mut hits);
        hits
    }
}

/// Sorts hits best first (ties by row).
pub(crate) fn rank(hits: &mut [Hit]) {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
}

/// Whether `a` ranks before `b`: a higher score, or the same score and an earlier row.
fn better(a: &Hit, b: &Hit) -> bool {
    match a.score.total_cmp(&b.score) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => a.row < b.row,
    }
}

/// A hit ordered so that the heap's top is the worst hit kept.
struct Worst(Hit);

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        if better(&self.0, &other.0) {
            Ordering::Less
        } else if better(&other.0, &self.0) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }
}

/// The dot product, in eight independent lanes so the compiler vectorises it.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (a_chunks, a_rest) = a.as_chunks::<8>();
    let (b_chunks, b_rest) = b.as_chunks::<8>();
    for (x, y) in a_chunks.iter().zip(b_chunks) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    let mut sum: f32 = lanes.iter().sum();
    for (x, y) in a_rest.iter().zip(b_rest) {
        sum += x * y;
    }
    sum
}
