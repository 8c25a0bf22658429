//! What a row rule costs a tool call: `get_entity_by_id` and `query_entities` on a
//! 100,000-record entity whose rule (`branch = :context.branch`, as `toolforge.access` compiles
//! it) hides nine records in ten, against the same calls on the same file with no rule, in the
//! same run.
//!
//! Run: `cargo bench -p toolforge-runtime --bench access_rules`.

use std::sync::{Arc, OnceLock};

use divan::Bencher;
use serde_json::{Map, Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::database_tools;
use toolforge::{Tool, ToolContext};

const MEMBERS: usize = 100_000;
const BRANCHES: usize = 10;

fn main() {
    divan::main();
}

/// The spec, with the rule `branch = :context.branch` on `Member` when `ruled`.
fn spec(ruled: bool) -> SchemaSpec {
    let mut spec = json!({
        "name": "bench",
        "entities": [{
            "name": "Member", "table": "member", "unique_field": "id",
            "fields": [
                {"name": "id", "type": "string", "unique": true},
                {"name": "name", "type": "string"},
                {"name": "branch", "type": "string"}
            ]
        }],
        "relationships": [],
        "tools": {"default_limit": 20, "max_limit": 500, "families": ["query", "lookup"]}
    });
    if ruled {
        spec["access"] = json!([{
            "entity": "Member",
            "source": "branch = :context.branch",
            "sql": "(toolforge_context('branch') IS NOT NULL AND (\"n\".\"branch\" = toolforge_context('branch')))",
            "postgres_sql": "(NULLIF(current_setting('toolforge.ctx_branch', true), '') IS NOT NULL AND (\"n\".\"branch\" = NULLIF(current_setting('toolforge.ctx_branch', true), '')))",
            "context": ["branch"]
        }]);
    }
    serde_json::from_value(spec).expect("spec")
}

struct Fixture {
    _dir: tempfile::TempDir,
    ruled: Vec<Arc<dyn Tool>>,
    open: Vec<Arc<dyn Tool>>,
    runtime: tokio::runtime::Runtime,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("bench.db");
        let open_spec = Arc::new(spec(false));
        let db = Database::open(&path).expect("open");
        db.init(&open_spec).expect("init");
        db.import(&open_spec, |import| {
            for i in 0..MEMBERS {
                let mut member = Map::new();
                member.insert("id".into(), json!(format!("m{i:06}")));
                member.insert("name".into(), json!(format!("member {i}")));
                member.insert("branch".into(), json!(format!("b{}", i % BRANCHES)));
                import.entity("Member", &member)?;
            }
            Ok(())
        })
        .expect("import");
        let ruled_db = Database::open(&path).expect("open again");
        Fixture {
            _dir: dir,
            ruled: database_tools(Arc::new(spec(true)), ruled_db),
            open: database_tools(open_spec, db),
            runtime: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .expect("runtime"),
        }
    })
}

fn call(ruled: bool, name: &str, arguments: &Value) -> Value {
    let f = fixture();
    let tools = if ruled { &f.ruled } else { &f.open };
    let tool = tools
        .iter()
        .find(|t| t.definition().name == name)
        .expect("tool");
    let context = ToolContext::new().with_value("branch", "b3");
    f.runtime
        .block_on(tool.call(arguments.clone(), &context))
        .expect("tool call")
}

/// A member of branch `b3` (visible under the rule), a different one each call.
fn lookup(bencher: Bencher, ruled: bool) {
    let mut i = 3usize;
    let first = call(
        ruled,
        "get_entity_by_id",
        &json!({"entity_type": "Member", "id_value": "m000003"}),
    );
    assert_eq!(first["record"]["id"], "m000003", "{first}");
    bencher.bench_local(|| {
        i = (i + 7_919 * BRANCHES) % MEMBERS;
        call(
            ruled,
            "get_entity_by_id",
            &json!({"entity_type": "Member", "id_value": format!("m{i:06}")}),
        )
    });
}

/// The first 20 members whose name starts with `member 1`, and their count.
fn query(bencher: Bencher, ruled: bool) {
    let arguments = json!({
        "entity_type": "Member",
        "conditions": [{"field": "name", "operator": "STARTS WITH", "value": "member 1"}],
        "limit": 20
    });
    let answer = call(ruled, "query_entities", &arguments);
    assert_eq!(answer["returned"], 20, "{answer}");
    bencher.bench_local(|| call(ruled, "query_entities", &arguments));
}

/// `get_entity_by_id`, no rule (baseline).
#[divan::bench(sample_count = 200)]
fn get_entity_by_id_no_rule(bencher: Bencher) {
    lookup(bencher, false);
}

/// `get_entity_by_id` under the rule.
#[divan::bench(sample_count = 200)]
fn get_entity_by_id_ruled(bencher: Bencher) {
    lookup(bencher, true);
}

/// `query_entities`, no rule (baseline).
#[divan::bench(sample_count = 50)]
fn query_entities_no_rule(bencher: Bencher) {
    query(bencher, false);
}

/// `query_entities` under the rule.
#[divan::bench(sample_count = 50)]
fn query_entities_ruled(bencher: Bencher) {
    query(bencher, true);
}
