//! The SQL engine on PostgreSQL against hand-written queries through the same driver
//! (tokio-postgres): `query_entities` on a 1,000,000-row table, `get_entity_by_id`, and import
//! throughput (against one binary `COPY` of the same JSON lines, parsed into a struct). Needs a server: run under `scripts/with-postgres`, which sets
//! `TOOLFORGE_TEST_POSTGRES_URL`; without it every benchmark returns at once.
//!
//! Run: `scripts/with-postgres cargo bench -p toolforge-runtime --features postgres --bench sql_postgres`.

use std::sync::{Arc, OnceLock};

use divan::Bencher;
use divan::counter::ItemsCount;
use serde_json::{Map, Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::database_tools;
use toolforge::{Tool, ToolContext};

const ROWS: usize = 1_000_000;
const IMPORT_ROWS: usize = 50_000;
const KINDS: [&str; 3] = ["function", "class", "method"];

fn main() {
    divan::main();
}

fn url() -> Option<String> {
    std::env::var("TOOLFORGE_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty())
}

fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "bench",
        "entities": [{
            "name": "Scope", "table": "scope", "unique_field": "uuid",
            "fields": [
                {"name": "uuid", "type": "string", "unique": true},
                {"name": "name", "type": "string", "indexed": true},
                {"name": "file", "type": "string"},
                {"name": "startLine", "type": "number"},
                {"name": "endLine", "type": "number"},
                {"name": "source", "type": "string"},
                {"name": "tags", "type": "string_array"},
                {"name": "kind", "type": "enum", "values": KINDS},
                {"name": "created_at", "type": "datetime"},
                {"name": "is_exported", "type": "boolean"}
            ],
            "computed_fields": [
                {"name": "line_count", "type": "number", "source": "endLine - startLine + 1",
                 "sql": "(\"n\".\"endLine\" - \"n\".\"startLine\" + 1)"}
            ]
        }],
        "relationships": [],
        "tools": {"default_limit": 20, "max_limit": 500, "families": ["query", "lookup"]}
    }))
    .expect("bench spec")
}

fn scope(i: usize) -> Map<String, Value> {
    let start = i % 1000;
    let data = json!({
        "uuid": format!("scope-{i:07}"),
        "name": format!("fn_{}", i % 100_000),
        "file": format!("src/file_{}.ts", i % 1000),
        "startLine": start,
        "endLine": start + (i * 7) % 300,
        "source": format!("function fn_{i}() {{ return {i}; }}"),
        "tags": [format!("t{}", i % 10)],
        "kind": KINDS[i % 3],
        "created_at": format!("2024-{:02}-{:02}T08:00:00Z", 1 + i % 12, 1 + i % 28),
        "is_exported": i.is_multiple_of(2),
    });
    match data {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

/// A fresh database named `name` on the server, and its URL.
fn fresh(base: &str, name: &str, runtime: &tokio::runtime::Runtime) -> String {
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(base, tokio_postgres::NoTls)
            .await
            .expect("connect");
        let task = tokio::spawn(connection);
        client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await
            .expect("drop");
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .expect("create");
        drop(client);
        let _ = task.await;
    });
    let (head, _) = base.rsplit_once('/').expect("URL with a database name");
    format!("{head}/{name}")
}

struct Fixture {
    tools: Vec<Arc<dyn Tool>>,
    runtime: tokio::runtime::Runtime,
    client: tokio_postgres::Client,
}

fn fixture() -> Option<&'static Fixture> {
    static FIXTURE: OnceLock<Option<Fixture>> = OnceLock::new();
    FIXTURE
        .get_or_init(|| {
            let base = url()?;
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            let url = fresh(&base, "toolforge_bench", &runtime);
            let spec = Arc::new(spec());
            let db = Database::open(&url).expect("open");
            db.init(&spec).expect("init");
            let started = std::time::Instant::now();
            db.import(&spec, |import| {
                for i in 0..ROWS {
                    import.entity("Scope", &scope(i))?;
                }
                Ok(())
            })
            .expect("build the 1,000,000-row table");
            eprintln!(
                "built {ROWS} scopes in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            let client = runtime.block_on(async {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .expect("connect");
                tokio::spawn(connection);
                client.batch_execute("ANALYZE").await.expect("analyze");
                client
            });
            Some(Fixture {
                tools: database_tools(spec, db),
                runtime,
                client,
            })
        })
        .as_ref()
}

fn call(f: &Fixture, name: &str, arguments: &Value) -> Value {
    let tool = f
        .tools
        .iter()
        .find(|t| t.definition().name == name)
        .expect("tool");
    f.runtime
        .block_on(tool.call(arguments.clone(), &ToolContext::new()))
        .expect("tool call")
}

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
    start: Option<f64>,
    end: Option<f64>,
    source: Option<String>,
    tags: Option<String>,
    kind: Option<String>,
    created_at: Option<String>,
    is_exported: Option<bool>,
    line_count: Option<f64>,
}

fn hand_row(r: &tokio_postgres::Row) -> HandRow {
    HandRow {
        uuid: r.get(0),
        name: r.get(1),
        file: r.get(2),
        start: r.get(3),
        end: r.get(4),
        source: r.get(5),
        tags: r.get(6),
        kind: r.get(7),
        created_at: r.get(8),
        is_exported: r.get(9),
        line_count: r.get(10),
    }
}

const HAND_COLUMNS: &str = "uuid, name, file, \"startLine\", \"endLine\", source, tags::text, kind, \
     created_at, is_exported, (\"endLine\" - \"startLine\" + 1) AS line_count";

/// The same query written by hand: select + count, rows into a struct.
async fn hand_scan(client: &tokio_postgres::Client) -> (i64, Vec<HandRow>) {
    let rows = client
        .query(
            &format!(
                "SELECT {HAND_COLUMNS} FROM scope WHERE left(name, length($1)) = $1 AND \"startLine\" > $2 \
                 ORDER BY line_count DESC NULLS LAST, uuid ASC LIMIT 21"
            ),
            &[&"fn_12", &500f64],
        )
        .await
        .expect("query");
    let total: i64 = client
        .query_one(
            "SELECT count(*) FROM scope WHERE left(name, length($1)) = $1 AND \"startLine\" > $2",
            &[&"fn_12", &500f64],
        )
        .await
        .expect("count")
        .get(0);
    (total, rows.iter().take(20).map(hand_row).collect())
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn query_entities_tool(bencher: Bencher) {
    let Some(f) = fixture() else { return };
    let arguments = scan_arguments();
    assert_eq!(call(f, "query_entities", &arguments)["returned"], 20);
    bencher.bench(|| call(f, "query_entities", &arguments));
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn query_entities_hand_written(bencher: Bencher) {
    let Some(f) = fixture() else { return };
    let (total, rows) = f.runtime.block_on(hand_scan(&f.client));
    let answer = call(f, "query_entities", &scan_arguments());
    assert_eq!(answer["total"], total);
    assert_eq!(answer["results"][0]["uuid"], rows[0].uuid.as_str());
    bencher.bench(|| f.runtime.block_on(hand_scan(&f.client)));
}

#[divan::bench(sample_count = 200)]
fn get_entity_by_id_tool(bencher: Bencher) {
    let Some(f) = fixture() else { return };
    let mut i = 0usize;
    bencher.bench_local(|| {
        i = (i + 7919) % ROWS;
        call(
            f,
            "get_entity_by_id",
            &json!({"entity_type": "Scope", "id_value": format!("scope-{i:07}")}),
        )
    });
}

#[divan::bench(sample_count = 200)]
fn get_entity_by_id_hand_written(bencher: Bencher) {
    let Some(f) = fixture() else { return };
    let sql = format!("SELECT {HAND_COLUMNS} FROM scope WHERE uuid = $1");
    // Prepared once, as the tool's statement cache does.
    let statement = f.runtime.block_on(f.client.prepare(&sql)).expect("prepare");
    let mut i = 0usize;
    bencher.bench_local(|| {
        i = (i + 7919) % ROWS;
        let id = format!("scope-{i:07}");
        f.runtime.block_on(async {
            let row = f.client.query_one(&statement, &[&id]).await.expect("row");
            hand_row(&row)
        })
    });
}

/// The import benchmarks' JSON lines, and a runtime for their setup.
fn import_input() -> (String, tokio::runtime::Runtime) {
    let lines = (0..IMPORT_ROWS)
        .map(|i| format!("{}\n", json!({"entity": "Scope", "data": scope(i)})))
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    (lines, runtime)
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn import_jsonl(bencher: Bencher) {
    let Some(base) = url() else { return };
    let spec = spec();
    let (lines, runtime) = import_input();
    bencher
        .counter(ItemsCount::new(IMPORT_ROWS))
        .with_inputs(|| {
            let url = fresh(&base, "toolforge_bench_import", &runtime);
            let db = Database::open(&url).expect("open");
            db.init(&spec).expect("init");
            db
        })
        .bench_local_values(|db| {
            let stats = db.import_jsonl(&spec, lines.as_bytes()).expect("import");
            assert_eq!(stats.entities, IMPORT_ROWS);
            db
        });
}

/// One line of the import file, as a hand-written importer would read it.
#[derive(serde::Deserialize)]
struct HandLine {
    data: HandScope,
}

#[derive(serde::Deserialize)]
#[allow(non_snake_case)]
struct HandScope {
    uuid: String,
    name: String,
    file: String,
    startLine: f64,
    endLine: f64,
    source: String,
    tags: Vec<String>,
    kind: String,
    created_at: String,
    is_exported: bool,
}

/// JSON text sent as `jsonb`.
#[derive(Debug)]
struct Jsonb(String);

impl tokio_postgres::types::ToSql for Jsonb {
    fn to_sql(
        &self,
        _: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(&[1]);
        out.extend_from_slice(self.0.as_bytes());
        Ok(tokio_postgres::types::IsNull::No)
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        *ty == tokio_postgres::types::Type::JSONB
    }

    tokio_postgres::types::to_sql_checked!();
}

/// The baseline for `import_jsonl`: the same lines parsed into a struct and written with one
/// binary `COPY` in one transaction, on one connection (no upsert, no checks).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn import_hand_written_copy(bencher: Bencher) {
    use tokio_postgres::types::{ToSql, Type};
    let Some(base) = url() else { return };
    let spec = spec();
    let (lines, runtime) = import_input();
    bencher
        .counter(ItemsCount::new(IMPORT_ROWS))
        .with_inputs(|| {
            let url = fresh(&base, "toolforge_bench_import_hand", &runtime);
            Database::open(&url)
                .expect("open")
                .init(&spec)
                .expect("init");
            runtime.block_on(async {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .expect("connect");
                tokio::spawn(connection);
                client
            })
        })
        .bench_local_values(|mut client| {
            runtime.block_on(async {
                let tx = client.transaction().await.expect("begin");
                let sink = tx
                    .copy_in(
                        "COPY scope (uuid, name, file, \"startLine\", \"endLine\", source, tags, \
                         kind, created_at, is_exported) FROM STDIN (FORMAT binary)",
                    )
                    .await
                    .expect("copy");
                let types = [
                    Type::TEXT,
                    Type::TEXT,
                    Type::TEXT,
                    Type::FLOAT8,
                    Type::FLOAT8,
                    Type::TEXT,
                    Type::JSONB,
                    Type::TEXT,
                    Type::TEXT,
                    Type::BOOL,
                ];
                let mut writer = std::pin::pin!(
                    tokio_postgres::binary_copy::BinaryCopyInWriter::new(sink, &types)
                );
                for line in lines.lines() {
                    let row: HandLine = serde_json::from_str(line).expect("line");
                    let s = row.data;
                    let tags = Jsonb(serde_json::to_string(&s.tags).expect("tags"));
                    let values: [&(dyn ToSql + Sync); 10] = [
                        &s.uuid,
                        &s.name,
                        &s.file,
                        &s.startLine,
                        &s.endLine,
                        &s.source,
                        &tags,
                        &s.kind,
                        &s.created_at,
                        &s.is_exported,
                    ];
                    writer.as_mut().write(&values).await.expect("row");
                }
                let written = writer.finish().await.expect("finish");
                assert_eq!(written, IMPORT_ROWS as u64);
                tx.commit().await.expect("commit");
            });
            client
        });
}
