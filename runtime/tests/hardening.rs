//! Hostile arguments: no argument crashes the process, every call ends by its deadline, and the
//! connection works afterwards.
#![cfg(feature = "sqlite")]

use crate::sql_fixtures;

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sql_fixtures::seeded;
use toolforge::__private::GlobPattern;
use toolforge::__private::is_interrupt;
use toolforge::sql::{Database, registry};
use toolforge::{CallBudget, CallLimits, ErrorCode, ToolRegistry};

/// Adds scopes whose `source` is `text`, with ids `long-0`, `long-1`, ...
fn add_long_scopes(db: &Database, spec: &toolforge::spec::SchemaSpec, text: &str, count: usize) {
    let lines: String = (0..count)
        .map(|i| {
            format!(
                "{}\n",
                json!({"entity": "Scope", "data": {"uuid": format!("long-{i}"), "name": format!("long{i}"), "source": text}})
            )
        })
        .collect();
    db.import_jsonl(spec, lines.as_bytes()).expect("import");
}

fn multi_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

const CHILD: &str = "TOOLFORGE_HARDENING_CHILD";

/// Runs the test `name` of this binary in a child process (so that a crash kills the child,
/// not the test harness) and returns whether it passed, with its output.
fn in_child(name: &str) -> (bool, String) {
    // The test's full name in this binary: its module path without the crate's name.
    let name = match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    };
    let output = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", &name, "--nocapture", "--test-threads", "1"])
        .env(CHILD, "1")
        .output()
        .expect("run the child");
    let text = format!(
        "status: {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// The calls that reached SQLite's recursive GLOB matcher with some 19,000 `*a` groups: every
/// way a pattern comes in. Run in a child by `deep_glob_patterns_do_not_crash_the_process`.
#[test]
fn deep_glob_patterns_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let (_dir, spec, db) = seeded();
    let row = "a".repeat(20_000);
    add_long_scopes(&db, &spec, &row, 1);
    let pattern = "*a".repeat(19_000);
    assert!(pattern.len() < 50_000, "under the pattern cap");
    let registry = registry(spec, db).expect("registry");
    let glob = json!([{"field": "source", "operator": "GLOB", "value": pattern}]);
    let calls = [
        (
            "glob_search",
            json!({"entity_type": "Scope", "field": "source", "pattern": pattern}),
        ),
        (
            "query_entities",
            json!({"entity_type": "Scope", "conditions": glob}),
        ),
        (
            "explore_relationships",
            json!({"start_entity_type": "Scope", "start_conditions": glob, "relationship_type": "DEFINED_IN"}),
        ),
    ];
    multi_thread_runtime().block_on(async {
        for (tool, arguments) in &calls {
            let answer = registry.call(tool, arguments.clone()).await;
            let answer = answer.unwrap_or_else(|e| panic!("{tool}: {e}"));
            if *tool != "explore_relationships" {
                assert_eq!(answer["results"][0]["uuid"], "long-0", "{tool}");
            }
        }
        let batch = json!({"calls": calls.iter().map(|(tool, args)| json!({"tool": tool, "args": args})).collect::<Vec<_>>()});
        let answer = registry.call("batch", batch).await.expect("batch");
        for result in answer["results"].as_array().unwrap() {
            assert_eq!(result["ok"], true, "{result}");
        }
    });
    println!("the process survived every deep pattern");
}

#[test]
fn deep_glob_patterns_do_not_crash_the_process() {
    let (passed, output) = in_child("deep_glob_patterns_child");
    assert!(passed, "{output}");
    assert!(
        output.contains("the process survived every deep pattern"),
        "{output}"
    );
}

/// A slow GLOB (one long row, a long literal between two stars) and a slow REGEX (many rows)
/// end with a `timeout` error at a small deadline, and the next calls work.
#[test]
fn slow_calls_time_out_and_the_connections_work_afterwards() {
    let (_dir, spec, db) = seeded();
    add_long_scopes(&db, &spec, &"a".repeat(100_000), 1);
    add_long_scopes(&db, &spec, &"ab".repeat(2_000), 400);
    let registry = toolforge::sql::tools::register_database_tools(
        ToolRegistry::standard().unwrap(),
        spec,
        db.clone(),
    )
    .unwrap()
    .with_tool_limits(
        "query_entities",
        CallLimits::default().timeout(Some(Duration::from_millis(50))),
    )
    .unwrap()
    .build();
    assert_eq!(registry.timeout(), Some(Duration::from_secs(30)));
    let slow_glob = format!("*{}b*", "a".repeat(40_000));
    let slow_calls = [
        json!({"entity_type": "Scope", "conditions": [{"field": "source", "operator": "GLOB", "value": slow_glob}]}),
        json!({"entity_type": "Scope", "conditions": [{"field": "source", "operator": "REGEX", "value": "(?:a|b){1,500}c"}]}),
    ];
    multi_thread_runtime().block_on(async {
        for arguments in &slow_calls {
            let error = registry
                .call("query_entities", arguments.clone())
                .await
                .expect_err("the slow call cannot finish within 50 ms");
            assert_eq!(error.code, ErrorCode::Timeout, "{error}");
            assert_eq!(error.details.as_ref().unwrap()["timeout_ms"], 50);
            // Every pooled connection answers the next calls.
            for _ in 0..db.reader_count() * 2 {
                let answer = registry
                    .call(
                        "get_entity_by_id",
                        json!({"entity_type": "Scope", "id_value": "s1"}),
                    )
                    .await
                    .expect("a fast call after the timeout");
                assert_eq!(answer["record"]["name"], "parseConfig");
            }
        }
    });
}

/// The deadline is enforced inside SQLite, not only by dropping the call: a read run with a
/// budget whose deadline passes fails with `SQLITE_INTERRUPT` by itself, for a statement that
/// loops in SQLite (the progress handler) and for one long GLOB match (the matcher's own
/// checks), one long REGEX match over two 1 MB values (the lazy DFA's own checks: the regex
/// crate's match ran for a minute).
#[test]
fn the_deadline_stops_sqlite_itself() {
    let (_dir, spec, db) = seeded();
    add_long_scopes(&db, &spec, &"a".repeat(200_000), 1);
    add_long_scopes(&db, &spec, &"ab".repeat(500_000), 2);
    let budget = CallBudget::new(
        "test",
        CallLimits::default().timeout(Some(Duration::from_millis(50))),
    );
    let statements = [
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) \
         SELECT count(*) FROM c"
            .to_string(),
        format!(
            "SELECT count(*) FROM scope WHERE toolforge_glob('*{}b*', source)",
            "a".repeat(40_000)
        ),
        "SELECT count(*) FROM scope WHERE regexp('(?:a|b){1,5000}c', source)".to_string(),
    ];
    multi_thread_runtime().block_on(async {
        for sql in statements {
            let read = db.read(move |conn| conn.query_row(&sql, [], |r| r.get::<_, i64>(0)));
            let result = budget.scope(read).await.expect("the read ran");
            let error = result.expect_err("the statement cannot finish within 50 ms");
            assert!(is_interrupt(&error), "{error}");
            let n: i64 = db
                .read(|c| c.query_row("SELECT count(*) FROM file", [], |r| r.get(0)))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(n, 2);
        }
    });
}

/// A REGEX match that cannot stop (Unicode word boundaries next to non-ASCII text) is refused
/// when its work is beyond the limit, with the limit and what to write instead; the same
/// pattern with ASCII boundaries answers.
#[test]
fn a_regex_match_that_cannot_stop_is_refused_past_its_budget() {
    let (_dir, spec, db) = seeded();
    add_long_scopes(&db, &spec, &"é".repeat(500_000), 1);
    let registry = registry_with_limits(spec, db, CallLimits::default());
    let call = |pattern: &str| {
        let arguments = json!({"entity_type": "Scope", "conditions": [{"field": "source", "operator": "REGEX", "value": pattern}]});
        let registry = registry.clone();
        async move { registry.call("query_entities", arguments).await }
    };
    multi_thread_runtime().block_on(async {
        let error = call(r"\b(?:a|b){1,500}\b").await.expect_err("refused");
        assert_eq!(error.code, ErrorCode::InvalidArguments, "{error}");
        assert!(error.message.contains("(?-u:\\b)"), "{error}");
        assert_eq!(error.details.as_ref().unwrap()["limit"], "regex_work");
        let answer = call(r"(?-u:\b)(?:a|b){1,500}(?-u:\b)")
            .await
            .expect("ASCII boundaries answer");
        assert_eq!(answer["returned"], 0, "{answer}");
    });
}

#[test]
fn calls_have_a_deadline_and_an_answer_cap_by_default() {
    let registry = ToolRegistry::standard().unwrap().build();
    assert_eq!(registry.timeout(), Some(Duration::from_secs(30)));
    assert_eq!(registry.limits().max_answer_bytes, Some(1 << 20));
    let (_dir, spec, db) = seeded();
    let registry = registry_with_limits(spec, db, CallLimits::default());
    assert_eq!(registry.limits_for("query_entities"), CallLimits::default());
}

fn registry_with_limits(
    spec: Arc<toolforge::spec::SchemaSpec>,
    db: Database,
    limits: CallLimits,
) -> Arc<ToolRegistry> {
    toolforge::sql::tools::register_database_tools(ToolRegistry::standard().unwrap(), spec, db)
        .unwrap()
        .with_limits(limits)
        .build()
}

/// The matcher agrees with SQLite's own GLOB on every pattern over a small alphabet that
/// includes the pattern characters (checked against the built-in `glob` of a plain
/// connection).
#[test]
fn the_glob_matcher_agrees_with_sqlite() {
    use proptest::prelude::*;
    let conn = toolforge::sql::sqlite::rusqlite::Connection::open_in_memory().unwrap();
    let alphabet = prop::sample::select(vec!['a', 'b', 'é', '*', '?', '[', ']', '^', '-', 'c']);
    let text = prop::collection::vec(alphabet.clone(), 0..8)
        .prop_map(|chars| chars.into_iter().collect::<String>());
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 4_000,
        ..Default::default()
    });
    runner
        .run(&(text.clone(), text), |(pattern, text)| {
            let sqlite: bool = conn
                .query_row("SELECT glob(?1, ?2)", (&pattern, &text), |r| r.get(0))
                .unwrap();
            prop_assert_eq!(
                GlobPattern::new(&pattern).is_match(&text),
                sqlite,
                "{:?} GLOB {:?}",
                text,
                pattern
            );
            Ok(())
        })
        .unwrap();
}

/// `toolforge_glob` gives the same answers as the `GLOB` operator through the tools, and an
/// index still serves a literal prefix.
#[test]
fn glob_through_the_tools_keeps_its_answers() {
    let (_dir, spec, db) = seeded();
    let registry = registry(spec, db.clone()).unwrap();
    multi_thread_runtime().block_on(async {
        let cases: [(&str, &[&str]); 5] = [
            ("parse*", &["s1", "s3"]),
            ("*arse*", &["s1", "s2", "s3"]),
            ("[pP]arse?", &["s2"]),
            ("render%_\\*", &[]),
            ("render%_[*]", &["s4"]),
        ];
        for (pattern, expected) in cases {
            let answer = registry
                .call(
                    "glob_search",
                    json!({"entity_type": "Scope", "field": "name", "pattern": pattern}),
                )
                .await
                .unwrap();
            let ids: Vec<&str> = answer["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["uuid"].as_str().unwrap())
                .collect();
            assert_eq!(ids, expected, "{pattern}");
        }
    });
    let plan: Vec<String> = db
        .read_blocking(|conn| {
            let mut statement = conn
                .prepare(
                    "EXPLAIN QUERY PLAN SELECT uuid FROM scope AS n WHERE n.name >= 'parse' \
                 AND n.name < 'parsf' AND toolforge_glob('parse*', CAST(n.name AS TEXT))",
                )
                .unwrap();
            statement
                .query_map([], |r| r.get::<_, String>(3))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        })
        .expect("a SQLite read");
    assert!(
        plan.iter().any(|step| step.contains("USING INDEX")),
        "{plan:?}"
    );
}

/// Follows `next_offset` from 0 until `has_more` is false: every page's results, in order.
async fn all_pages(
    registry: &ToolRegistry,
    tool: &str,
    arguments: serde_json::Value,
) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let mut pages = Vec::new();
    let mut results = Vec::new();
    let mut offset = json!(0);
    loop {
        let mut arguments = arguments.clone();
        arguments["offset"] = offset.clone();
        let page = registry.call(tool, arguments).await.unwrap();
        results.extend(page["results"].as_array().unwrap().iter().cloned());
        assert_eq!(page["truncated"], page["has_more"], "{page}");
        if page["has_more"] == false {
            assert!(page["next_offset"].is_null(), "{page}");
            assert!(page.get("truncated_by").is_none(), "{page}");
            pages.push(page);
            break;
        }
        offset = page["next_offset"].clone();
        pages.push(page);
        assert!(pages.len() < 100, "paging does not end");
    }
    (pages, results)
}

/// Every list tool pages with `offset`: following `next_offset` gives exactly the records of
/// one large page, in the same order, for one leg or several.
#[test]
fn list_tools_page_with_offset_and_next_offset() {
    let (_dir, spec, db) = seeded();
    let registry = registry(spec.clone(), db.clone()).unwrap();
    let two_rows = toolforge::sql::registry_builder(spec, db)
        .unwrap()
        .with_max_rows(2)
        .build();
    let cases = [
        ("query_entities", json!({"entity_type": "Scope"})),
        (
            "glob_search",
            json!({"entity_type": "Scope", "field": "file", "pattern": "src/*"}),
        ),
        (
            "explore_relationships",
            json!({"start_entity_type": "Scope", "relationship_type": "CONSUMES", "direction": "both"}),
        ),
        (
            "explore_relationships",
            json!({"start_entity_type": "Scope", "relationship_type": "DEFINED_IN"}),
        ),
        (
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["s5", "zz", "s1", "s5", "s3", "s2"]}),
        ),
    ];
    multi_thread_runtime().block_on(async {
        for (tool, arguments) in cases {
            let mut whole = arguments.clone();
            if tool != "get_entities_by_ids" {
                whole["limit"] = json!(100);
            }
            let whole = registry.call(tool, whole).await.unwrap();
            assert_eq!(whole["has_more"], false, "{whole}");
            assert_eq!(whole["offset"], 0);
            let mut paged = arguments.clone();
            let (pages, results) = if tool == "get_entities_by_ids" {
                let (pages, results) = all_pages(&two_rows, tool, paged).await;
                assert_eq!(
                    pages[0]["truncated_by"],
                    json!({"limit": "max_rows", "value": 2})
                );
                assert_eq!(pages[1]["missing"], json!([]), "{}", pages[1]);
                assert_eq!(pages[0]["missing"], json!(["zz"]));
                (pages, results)
            } else {
                paged["limit"] = json!(1);
                let (pages, results) = all_pages(&registry, tool, paged).await;
                assert_eq!(
                    pages[0]["truncated_by"],
                    json!({"limit": "limit", "value": 1})
                );
                assert_eq!(pages[0]["total"], whole["total"]);
                (pages, results)
            };
            assert!(pages.len() > 1, "{tool}: {pages:?}");
            assert_eq!(&results, whole["results"].as_array().unwrap(), "{tool}");
            // Past the end: nothing, and nothing more.
            let mut beyond = arguments.clone();
            beyond["offset"] = json!(1000);
            let beyond = registry.call(tool, beyond).await.unwrap();
            assert_eq!(beyond["returned"], 0, "{beyond}");
            assert_eq!(beyond["has_more"], false);
            if tool != "get_entities_by_ids" {
                assert_eq!(beyond["total"], whole["total"], "{tool}");
            }
        }
        let negative = registry
            .call(
                "query_entities",
                json!({"entity_type": "Scope", "offset": -1}),
            )
            .await
            .unwrap_err();
        assert_eq!(negative.code, ErrorCode::InvalidArguments);
    });
}

/// Answers stay within `max_answer_bytes`: list tools stop before the cap and say so (and the
/// rest is reachable with `next_offset`), a single record over the cap and any other answer
/// over it are `too_large` errors, and `max_rows` caps a call's `limit`.
#[test]
fn answers_stay_within_their_caps() {
    let (_dir, spec, db) = seeded();
    add_long_scopes(&db, &spec, &"x".repeat(1_000), 30);
    let cap = 8_000;
    let registry = registry_with_limits(
        spec.clone(),
        db.clone(),
        CallLimits::default().max_answer_bytes(Some(cap)),
    );
    let long = json!({"entity_type": "Scope", "conditions": [{"field": "uuid", "operator": "STARTS WITH", "value": "long-"}], "limit": 100});
    multi_thread_runtime().block_on(async {
        let page = registry.call("query_entities", long.clone()).await.unwrap();
        assert!(page.to_string().len() <= cap, "{}", page.to_string().len());
        assert_eq!(page["total"], 30);
        assert_eq!(page["has_more"], true);
        assert_eq!(
            page["truncated_by"],
            json!({"limit": "max_answer_bytes", "value": cap})
        );
        let (pages, results) = all_pages(&registry, "query_entities", long.clone()).await;
        assert!(pages.iter().all(|p| p.to_string().len() <= cap));
        let ids: Vec<&str> = results
            .iter()
            .map(|r| r["uuid"].as_str().unwrap())
            .collect();
        let mut expected: Vec<String> = (0..30).map(|i| format!("long-{i}")).collect();
        expected.sort();
        assert_eq!(ids, expected);

        let tiny = registry_with_limits(
            spec.clone(),
            db.clone(),
            CallLimits::default().max_answer_bytes(Some(900)),
        );
        let error = tiny.call("query_entities", long.clone()).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::TooLarge, "{error}");
        assert_eq!(error.to_json()["error"], "too_large");
        assert_eq!(error.details.as_ref().unwrap()["offset"], 0);
        let error = tiny
            .call(
                "get_entity_by_id",
                json!({"entity_type": "Scope", "id_value": "long-0"}),
            )
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::TooLarge, "{error}");
        assert_eq!(error.details.as_ref().unwrap()["max_answer_bytes"], 900);

        let rows = registry_with_limits(
            spec.clone(),
            db.clone(),
            CallLimits::default().max_rows(Some(3)),
        );
        let page = rows.call("query_entities", long.clone()).await.unwrap();
        assert_eq!(page["returned"], 3);
        assert_eq!(
            page["truncated_by"],
            json!({"limit": "max_rows", "value": 3})
        );
        assert_eq!(page["next_offset"], 3);
    });
}

/// A batch of 16 calls whose answers each fill the cap stays within the cap as a whole (one
/// probe answered 160 MB): in call order, the results that do not fit are `too_large`
/// errors, and per tool limits apply inside the batch too.
#[test]
fn a_batch_answer_stays_within_its_cap() {
    let (_dir, spec, db) = seeded();
    add_long_scopes(&db, &spec, &"y".repeat(25_000), 60);
    let registry = registry(spec, db).unwrap();
    let call = json!({"tool": "query_entities", "args": {"entity_type": "Scope", "limit": 100}});
    multi_thread_runtime().block_on(async {
        let answer = registry
            .call("batch", json!({"calls": vec![call; 16]}))
            .await
            .unwrap();
        let bytes = answer.to_string().len();
        assert!(bytes <= 1 << 20, "{bytes}");
        let results = answer["results"].as_array().unwrap();
        assert_eq!(results.len(), 16);
        assert_eq!(results[0]["ok"], true);
        assert_eq!(
            results[0]["result"]["truncated_by"]["limit"],
            "max_answer_bytes"
        );
        for result in &results[1..] {
            assert_eq!(result["ok"], false, "{result}");
            assert_eq!(result["error"]["error"], "too_large", "{result}");
        }
    });
}

/// Offsets at the edge of a 64-bit integer: every paged tool refuses one past 2^62 as
/// `invalid_arguments` naming the bound, and answers an empty last page at 2^62 itself (the
/// page and its capped count still fit in a 64-bit integer there).
async fn extreme_offsets(spec: &Arc<toolforge::spec::SchemaSpec>, db: &Database) {
    use toolforge::sql::tools::DatabaseTool;
    let calls = [
        (DatabaseTool::QueryEntities, json!({"entity_type": "Scope"})),
        (
            DatabaseTool::QueryEntitiesByNumberRange,
            json!({"entity_type": "Scope", "field": "startLine", "min": 0}),
        ),
        (
            DatabaseTool::QueryEntitiesByPattern,
            json!({"entity_type": "Scope", "field": "name", "pattern": "*", "pattern_type": "glob"}),
        ),
        (
            DatabaseTool::GlobSearch,
            json!({"entity_type": "Scope", "field": "name", "pattern": "*"}),
        ),
    ];
    for (tool, arguments) in calls {
        for offset in [i64::MAX, i64::MAX - 1000, (1 << 62) + 1] {
            let mut arguments = arguments.clone();
            arguments["offset"] = json!(offset);
            let error = tool
                .call(spec.clone(), db.clone(), arguments.clone())
                .await
                .expect_err("refused");
            assert_eq!(
                error.code,
                ErrorCode::InvalidArguments,
                "{tool:?} {arguments}"
            );
            assert!(
                error
                    .message
                    .contains("`offset` must be at most 4611686018427387904"),
                "{tool:?}: {}",
                error.message
            );
        }
        let mut arguments = arguments.clone();
        arguments["offset"] = json!(1_i64 << 62);
        let answer = tool
            .call(spec.clone(), db.clone(), arguments.clone())
            .await
            .unwrap_or_else(|error| panic!("{tool:?} {arguments}: {}", error.to_json()));
        let page = answer["results"]
            .as_array()
            .or(answer["matches"].as_array())
            .unwrap_or_else(|| panic!("{tool:?}: {answer}"));
        assert!(page.is_empty(), "{tool:?}: {answer}");
        assert_eq!(answer["has_more"], json!(false), "{tool:?}: {answer}");
    }
}

#[tokio::test]
async fn extreme_offsets_are_refused_or_an_empty_last_page_on_sqlite() {
    let (_dir, spec, db) = seeded();
    extreme_offsets(&spec, &db).await;
}

#[tokio::test]
async fn extreme_offsets_are_refused_or_an_empty_last_page_on_postgres() {
    let Some(base) = crate::pg_support::url(
        "hardening::extreme_offsets_are_refused_or_an_empty_last_page_on_postgres",
    ) else {
        return;
    };
    let (db, _url) = crate::pg_support::fresh(&base, "extreme_offsets");
    let spec = Arc::new(sql_fixtures::code_rag_spec());
    db.init(&spec).unwrap();
    db.import_jsonl(
        &spec,
        sql_fixtures::jsonl(&sql_fixtures::seed_lines()).as_bytes(),
    )
    .unwrap();
    extreme_offsets(&spec, &db).await;
}
