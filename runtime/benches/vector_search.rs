//! Exact vector search benchmarks: top-10 by cosine over 100,000 vectors of 384 values, through
//! [`VectorMatrix::top_k`] and through the `semantic_search` tool on SQLite (an embedder that
//! answers fixed vectors, so only the search is measured), against a numpy brute force of the
//! same vectors measured in the same run (`scripts/vector-baseline.py`, run by this bench with
//! the Python named by `TOOLFORGE_BENCH_PYTHON`, default `python3`; it needs numpy).
//!
//! Run: `cargo bench -p toolforge-runtime --bench vector_search`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use divan::Bencher;
use serde_json::json;
use toolforge::embed::{EmbedError, Embedder};
use toolforge::search::vector::VectorMatrix;
use toolforge::spec::{SchemaSpec, Similarity};
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

const ROWS: usize = 100_000;
const DIMENSION: usize = 384;
const QUERIES: usize = 16;
const K: usize = 10;
/// Searches timed by the numpy baseline.
const BASELINE_ROUNDS: usize = 200;

fn main() {
    numpy_baseline();
    divan::main();
}

/// A pseudo-random stream (xorshift), so every run searches the same vectors.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [-1, 1).
    fn value(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    fn vector(&mut self) -> Vec<f32> {
        (0..DIMENSION).map(|_| self.value()).collect()
    }
}

struct Data {
    rows: Vec<Vec<f32>>,
    queries: Vec<Vec<f32>>,
}

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut stream = Stream(0x9E37_79B9_7F4A_7C15);
        Data {
            rows: (0..ROWS).map(|_| stream.vector()).collect(),
            queries: (0..QUERIES).map(|_| stream.vector()).collect(),
        }
    })
}

fn matrix() -> &'static VectorMatrix {
    static MATRIX: OnceLock<VectorMatrix> = OnceLock::new();
    MATRIX.get_or_init(|| {
        let mut matrix = VectorMatrix::new(DIMENSION, Similarity::Cosine);
        for (row, vector) in data().rows.iter().enumerate() {
            assert!(matrix.push(row.to_string(), vector));
        }
        matrix
    })
}

/// Writes the vectors for numpy, runs `scripts/vector-baseline.py` and prints its p50, and
/// whether it found the same rows for the first query.
fn numpy_baseline() {
    let path = std::env::temp_dir().join(format!("toolforge-vectors-{}.f32", std::process::id()));
    let mut bytes = Vec::with_capacity((ROWS + QUERIES) * DIMENSION * 4);
    for vector in data().rows.iter().chain(&data().queries) {
        for value in vector {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
    }
    if let Err(error) = std::fs::write(&path, bytes) {
        eprintln!(
            "numpy baseline skipped: cannot write {}: {error}",
            path.display()
        );
        return;
    }
    let python = std::env::var("TOOLFORGE_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/vector-baseline.py");
    let output = std::process::Command::new(&python)
        .arg(&script)
        .arg(&path)
        .args([ROWS, DIMENSION, QUERIES, K, BASELINE_ROUNDS].map(|n| n.to_string()))
        .output();
    let _ = std::fs::remove_file(&path);
    match output {
        Ok(output) if output.status.success() => {
            let text = String::from_utf8_lossy(&output.stdout);
            println!("numpy baseline (same vectors, same run): {}", text.trim());
            let rows: Vec<usize> = matrix()
                .top_k(&data().queries[0], K, |_| true)
                .iter()
                .map(|hit| hit.row)
                .collect();
            let numpy: Option<Vec<usize>> = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| serde_json::from_value(v["first_query_rows"].clone()).ok());
            println!(
                "first query: toolforge rows {rows:?}, same as numpy: {}",
                numpy.as_ref() == Some(&rows)
            );
        }
        Ok(output) => eprintln!(
            "numpy baseline failed ({python}): {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ),
        Err(error) => eprintln!("numpy baseline skipped: cannot run {python}: {error}"),
    }
}

#[divan::bench(sample_count = 100)]
fn top_10_vector_matrix(bencher: Bencher) {
    let matrix = matrix();
    let mut query = 0;
    bencher.bench_local(|| {
        query = (query + 1) % QUERIES;
        matrix.top_k(&data().queries[query], K, |_| true)
    });
}

/// Gives the bench's vectors back: `row:<n>` is row n, `query:<n>` query n.
#[derive(Debug)]
struct FixedVectors;

impl Embedder for FixedVectors {
    fn model_id(&self) -> &str {
        "bench:fixed"
    }

    fn dimension(&self) -> Option<usize> {
        Some(DIMENSION)
    }

    fn batch_size(&self) -> usize {
        1000
    }

    fn embed(&self, texts: &[&str], _: Option<Instant>) -> Result<Vec<Vec<f32>>, EmbedError> {
        texts
            .iter()
            .map(|text| {
                let (kind, n) = text.split_once(':').unwrap_or(("", ""));
                let n: usize = n
                    .parse()
                    .map_err(|_| EmbedError::Settings(text.to_string()))?;
                match kind {
                    "row" => Ok(data().rows[n].clone()),
                    _ => Ok(data().queries[n].clone()),
                }
            })
            .collect()
    }
}

struct Fixture {
    spec: Arc<SchemaSpec>,
    db: Database,
    runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let spec: Arc<SchemaSpec> = Arc::new(
            serde_json::from_value(json!({
                "name": "bench",
                "entities": [{
                    "name": "Doc", "table": "doc", "unique_field": "uuid",
                    "display_name_field": "uuid",
                    "fields": [
                        {"name": "uuid", "type": "string", "unique": true},
                        {"name": "text", "type": "string"}
                    ],
                    "vector_indexes": [{"name": "text_vectors", "column": "text_embedding",
                                        "source_field": "text", "dimension": DIMENSION}]
                }],
                "relationships": [],
                "tools": {"default_limit": 10, "max_limit": 100, "families": ["search"]}
            }))
            .expect("bench spec"),
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::open(dir.path().join("vectors.db"))
            .expect("open")
            .with_embedder(Arc::new(FixedVectors));
        db.init(&spec).expect("init");
        let started = Instant::now();
        db.import(&spec, |import| {
            for row in 0..ROWS {
                let data = json!({"uuid": format!("doc-{row}"), "text": format!("row:{row}")});
                import.entity("Doc", data.as_object().expect("object"))?;
            }
            Ok(())
        })
        .expect("import");
        eprintln!(
            "imported and embedded {ROWS} rows in {:.1?}",
            started.elapsed()
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        Fixture {
            spec,
            db,
            runtime,
            _dir: dir,
        }
    })
}

#[divan::bench(sample_count = 100)]
fn top_10_semantic_search_tool(bencher: Bencher) {
    let fixture = fixture();
    let search = |query: usize| {
        fixture
            .runtime
            .block_on(DatabaseTool::SemanticSearch.call(
                fixture.spec.clone(),
                fixture.db.clone(),
                json!({"entity_type": "Doc", "query": format!("query:{query}"), "top_k": K}),
            ))
            .expect("search")
    };
    // The first search reads the vectors into memory; the rest reuse them.
    search(0);
    let mut query = 0;
    bencher.bench_local(|| {
        query = (query + 1) % QUERIES;
        search(query)
    });
}
