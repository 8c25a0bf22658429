//! What `rank_entities` (pagerank) takes in memory: counted by this binary's global allocator,
//! for a graph large enough to be read in many pages.
//!
//! - One call over 60,000 records and 180,000 edges stays under 16 MB at its peak (rows of
//!   values took about 45 MB), and gives it all back when it ends.
//! - Eight calls at once for the same graph share one load: their peak stays under twice one
//!   call's.
//! - A cap below what the graph takes is a `too_large` error naming `max_memory_bytes`, for
//!   pagerank's load and for what find_path visits.
//! - The ranking over pages is the ranking: a hub every record points to comes first, then the
//!   records the hub points to.
#![cfg(feature = "sqlite")]

mod alloc_support;

use std::sync::Arc;

use alloc_support::Counting;
use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::{CallLimits, ErrorCode, ToolRegistry};

const RECORDS: usize = 60_000;

fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "graph-memory",
        "entities": [{
            "name": "Page", "table": "page", "unique_field": "url", "display_name_field": "title",
            "fields": [
                {"name": "url", "type": "string", "unique": true},
                {"name": "title", "type": "string"}
            ]
        }],
        "relationships": [
            {"source": "Page", "type": "LINKS", "target": "Page", "table": "page__links__page"}
        ],
        "tools": {"default_limit": 10, "max_limit": 50, "families": ["graph"]}
    }))
    .unwrap()
}

fn url(i: usize) -> String {
    format!("https://example.org/page/{i:06}")
}

/// A ring of pages, each also linking to the hub (page 0) and to the page 7 ahead.
fn lines() -> String {
    let mut out = String::new();
    for i in 0..RECORDS {
        out.push_str(
            &json!({"entity": "Page", "data": {"url": url(i), "title": format!("Page {i}")}})
                .to_string(),
        );
        out.push('\n');
    }
    for i in 0..RECORDS {
        for j in [(i + 1) % RECORDS, 0, (i + 7) % RECORDS] {
            if j != i {
                out.push_str(
                    &json!({"relationship": "LINKS", "from": {"entity": "Page", "id": url(i)},
                            "to": {"entity": "Page", "id": url(j)}})
                    .to_string(),
                );
                out.push('\n');
            }
        }
    }
    out
}

fn rank() -> Value {
    json!({"entity_type": "Page", "relationship_type": "LINKS", "algorithm": "pagerank", "limit": 3})
}

/// Runs `calls` at once and returns their answers with the peak of live bytes above what was
/// live before.
fn peak_of(
    registry: &Arc<ToolRegistry>,
    calls: usize,
) -> (Vec<Result<Value, toolforge::ToolError>>, usize) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let before = Counting::start();
    let answers = runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..calls {
            let registry = registry.clone();
            tasks.spawn(async move { registry.call("rank_entities", rank()).await });
        }
        let mut answers = Vec::new();
        while let Some(answer) = tasks.join_next().await {
            answers.push(answer.unwrap());
        }
        answers
    });
    let peak = Counting::peak_above(before);
    drop(runtime);
    (answers, peak)
}

#[test]
fn pagerank_loads_compactly_shares_one_load_and_keeps_within_its_cap() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Arc::new(spec());
    let db = Database::open(dir.path().join("graph.db")).unwrap();
    db.init(&spec).unwrap();
    db.import_jsonl(&spec, lines().as_bytes()).unwrap();
    let registry = |limits: CallLimits| {
        toolforge::sql::tools::register_database_tools(
            ToolRegistry::standard().unwrap(),
            spec.clone(),
            db.clone(),
        )
        .unwrap()
        .with_limits(limits)
        .build()
    };
    let registry_default = registry(CallLimits::default());

    let live_before = Counting::live();
    let (answers, one) = peak_of(&registry_default, 1);
    let answer = answers.into_iter().next().unwrap().expect("ranked");
    let ids: Vec<&str> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| result["id"].as_str().unwrap())
        .collect();
    // The hub first, then the two pages the hub links to.
    assert_eq!(ids[0], url(0), "{answer}");
    let mut next = ids[1..].to_vec();
    next.sort_unstable();
    assert_eq!(next, [url(1), url(7)], "{answer}");
    assert_eq!(answer["results"][0]["title"], "Page 0", "{answer}");
    assert!(one < 16 << 20, "one call peaked at {one} bytes");
    let kept = Counting::live().saturating_sub(live_before);
    assert!(kept < 1 << 20, "{kept} bytes still live after the call");

    let (answers, eight) = peak_of(&registry_default, 8);
    for other in answers {
        assert_eq!(other.expect("ranked")["results"], answer["results"]);
    }
    eprintln!("pagerank over {RECORDS} records: one call peaked at {one} bytes, eight at {eight}");
    assert!(
        eight < 2 * one,
        "eight calls at once peaked at {eight} bytes, one at {one}"
    );

    let capped = registry(CallLimits::default().max_memory_bytes(Some(1 << 20)));
    let (answers, _) = peak_of(&capped, 1);
    let error = answers
        .into_iter()
        .next()
        .unwrap()
        .expect_err("over the cap");
    assert_eq!(error.code, ErrorCode::TooLarge, "{error}");
    assert!(error.message.contains("max_memory_bytes"), "{error}");
    assert!(error.message.contains("--max-memory-bytes"), "{error}");
    assert_eq!(error.details.unwrap()["max_memory_bytes"], 1 << 20);

    // find_path counts what it visits against the same cap: every page reaches the hub, so a
    // walk in both directions visits them all at the first hop.
    let path = json!({"from": {"entity_type": "Page", "id": url(0)},
                      "to": {"entity_type": "Page", "id": url(30_000)},
                      "direction": "both", "max_depth": 2});
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let error = runtime
        .block_on(capped.call("find_path", path.clone()))
        .expect_err("over the cap");
    assert_eq!(error.code, ErrorCode::TooLarge, "{error}");
    assert!(error.message.contains("max_memory_bytes"), "{error}");
    let found = runtime
        .block_on(registry_default.call("find_path", path))
        .expect("found within the default cap");
    assert_eq!(found["length"], 1, "{found}");
}
