//! End to end on the code-rag example config: the generator compiles it, the importer loads
//! `fixtures/code-rag.jsonl`, and every tool of the live registry answers through
//! `ToolRegistry::call` — every operator on the config's own field names, ordering, limits,
//! relationships in every direction, lookups, batch and unknown names.

use crate::e2e_support;

use serde_json::{Value, json};
use toolforge::dialect::{Dialect, export, is_openai_strict_compatible};
use toolforge::{ErrorCode, ToolDefinition};
use toolforge_tests::corpus_dir;

use e2e_support::{Seeded, in_order, seeded, sorted};

const CONFIG: &str = "ragforge__examples__code-rag__ragforge.config.yaml";

fn code_rag() -> Seeded {
    seeded(CONFIG, "code-rag.jsonl")
}

async fn scopes_where(s: &Seeded, conditions: Value) -> Vec<String> {
    let answer = s
        .ok(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": conditions, "limit": 50}),
        )
        .await;
    assert_eq!(answer["truncated"], false, "{answer}");
    assert_eq!(answer["total"], answer["returned"], "{answer}");
    sorted(&answer, "uuid")
}

async fn every_operator(s: &Seeded) {
    let cases: Vec<(&str, &str, Value, Vec<&str>)> = vec![
        ("name", "=", json!("handleLogin"), vec!["s-login"]),
        (
            "language",
            "=",
            json!("python"),
            vec!["s-acquire", "s-pool"],
        ),
        (
            "language",
            "!=",
            json!("typescript"),
            vec!["s-acquire", "s-config", "s-main", "s-pool"],
        ),
        ("startLine", ">", json!(20), vec!["s-session", "s-validate"]),
        (
            "startLine",
            ">=",
            json!(20),
            vec!["s-acquire", "s-session", "s-validate"],
        ),
        ("endLine", "<", json!(10), vec!["s-main"]),
        ("endLine", "<=", json!(10), vec!["s-config", "s-main"]),
        ("name", "CONTAINS", json!("Login"), vec!["s-login"]),
        ("signature", "CONTAINS", json!("token"), vec!["s-validate"]),
        (
            "file",
            "STARTS WITH",
            json!("src/auth/"),
            vec!["s-login", "s-session", "s-validate"],
        ),
        (
            "file",
            "ENDS WITH",
            json!(".py"),
            vec!["s-acquire", "s-pool"],
        ),
        (
            "type",
            "IN",
            json!(["class", "variable"]),
            vec!["s-config", "s-pool", "s-session"],
        ),
        (
            "startLine",
            "IN",
            json!([1, 60]),
            vec!["s-main", "s-pool", "s-validate"],
        ),
        (
            "signature",
            "REGEX",
            json!(r"^class \w+"),
            vec!["s-pool", "s-session"],
        ),
        ("name", "GLOB", json!("*Token"), vec!["s-validate"]),
        (
            "file",
            "GLOB",
            json!("src/[ad]*/*.p?"),
            vec!["s-acquire", "s-pool"],
        ),
        ("signature", "=", Value::Null, vec!["s-config"]),
    ];
    for (field, operator, value, expected) in cases {
        let found = scopes_where(
            s,
            json!([{"field": field, "operator": operator, "value": value}]),
        )
        .await;
        assert_eq!(found, expected, "{field} {operator} {value}");
    }
    // conditions are combined with AND
    let both = scopes_where(
        s,
        json!([
            {"field": "language", "operator": "=", "value": "typescript"},
            {"field": "startLine", "operator": ">=", "value": 50}
        ]),
    )
    .await;
    assert_eq!(both, ["s-session", "s-validate"]);
}

async fn bad_conditions_are_explained(s: &Seeded) {
    let unknown_field = s
        .err(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": [{"field": "nmae", "operator": "=", "value": "x"}]}),
        )
        .await;
    assert_eq!(unknown_field.code, ErrorCode::InvalidArguments);
    assert!(
        unknown_field.message.contains("name"),
        "{}",
        unknown_field.message
    );

    let wrong_operator = s
        .err(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": [{"field": "startLine", "operator": "CONTAINS", "value": "1"}]}),
        )
        .await;
    assert_eq!(wrong_operator.code, ErrorCode::InvalidArguments);

    let unknown_entity = s
        .err("query_entities", json!({"entity_type": "Scopes"}))
        .await;
    assert_eq!(unknown_entity.code, ErrorCode::InvalidArguments);

    let bad_regex = s
        .err(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": [{"field": "name", "operator": "REGEX", "value": "(unclosed"}]}),
        )
        .await;
    assert_eq!(bad_regex.code, ErrorCode::InvalidArguments);
    assert!(bad_regex.message.contains("REGEX"), "{}", bad_regex.message);
}

async fn ordering_and_limits(s: &Seeded) {
    let answer = s
        .ok(
            "query_entities",
            json!({"entity_type": "Scope", "order_by": {"field": "endLine", "direction": "DESC"}, "limit": 3}),
        )
        .await;
    assert_eq!(
        in_order(&answer, "uuid"),
        ["s-session", "s-pool", "s-validate"]
    );
    assert_eq!(answer["total"], 7);
    assert_eq!(answer["returned"], 3);
    assert_eq!(answer["truncated"], true);

    let answer = s
        .ok(
            "query_entities",
            json!({"entity_type": "Scope", "order_by": {"field": "name", "direction": "ASC"}, "limit": 2}),
        )
        .await;
    // SQLite's binary collation: upper case sorts first
    assert_eq!(
        in_order(&answer, "name"),
        ["ConnectionPool", "DEFAULT_CONFIG"]
    );

    let over = s
        .err(
            "query_entities",
            json!({"entity_type": "Scope", "limit": 100000}),
        )
        .await;
    assert_eq!(over.code, ErrorCode::InvalidArguments);

    // records carry every field by its config name, never the embedding
    let record = &s
        .ok(
            "query_entities",
            json!({"entity_type": "Scope", "conditions": [{"field": "uuid", "operator": "=", "value": "s-login"}]}),
        )
        .await["results"][0];
    assert_eq!(
        record,
        &json!({
            "uuid": "s-login", "name": "handleLogin", "type": "function",
            "file": "src/auth/login.ts",
            "signature": "function handleLogin(user: User): Promise<Session>",
            "language": "typescript", "startLine": 10, "endLine": 42
        })
    );
}

async fn glob_search(s: &Seeded) {
    let answer = s
        .ok(
            "glob_search",
            json!({"entity_type": "File", "field": "path", "pattern": "src/*/*.ts"}),
        )
        .await;
    assert_eq!(sorted(&answer, "uuid"), ["f-auth"]);
    let answer = s
        .ok(
            "glob_search",
            json!({"entity_type": "Scope", "field": "name", "pattern": "*o*", "limit": 2}),
        )
        .await;
    assert_eq!(answer["returned"], 2);
    assert_eq!(answer["truncated"], true);
    let bad = s
        .err(
            "glob_search",
            json!({"entity_type": "Scope", "field": "startLine", "pattern": "1*"}),
        )
        .await;
    assert_eq!(bad.code, ErrorCode::InvalidArguments);
}

async fn lookups(s: &Seeded) {
    let one = s
        .ok(
            "get_entity_by_id",
            json!({"entity_type": "Scope", "id_value": "s-pool"}),
        )
        .await;
    assert_eq!(one["record"]["name"], "ConnectionPool");
    assert_eq!(one["record"]["language"], "python");
    let missing = s
        .err(
            "get_entity_by_id",
            json!({"entity_type": "File", "id_value": "f-none"}),
        )
        .await;
    assert_eq!(missing.code, ErrorCode::NotFound);

    let many = s
        .ok(
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["s-main", "s-pool", "s-gone"], "fields": ["name", "endLine"]}),
        )
        .await;
    assert_eq!(many["missing"], json!(["s-gone"]));
    assert_eq!(
        many["results"],
        json!([
            {"uuid": "s-main", "name": "main", "endLine": 8},
            {"uuid": "s-pool", "name": "ConnectionPool", "endLine": 120}
        ])
    );
    // code-rag has no hierarchical_content: with_children is not offered at all
    let no_children = s
        .err(
            "get_entities_by_ids",
            json!({"entity_type": "Scope", "ids": ["s-main"], "with_children": true}),
        )
        .await;
    assert_eq!(no_children.code, ErrorCode::InvalidArguments);
    assert!(
        no_children
            .message
            .contains("unknown properties `with_children`"),
        "{}",
        no_children.message
    );
}

async fn explore(s: &Seeded, direction: &str, start: &str, relationship: &str) -> Value {
    s.ok(
        "explore_relationships",
        json!({
            "start_entity_type": "Scope",
            "start_conditions": [{"field": "name", "operator": "=", "value": start}],
            "relationship_type": relationship,
            "direction": direction,
        }),
    )
    .await
}

fn targets(answer: &Value) -> Vec<String> {
    let mut found: Vec<String> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            format!(
                "{} {}",
                item["direction"].as_str().unwrap(),
                item["record"]["uuid"].as_str().unwrap()
            )
        })
        .collect();
    found.sort();
    found
}

async fn relationships(s: &Seeded) {
    let out = explore(s, "outgoing", "handleLogin", "CONSUMES").await;
    assert_eq!(targets(&out), ["outgoing s-session", "outgoing s-validate"]);
    let incoming = explore(s, "incoming", "handleLogin", "CONSUMES").await;
    assert_eq!(targets(&incoming), ["incoming s-main"]);
    let both = explore(s, "both", "handleLogin", "CONSUMES").await;
    assert_eq!(
        targets(&both),
        [
            "incoming s-main",
            "outgoing s-session",
            "outgoing s-validate"
        ]
    );
    assert_eq!(both["total"], 3);

    // to another entity, and back
    let file = explore(s, "outgoing", "acquire", "DEFINED_IN").await;
    assert_eq!(file["results"][0]["entity_type"], "File");
    assert_eq!(file["results"][0]["record"]["path"], "src/db/pool.py");
    let defined = s
        .ok(
            "explore_relationships",
            json!({
                "start_entity_type": "File",
                "start_conditions": [{"field": "path", "operator": "ENDS WITH", "value": "pool.py"}],
                "relationship_type": "DEFINED_IN",
                "direction": "incoming",
                "target_entity_type": "Scope",
            }),
        )
        .await;
    assert_eq!(targets(&defined), ["incoming s-acquire", "incoming s-pool"]);

    let projects = s
        .ok(
            "explore_relationships",
            json!({
                "start_entity_type": "Scope",
                "start_conditions": [{"field": "language", "operator": "=", "value": "javascript"}],
                "relationship_type": "BELONGS_TO",
                "direction": "outgoing",
                "target_entity_type": "Project",
                "limit": 1,
            }),
        )
        .await;
    assert_eq!(projects["total"], 2);
    assert_eq!(projects["truncated"], true);
    assert_eq!(projects["results"][0]["record"]["name"], "cli");

    // a relationship that does not leave File is refused, naming the ones that exist
    let wrong_way = s
        .err(
            "explore_relationships",
            json!({"start_entity_type": "File", "relationship_type": "DEFINED_IN", "direction": "outgoing"}),
        )
        .await;
    assert_eq!(wrong_way.code, ErrorCode::InvalidArguments);
}

async fn schema_tools(s: &Seeded) {
    let schema = s.ok("get_schema", json!({})).await;
    let names: Vec<&str> = schema["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Scope", "File", "Project"]);
    let described = s
        .ok("describe_entity", json!({"entity_name": "Scope"}))
        .await;
    let text = described.to_string();
    for expected in [
        "signature",
        "startLine",
        "Scope -[DEFINED_IN]-> File",
        "Scope -[BELONGS_TO]-> Project",
    ] {
        assert!(
            text.contains(expected),
            "{expected} missing from {described}"
        );
    }
}

async fn batch_and_unknown_names(s: &Seeded) {
    let answer = s
        .ok(
            "batch",
            json!({"calls": [
                {"tool": "get_entity_by_id", "args": {"entity_type": "Project", "id_value": "p-core"}},
                {"tool": "get_entity_by_id", "args": {"entity_type": "Project", "id_value": "p-none"}},
                {"tool": "query_entites", "args": {"entity_type": "Scope"}},
                {"tool": "query_entities", "args": {"entity_type": "Scope", "conditions": [{"field": "type", "operator": "=", "value": "method"}]}},
                {"tool": "batch", "args": {"calls": []}},
            ]}),
        )
        .await;
    let results = answer["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    assert_eq!(results[0]["ok"], true);
    assert_eq!(results[0]["result"]["record"]["name"], "core");
    assert_eq!(results[1]["ok"], false);
    assert_eq!(results[1]["error"]["error"], "not_found");
    assert_eq!(results[2]["ok"], false);
    assert_eq!(results[2]["error"]["error"], "unknown_tool");
    assert_eq!(results[2]["error"]["candidates"], json!(["query_entities"]));
    assert_eq!(results[3]["ok"], true);
    assert_eq!(
        sorted(&results[3]["result"], "uuid"),
        ["s-acquire", "s-validate"]
    );
    assert_eq!(results[4]["ok"], false, "nested batches are refused");

    let unknown = s.err("get_entity_by_di", json!({})).await;
    assert_eq!(unknown.code, ErrorCode::UnknownTool);
    assert_eq!(
        unknown.details.unwrap()["candidates"],
        json!(["get_entity_by_id", "get_entities_by_ids"]),
        "nearest first"
    );
    let nothing_close = s.err("drop_tables", json!({})).await;
    assert_eq!(nothing_close.details.unwrap()["candidates"], json!([]));
}

async fn query_tools(s: &Seeded) {
    let ranged = s
        .ok(
            "query_entities_by_number_range",
            json!({"entity_type": "Scope", "field": "startLine", "min": 20, "max": 60, "order": "DESC"}),
        )
        .await;
    assert_eq!(
        in_order(&ranged, "uuid"),
        ["s-validate", "s-session", "s-acquire"]
    );
    let fuzzy = s
        .ok(
            "query_entities_by_pattern",
            json!({"entity_type": "Scope", "field": "name", "pattern": "HandleLogn", "pattern_type": "fuzzy"}),
        )
        .await;
    assert_eq!(in_order(&fuzzy, "uuid"), ["s-login"]);
    assert_eq!(fuzzy["distances"], json!([1]), "case is ignored: one edit");
    let regex = s
        .ok(
            "query_entities_by_pattern",
            json!({"entity_type": "Scope", "field": "name", "pattern": "^(validate|handle)"}),
        )
        .await;
    assert_eq!(in_order(&regex, "uuid"), ["s-login", "s-validate"]);
    // How does main reach the connection pool?
    let path = s
        .ok(
            "find_path",
            json!({"from": {"entity_type": "Scope", "id": "s-main"},
                   "to": {"entity_type": "Scope", "id": "s-pool"},
                   "relationship_types": ["CONSUMES"]}),
        )
        .await;
    assert_eq!(path["length"], 3, "{path}");
    let reached: Vec<&str> = path["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hop| hop["to"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(reached, ["s-login", "s-session", "s-pool"]);
    let unreachable = s
        .ok(
            "find_path",
            json!({"from": {"entity_type": "Scope", "id": "s-pool"},
                   "to": {"entity_type": "Scope", "id": "s-main"}}),
        )
        .await;
    assert_eq!(unreachable["found"], false);
    let ranked = s
        .ok(
            "rank_entities",
            json!({"entity_type": "Scope", "relationship_type": "CONSUMES", "limit": 3}),
        )
        .await;
    let ids: Vec<&str> = ranked["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    // PageRank of main -> login -> {session -> pool, validate} (damping 0.85).
    assert_eq!(ids, ["s-pool", "s-login", "s-session"]);
}

#[tokio::test]
async fn every_tool_of_the_code_rag_config_answers_from_the_seeded_database() {
    let s = code_rag();
    every_operator(&s).await;
    bad_conditions_are_explained(&s).await;
    ordering_and_limits(&s).await;
    glob_search(&s).await;
    lookups(&s).await;
    relationships(&s).await;
    schema_tools(&s).await;
    batch_and_unknown_names(&s).await;
    query_tools(&s).await;
    e2e_support::semantic_search_says_what_it_needs(&s).await;
    e2e_support::join_and_similar_answer(&s).await;
    assert_eq!(s.uncalled(), Vec::<String>::new(), "tools no test called");
    assert_eq!(
        s.registry.names().collect::<Vec<_>>(),
        [
            "get_schema",
            "describe_entity",
            "query_entities",
            "get_entity_by_id",
            "get_entities_by_ids",
            "explore_relationships",
            "join_entities",
            "semantic_search",
            "find_similar",
            "query_entities_by_number_range",
            "glob_search",
            "query_entities_by_pattern",
            "find_path",
            "rank_entities",
            "find_clusters",
            "batch"
        ]
    );
}

#[test]
fn definitions_without_a_database_equal_the_live_registry_and_openai_strict_holds() {
    let s = code_rag();
    let live: Vec<&ToolDefinition> = s.registry.definitions();
    let offline =
        toolforge_cli::dynamic::definitions(&corpus_dir().join(CONFIG), &e2e_support::options())
            .unwrap();
    assert_eq!(live.len(), offline.len());
    for (live, offline) in live.iter().zip(&offline) {
        assert_eq!(*live, offline);
    }
    for dialect in [Dialect::OpenAiChat, Dialect::OpenAiResponses] {
        for definition in &offline {
            let exported = export(definition, dialect);
            let (strict, parameters) = match dialect {
                Dialect::OpenAiChat => (
                    &exported["function"]["strict"],
                    &exported["function"]["parameters"],
                ),
                _ => (&exported["strict"], &exported["parameters"]),
            };
            if strict == &json!(true)
                && let Err(problems) = is_openai_strict_compatible(parameters)
            {
                panic!("{} claims strict but: {problems:?}", definition.name);
            }
        }
    }
    // the database tools are all strict-compatible
    let strict: Vec<&str> = offline
        .iter()
        .filter(|d| export(d, Dialect::OpenAiChat)["function"]["strict"] == json!(true))
        .map(|d| d.name.as_str())
        .collect();
    for name in [
        "get_schema",
        "describe_entity",
        "query_entities",
        "get_entity_by_id",
        "explore_relationships",
    ] {
        assert!(strict.contains(&name), "{name} is not strict: {strict:?}");
    }
}
