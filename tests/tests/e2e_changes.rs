//! Change tracking from a config: `track_changes` / `change_tracking` compile to a tracked
//! entity, and `modified_at` / `change_count` (ragforge's `HAS_CHANGE` Cypher and the
//! `count(HAS_CHANGE)` expression) read the change log in conditions, ordering, ranges and
//! aggregates, on SQLite and on PostgreSQL.

use crate::pg_support;

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;
use toolforge_generator::{CompileOptions, compile_str};

const CONFIG: &str = r#"
name: tracked
entities:
  - name: Scope
    unique_field: uuid
    track_changes: true
    change_tracking:
      content_field: source
      metadata_fields: [name]
    searchable_fields:
      - {name: name, type: string}
      - {name: source, type: string}
    computed_fields:
      - name: change_count
        type: number
        cypher: |
          OPTIONAL MATCH (n)-[:HAS_CHANGE]->(c:Change)
          RETURN count(c)
      - name: modified_at
        type: datetime
        expression: max(HAS_CHANGE.timestamp)
      - name: lines_touched
        type: number
        expression: sum(HAS_CHANGE.lines_added) + sum(HAS_CHANGE.lines_removed)
toolforge:
  tools: [query, ranges, aggregates, changes]
  change_history:
    max_changes_per_record: 2
"#;

fn spec() -> SchemaSpec {
    compile_str(CONFIG, "tracked.yaml", &CompileOptions::default())
        .unwrap()
        .spec
}

fn write(db: &Database, spec: &SchemaSpec, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    db.import_jsonl(spec, text.as_bytes()).unwrap();
}

fn scope(uuid: &str, source: &str) -> Value {
    json!({"entity": "Scope", "data": {"uuid": uuid, "name": uuid, "source": source}})
}

async fn call(spec: &Arc<SchemaSpec>, db: &Database, tool: DatabaseTool, args: Value) -> Value {
    tool.call(spec.clone(), db.clone(), args).await.unwrap()
}

fn ids(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uuid"].as_str().unwrap().to_owned())
        .collect()
}

async fn check(db: &Database) {
    let spec = Arc::new(spec());
    assert!(spec.change_log.is_some());
    db.init(&spec).unwrap();
    // x: 3 writes (created, 2 updates) but at most 2 kept; y: 2; z: 1; w: never written again.
    write(
        db,
        &spec,
        &[scope("x", "a\n"), scope("y", "a\n"), scope("z", "a\n")],
    );
    write(db, &spec, &[scope("x", "a\nb\n"), scope("y", "b\n")]);
    write(db, &spec, &[scope("x", "c\n")]);

    let by_count = call(
        &spec,
        db,
        DatabaseTool::QueryEntities,
        json!({"entity_type": "Scope", "conditions": [{"field": "change_count", "operator": ">=", "value": 2}],
               "order_by": {"field": "change_count", "direction": "DESC"}}),
    )
    .await;
    let mut found = ids(&by_count);
    found.sort();
    assert_eq!(found, ["x", "y"], "{by_count}");
    assert!(
        by_count["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["change_count"] == json!(2))
    );
    assert!(
        by_count["results"][0]["modified_at"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );

    let range = call(
        &spec,
        db,
        DatabaseTool::QueryEntitiesByNumberRange,
        json!({"entity_type": "Scope", "field": "change_count", "min": 1, "max": 1}),
    )
    .await;
    assert_eq!(ids(&range), ["z"], "{range}");
    let recent = call(
        &spec,
        db,
        DatabaseTool::QueryEntitiesByDateRange,
        json!({"entity_type": "Scope", "date_field": "modified_at", "after": "1 hour ago"}),
    )
    .await;
    assert_eq!(recent["total"], 3);

    let total = call(
        &spec,
        db,
        DatabaseTool::AggregateEntities,
        json!({"entity_type": "Scope", "aggregation": "SUM", "field": "change_count"}),
    )
    .await;
    assert_eq!(total["value"].as_f64(), Some(5.0), "{total}");
    // x's kept changes: a\nb\n -> c\n (1 added, 2 removed) and a\n -> a\nb\n (1 added).
    let touched = call(
        &spec,
        db,
        DatabaseTool::QueryEntities,
        json!({"entity_type": "Scope", "conditions": [{"field": "uuid", "operator": "=", "value": "x"}]}),
    )
    .await;
    assert_eq!(
        touched["results"][0]["lines_touched"],
        json!(4),
        "{touched}"
    );

    // Every relative instant from now on names the latest version, as `to` absent does: the
    // clock is read to the second, as the changes were stamped moments ago.
    let compare = |to: Option<&str>| {
        let mut args = json!({"entity_type": "Scope", "id": "x", "from": "1 year ago"});
        if let Some(to) = to {
            args["to"] = json!(to);
        }
        call(&spec, db, DatabaseTool::CompareEntityVersions, args)
    };
    let latest = compare(None).await;
    assert!(latest["diff"].as_str().unwrap().contains("+c"), "{latest}");
    for to in [
        "now",
        "NOW ",
        "0 seconds ago",
        "in 1 day",
        "tomorrow",
        "next week",
    ] {
        let answer = compare(Some(to)).await;
        assert_eq!(answer["diff"], latest["diff"], "to: {to:?}: {answer}");
        assert_eq!(answer["to"], latest["to"], "to: {to:?}");
    }
}

#[tokio::test]
async fn change_log_fields_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    check(&Database::open(dir.path().join("tracked.db")).unwrap()).await;
}

#[tokio::test]
async fn change_log_fields_on_postgres() {
    let Some(base) = pg_support::url("e2e_changes::change_log_fields_on_postgres") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "e2e_changes");
    check(&db).await;
}
