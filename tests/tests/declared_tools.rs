//! Declared tools end to end, on SQLite and PostgreSQL: the generator compiles the config's
//! `toolforge.declared_tools`, the registry serves them beside the generated tools, answers
//! match a hand-written query (differential), pages follow `limit` / `offset`, both backends
//! answer alike, and arguments are checked before any query runs (by the tool itself too,
//! not only by the registry's schema check).

use crate::pg_support;

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::ErrorCode;
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge_generator::{CompileOptions, compile_str};

const CONFIG: &str = include_str!("../fixtures/declared/library.yaml");

/// Loans over two members and two branches; due dates before and after 2024-06-01.
fn loans() -> Vec<Value> {
    let mut lines = Vec::new();
    let statuses = ["open", "returned"];
    for i in 0..40 {
        lines.push(json!({"entity": "Loan", "data": {
            "id": format!("l{i:02}"),
            "member_id": format!("m{}", i % 3),
            "title": format!("{}{}", "t".repeat(1 + i % 7), i),
            "status": statuses[i % 4 / 3],
            "due_at": format!("2024-{:02}-{:02}T00:00:00Z", 1 + i % 12, 1 + i % 27),
            "fee": (i % 9) as f64 * 1.5,
            "branch": if i % 2 == 0 { "north" } else { "south" },
        }}));
    }
    lines
}

fn spec() -> Arc<SchemaSpec> {
    let compiled = compile_str(CONFIG, "library.yaml", &CompileOptions::default())
        .unwrap_or_else(|errors| panic!("{}", errors.render()));
    Arc::new(compiled.spec)
}

fn seed(db: &Database, spec: &SchemaSpec) {
    db.init(spec).unwrap();
    let text: String = loans().iter().map(|line| format!("{line}\n")).collect();
    db.import_jsonl(spec, text.as_bytes()).unwrap();
}

fn ids(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| record["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Calls `tool` and checks the answer against the tool's declared `outputSchema`.
async fn call(registry: &toolforge::ToolRegistry, tool: &str, arguments: Value) -> Value {
    let answer = registry
        .call(tool, arguments.clone())
        .await
        .unwrap_or_else(|error| panic!("{tool} {arguments}: {error:?}"));
    let definition = registry.get(tool).expect("a registered tool").definition();
    toolforge_tests::assert_answer_matches_output_schema(definition, &arguments, &answer);
    answer
}

#[tokio::test]
async fn declared_tools_answer_like_the_hand_written_query_on_sqlite() {
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    let db = Database::open(&path).unwrap();
    seed(&db, &spec);
    let registry = toolforge::sql::registry(spec.clone(), db).unwrap();
    let names: Vec<&str> = registry.names().collect();
    assert!(names.contains(&"open_loans_of_member") && names.contains(&"expensive_loans"));

    let direct = toolforge::sql::sqlite::rusqlite::Connection::open(&path).unwrap();
    for member in ["m0", "m1", "m2", "m9"] {
        for (before, cutoff) in [
            ("2024-03-01", "2024-03-01T00:00:00Z"),
            ("2024-07-15T02:00:00+02:00", "2024-07-15T00:00:00Z"),
            ("2030-01-01", "2030-01-01T00:00:00Z"),
        ] {
            let answer = call(
                &registry,
                "open_loans_of_member",
                json!({"member": member, "before": before}),
            )
            .await;
            let mut statement = direct
                .prepare(
                    "SELECT id FROM loan WHERE status = 'open' AND member_id = ?1 \
                     AND due_at < ?2 ORDER BY due_at ASC, id ASC LIMIT 50",
                )
                .unwrap();
            let expected: Vec<String> = statement
                .query_map((member, cutoff), |row| row.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(ids(&answer), expected, "{member} {before}");
            assert_eq!(answer["total"], json!(expected.len()));
        }
    }
    // The default of `before` is `now`: every loan of 2024 is before it.
    let everything = call(&registry, "open_loans_of_member", json!({"member": "m1"})).await;
    let open_of_m1 = loans()
        .iter()
        .filter(|l| l["data"]["member_id"] == "m1" && l["data"]["status"] == "open")
        .count();
    assert_eq!(everything["total"], json!(open_of_m1));

    for (min_fee, min_len) in [(0.0, 0), (3.0, 2), (7.5, 4), (100.0, 0)] {
        let mut pages = Vec::new();
        let mut offset = 0;
        loop {
            let page = call(
                &registry,
                "expensive_loans",
                json!({"min_fee": min_fee, "min_len": min_len, "limit": 4, "offset": offset}),
            )
            .await;
            pages.extend(ids(&page));
            match page["next_offset"].as_u64() {
                Some(next) => offset = next,
                None => break,
            }
        }
        let mut statement = direct
            .prepare(
                "SELECT id FROM loan WHERE fee >= ?1 AND length(title) > ?2 \
                 ORDER BY fee * 2 DESC, title ASC, id ASC",
            )
            .unwrap();
        let expected: Vec<String> = statement
            .query_map((min_fee, min_len), |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(pages, expected, "{min_fee} {min_len}");
    }
}

/// Calls the tool itself (no registry, so no schema check first): its own checks refuse
/// what the schema would, before any query runs.
#[tokio::test]
async fn arguments_are_checked_by_the_tool_before_any_query() {
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    seed(&db, &spec);
    let tools = toolforge::sql::tools::database_tools(spec.clone(), db);
    let tool = tools
        .iter()
        .find(|tool| tool.definition().name == "open_loans_of_member")
        .unwrap();
    let expensive = tools
        .iter()
        .find(|tool| tool.definition().name == "expensive_loans")
        .unwrap();
    let context = toolforge::ToolContext::default();
    let refused = [
        (tool, json!({}), "`member` is required"),
        (tool, json!({"member": 7}), "expected a string"),
        (tool, json!({"member": "x1"}), "does not match the pattern"),
        (
            tool,
            json!({"member": "m1", "before": "a while"}),
            "not a date",
        ),
        (
            tool,
            json!({"member": "m1", "branch": "north"}),
            "`branch` is not an argument",
        ),
        (
            tool,
            json!({"member": "m1", "limit": 51}),
            "`limit` must be between 1 and 50",
        ),
        (
            tool,
            json!({"member": "m1", "offset": -1}),
            "`offset` must be 0 or more",
        ),
        (
            tool,
            json!({"member": "m1' OR '1'='1"}),
            "does not match the pattern",
        ),
        (expensive, json!({"min_fee": -1}), "below the minimum 0"),
        (
            expensive,
            json!({"min_fee": 1, "min_len": 1.5}),
            "whole number",
        ),
        (expensive, json!({"min_fee": "1"}), "expected a number"),
        (expensive, json!([1]), "expected an object"),
    ];
    for (tool, arguments, needle) in refused {
        let error = tool.call(arguments.clone(), &context).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArguments, "{arguments}");
        assert!(
            error.message.contains(needle),
            "{arguments}: {}",
            error.message
        );
    }
    // A hostile value is a bound value: it matches nothing, and changes nothing.
    let member = "m1' OR 1=1 --";
    let answer = expensive
        .call(json!({"min_fee": 0, "min_len": 0}), &context)
        .await
        .unwrap();
    assert_eq!(answer["total"], json!(40));
    assert!(!ids(&answer).iter().any(|id| id == member));
}

/// The same calls on both backends give the same answers.
#[tokio::test]
async fn declared_tools_answer_alike_on_sqlite_and_postgres() {
    let Some(base) =
        pg_support::url("declared_tools::declared_tools_answer_alike_on_sqlite_and_postgres")
    else {
        return;
    };
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = Database::open(dir.path().join("library.db")).unwrap();
    seed(&sqlite, &spec);
    let (pg, _url) = pg_support::fresh(&base, "declared_tools");
    seed(&pg, &spec);
    let on_sqlite = toolforge::sql::registry(spec.clone(), sqlite).unwrap();
    let on_postgres = toolforge::sql::registry(spec.clone(), pg).unwrap();
    let mut calls = Vec::new();
    for member in ["m0", "m1", "m2"] {
        for before in ["2024-03-01", "2024-09-01", "2031-01-01"] {
            calls.push((
                "open_loans_of_member",
                json!({"member": member, "before": before, "limit": 3}),
            ));
        }
    }
    for (min_fee, min_len) in [(0, 0), (3, 2), (7, 4), (100, 0)] {
        for offset in [0, 5] {
            calls.push((
                "expensive_loans",
                json!({"min_fee": min_fee, "min_len": min_len, "limit": 5, "offset": offset}),
            ));
        }
    }
    let mut non_empty = 0;
    for (tool, arguments) in calls {
        let a = call(&on_sqlite, tool, arguments.clone()).await;
        let b = call(&on_postgres, tool, arguments.clone()).await;
        assert_eq!(a, b, "{tool} {arguments}");
        non_empty += usize::from(a["returned"].as_u64().unwrap() > 0);
    }
    assert!(non_empty > 8, "the calls should find records");
}

fn registry_for(
    spec: &Arc<SchemaSpec>,
    db: &Database,
    member: Option<&str>,
) -> Arc<toolforge::ToolRegistry> {
    let mut context = toolforge::ToolContext::new();
    if let Some(member) = member {
        context = context.with_value("member", member);
    }
    toolforge::sql::registry_builder(spec.clone(), db.clone())
        .unwrap()
        .with_context(context)
        .build()
}

/// A parameter bound to a context value is in no input schema and no dialect's export.
#[test]
fn context_bound_parameters_are_not_in_any_schema() {
    let spec = spec();
    let definitions = toolforge::sql::registry_definitions(&spec);
    let my_loans = definitions
        .iter()
        .find(|definition| definition.name == "my_loans")
        .unwrap();
    let properties = my_loans.input_schema["properties"].as_object().unwrap();
    let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["limit", "min_fee", "offset"]);
    assert!(my_loans.input_schema.get("required").is_none());
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    seed(&db, &spec);
    let registry = registry_for(&spec, &db, Some("m1"));
    for dialect in toolforge::Dialect::ALL {
        let export = registry.definitions_for(dialect);
        let entry = export
            .iter()
            .find(|tool| tool.to_string().contains("\"my_loans\""))
            .unwrap_or_else(|| panic!("{dialect:?}: my_loans is exported"));
        let text = entry.to_string();
        assert!(text.contains("\"min_fee\""), "{dialect:?}: {text}");
        assert!(!text.contains("\"member\""), "{dialect:?}: {text}");
    }
}

/// The host's value is the one used; the model cannot give one, and a call without the
/// context value (or with one that fails the parameter's checks) is refused.
#[tokio::test]
async fn context_bound_parameters_take_the_hosts_value_on_sqlite() {
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    let db = Database::open(&path).unwrap();
    seed(&db, &spec);
    let direct = toolforge::sql::sqlite::rusqlite::Connection::open(&path).unwrap();
    for member in ["m0", "m1", "m2", "m7"] {
        let registry = registry_for(&spec, &db, Some(member));
        for min_fee in [0.0, 4.5] {
            let answer = call(&registry, "my_loans", json!({"min_fee": min_fee})).await;
            let mut statement = direct
                .prepare(
                    "SELECT id FROM loan WHERE member_id = ?1 AND fee >= ?2 \
                     ORDER BY due_at DESC, id ASC",
                )
                .unwrap();
            let expected: Vec<String> = statement
                .query_map((member, min_fee), |row| row.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(ids(&answer), expected, "{member} {min_fee}");
            assert_eq!(expected.is_empty(), member == "m7");
        }
        // The model's own value is refused by the registry and by the tool, naming it.
        for arguments in [
            json!({"member": "m0"}),
            json!({"member": null, "min_fee": 1}),
        ] {
            let error = registry
                .call("my_loans", arguments.clone())
                .await
                .unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidArguments, "{arguments}");
            assert!(
                error.message.contains("`member` is set by the host"),
                "{}",
                error.message
            );
            assert_eq!(error.details.as_ref().unwrap()["path"], "member");
            let tool = registry.get("my_loans").unwrap();
            let error = tool
                .call(arguments.clone(), registry.context())
                .await
                .unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidArguments, "{arguments}");
            assert_eq!(error.details.as_ref().unwrap()["path"], "member");
        }
    }
    // No context value: denied, never run unbound; through batch as well.
    let unbound = registry_for(&spec, &db, None);
    let error = unbound.call("my_loans", json!({})).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::Unavailable);
    assert!(
        error.message.contains("context value `member`"),
        "{}",
        error.message
    );
    let batch = unbound
        .call(
            "batch",
            json!({"calls": [{"tool": "my_loans", "arguments": {}}]}),
        )
        .await
        .unwrap();
    assert_eq!(
        batch["results"][0]["error"]["error"], "unavailable",
        "{batch}"
    );
    // A context value that fails the parameter's checks is refused too.
    for hostile in ["x1", "m1' OR '1'='1", ""] {
        let registry = registry_for(&spec, &db, Some(hostile));
        let error = registry.call("my_loans", json!({})).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::Unavailable, "{hostile}");
        assert!(
            error.message.contains("does not match the pattern"),
            "{}",
            error.message
        );
    }
}

/// Context-bound parameters answer alike on both backends.
#[tokio::test]
async fn context_bound_parameters_answer_alike_on_sqlite_and_postgres() {
    let Some(base) = pg_support::url(
        "declared_tools::context_bound_parameters_answer_alike_on_sqlite_and_postgres",
    ) else {
        return;
    };
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = Database::open(dir.path().join("library.db")).unwrap();
    seed(&sqlite, &spec);
    let (pg, _url) = pg_support::fresh(&base, "declared_context");
    seed(&pg, &spec);
    let mut non_empty = 0;
    for member in ["m0", "m1", "m2", "m7"] {
        let on_sqlite = registry_for(&spec, &sqlite, Some(member));
        let on_postgres = registry_for(&spec, &pg, Some(member));
        for arguments in [json!({}), json!({"min_fee": 4.5, "limit": 3, "offset": 1})] {
            let a = call(&on_sqlite, "my_loans", arguments.clone()).await;
            let b = call(&on_postgres, "my_loans", arguments.clone()).await;
            assert_eq!(a, b, "{member} {arguments}");
            non_empty += usize::from(a["returned"].as_u64().unwrap() > 0);
        }
        let error = on_postgres
            .call("my_loans", json!({"member": "m0"}))
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArguments);
    }
    assert!(non_empty >= 6, "the calls should find records");
    let error = registry_for(&spec, &pg, None)
        .call("my_loans", json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::Unavailable);
}

/// List parameters (`array<string>`, `array<number>`, spelled as fields spell them) bound as
/// JSON and read by `contains(:list, field)`: the same records as a filter written here, on
/// SQLite and on PostgreSQL, with the default list when none is given.
#[tokio::test]
async fn list_parameters_match_the_hand_written_filter_on_both_backends() {
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = Database::open(dir.path().join("library.db")).unwrap();
    seed(&sqlite, &spec);
    let mut registries = vec![toolforge::sql::registry(spec.clone(), sqlite).unwrap()];
    if let Some(base) = pg_support::url(
        "declared_tools::list_parameters_match_the_hand_written_filter_on_both_backends",
    ) {
        let (pg, _url) = pg_support::fresh(&base, "declared_lists");
        seed(&pg, &spec);
        registries.push(toolforge::sql::registry(spec.clone(), pg).unwrap());
    }
    let expected = |members: &[&str], fees: &[f64]| -> Vec<String> {
        let mut ids: Vec<String> = loans()
            .iter()
            .map(|line| &line["data"])
            .filter(|loan| {
                members.contains(&loan["member_id"].as_str().unwrap())
                    && fees.contains(&loan["fee"].as_f64().unwrap())
            })
            .map(|loan| loan["id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    for registry in &registries {
        for (members, fees) in [
            (vec!["m0"], vec![0.0, 1.5, 3.0]),
            (vec!["m1", "m2"], vec![4.5, 6.0, 12.0]),
            (vec!["m0", "m1", "m2"], vec![7.5]),
            (vec!["nobody"], vec![0.0]),
        ] {
            let answer = call(
                registry,
                "loans_of_members",
                json!({"members": members, "fees": fees, "limit": 20}),
            )
            .await;
            assert_eq!(
                ids(&answer),
                expected(&members, &fees),
                "{members:?} {fees:?}"
            );
        }
        let defaults = call(registry, "loans_of_members", json!({"members": ["m2"]})).await;
        assert_eq!(ids(&defaults), expected(&["m2"], &[0.0, 1.5, 3.0]));
        assert!(!ids(&defaults).is_empty());
        let error = registry
            .call("loans_of_members", json!({"members": ["m0", 3]}))
            .await
            .expect_err("a number among member ids was accepted");
        assert_eq!(error.code, ErrorCode::InvalidArguments, "{error:?}");
        assert!(error.message.contains("members"), "{error:?}");
    }
}
