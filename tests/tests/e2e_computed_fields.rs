//! End to end on the computed-fields test config: `line_count`, `is_large` and the
//! materialized `char_count` in conditions, ordering and results of every tool.

use crate::e2e_support;

use serde_json::{Value, json};

use e2e_support::{Seeded, in_order, seeded, sorted};

fn computed() -> Seeded {
    seeded(
        "ragforge__examples__tool-calling-agent__test-config-with-computed-fields.yaml",
        "computed-fields.jsonl",
    )
}

async fn query(s: &Seeded, arguments: Value) -> Value {
    let mut arguments = arguments;
    arguments["entity_type"] = json!("Scope");
    s.ok("query_entities", arguments).await
}

fn cond(field: &str, operator: &str, value: Value) -> Value {
    json!([{"field": field, "operator": operator, "value": value}])
}

#[tokio::test]
async fn computed_fields_work_in_every_tool() {
    let s = computed();

    let large = query(
        &s,
        json!({"conditions": cond("line_count", ">=", json!(60)), "order_by": {"field": "line_count", "direction": "DESC"}}),
    )
    .await;
    assert_eq!(in_order(&large, "uuid"), ["c-big", "c-edge", "c-mid"]);
    assert_eq!(in_order(&large, "line_count"), ["250", "100", "60"]);
    for (operator, value, expected) in [
        ("=", json!(100), vec!["c-edge"]),
        ("!=", json!(100), vec!["c-big", "c-mid", "c-small"]),
        (">", json!(100), vec!["c-big"]),
        ("<", json!(60), vec!["c-small"]),
        ("<=", json!(60), vec!["c-mid", "c-small"]),
        ("IN", json!([5, 250]), vec!["c-big", "c-small"]),
    ] {
        let answer = query(
            &s,
            json!({"conditions": cond("line_count", operator, value.clone())}),
        )
        .await;
        assert_eq!(
            sorted(&answer, "uuid"),
            expected,
            "line_count {operator} {value}"
        );
    }
    // a boolean computed field: exactly 100 lines is not large
    let is_large = query(
        &s,
        json!({"conditions": cond("is_large", "=", json!(true))}),
    )
    .await;
    assert_eq!(sorted(&is_large, "uuid"), ["c-big"]);
    let not_large = query(
        &s,
        json!({"conditions": cond("is_large", "IN", json!([false]))}),
    )
    .await;
    assert_eq!(sorted(&not_large, "uuid"), ["c-edge", "c-mid", "c-small"]);
    // the materialized one, as a condition and as an ordering
    let by_chars = query(
        &s,
        json!({"order_by": {"field": "char_count", "direction": "ASC"}}),
    )
    .await;
    assert_eq!(in_order(&by_chars, "char_count"), ["10", "15", "39", "43"]);
    let long = query(
        &s,
        json!({"conditions": cond("char_count", ">", json!(20))}),
    )
    .await;
    assert_eq!(sorted(&long, "uuid"), ["c-big", "c-mid"]);
    // `change_count` (HAS_CHANGE Cypher) reads the change log: the entity tracks no changes,
    // so every record has 0
    let changed = query(
        &s,
        json!({"conditions": cond("change_count", ">", json!(0))}),
    )
    .await;
    assert_eq!(changed["total"], 0, "{changed}");
    let unchanged = query(
        &s,
        json!({"conditions": cond("change_count", "=", json!(0))}),
    )
    .await;
    assert_eq!(unchanged["total"], 4, "{unchanged}");

    // every record carries its computed fields by their config names
    let one = s
        .ok(
            "get_entity_by_id",
            json!({"entity_type": "Scope", "id_value": "c-mid"}),
        )
        .await;
    assert_eq!(one["record"]["line_count"], 60);
    assert_eq!(one["record"]["is_large"], false);
    assert_eq!(one["record"]["char_count"], 43);
    let projected = s
        .ok(
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["c-big"], "fields": ["line_count", "is_large"]}),
        )
        .await;
    assert_eq!(
        projected["results"],
        json!([{"uuid": "c-big", "line_count": 250, "is_large": true}])
    );
    let consumed = s
        .ok(
            "explore_relationships",
            json!({
                "start_entity_type": "Scope",
                "start_conditions": cond("is_large", "=", json!(true)),
                "relationship_type": "CONSUMES",
                "direction": "outgoing",
            }),
        )
        .await;
    let lines: Vec<&Value> = consumed["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["record"]["line_count"])
        .collect();
    assert_eq!(lines, [&json!(100), &json!(60)]);
    let consumers = s
        .ok(
            "explore_relationships",
            json!({
                "start_entity_type": "Scope",
                "start_conditions": cond("line_count", "<", json!(10)),
                "relationship_type": "CONSUMES",
                "direction": "incoming",
            }),
        )
        .await;
    assert_eq!(consumers["results"][0]["record"]["uuid"], "c-mid");

    let globbed = s
        .ok(
            "glob_search",
            json!({"entity_type": "Scope", "field": "file", "pattern": "src/*r*.ts"}),
        )
        .await;
    assert_eq!(sorted(&globbed, "uuid"), ["c-big", "c-edge"]);

    let described = s
        .ok("describe_entity", json!({"entity_name": "Scope"}))
        .await;
    let text = described.to_string();
    assert!(
        text.contains("line_count") && text.contains("endLine - startLine + 1"),
        "{text}"
    );
    let schema = s.ok("get_schema", json!({})).await;
    assert!(schema.to_string().contains("is_large"));

    let batch = s
        .ok(
            "batch",
            json!({"calls": [
                {"tool": "query_entities", "args": {"entity_type": "Scope", "conditions": cond("line_count", "CONTAINS", json!("1"))}},
                {"tool": "query_entities", "args": {"entity_type": "Scope", "order_by": {"field": "line_count", "direction": "ASC"}, "limit": 1}},
                {"tool": "query_entity", "args": {}},
            ]}),
        )
        .await;
    let results = batch["results"].as_array().unwrap();
    assert_eq!(
        results[0]["error"]["error"], "invalid_arguments",
        "CONTAINS does not apply to numbers"
    );
    assert_eq!(results[1]["result"]["results"][0]["uuid"], "c-small");
    assert_eq!(results[2]["error"]["candidates"][0], "query_entities");

    let ranged = s
        .ok(
            "query_entities_by_number_range",
            json!({"entity_type": "Scope", "field": "line_count", "min": 60, "max": 150}),
        )
        .await;
    assert_eq!(in_order(&ranged, "uuid"), ["c-mid", "c-edge"]);
    let patterned = s
        .ok(
            "query_entities_by_pattern",
            json!({"entity_type": "Scope", "field": "file", "pattern": "src/*er*.ts", "pattern_type": "glob"}),
        )
        .await;
    assert_eq!(in_order(&patterned, "uuid"), ["c-edge", "c-big"]);
    let path = s
        .ok(
            "find_path",
            json!({"from": {"entity_type": "Scope", "id": "c-big"}, "to": {"entity_type": "Scope", "id": "c-small"}}),
        )
        .await;
    assert_eq!(path["length"], 2, "{path}");
    assert_eq!(path["hops"][1]["from"]["id"], "c-mid");
    let ranked = s
        .ok(
            "rank_entities",
            json!({"entity_type": "Scope", "relationship_type": "CONSUMES", "algorithm": "degree"}),
        )
        .await;
    let scores: Vec<(String, Value)> = ranked["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_owned(), r["score"].clone()))
        .collect();
    assert_eq!(
        scores,
        [
            ("c-edge".to_owned(), json!(1)),
            ("c-mid".to_owned(), json!(1)),
            ("c-small".to_owned(), json!(1)),
            ("c-big".to_owned(), json!(0)),
        ]
    );

    // A hop's conditions and find_similar's conditions read computed fields too.
    let joined = s
        .ok(
            "join_entities",
            json!({"start_entity_type": "Scope",
                   "hops": [{"relationship_type": "CONSUMES", "direction": "both",
                             "conditions": [{"field": "line_count", "operator": ">", "value": 50}]}],
                   "limit": 100}),
        )
        .await;
    let rows = joined["results"].as_array().unwrap();
    assert!(!rows.is_empty(), "{joined:#}");
    assert!(
        rows.iter()
            .all(|row| row["record"]["line_count"].as_f64().unwrap() > 50.0),
        "{joined:#}"
    );
    let similar = s
        .ok(
            "find_similar",
            json!({"entity_type": "Scope", "id": rows[0]["path"][0], "similarity": "structural",
                   "conditions": [{"field": "is_large", "operator": "=", "value": false}]}),
        )
        .await;
    for hit in similar["results"].as_array().unwrap() {
        let record = s
            .ok(
                "get_entity_by_id",
                json!({"entity_type": "Scope", "id_value": hit["id"]}),
            )
            .await;
        assert_eq!(record["record"]["is_large"], json!(false), "{similar:#}");
    }
    e2e_support::join_and_similar_answer(&s).await;

    assert_eq!(s.uncalled(), Vec::<String>::new());
}
