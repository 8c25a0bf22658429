//! Hostile arguments: no argument crashes the process, every call ends by its deadline, and the
//! connection works afterwards.
#![cfg(feature = "sqlite")]

mod sql_fixtures;

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sql_fixtures::seeded;
use toolforge::sql::database::is_interrupt;
use toolforge::sql::glob::GlobPattern;
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
    let output = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", name, "--nocapture", "--test-threads", "1"])
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
    .with_timeout(Duration::from_millis(50))
    .build();
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
/// checks).
#[test]
fn the_deadline_stops_sqlite_itself() {
    let (_dir, spec, db) = seeded();
    add_long_scopes(&db, &spec, &"a".repeat(200_000), 1);
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
    let conn = toolforge::sql::rusqlite::Connection::open_in_memory().unwrap();
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
    let plan: Vec<String> = db.read_blocking(|conn| {
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
    });
    assert!(
        plan.iter().any(|step| step.contains("USING INDEX")),
        "{plan:?}"
    );
}
