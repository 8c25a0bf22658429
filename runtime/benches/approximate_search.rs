//! Approximate against exact vector search above the size where the graph takes over: top-10
//! by cosine over 250,000 vectors of 384 values, clustered around 2,500 topics the way sentence
//! embeddings are, with queries near stored vectors. Before the timings, the bench prints the
//! graph's build time and its recall@10 against exact search over 200 queries.
//!
//! Run: `cargo bench -p toolforge-runtime --features ann --bench approximate_search`.

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::Instant;

use divan::Bencher;
use toolforge::search::approximate::{ApproximateIndex, ApproximateSettings};
use toolforge::search::vector::VectorMatrix;
use toolforge::spec::Similarity;

const ROWS: usize = 250_000;
const TOPICS: usize = 2_500;
const DIMENSION: usize = 384;
const QUERIES: usize = 200;
const K: usize = 10;

fn main() {
    report_build_and_recall();
    divan::main();
}

/// A pseudo-random stream (xorshift), so every run searches the same vectors.
struct Stream(u64);

impl Stream {
    /// Uniform in [-1, 1).
    fn value(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    fn near(&mut self, centre: &[f32], spread: f32) -> Vec<f32> {
        centre.iter().map(|x| x + spread * self.value()).collect()
    }
}

struct Data {
    matrix: VectorMatrix,
    queries: Vec<Vec<f32>>,
}

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut stream = Stream(0x9E37_79B9_7F4A_7C15);
        let origin = vec![0.0; DIMENSION];
        let topics: Vec<Vec<f32>> = (0..TOPICS).map(|_| stream.near(&origin, 1.0)).collect();
        let mut matrix = VectorMatrix::new(DIMENSION, Similarity::Cosine);
        let mut rows = Vec::with_capacity(ROWS);
        for row in 0..ROWS {
            let vector = stream.near(&topics[row % TOPICS], 0.6);
            assert!(matrix.push(row.to_string(), &vector));
            if row % (ROWS / QUERIES) == 0 {
                rows.push(vector);
            }
        }
        let queries = rows.iter().map(|row| stream.near(row, 0.3)).collect();
        Data { matrix, queries }
    })
}

fn graph() -> &'static ApproximateIndex {
    static GRAPH: OnceLock<ApproximateIndex> = OnceLock::new();
    GRAPH.get_or_init(|| {
        ApproximateIndex::build(&data().matrix, &ApproximateSettings::default()).expect("graph")
    })
}

fn report_build_and_recall() {
    let data = data();
    let started = Instant::now();
    let graph = graph();
    let seconds = started.elapsed().as_secs_f64();
    let (mut found, mut wanted) = (0, 0);
    for query in &data.queries {
        let exact: HashSet<usize> = data
            .matrix
            .top_k(query, K, |_| true)
            .iter()
            .map(|hit| hit.row)
            .collect();
        wanted += exact.len();
        found += graph
            .top_k(&data.matrix, query, K, &|_| true)
            .iter()
            .filter(|hit| exact.contains(&hit.row))
            .count();
    }
    println!(
        "graph of {ROWS} x {DIMENSION} built in {seconds:.1} s ({:.0} vectors/s); recall@{K} over {QUERIES} queries: {:.3}",
        ROWS as f64 / seconds,
        found as f64 / wanted as f64
    );
}

#[divan::bench]
fn exact_top10(bencher: Bencher) {
    let data = data();
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % QUERIES;
        data.matrix.top_k(&data.queries[next], K, |_| true)
    });
}

#[divan::bench]
fn approximate_top10(bencher: Bencher) {
    let (data, graph) = (data(), graph());
    let mut next = 0;
    bencher.bench_local(|| {
        next = (next + 1) % QUERIES;
        graph.top_k(&data.matrix, &data.queries[next], K, &|_| true)
    });
}
