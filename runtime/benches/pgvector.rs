//! `semantic_search` top-10 over random 384-dimension vectors: PostgreSQL with pgvector (HNSW
//! index, with and without a filter keeping 1 % of the rows) against the in-process search of
//! the same vectors (SQLite, exact, the path every server without pgvector takes). Prints the
//! import times, the HNSW build time and the process's memory before and after 1,000
//! searches of each kind. Needs the pgvector server: run under
//! `scripts/with-pgvector`, which sets `TOOLFORGE_TEST_PGVECTOR_URL`; without it every
//! benchmark returns at once. `TOOLFORGE_BENCH_VECTORS` sets the count (default 1,000,000).
//!
//! Run: `TOOLFORGE_BENCH_VECTORS=100000 scripts/with-pgvector cargo bench -p toolforge-runtime
//! --features postgres --bench pgvector`.

#[path = "../tests/pg_support/mod.rs"]
mod pg_support;

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde_json::json;
use toolforge::embed::{EmbedError, Embedder};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::database_tools;
use toolforge::{Tool, ToolContext};

const DIMENSION: usize = 384;

fn main() {
    if let Some(setup) = setup() {
        memory_report(setup);
    }
    divan::main();
}

fn count() -> usize {
    std::env::var("TOOLFORGE_BENCH_VECTORS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000)
}

fn spec() -> Arc<SchemaSpec> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "bench",
            "entities": [{
                "name": "Point", "table": "point", "unique_field": "id",
                "fields": [
                    {"name": "id", "type": "string", "unique": true},
                    {"name": "bucket", "type": "number"}
                ],
                "vector_indexes": [{"name": "position", "column": "position", "dimension": DIMENSION}]
            }],
            "relationships": [],
            "tools": {"default_limit": 10, "max_limit": 100, "families": ["search"],
                      "vector_search": {"max_vectors_in_memory": 100_000_000_u64}}
        }))
        .expect("bench spec"),
    )
}

/// The vector of row `row`, from a fixed generator (the same on every run).
fn vector(row: usize) -> Vec<f32> {
    let mut state = (row as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..DIMENSION)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect()
}

/// Embeds "row N" as row N's vector, nudged (a query near a stored record).
#[derive(Debug)]
struct RowEmbedder;

impl Embedder for RowEmbedder {
    fn model_id(&self) -> &str {
        "rows"
    }
    fn dimension(&self) -> Option<usize> {
        Some(DIMENSION)
    }
    fn batch_size(&self) -> usize {
        16
    }
    fn embed(&self, texts: &[&str], _: Option<Instant>) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|text| {
                let row = text
                    .strip_prefix("row ")
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                vector(row).iter().map(|x| x + 0.01).collect()
            })
            .collect())
    }
}

/// Imports every vector into `db` (initialised), and returns how long it took.
fn fill(db: &Database, spec: &SchemaSpec) -> f64 {
    let started = Instant::now();
    db.import(spec, |import| {
        for row in 0..count() {
            let data = json!({"id": format!("p{row:08}"), "bucket": row % 100,
                              "position": vector(row)});
            import.entity("Point", data.as_object().unwrap())?;
        }
        Ok(())
    })
    .expect("import");
    started.elapsed().as_secs_f64()
}

/// The process's resident memory, in MiB (Linux).
fn resident_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The semantic_search tool over `db`, and a runtime to call it on.
fn searcher(db: &Database) -> (Arc<dyn Tool>, tokio::runtime::Runtime) {
    let tool = database_tools(db.spec_for(&spec()), db.clone())
        .into_iter()
        .find(|tool| tool.definition().name == "semantic_search")
        .expect("semantic_search");
    (tool, tokio::runtime::Runtime::new().unwrap())
}

/// One top-10 search near row `row`, optionally among the 1 % of rows in bucket 7.
fn search_once(
    tool: &Arc<dyn Tool>,
    runtime: &tokio::runtime::Runtime,
    row: usize,
    filtered: bool,
) {
    let mut arguments = json!({"entity_type": "Point", "query": format!("row {row}"), "top_k": 10});
    if filtered {
        arguments["conditions"] = json!([{"field": "bucket", "operator": "=", "value": 7}]);
    }
    let answer = runtime
        .block_on(tool.call(arguments, &ToolContext::new()))
        .expect("search");
    assert_eq!(answer["results"].as_array().map(Vec::len), Some(10));
}

/// The memory of this process (which runs the tools as `toolforge serve` does) before and
/// after 1,000 searches of each kind.
fn memory_report(setup: &Setup) {
    // pgvector first: the in-process index is loaded by its first search, inside the count.
    for (name, db) in [
        ("pgvector", &setup.pgvector),
        ("in-process (SQLite)", &setup.sqlite),
    ] {
        let (tool, runtime) = searcher(db);
        let before = resident_mib();
        for i in 0..1_000 {
            search_once(&tool, &runtime, i * 7919 % count(), i % 2 == 1);
        }
        eprintln!(
            "{name}: resident memory {before:.0} MiB before 1,000 searches, {:.0} MiB after",
            resident_mib()
        );
    }
}

struct Setup {
    pgvector: Database,
    sqlite: Database,
    _dir: tempfile::TempDir,
}

/// The two databases filled, or `None` without the pgvector server.
fn setup() -> Option<&'static Setup> {
    static SETUP: OnceLock<Option<Setup>> = OnceLock::new();
    SETUP.get_or_init(|| {
        let spec = spec();
        let base = std::env::var("TOOLFORGE_TEST_PGVECTOR_URL")
            .ok()
            .filter(|url| !url.is_empty())?;
        let pgvector = {
                let (db, url) = pg_support::fresh(&base, &format!("bench_pgvector_{}", count()));
                let db = db.with_embedder(Arc::new(RowEmbedder));
                db.init(&spec).expect("init");
                // The index is built after the import, as a large first load should do.
                pg_support::batch(&url, "DROP INDEX point__position__hnsw");
                eprintln!(
                    "pgvector: {} vectors imported in {:.1} s",
                    count(),
                    fill(&db, &spec)
                );
                let built = Instant::now();
                pg_support::batch(
                    &url,
                    "SET maintenance_work_mem = '4GB'; \
                     CREATE INDEX point__position__hnsw ON point USING hnsw (position vector_cosine_ops); \
                     ANALYZE point",
                );
                eprintln!(
                    "pgvector: HNSW index built over {} vectors in {:.1} s",
                    count(),
                    built.elapsed().as_secs_f64()
                );
                db
            };
        let dir = tempfile::tempdir().expect("temporary folder");
        let sqlite = Database::open(dir.path().join("bench.db"))
            .expect("open")
            .with_embedder(Arc::new(RowEmbedder));
        sqlite.init(&spec).expect("init");
        eprintln!(
            "SQLite: {} vectors imported in {:.1} s",
            count(),
            fill(&sqlite, &spec)
        );
        Some(Setup {
            pgvector,
            sqlite,
            _dir: dir,
        })
    })
    .as_ref()
}

fn search(db: &Database, bencher: divan::Bencher, filtered: bool) {
    let (tool, runtime) = searcher(db);
    let mut row = 0usize;
    bencher.bench_local(|| {
        row = (row + 7919) % count();
        search_once(&tool, &runtime, row, filtered);
    });
}

#[divan::bench(sample_count = 50)]
fn pgvector_top10(bencher: divan::Bencher) {
    let Some(setup) = setup() else { return };
    search(&setup.pgvector, bencher, false);
}

#[divan::bench(sample_count = 50)]
fn pgvector_top10_filter_1_percent(bencher: divan::Bencher) {
    let Some(setup) = setup() else { return };
    search(&setup.pgvector, bencher, true);
}

#[divan::bench(sample_count = 50)]
fn in_process_top10(bencher: divan::Bencher) {
    let Some(setup) = setup() else { return };
    search(&setup.sqlite, bencher, false);
}

#[divan::bench(sample_count = 50)]
fn in_process_top10_filter_1_percent(bencher: divan::Bencher) {
    let Some(setup) = setup() else { return };
    search(&setup.sqlite, bencher, true);
}
