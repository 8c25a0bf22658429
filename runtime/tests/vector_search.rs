//! Exact vector search ([`VectorMatrix::top_k`]) against a brute force written here
//! independently: every score computed in f64 from the raw vectors, all rows sorted by score
//! (ties by row), the first `k` kept. Random vectors, for every similarity, with filters and
//! with `k` above the number of rows.

use proptest::prelude::*;
use toolforge::search::vector::{Hit, VectorMatrix};
use toolforge::spec::Similarity;

const SIMILARITIES: [Similarity; 3] = [Similarity::Cosine, Similarity::Dot, Similarity::Euclidean];

/// The score of `row` for `query`, in f64, from the definitions: the cosine (0 when either
/// vector is all zeros), the dot product, or `1 / (1 + d²)`.
fn reference_score(similarity: Similarity, query: &[f32], row: &[f32]) -> f64 {
    let query: Vec<f64> = query.iter().map(|&x| f64::from(x)).collect();
    let row: Vec<f64> = row.iter().map(|&x| f64::from(x)).collect();
    let dot: f64 = query.iter().zip(&row).map(|(a, b)| a * b).sum();
    match similarity {
        Similarity::Cosine => {
            let norms = query.iter().map(|a| a * a).sum::<f64>().sqrt()
                * row.iter().map(|b| b * b).sum::<f64>().sqrt();
            if norms == 0.0 { 0.0 } else { dot / norms }
        }
        Similarity::Dot => dot,
        Similarity::Euclidean => {
            let squared: f64 = query.iter().zip(&row).map(|(a, b)| (a - b) * (a - b)).sum();
            1.0 / (1.0 + squared)
        }
    }
}

/// The brute force: every kept row scored, sorted best first (ties by row), `k` kept.
fn brute_force(
    similarity: Similarity,
    rows: &[Vec<f32>],
    query: &[f32],
    k: usize,
    keep: &[bool],
) -> Vec<(usize, f64)> {
    let mut scored: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter(|(row, _)| keep[*row])
        .map(|(row, vector)| (row, reference_score(similarity, query, vector)))
        .collect();
    scored.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap().then(a.0.cmp(&b.0)));
    scored.truncate(k);
    scored
}

fn matrix(similarity: Similarity, dimension: usize, rows: &[Vec<f32>]) -> VectorMatrix {
    let mut matrix = VectorMatrix::new(dimension, similarity);
    for (row, vector) in rows.iter().enumerate() {
        assert!(matrix.push(format!("id-{row}"), vector));
    }
    matrix
}

/// Checks `hits` against the brute force. With `exact` (integer vectors, where f32 arithmetic
/// is exact for dot products and distances) the rows must be the same, ties included;
/// otherwise each position's score must agree within `tolerance` (rounding may swap rows whose
/// scores differ by less).
fn check(
    similarity: Similarity,
    (rows, query, keep, k): (&[Vec<f32>], &[f32], &[bool], usize),
    hits: &[Hit],
    exact: bool,
    tolerance: f64,
) -> Result<(), TestCaseError> {
    let expected = brute_force(similarity, rows, query, k, keep);
    prop_assert_eq!(hits.len(), expected.len());
    let mut seen = std::collections::HashSet::new();
    for (hit, (row, score)) in hits.iter().zip(&expected) {
        prop_assert!(keep[hit.row], "row {} was filtered out", hit.row);
        prop_assert!(seen.insert(hit.row), "row {} returned twice", hit.row);
        let hit_reference = reference_score(similarity, query, &rows[hit.row]);
        prop_assert!(
            (f64::from(hit.score) - hit_reference).abs() <= tolerance,
            "row {}: score {} but {} by the definition",
            hit.row,
            hit.score,
            hit_reference
        );
        prop_assert!(
            (hit_reference - score).abs() <= tolerance,
            "{:?}: row {} ({}) where the brute force has row {} ({})",
            similarity,
            hit.row,
            hit_reference,
            row,
            score
        );
        if exact {
            prop_assert_eq!(
                hit.row,
                *row,
                "{:?}: {:?} vs {:?}",
                similarity,
                hits,
                expected
            );
        }
    }
    Ok(())
}

/// Row vectors, a query and a keep mask of one dimension.
fn case<T: Strategy<Value = f32> + Clone>(
    value: T,
) -> impl Strategy<Value = (Vec<Vec<f32>>, Vec<f32>, Vec<bool>, usize)> {
    (1usize..24, 0usize..60).prop_flat_map(move |(dimension, count)| {
        (
            prop::collection::vec(prop::collection::vec(value.clone(), dimension), count),
            prop::collection::vec(value.clone(), dimension),
            prop::collection::vec(prop::bool::weighted(0.8), count),
            0usize..80,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Real-valued vectors: scores agree with the definitions within rounding.
    #[test]
    fn top_k_agrees_with_brute_force_on_random_vectors(
        (rows, query, keep, k) in case(-1.0f32..1.0),
    ) {
        let dimension = query.len();
        for similarity in SIMILARITIES {
            let matrix = matrix(similarity, dimension, &rows);
            let hits = matrix.top_k(&query, k, |row| keep[row]);
            check(similarity, (&rows, &query, &keep, k), &hits, false, 1e-4)?;
            // Without a filter, every row is a candidate.
            let all = vec![true; rows.len()];
            let hits = matrix.top_k(&query, k, |_| true);
            check(similarity, (&rows, &query, &all, k), &hits, false, 1e-4)?;
        }
    }

    /// Small integers: many exact ties (duplicate rows, equal dot products and distances),
    /// which must come back by row.
    #[test]
    fn top_k_breaks_ties_by_row_on_integer_vectors(
        (rows, query, keep, k) in case((-2i8..=2).prop_map(f32::from)),
    ) {
        let dimension = query.len();
        for similarity in SIMILARITIES {
            let matrix = matrix(similarity, dimension, &rows);
            let hits = matrix.top_k(&query, k, |row| keep[row]);
            // Cosine normalises in f32, so only its scores are compared, within rounding.
            let exact = similarity != Similarity::Cosine;
            check(similarity, (&rows, &query, &keep, k), &hits, exact, 1e-5)?;
        }
    }
}

#[test]
fn identical_rows_come_back_by_row_and_k_above_the_count_returns_every_kept_row() {
    for similarity in SIMILARITIES {
        let rows = vec![vec![0.5f32, -1.0, 2.0]; 7];
        let matrix = matrix(similarity, 3, &rows);
        let hits = matrix.top_k(&[1.0, 1.0, 1.0], 100, |row| row != 3);
        let order: Vec<usize> = hits.iter().map(|hit| hit.row).collect();
        assert_eq!(order, vec![0, 1, 2, 4, 5, 6], "{similarity:?}");
        assert!(hits.windows(2).all(|w| w[0].score == w[1].score));
        assert_eq!(matrix.top_k(&[1.0, 1.0, 1.0], 2, |_| true).len(), 2);
        // A query of another length, or k = 0, finds nothing.
        assert!(matrix.top_k(&[1.0, 1.0], 3, |_| true).is_empty());
        assert!(matrix.top_k(&[1.0, 1.0, 1.0], 0, |_| true).is_empty());
    }
}
