//! `find_path` and `rank_entities` on the code-rag graph of this repository (its scopes and
//! `CALLS` edges, ingested once per run), through the example's registry, against
//! `explore_relationships` one hop from the same record as the baseline.
//!
//! Run: `cargo bench -p code-rag-example --bench graph_tools`.

use std::path::Path;
use std::sync::OnceLock;

use divan::Bencher;
use serde_json::{Value, json};

use code_rag_example::setup::{Prepared, prepare};

fn main() {
    divan::main();
}

struct Fixture {
    _dir: tempfile::TempDir,
    prepared: Prepared,
    runtime: tokio::runtime::Runtime,
    /// The most called function and a function two or more calls away from it.
    ends: (String, String),
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let prepared = prepare(&root, &dir.path().join("code-rag.db")).expect("ingest");
        eprintln!(
            "graph: {} scopes, {} CALLS edges",
            prepared.codebase.scopes.len(),
            prepared.codebase.calls.len()
        );
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let call = |name: &str, arguments: Value| {
            runtime
                .block_on(prepared.registry.call(name, arguments))
                .expect("call")
        };
        let most = call(
            "aggregate_entities",
            json!({"entity_type": "Scope", "aggregation": "COUNT",
                   "along": {"relationship_type": "CALLS", "direction": "incoming"}, "limit": 1}),
        );
        let target = most["groups"][0]["uuid"]
            .as_str()
            .expect("a called function")
            .to_owned();
        // A caller of a caller of the target: a path of two hops or more.
        let callers = call(
            "explore_relationships",
            json!({"start_entity_type": "Scope",
                   "start_conditions": [{"field": "uuid", "operator": "=", "value": target}],
                   "relationship_type": "CALLS", "direction": "incoming", "limit": 50}),
        );
        let mut start = None;
        for hop in callers["results"].as_array().expect("results") {
            let caller = hop["record"]["uuid"].as_str().expect("uuid");
            let further = call(
                "explore_relationships",
                json!({"start_entity_type": "Scope",
                       "start_conditions": [{"field": "uuid", "operator": "=", "value": caller}],
                       "relationship_type": "CALLS", "direction": "incoming", "limit": 1}),
            );
            if let Some(id) = further["results"][0]["record"]["uuid"].as_str() {
                start = Some(id.to_owned());
                break;
            }
        }
        let start = start.expect("a function two calls away from the most called one");
        Fixture {
            _dir: dir,
            prepared,
            runtime,
            ends: (start, target),
        }
    })
}

fn call(name: &str, arguments: &Value) -> Value {
    let f = fixture();
    f.runtime
        .block_on(f.prepared.registry.call(name, arguments.clone()))
        .expect("tool call")
}

#[divan::bench(sample_count = 50)]
fn explore_relationships_one_hop(bencher: Bencher) {
    let (start, _) = &fixture().ends;
    let arguments = json!({"start_entity_type": "Scope",
        "start_conditions": [{"field": "uuid", "operator": "=", "value": start}],
        "relationship_type": "CALLS", "direction": "outgoing"});
    bencher.bench(|| call("explore_relationships", &arguments));
}

#[divan::bench(sample_count = 50)]
fn find_path(bencher: Bencher) {
    let (start, target) = &fixture().ends;
    let arguments = json!({"from": {"entity_type": "Scope", "id": start},
        "to": {"entity_type": "Scope", "id": target}, "relationship_types": ["CALLS"]});
    let answer = call("find_path", &arguments);
    assert_eq!(answer["found"], true, "{answer}");
    bencher.bench(|| call("find_path", &arguments));
}

#[divan::bench(sample_count = 20)]
fn find_path_both_directions(bencher: Bencher) {
    let (start, target) = &fixture().ends;
    // From the most called function, edges taken either way: the widest frontier.
    let arguments = json!({"from": {"entity_type": "Scope", "id": target},
        "to": {"entity_type": "Scope", "id": start}, "relationship_types": ["CALLS"],
        "direction": "both", "max_depth": 12});
    bencher.bench(|| call("find_path", &arguments));
}

#[divan::bench(sample_count = 20)]
fn rank_entities_degree(bencher: Bencher) {
    let arguments = json!({"entity_type": "Scope", "relationship_type": "CALLS", "algorithm": "degree", "limit": 10});
    bencher.bench(|| call("rank_entities", &arguments));
}

#[divan::bench(sample_count = 20)]
fn rank_entities_pagerank(bencher: Bencher) {
    let arguments = json!({"entity_type": "Scope", "relationship_type": "CALLS", "limit": 10});
    bencher.bench(|| call("rank_entities", &arguments));
}
