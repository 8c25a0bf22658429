//! Row rules (`toolforge.access`) end to end, on SQLite and PostgreSQL: a record outside the
//! rule is invisible through every tool family (query, lookup by id and by ids, relationships
//! from both ends, graph walks and rankings, aggregates, ranges, patterns, full-text, semantic
//! and hybrid search, change history, declared tools, batch), also with hostile arguments
//! (conditions that try `OR 1=1`, ids of hidden records, walks into hidden records,
//! aggregates that would count them); every answer validates against its tool's
//! `outputSchema`; a call without the context value sees no record of a ruled entity.

use crate::pg_support;
use crate::test_model;

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::{ErrorCode, ToolContext, ToolRegistry};
use toolforge_generator::{CompileOptions, compile_str};

use test_model::model;

const CONFIG: &str = include_str!("../fixtures/access/branches.yaml");

/// What hidden records carry in their titles and names: no answer may contain it.
const MARK: &str = "SECRET";

fn spec() -> Arc<SchemaSpec> {
    let compiled = compile_str(CONFIG, "branches.yaml", &CompileOptions::default())
        .unwrap_or_else(|errors| panic!("{}", errors.render()));
    Arc::new(compiled.spec)
}

/// North records are visible with `branch = north`; south ones (ids `ms*`, `ls*`) are not.
/// `mn1` borrowed two north loans and one south loan; the hidden `ms1` borrowed a south loan
/// and a north one.
fn lines() -> String {
    let mut lines = vec![
        json!({"entity": "Member", "data": {"id": "mn1", "name": "Ada", "branch": "north"}}),
        json!({"entity": "Member", "data": {"id": "mn2", "name": "Bo", "branch": "north"}}),
        json!({"entity": "Member", "data": {"id": "ms1", "name": "SECRET Cy", "branch": "south"}}),
        json!({"entity": "Shelf", "data": {"id": "sh1", "label": "atlases"}}),
    ];
    let loans = [
        (
            "ln1",
            "river maps of the north",
            2.0,
            "2024-01-10T00:00:00Z",
            "north",
        ),
        (
            "ln2",
            "a history of bridges",
            4.0,
            "2024-02-10T00:00:00Z",
            "north",
        ),
        (
            "ln3",
            "gardening for beginners",
            1.0,
            "2024-03-10T00:00:00Z",
            "north",
        ),
        ("ln4", "river fishing", 3.0, "2024-04-10T00:00:00Z", "north"),
        (
            "ls1",
            "SECRET river maps",
            50.0,
            "2024-01-11T00:00:00Z",
            "south",
        ),
        (
            "ls2",
            "SECRET bridges ledger",
            70.0,
            "2024-02-11T00:00:00Z",
            "south",
        ),
        (
            "ls3",
            "SECRET gardening notes",
            90.0,
            "2024-03-11T00:00:00Z",
            "south",
        ),
    ];
    for (id, title, fee, due_at, branch) in loans {
        lines.push(json!({"entity": "Loan", "data": {
            "id": id, "title": title, "fee": fee, "due_at": due_at, "branch": branch}}));
    }
    for (from, to) in [
        ("mn1", "ln1"),
        ("mn1", "ln2"),
        ("mn1", "ls1"),
        ("mn2", "ln3"),
        ("ms1", "ls2"),
        ("ms1", "ln4"),
    ] {
        lines.push(json!({"relationship": "BORROWED",
            "from": {"entity": "Member", "id": from}, "to": {"entity": "Loan", "id": to},
            "properties": {}}));
    }
    // `mn1` reaches `mn2` only through the hidden `ms1`.
    for (from, to) in [("mn1", "ms1"), ("ms1", "mn2"), ("mn2", "mn1")] {
        lines.push(json!({"relationship": "REFERRED",
            "from": {"entity": "Member", "id": from}, "to": {"entity": "Member", "id": to},
            "properties": {}}));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// A second import: one visible and one hidden loan change (so each has two changes).
fn updates() -> String {
    [
        json!({"entity": "Loan", "data": {"id": "ln1", "title": "river maps of the north, second edition",
            "fee": 2.5, "due_at": "2024-01-10T00:00:00Z", "branch": "north"}}),
        json!({"entity": "Loan", "data": {"id": "ls1", "title": "SECRET river maps, annotated",
            "fee": 55.0, "due_at": "2024-01-11T00:00:00Z", "branch": "south"}}),
    ]
    .iter()
    .map(|line| format!("{line}\n"))
    .collect()
}

fn seed(db: &Database, spec: &SchemaSpec) {
    db.init(spec).unwrap();
    db.import_jsonl(spec, lines().as_bytes()).unwrap();
    db.import_jsonl(spec, updates().as_bytes()).unwrap();
}

fn registry(spec: &Arc<SchemaSpec>, db: &Database, context: ToolContext) -> Arc<ToolRegistry> {
    toolforge::sql::registry_builder(spec.clone(), db.clone())
        .unwrap()
        .with_context(context)
        .build()
}

/// Calls `tool`, checks the answer against its `outputSchema` and that no hidden record shows.
async fn call(registry: &ToolRegistry, tool: &str, arguments: Value) -> Value {
    let answer = registry
        .call(tool, arguments.clone())
        .await
        .unwrap_or_else(|error| panic!("{tool} {arguments}: {error:?}"));
    let definition = registry.get(tool).expect("a registered tool").definition();
    toolforge_tests::assert_answer_matches_output_schema(definition, &arguments, &answer);
    let text = answer.to_string();
    assert!(
        !text.contains(MARK),
        "{tool} {arguments} shows a hidden record: {text}"
    );
    answer
}

/// Like [`call`], and no hidden id shows either (for calls that do not name one).
async fn call_clean(registry: &ToolRegistry, tool: &str, arguments: Value) -> Value {
    let answer = call(registry, tool, arguments.clone()).await;
    let text = answer.to_string();
    for hidden in ["\"ms1\"", "\"ls1\"", "\"ls2\"", "\"ls3\""] {
        assert!(
            !text.contains(hidden),
            "{tool} {arguments} shows {hidden}: {text}"
        );
    }
    answer
}

/// A call that must fail without showing anything hidden.
async fn refused(registry: &ToolRegistry, tool: &str, arguments: Value) -> ErrorCode {
    let error = registry
        .call(tool, arguments.clone())
        .await
        .expect_err(&format!("{tool} {arguments} should be refused"));
    assert!(!error.message.contains(MARK), "{tool}: {error:?}");
    error.code
}

fn ids(results: &Value) -> Vec<String> {
    let mut ids: Vec<String> = results
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {results}"))
        .iter()
        .filter_map(|record| record["id"].as_str().map(str::to_owned))
        .collect();
    ids.sort();
    ids
}

/// Every family, with the `north` context: what must show and what must not.
async fn every_family_hides_the_south(spec: &Arc<SchemaSpec>, db: &Database) {
    let north = registry(spec, db, ToolContext::new().with_value("branch", "north"));

    // query: plain, and with conditions trying to reach the hidden rows.
    let all = call_clean(
        &north,
        "query_entities",
        json!({"entity_type": "Loan", "limit": 50}),
    )
    .await;
    assert_eq!(ids(&all["results"]), ["ln1", "ln2", "ln3", "ln4"]);
    assert_eq!(all["total"], json!(4));
    for value in ["south", "north' OR 1=1 --", "x\" OR \"1\"=\"1"] {
        let hostile = call_clean(
            &north,
            "query_entities",
            json!({"entity_type": "Loan", "conditions": [{"field": "branch", "operator": "=", "value": value}]}),
        )
        .await;
        assert_eq!(hostile["total"], json!(0), "{value}");
    }
    let members = call_clean(&north, "query_entities", json!({"entity_type": "Member"})).await;
    assert_eq!(ids(&members["results"]), ["mn1", "mn2"]);
    // Computed aggregates over relationships count visible edges only: `mn1` borrowed a
    // hidden loan too, and the hidden `ms1` borrowed `ln4`.
    let mn1 = members["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "mn1")
        .unwrap();
    assert_eq!(mn1["loans"].as_f64(), Some(2.0), "{mn1}");
    assert_eq!(mn1["fees"].as_f64(), Some(6.5), "{mn1}");
    let ln4 = call_clean(
        &north,
        "get_entity_by_id",
        json!({"entity_type": "Loan", "id_value": "ln4"}),
    )
    .await;
    assert!(ln4.to_string().contains("\"borrowers\":0"), "{ln4}");
    let shelves = call_clean(&north, "query_entities", json!({"entity_type": "Shelf"})).await;
    assert_eq!(
        shelves["total"],
        json!(1),
        "an entity without a rule is not restricted"
    );
    call_clean(
        &north,
        "glob_search",
        json!({"entity_type": "Loan", "field": "title", "pattern": "*"}),
    )
    .await;

    // lookup by id and by ids.
    assert_eq!(
        refused(
            &north,
            "get_entity_by_id",
            json!({"entity_type": "Loan", "id_value": "ls1"})
        )
        .await,
        ErrorCode::NotFound
    );
    assert_eq!(
        refused(
            &north,
            "get_entity_by_id",
            json!({"entity_type": "Member", "id_value": "ms1"})
        )
        .await,
        ErrorCode::NotFound
    );
    let batch = call(
        &north,
        "get_entities_by_ids",
        json!({"entity_type": "Loan", "ids": ["ln1", "ls1", "ls2"]}),
    )
    .await;
    assert!(batch.to_string().contains("ln1"), "{batch}");

    // relationships from both ends, and walks that start at or lead to hidden records.
    let out = call_clean(
        &north,
        "explore_relationships",
        json!({"start_entity_type": "Member", "start_conditions": [{"field": "id", "operator": "=", "value": "mn1"}],
               "relationship_type": "BORROWED", "direction": "outgoing"}),
    )
    .await;
    assert!(
        out.to_string().contains("ln1") && out.to_string().contains("ln2"),
        "{out}"
    );
    let back = call_clean(
        &north,
        "explore_relationships",
        json!({"start_entity_type": "Loan", "start_conditions": [{"field": "id", "operator": "=", "value": "ln4"}],
               "relationship_type": "BORROWED", "direction": "incoming"}),
    )
    .await;
    assert!(
        !back.to_string().contains("\"mn"),
        "ln4's borrower is hidden: {back}"
    );
    for (entity, id, direction) in [("Loan", "ls1", "incoming"), ("Member", "ms1", "outgoing")] {
        call_clean(
            &north,
            "explore_relationships",
            json!({"start_entity_type": entity, "start_conditions": [{"field": "id", "operator": "=", "value": id}],
                   "relationship_type": "BORROWED", "direction": direction}),
        )
        .await;
    }

    // graph: no path through or to hidden records; rankings without them.
    for (from, to, relationship) in [
        (("Member", "mn1"), ("Loan", "ls1"), "BORROWED"),
        (("Member", "ms1"), ("Loan", "ln4"), "BORROWED"),
        (("Member", "mn1"), ("Member", "mn2"), "REFERRED"),
    ] {
        match north
            .call(
                "find_path",
                json!({"from": {"entity_type": from.0, "id": from.1}, "to": {"entity_type": to.0, "id": to.1},
                       "relationship_types": [relationship], "direction": "outgoing"}),
            )
            .await
        {
            Ok(answer) => {
                let text = answer.to_string();
                assert!(!text.contains(MARK) && !text.contains("ms1"), "{answer}");
                assert!(answer["found"] != json!(true), "{answer}");
            }
            Err(error) => assert!(!error.message.contains(MARK), "{error:?}"),
        }
    }
    let back = call_clean(
        &north,
        "find_path",
        json!({"from": {"entity_type": "Member", "id": "mn2"}, "to": {"entity_type": "Member", "id": "mn1"},
               "relationship_types": ["REFERRED"], "direction": "outgoing"}),
    )
    .await;
    assert!(
        back.to_string().contains("mn1"),
        "a visible path is found: {back}"
    );
    for entity in ["Loan", "Member"] {
        call_clean(
            &north,
            "rank_entities",
            json!({"entity_type": entity, "relationship_type": "BORROWED", "algorithm": "degree", "direction": "both"}),
        )
        .await;
    }
    let rank = call_clean(
        &north,
        "rank_entities",
        json!({"entity_type": "Member", "relationship_type": "REFERRED", "algorithm": "pagerank"}),
    )
    .await;
    assert!(rank.to_string().contains("mn2"), "{rank}");

    // aggregates: counts and sums of visible rows only, also along relationships.
    let count = call_clean(
        &north,
        "aggregate_entities",
        json!({"entity_type": "Loan", "aggregation": "COUNT", "group_by": ["branch"]}),
    )
    .await;
    assert!(!count.to_string().contains("south"), "{count}");
    let sum = call_clean(
        &north,
        "aggregate_entities",
        json!({"entity_type": "Loan", "aggregation": "SUM", "field": "fee"}),
    )
    .await;
    assert!(sum.to_string().contains("10.5"), "2.5 + 4 + 1 + 3: {sum}");
    let along = call_clean(
        &north,
        "aggregate_entities",
        json!({"entity_type": "Loan", "aggregation": "COUNT", "along": {"relationship_type": "BORROWED", "direction": "incoming"}}),
    )
    .await;
    assert!(!along.to_string().contains("50"), "{along}");

    // ranges and patterns.
    let fees = call_clean(
        &north,
        "query_entities_by_number_range",
        json!({"entity_type": "Loan", "field": "fee", "min": 0, "max": 1000}),
    )
    .await;
    assert_eq!(ids(&fees["results"]), ["ln1", "ln2", "ln3", "ln4"]);
    let dates = call_clean(
        &north,
        "query_entities_by_date_range",
        json!({"entity_type": "Loan", "date_field": "due_at", "after": "2000-01-01", "before": "2100-01-01"}),
    )
    .await;
    assert_eq!(ids(&dates["results"]), ["ln1", "ln2", "ln3", "ln4"]);
    for (pattern, kind) in [
        (".*", "regex"),
        ("*", "glob"),
        ("SECRET river maps", "fuzzy"),
    ] {
        call_clean(
            &north,
            "query_entities_by_pattern",
            json!({"entity_type": "Loan", "field": "title", "pattern": pattern, "pattern_type": kind}),
        )
        .await;
    }

    // full-text, semantic and hybrid search.
    let river = call_clean(
        &north,
        "full_text_search",
        json!({"entity_type": "Loan", "query": "river"}),
    )
    .await;
    assert!(
        river.to_string().contains("ln1") && river.to_string().contains("ln4"),
        "{river}"
    );
    let secret = call_clean(
        &north,
        "full_text_search",
        json!({"entity_type": "Loan", "query": "secret"}),
    )
    .await;
    assert_eq!(secret["results"], json!([]), "{secret}");
    let meaning = call_clean(
        &north,
        "semantic_search",
        json!({"entity_type": "Loan", "query": "secret river maps", "top_k": 10}),
    )
    .await;
    assert_eq!(
        meaning["results"].as_array().map(Vec::len),
        Some(4),
        "{meaning}"
    );
    call_clean(
        &north,
        "hybrid_search",
        json!({"entity_type": "Loan", "query": "secret bridges", "top_k": 10}),
    )
    .await;

    // change history: only visible records' changes.
    let history = call_clean(
        &north,
        "get_entity_change_history",
        json!({"entity_type": "Loan", "id": "ln1"}),
    )
    .await;
    assert!(history.to_string().contains("second edition"), "{history}");
    match north
        .call(
            "get_entity_change_history",
            json!({"entity_type": "Loan", "id": "ls1"}),
        )
        .await
    {
        Ok(answer) => {
            assert!(!answer.to_string().contains(MARK), "{answer}");
            assert!(!answer.to_string().contains("annotated"), "{answer}");
        }
        Err(error) => assert!(!error.message.contains(MARK), "{error:?}"),
    }
    call_clean(
        &north,
        "find_recently_modified_entities",
        json!({"since": "2000-01-01"}),
    )
    .await;
    call_clean(&north, "get_most_modified_entities", json!({})).await;
    let churn = call_clean(&north, "analyze_churn", json!({})).await;
    assert_eq!(
        ids(&churn["results"]),
        ["ln1", "ln2", "ln3", "ln4"],
        "{churn}"
    );
    let statistics = call_clean(
        &north,
        "get_change_statistics",
        json!({"entity_type": "Loan"}),
    )
    .await;
    assert!(
        statistics.to_string().contains('5'),
        "4 created, 1 updated: {statistics}"
    );
    assert!(!statistics.to_string().contains('9'), "{statistics}");
    refused(
        &north,
        "compare_entity_versions",
        json!({"entity_type": "Loan", "id": "ls1", "from": "2000-01-01"}),
    )
    .await;

    // declared tools, with an argument that would match a hidden record.
    let declared = call_clean(
        &north,
        "loans_with_fee",
        json!({"min_fee": 0, "title": "SECRET river maps"}),
    )
    .await;
    assert_eq!(ids(&declared["results"]), ["ln1", "ln2", "ln3", "ln4"]);

    // batch: the same rules for every call it makes.
    let batch = north
        .call(
            "batch",
            json!({"calls": [
                {"tool": "query_entities", "arguments": {"entity_type": "Loan"}},
                {"tool": "get_entity_by_id", "arguments": {"entity_type": "Loan", "id_value": "ls2"}},
                {"tool": "full_text_search", "arguments": {"entity_type": "Loan", "query": "ledger"}},
            ]}),
        )
        .await
        .unwrap();
    assert!(!batch.to_string().contains(MARK), "{batch}");
    assert!(batch.to_string().contains("ln3"), "{batch}");

    // describe and schema.
    call_clean(&north, "describe_entity", json!({"entity_name": "Loan"})).await;
    call_clean(&north, "get_schema", json!({})).await;

    // The other side sees its own records, and nothing of the north.
    let south = registry(spec, db, ToolContext::new().with_value("branch", "south"));
    let theirs = south
        .call("query_entities", json!({"entity_type": "Loan"}))
        .await
        .unwrap();
    assert_eq!(ids(&theirs["results"]), ["ls1", "ls2", "ls3"]);

    // Without the context value: nothing of a ruled entity, everything of the others.
    let nobody = registry(spec, db, ToolContext::new());
    for entity in ["Loan", "Member"] {
        let none = nobody
            .call("query_entities", json!({"entity_type": entity}))
            .await
            .unwrap();
        assert_eq!(none["total"], json!(0), "{entity}: {none}");
    }
    let shelves = nobody
        .call("query_entities", json!({"entity_type": "Shelf"}))
        .await
        .unwrap();
    assert_eq!(shelves["total"], json!(1));
    let empty = registry(spec, db, ToolContext::new().with_value("branch", ""));
    let none = empty
        .call(
            "full_text_search",
            json!({"entity_type": "Loan", "query": "river"}),
        )
        .await
        .unwrap();
    assert_eq!(
        none["results"],
        json!([]),
        "an empty value is a missing one: {none}"
    );
    // The north again, on connections the other calls used: no value survives a call.
    let again = call_clean(&north, "query_entities", json!({"entity_type": "Loan"})).await;
    assert_eq!(again["total"], json!(4));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_rules_hide_records_from_every_tool_on_sqlite() {
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("branches.db"))
        .unwrap()
        .with_embedder(model());
    seed(&db, &spec);
    every_family_hides_the_south(&spec, &db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_rules_hide_records_from_every_tool_on_postgres() {
    let Some(base) =
        pg_support::url("access_rules::row_rules_hide_records_from_every_tool_on_postgres")
    else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "access_rules");
    let db = db.with_embedder(model());
    let spec = spec();
    seed(&db, &spec);
    every_family_hides_the_south(&spec, &db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_rules_hide_records_from_every_tool_on_postgres_with_pgvector() {
    let Some(base) = pg_support::pgvector_url(
        "access_rules::row_rules_hide_records_from_every_tool_on_postgres_with_pgvector",
    ) else {
        return;
    };
    let (db, url) = pg_support::fresh(&base, "access_rules_pgvector");
    let db = db.with_embedder(model());
    let spec = spec();
    seed(&db, &spec);
    // The searches run inside PostgreSQL: the vectors are pgvector's.
    assert_eq!(
        pg_support::query_text(
            &url,
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute \
             WHERE attrelid = '\"loan\"'::regclass AND attname = 'title_embedding'"
        ),
        "vector(384)"
    );
    every_family_hides_the_south(&spec, &db).await;
}
