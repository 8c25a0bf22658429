//! The example on the repository's own `runtime/src`, checked against counts made straight
//! from the files (see `common`), not with syn.

use crate::common;

use std::collections::BTreeMap;

use code_rag_example::ingest::{ScopeKind, ingest};
use code_rag_example::setup::prepare_without_embeddings;
use serde_json::json;

use common::{FnSpan, fn_items, runtime_src, temp_db};

fn independent_fns() -> BTreeMap<String, Vec<FnSpan>> {
    let root = runtime_src();
    common::rust_files(&root)
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(root.join(&file)).unwrap();
            let spans = fn_items(&text);
            (file, spans)
        })
        .collect()
}

#[test]
fn every_fn_item_of_every_file_is_a_scope_with_the_same_lines() {
    let codebase = ingest(&runtime_src()).unwrap();
    assert!(codebase.warnings.is_empty(), "{:?}", codebase.warnings);
    let expected = independent_fns();
    assert!(expected.values().map(Vec::len).sum::<usize>() > 200);
    for (file, spans) in &expected {
        let mut found: Vec<(String, usize, usize)> = codebase
            .scopes
            .iter()
            .filter(|s| {
                &s.file == file && matches!(s.kind, ScopeKind::Function | ScopeKind::Method)
            })
            .map(|s| (s.name.clone(), s.start_line, s.end_line))
            .collect();
        let mut wanted: Vec<(String, usize, usize)> = spans
            .iter()
            .map(|s| (s.name.clone(), s.start, s.end))
            .collect();
        found.sort();
        wanted.sort();
        assert_eq!(found, wanted, "functions of {file}");
    }
}

#[test]
fn file_line_counts_match_the_text() {
    let codebase = ingest(&runtime_src()).unwrap();
    let root = runtime_src();
    let mut paths: Vec<String> = codebase.files.iter().map(|f| f.path.clone()).collect();
    paths.sort();
    assert_eq!(paths, common::rust_files(&root));
    for file in &codebase.files {
        let text = std::fs::read_to_string(root.join(&file.path)).unwrap();
        assert_eq!(file.line_count, text.lines().count(), "{}", file.path);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ten_longest_functions_match_an_independent_count() {
    let (_dir, db) = temp_db();
    // Line counts need no embeddings: the runtime's thousand doc comments stay unembedded.
    let prepared = prepare_without_embeddings(&runtime_src(), &db).unwrap();
    let answer = prepared
        .registry
        .call(
            "query_entities",
            json!({
                "entity_type": "Scope",
                "conditions": [{"field": "kind", "operator": "IN", "value": ["function", "method"]}],
                "order_by": {"field": "line_count", "direction": "DESC"},
                "limit": 10
            }),
        )
        .await
        .unwrap();

    let mut independent: Vec<(usize, String, usize, String)> = independent_fns()
        .into_iter()
        .flat_map(|(file, spans)| {
            spans
                .into_iter()
                .map(move |s| (s.lines(), file.clone(), s.start, s.name))
        })
        .collect();
    independent.sort_by_key(|e| std::cmp::Reverse(e.0));
    // Counting stops at 1,000 ("at least"): the exact count is aggregate_entities' job.
    assert_eq!(answer["total"], independent.len().min(1_000));
    assert_eq!(answer["total_exact"], independent.len() < 1_000);

    let results = answer["results"].as_array().unwrap();
    assert_eq!(results.len(), 10);
    let counts: Vec<u64> = results
        .iter()
        .map(|r| r["line_count"].as_f64().unwrap() as u64)
        .collect();
    let expected: Vec<u64> = independent[..10].iter().map(|e| e.0 as u64).collect();
    assert_eq!(counts, expected);

    // the longest one is a function the scan found with that many lines, at that place
    let top = &results[0];
    let place = (
        top["line_count"].as_f64().unwrap() as usize,
        top["file"].as_str().unwrap().to_string(),
        top["startLine"].as_f64().unwrap() as usize,
        top["name"].as_str().unwrap().to_string(),
    );
    assert!(independent.contains(&place), "{place:?} not in the scan");
}
