//! `find_path` in batches: 16 calls in one `batch` over a graph of 200,000 records and
//! 1,000,000 edges (five distinct random calls out of each record), on SQLite, at the largest
//! depth (12). Half the calls find a path between random records; the other half look for one
//! of the records nothing calls, so their search visits every record it can reach before it
//! answers found: false. Measured twice: as calls find the database (nothing committed since
//! the last call), and right after a write (a commit before each batch).
//!
//! Run: `cargo bench -p toolforge-runtime --bench find_path`.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use divan::Bencher;
use serde_json::{Value, json};
use toolforge::ToolRegistry;
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;

const NODES: usize = 200_000;
const EDGES_PER_NODE: usize = 5;
/// Records that call others but that nothing calls: what the unreachable searches look for.
const UNCALLED: usize = 8;

fn main() {
    divan::main();
}

fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "bench",
        "entities": [{
            "name": "Function", "table": "function", "unique_field": "uuid", "display_name_field": "name",
            "fields": [
                {"name": "uuid", "type": "string", "unique": true},
                {"name": "name", "type": "string"}
            ]
        }],
        "relationships": [
            {"type": "CALLS", "source": "Function", "target": "Function", "table": "function__calls__function"}
        ],
        "tools": {"default_limit": 20, "max_limit": 500, "families": ["graph"]}
    }))
    .expect("spec")
}

struct Fixture {
    _dir: tempfile::TempDir,
    db: Database,
    registry: Arc<ToolRegistry>,
    runtime: tokio::runtime::Runtime,
}

/// A deterministic pseudo-random sequence (xorshift), so every run builds the same graph.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn id(i: usize) -> String {
    format!("fn-{i:06}")
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let spec = Arc::new(spec());
        let db = Database::open(dir.path().join("bench.db")).expect("open");
        db.init(&spec).expect("init");
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        db.write_blocking(|conn| {
            let tx = conn.transaction().expect("transaction");
            {
                let mut function = tx
                    .prepare("INSERT INTO \"function\" (\"uuid\", \"name\") VALUES (?1, ?2)")
                    .expect("prepare");
                let mut calls = tx
                    .prepare(
                        "INSERT INTO \"function__calls__function\" (\"source_id\", \"target_id\") \
                         VALUES (?1, ?2)",
                    )
                    .expect("prepare");
                for i in 0..NODES + UNCALLED {
                    function
                        .execute((id(i), format!("function_{i}")))
                        .expect("insert");
                }
                for i in 0..NODES + UNCALLED {
                    let mut targets = HashSet::new();
                    while targets.len() < EDGES_PER_NODE {
                        let to = next(&mut state) as usize % NODES;
                        if to != i {
                            targets.insert(to);
                        }
                    }
                    for to in targets {
                        calls.execute((id(i), id(to))).expect("insert");
                    }
                }
            }
            tx.commit().expect("commit");
        })
        .expect("build the tables");
        let registry = toolforge::sql::tools::register_database_tools(
            ToolRegistry::standard().expect("registry"),
            spec,
            db.clone(),
        )
        .expect("tools")
        .build();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        Fixture {
            _dir: dir,
            db,
            registry,
            runtime,
        }
    })
}

/// The 16 calls: 8 between random records, 8 toward a record nothing calls.
fn calls() -> Value {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut calls = Vec::new();
    for i in 0..8 {
        let from = next(&mut state) as usize % NODES;
        let to = next(&mut state) as usize % NODES;
        calls.push(json!({"name": "find_path", "arguments": {
            "from": {"entity_type": "Function", "id": id(from)},
            "to": {"entity_type": "Function", "id": id(to)}, "max_depth": 12}}));
        calls.push(json!({"name": "find_path", "arguments": {
            "from": {"entity_type": "Function", "id": id(to)},
            "to": {"entity_type": "Function", "id": id(NODES + i)}, "max_depth": 12}}));
    }
    json!({ "calls": calls })
}

fn batch(calls: &Value) -> Value {
    let f = fixture();
    f.runtime
        .block_on(f.registry.call("batch", calls.clone()))
        .expect("batch")
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn a_batch_of_16_find_path_calls(bencher: Bencher) {
    let calls = calls();
    let answer = batch(&calls);
    let results = answer["results"].as_array().expect("results");
    assert_eq!(results.len(), 16);
    for (i, result) in results.iter().enumerate() {
        assert_eq!(result["ok"], true, "{result}");
        // The even calls find a path (a random graph of out-degree 5 reaches most records
        // within 12 hops); the odd ones look for a record nothing calls.
        assert_eq!(result["result"]["found"], i % 2 == 0, "{result}");
    }
    bencher.bench(|| batch(&calls));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn a_batch_of_16_find_path_calls_after_a_write(bencher: Bencher) {
    let calls = calls();
    let f = fixture();
    bencher
        .with_inputs(|| {
            f.db.write_blocking(|conn| {
                conn.execute(
                    "UPDATE \"function\" SET \"name\" = \"name\" WHERE \"uuid\" = 'fn-000000'",
                    [],
                )
            })
            .expect("write")
            .expect("update");
        })
        .bench_values(|()| batch(&calls));
}
