//! SQL engine benchmarks: `query_entities` through the tool against the same query written by
//! hand with rusqlite on a 1,000,000-row table, `get_entity_by_id`, `explore_relationships`
//! one hop, and JSON-lines import throughput.
//!
//! Run: `cargo bench -p toolforge-runtime --bench sql`.

use std::sync::{Arc, OnceLock};

use divan::Bencher;
use divan::counter::ItemsCount;
use serde_json::{Map, Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::database_tools;
use toolforge::{Tool, ToolContext};

const ROWS: usize = 1_000_000;
const FILES: usize = 1_000;
const IMPORT_ROWS: usize = 50_000;

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
                    {"name": "name", "type": "string", "indexed": true},
                    {"name": "file", "type": "string"},
                    {"name": "startLine", "type": "number"},
                    {"name": "endLine", "type": "number"},
                    {"name": "source", "type": "string"},
                    {"name": "tags", "type": "string_array"},
                    {"name": "kind", "type": "enum", "values": ["function", "class", "method"]},
                    {"name": "created_at", "type": "datetime"},
                    {"name": "is_exported", "type": "boolean"}
                ],
                "computed_fields": [
                    {"name": "line_count", "type": "number", "source": "endLine - startLine + 1",
                     "sql": "(\"n\".\"endLine\" - \"n\".\"startLine\" + 1)"}
                ]
            },
            {
                "name": "File", "table": "file", "unique_field": "path",
                "fields": [
                    {"name": "path", "type": "string", "unique": true},
                    {"name": "language", "type": "string"}
                ]
            }
        ],
        "relationships": [
            {"type": "DEFINED_IN", "source": "Scope", "target": "File", "table": "scope__defined_in__file"}
        ],
        "tools": {"default_limit": 20, "max_limit": 500, "families": ["query", "lookup", "relationships"]}
    }))
    .expect("bench spec")
}

const KINDS: [&str; 3] = ["function", "class", "method"];

fn scope(i: usize) -> Map<String, Value> {
    let start = i % 1000;
    let data = json!({
        "uuid": format!("scope-{i:07}"),
        "name": format!("fn_{}", i % 100_000),
        "file": format!("src/file_{}.ts", i % FILES),
        "startLine": start,
        "endLine": start + (i * 7) % 300,
        "source": format!("function fn_{i}() {{ return {i}; }}"),
        "tags": [format!("t{}", i % 10)],
        "kind": KINDS[i % 3],
        "created_at": format!("2024-{:02}-{:02}T10:00:00+02:00", 1 + i % 12, 1 + i % 28),
        "is_exported": i.is_multiple_of(2),
    });
    match data {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    db: Database,
    tools: Vec<Arc<dyn Tool>>,
    runtime: tokio::runtime::Runtime,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let spec = Arc::new(spec());
        let db = Database::open(dir.path().join("bench.db")).expect("open");
        db.init(&spec).expect("init");
        let started = std::time::Instant::now();
        db.import(&spec, |import| {
            for f in 0..FILES {
                let file = json!({"path": format!("src/file_{f}.ts"), "language": "typescript"});
                import.entity("File", file.as_object().expect("object"))?;
            }
            for i in 0..ROWS {
                import.entity("Scope", &scope(i))?;
            }
            let empty = Map::new();
            for i in 0..ROWS {
                let from = toolforge::sql::EndPoint {
                    entity: "Scope".into(),
                    id: format!("scope-{i:07}"),
                };
                let to = toolforge::sql::EndPoint {
                    entity: "File".into(),
                    id: format!("src/file_{}.ts", i % FILES),
                };
                import.relationship("DEFINED_IN", &from, &to, &empty)?;
            }
            Ok(())
        })
        .expect("build the 1,000,000-row table");
        eprintln!(
            "built {ROWS} scopes + {ROWS} edges in {:.1} s",
            started.elapsed().as_secs_f64()
        );
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

fn tool(name: &str) -> &'static Arc<dyn Tool> {
    fixture()
        .tools
        .iter()
        .find(|t| t.definition().name == name)
        .expect("tool")
}

fn call(name: &str, arguments: &Value) -> Value {
    let f = fixture();
    f.runtime
        .block_on(tool(name).call(arguments.clone(), &ToolContext::new()))
        .expect("tool call")
}

/// A scan: prefix on name, range on startLine, ordered by a computed field, 20 of ~1,100.
fn scan_arguments() -> Value {
    json!({
        "entity_type": "Scope",
        "conditions": [
            {"field": "name", "operator": "STARTS WITH", "value": "fn_12"},
            {"field": "startLine", "operator": ">", "value": 500}
        ],
        "order_by": {"field": "line_count", "direction": "DESC"},
        "limit": 20
    })
}

#[allow(dead_code)]
struct HandRow {
    uuid: String,
    name: Option<String>,
    file: Option<String>,
    start: Option<i64>,
    end: Option<i64>,
    source: Option<String>,
    tags: Option<String>,
    kind: Option<String>,
    created_at: Option<String>,
    is_exported: Option<bool>,
    line_count: Option<i64>,
}

/// The same query written by hand: select + count (up to the tool's cap, as the tool counts),
/// rows read into a struct.
fn hand_scan(conn: &rusqlite::Connection) -> (i64, Vec<HandRow>) {
    hand_scan_counting(conn, "LIMIT 1000")
}

/// The same, counting every match (what the tool did before its count stopped at 1,000).
fn hand_scan_counting_all(conn: &rusqlite::Connection) -> (i64, Vec<HandRow>) {
    hand_scan_counting(conn, "")
}

fn hand_scan_counting(conn: &rusqlite::Connection, cap: &str) -> (i64, Vec<HandRow>) {
    let mut statement = conn
        .prepare_cached(
            "SELECT uuid, name, file, startLine, endLine, source, tags, kind, created_at, is_exported, \
             (endLine - startLine + 1) AS line_count FROM scope \
             WHERE substr(name, 1, length(?1)) = ?1 AND startLine > ?2 \
             ORDER BY line_count DESC, uuid ASC LIMIT 21",
        )
        .expect("prepare");
    let rows: Vec<HandRow> = statement
        .query_map(rusqlite::params!["fn_12", 500], |r| {
            Ok(HandRow {
                uuid: r.get(0)?,
                name: r.get(1)?,
                file: r.get(2)?,
                start: r.get(3)?,
                end: r.get(4)?,
                source: r.get(5)?,
                tags: r.get(6)?,
                kind: r.get(7)?,
                created_at: r.get(8)?,
                is_exported: r.get(9)?,
                line_count: r.get(10)?,
            })
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    let total: i64 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM (SELECT 1 FROM scope \
             WHERE substr(name, 1, length(?1)) = ?1 AND startLine > ?2 {cap})"
        ))
        .expect("prepare")
        .query_row(rusqlite::params!["fn_12", 500], |r| r.get(0))
        .expect("count");
    (total, rows.into_iter().take(20).collect())
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn query_entities_tool(bencher: Bencher) {
    let arguments = scan_arguments();
    let answer = call("query_entities", &arguments);
    assert_eq!(answer["returned"], 20);
    bencher.bench(|| call("query_entities", &arguments));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn query_entities_hand_written(bencher: Bencher) {
    let f = fixture();
    let (total, rows) = f.db.read_blocking(hand_scan).expect("a SQLite read");
    let answer = call("query_entities", &scan_arguments());
    assert_eq!(answer["total"], total);
    assert_eq!(answer["results"][0]["uuid"], rows[0].uuid.as_str());
    bencher.bench(|| f.db.read_blocking(hand_scan).expect("a SQLite read"));
}

/// The hand-written query counting every match: what a list call cost before its count
/// stopped at 1,000.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn query_entities_hand_written_counting_all(bencher: Bencher) {
    let f = fixture();
    bencher.bench(|| {
        f.db.read_blocking(hand_scan_counting_all)
            .expect("a SQLite read")
    });
}

#[divan::bench(sample_count = 200)]
fn get_entity_by_id_tool(bencher: Bencher) {
    fixture();
    let mut i = 0usize;
    bencher.bench_local(|| {
        i = (i + 7919) % ROWS;
        call(
            "get_entity_by_id",
            &json!({"entity_type": "Scope", "id_value": format!("scope-{i:07}")}),
        )
    });
}

#[divan::bench(sample_count = 200)]
fn get_entity_by_id_hand_written(bencher: Bencher) {
    let f = fixture();
    let mut i = 0usize;
    bencher.bench_local(|| {
        i = (i + 7919) % ROWS;
        let id = format!("scope-{i:07}");
        f.db.read_blocking(|conn| {
            conn.prepare_cached(
                "SELECT uuid, name, file, startLine, endLine, source, tags, kind, created_at, is_exported, \
                 (endLine - startLine + 1) FROM scope WHERE uuid = ?1",
            )
            .expect("prepare")
            .query_row([&id], |r| {
                Ok(HandRow {
                    uuid: r.get(0)?,
                    name: r.get(1)?,
                    file: r.get(2)?,
                    start: r.get(3)?,
                    end: r.get(4)?,
                    source: r.get(5)?,
                    tags: r.get(6)?,
                    kind: r.get(7)?,
                    created_at: r.get(8)?,
                    is_exported: r.get(9)?,
                    line_count: r.get(10)?,
                })
            })
            .expect("row")
        }).expect("a SQLite read")
    });
}

#[divan::bench(sample_count = 200)]
fn explore_relationships_one_hop(bencher: Bencher) {
    fixture();
    let mut i = 0usize;
    bencher.bench_local(|| {
        i = (i + 7919) % ROWS;
        call(
            "explore_relationships",
            &json!({
                "start_entity_type": "Scope",
                "start_conditions": [{"field": "uuid", "operator": "=", "value": format!("scope-{i:07}")}],
                "relationship_type": "DEFINED_IN",
                "direction": "outgoing"
            }),
        )
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn import_jsonl(bencher: Bencher) {
    let spec = spec();
    let lines: String = (0..IMPORT_ROWS)
        .map(|i| format!("{}\n", json!({"entity": "Scope", "data": scope(i)})))
        .collect();
    bencher
        .counter(ItemsCount::new(IMPORT_ROWS))
        .with_inputs(|| {
            let dir = tempfile::tempdir().expect("temp dir");
            let db = Database::open(dir.path().join("import.db")).expect("open");
            db.init(&spec).expect("init");
            (dir, db)
        })
        .bench_local_values(|(dir, db)| {
            let stats = db.import_jsonl(&spec, lines.as_bytes()).expect("import");
            assert_eq!(stats.entities, IMPORT_ROWS);
            (dir, db)
        });
}

/// Baseline for `import_jsonl`: the same rows inserted with one hand-written prepared statement
/// (values already typed, no JSON parsing or checks).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn import_hand_written(bencher: Bencher) {
    let spec = spec();
    let rows: Vec<Map<String, Value>> = (0..IMPORT_ROWS).map(scope).collect();
    bencher
        .counter(ItemsCount::new(IMPORT_ROWS))
        .with_inputs(|| {
            let dir = tempfile::tempdir().expect("temp dir");
            let db = Database::open(dir.path().join("import.db")).expect("open");
            db.init(&spec).expect("init");
            (dir, db)
        })
        .bench_local_values(|(dir, db)| {
            db.write_blocking(|conn| {
                let tx = conn.transaction().expect("transaction");
                {
                    let mut statement = tx
                        .prepare(
                            "INSERT INTO scope (uuid, name, file, startLine, endLine, source, tags, kind, created_at, is_exported) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                        )
                        .expect("prepare");
                    for row in &rows {
                        statement
                            .execute(rusqlite::params![
                                row["uuid"].as_str(),
                                row["name"].as_str(),
                                row["file"].as_str(),
                                row["startLine"].as_i64(),
                                row["endLine"].as_i64(),
                                row["source"].as_str(),
                                row["tags"].to_string(),
                                row["kind"].as_str(),
                                row["created_at"].as_str(),
                                row["is_exported"].as_bool(),
                            ])
                            .expect("insert");
                    }
                }
                tx.commit().expect("commit");
            })
            .expect("writer");
            (dir, db)
        });
}
