//! The aggregate and graph tools: `aggregate_entities` COUNT ... GROUP BY on a 1,000,000-row
//! table against the same statement written by hand with rusqlite, and `find_path` /
//! `rank_entities` (degree and PageRank) on a call graph of 20,000 records and 100,000 edges.
//!
//! Run: `cargo bench -p toolforge-runtime --bench query_tools`.

use std::sync::{Arc, OnceLock};

use divan::Bencher;
use serde_json::{Map, Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::database_tools;
use toolforge::{Tool, ToolContext};

const ROWS: usize = 1_000_000;
const NODES: usize = 20_000;
const EDGES_PER_NODE: usize = 5;

fn main() {
    divan::main();
}

fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "bench",
        "entities": [
            {
                "name": "Scope", "table": "scope", "unique_field": "uuid",
                "fields": [
                    {"name": "uuid", "type": "string", "unique": true},
                    {"name": "kind", "type": "enum", "values": ["function", "class", "method", "variable", "interface"]},
                    {"name": "lines", "type": "number"}
                ]
            },
            {
                "name": "Function", "table": "function", "unique_field": "uuid", "display_name_field": "name",
                "fields": [
                    {"name": "uuid", "type": "string", "unique": true},
                    {"name": "name", "type": "string"}
                ]
            }
        ],
        "relationships": [
            {"type": "CALLS", "source": "Function", "target": "Function", "table": "function__calls__function"}
        ],
        "tools": {"default_limit": 20, "max_limit": 500, "families": ["aggregates", "graph"]}
    }))
    .expect("spec")
}

struct Fixture {
    _dir: tempfile::TempDir,
    db: Database,
    tools: Vec<Arc<dyn Tool>>,
    runtime: tokio::runtime::Runtime,
}

/// A deterministic pseudo-random sequence (xorshift), so every run builds the same graph.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let spec = Arc::new(spec());
        let db = Database::open(dir.path().join("bench.db")).expect("open");
        db.init(&spec).expect("init");
        let kinds = ["function", "class", "method", "variable", "interface"];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        db.import(&spec, |import| {
            for i in 0..ROWS {
                let mut scope = Map::new();
                scope.insert("uuid".into(), json!(format!("scope-{i:07}")));
                scope.insert("kind".into(), json!(kinds[(next(&mut state) % 5) as usize]));
                scope.insert("lines".into(), json!(i % 200));
                import.entity("Scope", &scope)?;
            }
            for i in 0..NODES {
                let mut function = Map::new();
                function.insert("uuid".into(), json!(format!("fn-{i:05}")));
                function.insert("name".into(), json!(format!("function_{i}")));
                import.entity("Function", &function)?;
            }
            let empty = Map::new();
            for i in 0..NODES {
                for _ in 0..EDGES_PER_NODE {
                    // Calls lean toward lower ids, as calls lean toward shared helpers.
                    let a = next(&mut state) as usize % NODES;
                    let b = next(&mut state) as usize % NODES;
                    let to = a.min(b);
                    let from = toolforge::sql::EndPoint {
                        entity: "Function".into(),
                        id: format!("fn-{i:05}"),
                    };
                    let to = toolforge::sql::EndPoint {
                        entity: "Function".into(),
                        id: format!("fn-{to:05}"),
                    };
                    import.relationship("CALLS", &from, &to, &empty)?;
                }
            }
            Ok(())
        })
        .expect("build the tables");
        let tools = database_tools(spec, db.clone());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("runtime");
        Fixture {
            _dir: dir,
            db,
            tools,
            runtime,
        }
    })
}

fn call(name: &str, arguments: &Value) -> Value {
    let f = fixture();
    let tool = f
        .tools
        .iter()
        .find(|t| t.definition().name == name)
        .expect("tool");
    f.runtime
        .block_on(tool.call(arguments.clone(), &ToolContext::new()))
        .expect("tool call")
}

fn count_by_kind() -> Value {
    json!({"entity_type": "Scope", "aggregation": "COUNT", "group_by": ["kind"]})
}

/// The same question by hand: one GROUP BY statement.
fn hand_count(conn: &rusqlite::Connection) -> Vec<(String, i64)> {
    let mut statement = conn
        .prepare_cached(
            "SELECT \"kind\", count(*) FROM \"scope\" GROUP BY \"kind\" ORDER BY 2 DESC, 1 LIMIT 20",
        )
        .expect("prepare");
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn aggregate_count_group_by_tool(bencher: Bencher) {
    let answer = call("aggregate_entities", &count_by_kind());
    assert_eq!(answer["count"], ROWS);
    bencher.bench(|| call("aggregate_entities", &count_by_kind()));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn aggregate_count_group_by_hand_written(bencher: Bencher) {
    let f = fixture();
    let rows = f.db.read_blocking(hand_count).expect("a SQLite read");
    let answer = call("aggregate_entities", &count_by_kind());
    assert_eq!(answer["groups"][0]["count"], rows[0].1);
    bencher.bench(|| f.db.read_blocking(hand_count).expect("a SQLite read"));
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn find_path_across_the_call_graph(bencher: Bencher) {
    let arguments = json!({"from": {"entity_type": "Function", "id": format!("fn-{:05}", NODES - 1)},
                           "to": {"entity_type": "Function", "id": "fn-00000"}, "max_depth": 12});
    let answer = call("find_path", &arguments);
    assert_eq!(answer["found"], true, "{answer}");
    bencher.bench(|| call("find_path", &arguments));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn rank_entities_degree(bencher: Bencher) {
    let arguments = json!({"entity_type": "Function", "relationship_type": "CALLS", "algorithm": "degree", "limit": 10});
    bencher.bench(|| call("rank_entities", &arguments));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn rank_entities_pagerank(bencher: Bencher) {
    let arguments = json!({"entity_type": "Function", "relationship_type": "CALLS", "limit": 10});
    bencher.bench(|| call("rank_entities", &arguments));
}
