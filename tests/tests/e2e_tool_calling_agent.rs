//! End to end on the tool-calling-agent example config (hierarchical content through
//! `HAS_PARENT`, self-relationships, relationships to undefined entities left out): every tool
//! through the live registry over `fixtures/tool-calling-agent.jsonl`.

use crate::e2e_support;

use serde_json::{Value, json};
use toolforge::ErrorCode;

use e2e_support::{Seeded, in_order, seeded, sorted};

fn agent() -> Seeded {
    seeded(
        "ragforge__examples__tool-calling-agent__ragforge.config.yaml",
        "tool-calling-agent.jsonl",
    )
}

async fn query(s: &Seeded, field: &str, operator: &str, value: Value) -> Vec<String> {
    let answer = s
        .ok(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": [{"field": field, "operator": operator, "value": value}]}),
        )
        .await;
    sorted(&answer, "uuid")
}

#[tokio::test]
async fn every_tool_of_the_tool_calling_agent_config_answers() {
    let s = agent();

    // operators on the config's text fields
    assert_eq!(query(&s, "name", "=", json!("get")).await, ["t-get"]);
    assert_eq!(
        query(&s, "file", "!=", json!("src/session.ts")).await,
        ["t-base", "t-helper"]
    );
    assert_eq!(
        query(&s, "source", "CONTAINS", json!("abstract")).await,
        ["t-base"]
    );
    assert_eq!(
        query(&s, "name", "STARTS WITH", json!("S")).await,
        ["t-store"]
    );
    assert_eq!(
        query(&s, "file", "ENDS WITH", json!("date.ts")).await,
        ["t-helper"]
    );
    assert_eq!(
        query(&s, "name", "IN", json!(["get", "set", "nope"])).await,
        ["t-get", "t-set"]
    );
    assert_eq!(
        query(&s, "source", "REGEX", json!(r"this\.map\.(get|set)\(")).await,
        ["t-get", "t-set"]
    );
    // GLOB's `*` crosses `/`, as in SQLite
    assert_eq!(
        query(&s, "file", "GLOB", json!("src/*date*")).await,
        ["t-helper"]
    );
    assert_eq!(query(&s, "name", ">", json!("g")).await, ["t-get", "t-set"]);
    assert_eq!(
        query(&s, "name", ">=", json!("get")).await,
        ["t-get", "t-set"]
    );
    assert_eq!(query(&s, "name", "<", json!("C")).await, ["t-base"]);
    assert_eq!(
        query(&s, "name", "<=", json!("BaseStore")).await,
        ["t-base"]
    );

    // hierarchical_content: children (linked to their parent by HAS_PARENT) with their source
    let with_children = s
        .ok(
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["t-store", "t-helper"], "fields": ["name"], "with_children": true}),
        )
        .await;
    assert_eq!(
        with_children["results"],
        json!([
            {"uuid": "t-store", "name": "SessionStore", "children": [
                {"entity_type": "Scope", "uuid": "t-get", "source": "get(id) { return this.map.get(id); }"},
                {"entity_type": "Scope", "uuid": "t-set", "source": "set(id, s) { this.map.set(id, s); }"}
            ]},
            {"uuid": "t-helper", "name": "formatDate", "children": []}
        ])
    );

    // relationships in each direction
    let explore = |relationship: &str, direction: &str, name: &str| {
        json!({
            "start_entity_type": "Scope",
            "start_conditions": [{"field": "name", "operator": "=", "value": name}],
            "relationship_type": relationship,
            "direction": direction,
        })
    };
    let parent = s
        .ok(
            "explore_relationships",
            explore("INHERITS_FROM", "outgoing", "SessionStore"),
        )
        .await;
    assert_eq!(parent["results"][0]["record"]["name"], "BaseStore");
    assert_eq!(parent["total"], 1);
    let children = s
        .ok(
            "explore_relationships",
            explore("HAS_PARENT", "incoming", "SessionStore"),
        )
        .await;
    assert_eq!(
        children["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["record"]["uuid"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["t-get", "t-set"]
    );
    let users = s
        .ok(
            "explore_relationships",
            explore("CONSUMES", "both", "formatDate"),
        )
        .await;
    assert_eq!(users["results"][0]["direction"], "incoming");
    assert_eq!(users["results"][0]["record"]["uuid"], "t-get");
    // relationships whose target entity is not defined were left out of the tools
    let dropped = s
        .err(
            "explore_relationships",
            explore("USES_LIBRARY", "outgoing", "get"),
        )
        .await;
    assert_eq!(dropped.code, ErrorCode::InvalidArguments);

    let found = s
        .ok(
            "glob_search",
            json!({"entity_type": "Scope", "field": "name", "pattern": "?et"}),
        )
        .await;
    assert_eq!(sorted(&found, "uuid"), ["t-get", "t-set"]);
    let one = s
        .ok(
            "get_entity_by_id",
            json!({"entity_type": "Scope", "id_value": "t-base"}),
        )
        .await;
    assert_eq!(one["record"]["source"], "abstract class BaseStore {}");

    let schema = s.ok("get_schema", json!({"include_tips": false})).await;
    assert_eq!(schema["entities"][0]["name"], "Scope");
    let described = s
        .ok("describe_entity", json!({"entity_name": "Scope"}))
        .await;
    assert!(described.to_string().contains("HAS_PARENT"), "{described}");

    let batch = s
        .ok(
            "batch",
            json!({"calls": [
                {"tool": "get_entities_by_ids", "args": {"entity_type": "Scope", "ids": ["t-store"], "with_children": true}},
                {"tool": "describe_entity", "args": {"entity_name": "File"}},
                {"tool": "get_shema", "args": {}},
            ]}),
        )
        .await;
    let results = batch["results"].as_array().unwrap();
    assert_eq!(results[0]["ok"], true);
    assert_eq!(
        results[0]["result"]["results"][0]["children"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        results[1]["ok"], false,
        "File is not an entity of this config"
    );
    assert_eq!(results[1]["error"]["error"], "invalid_arguments");
    assert_eq!(results[2]["error"]["candidates"], json!(["get_schema"]));

    let stores = s
        .ok(
            "query_entities_by_pattern",
            json!({"entity_type": "Scope", "field": "name", "pattern": "Store$"}),
        )
        .await;
    assert_eq!(in_order(&stores, "uuid"), ["t-base", "t-store"]);
    let path = s
        .ok(
            "find_path",
            json!({"from": {"entity_type": "Scope", "id": "t-get"}, "to": {"entity_type": "Scope", "id": "t-base"},
                   "relationship_types": ["HAS_PARENT", "INHERITS_FROM"]}),
        )
        .await;
    let kinds: Vec<&str> = path["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hop| hop["relationship"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "Scope -[HAS_PARENT]-> Scope",
            "Scope -[INHERITS_FROM]-> Scope"
        ]
    );
    let parents = s
        .ok(
            "rank_entities",
            json!({"entity_type": "Scope", "relationship_type": "HAS_PARENT", "algorithm": "degree", "limit": 1}),
        )
        .await;
    assert_eq!(parents["results"][0]["id"], "t-store");
    assert_eq!(parents["results"][0]["score"], 2);

    e2e_support::semantic_search_says_what_it_needs(&s).await;
    e2e_support::join_and_similar_answer(&s).await;
    assert_eq!(s.uncalled(), Vec::<String>::new());
}
