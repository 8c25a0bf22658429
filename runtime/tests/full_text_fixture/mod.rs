//! A small library for the full-text tests: articles with a title, a body and a tag list, and
//! a spec indexing title and body (weights given per test).
#![allow(dead_code)]

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;

/// The spec: `Article` indexed on `title` and `body` with these weights, `Note` not indexed.
pub fn spec(title_weight: f64, body_weight: f64) -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "library",
        "entities": [
            {
                "name": "Article",
                "table": "article",
                "unique_field": "slug",
                "display_name_field": "title",
                "fields": [
                    {"name": "slug", "type": "string", "unique": true},
                    {"name": "title", "type": "string"},
                    {"name": "body", "type": "string"},
                    {"name": "year", "type": "number"}
                ],
                "full_text": {"fields": [
                    {"name": "title", "weight": title_weight},
                    {"name": "body", "weight": body_weight}
                ]}
            },
            {
                "name": "Note",
                "table": "note",
                "unique_field": "uuid",
                "fields": [
                    {"name": "uuid", "type": "string", "unique": true},
                    {"name": "text", "type": "string"}
                ]
            }
        ],
        "relationships": [],
        "tools": {"default_limit": 10, "max_limit": 50,
                  "families": ["schema", "query", "lookup", "relationships", "search"]}
    }))
    .expect("spec")
}

/// The articles, as import lines.
pub fn articles() -> Vec<Value> {
    let rows = [
        (
            "parser-guide",
            "Writing a parser",
            "A parser turns tokens into a syntax tree. Recursive descent is the simplest way to write one.",
            2019,
        ),
        (
            "lexer-notes",
            "Lexer notes",
            "The lexer cuts text into tokens before the parser sees them; a good lexer keeps positions.",
            2020,
        ),
        (
            "tree-walk",
            "Walking trees",
            "Visit every node of the tree. A syntax checker walks the tree in order, not the syntax of the tree itself.",
            2021,
        ),
        (
            "database-design",
            "Database design",
            "Tables, indexes and queries: how databases store records and find them quickly.",
            2018,
        ),
        (
            "query-plans",
            "Reading query plans",
            "The planner picks an index; a parser for SQL feeds it a syntax tree of the query.",
            2022,
        ),
        (
            "cafe-review",
            "Café reviews",
            "The best coffee in town, near the station. Running late? Grab an espresso.",
            2023,
        ),
        (
            "run-log",
            "Running log",
            "I ran five kilometres; runners say running daily helps.",
            2023,
        ),
        (
            "title-field",
            "Title parser",
            "A note about the title parser of the document importer.",
            2024,
        ),
        (
            "compiler-title",
            "Compiler basics",
            "An introduction for beginners.",
            2017,
        ),
        (
            "compiler-body",
            "Introduction",
            "Compiler after compiler: what every compiler does inside.",
            2016,
        ),
    ];
    rows.iter()
        .map(|(slug, title, body, year)| {
            json!({"entity": "Article", "data": {"slug": slug, "title": title, "body": body, "year": year}})
        })
        .collect()
}

/// Lines joined as a JSON-lines document.
pub fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Creates the tables of `spec` in `db` and imports the articles.
pub fn load(db: &Database, spec: &SchemaSpec) {
    db.init(spec).expect("init");
    db.import_jsonl(spec, jsonl(&articles()).as_bytes())
        .expect("import");
}

/// A fresh SQLite database with the articles.
pub fn sqlite(spec: &SchemaSpec) -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(dir.path().join("library.db")).expect("open");
    load(&db, spec);
    (dir, db)
}

/// Calls `full_text_search` on `db`.
pub async fn search(
    spec: &Arc<SchemaSpec>,
    db: &Database,
    arguments: Value,
) -> Result<Value, toolforge::ToolError> {
    toolforge::sql::tools::DatabaseTool::FullTextSearch
        .call(spec.clone(), db.clone(), arguments)
        .await
}

/// The ids of an answer's results, in order.
pub fn ids(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect()
}

/// The sorted ids of an answer.
pub fn id_set(answer: &Value) -> Vec<String> {
    let mut ids = ids(answer);
    ids.sort();
    ids
}

/// The behaviour every backend must show over the articles of [`spec`]`(5.0, 1.0)`: words,
/// stemming, accents, phrases, prefixes, field filters, paging, snippets and hostile input.
pub async fn check_behaviour(spec: &Arc<SchemaSpec>, db: &Database) {
    let run = |arguments: Value| search(spec, db, arguments);
    let q = |query: &str| json!({"entity_type": "Article", "query": query, "top_k": 50});

    let answer = run(q("parser")).await.expect("parser");
    assert_eq!(
        id_set(&answer),
        ["lexer-notes", "parser-guide", "query-plans", "title-field"]
    );
    assert_eq!(answer["total"], 4);
    let top: Vec<String> = ids(&answer)[..2].to_vec();
    assert!(
        top.contains(&"parser-guide".to_owned()) && top.contains(&"title-field".to_owned()),
        "title matches weigh more: {answer}"
    );
    let scores: Vec<f64> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best first: {scores:?}"
    );
    assert!(scores.iter().all(|s| *s > 0.0), "{scores:?}");
    let first = &answer["results"][0];
    assert!(first["name"].is_string(), "display name: {first}");

    // Stemming and accents.
    assert_eq!(
        id_set(&run(q("runs")).await.unwrap()),
        ["cafe-review", "run-log"]
    );
    assert_eq!(id_set(&run(q("CAFE")).await.unwrap()), ["cafe-review"]);

    // A phrase needs its words next to each other; loose words do not.
    assert_eq!(
        id_set(&run(q("\"syntax tree\"")).await.unwrap()),
        ["parser-guide", "query-plans"]
    );
    assert_eq!(
        id_set(&run(q("syntax tree")).await.unwrap()),
        ["parser-guide", "query-plans", "tree-walk"]
    );

    // Prefixes.
    assert_eq!(run(q("datab")).await.unwrap()["total"], 0);
    let mut prefix = q("datab");
    prefix["prefix"] = json!(true);
    assert_eq!(id_set(&run(prefix).await.unwrap()), ["database-design"]);

    // Field filter.
    let mut in_title = q("parser");
    in_title["fields"] = json!(["title"]);
    assert_eq!(
        id_set(&run(in_title).await.unwrap()),
        ["parser-guide", "title-field"]
    );

    // Snippets mark the matched terms.
    let answer = run(q("lexer")).await.unwrap();
    assert_eq!(ids(&answer), ["lexer-notes"]);
    let snippet = answer["results"][0]["snippet"].as_str().unwrap();
    assert!(snippet.to_lowercase().contains("**lexer**"), "{snippet}");

    // Paging.
    let page = run(json!({"entity_type": "Article", "query": "parser", "top_k": 3}))
        .await
        .unwrap();
    assert_eq!(page["returned"], 3);
    assert_eq!(page["has_more"], true);
    assert_eq!(page["next_offset"], 3);
    assert_eq!(page["truncated_by"]["limit"], "top_k");
    let rest = run(json!({"entity_type": "Article", "query": "parser", "top_k": 3, "offset": 3}))
        .await
        .unwrap();
    let all = run(q("parser")).await.unwrap();
    let mut paged = ids(&page);
    paged.extend(ids(&rest));
    assert_eq!(paged, ids(&all));
    assert_eq!(rest["next_offset"], Value::Null);

    // Hostile input is text: no operator, column filter, NEAR or prefix of the engine's.
    assert_eq!(ids(&run(q("title:parser")).await.unwrap()), ["title-field"]);
    assert_eq!(run(q("lexer OR recursive")).await.unwrap()["total"], 0);
    assert_eq!(
        id_set(&run(q("parser -syntax")).await.unwrap()),
        ["parser-guide", "query-plans"]
    );
    assert_eq!(
        id_set(&run(q("parser*")).await.unwrap()),
        id_set(&run(q("parser")).await.unwrap())
    );
    for hostile in [
        "NEAR(parser syntax)",
        "NEAR(",
        "OR",
        "AND parser",
        "parser NOT",
        "{title body}: parser",
        "^parser",
        "x\"y",
        "parser\" OR \"lexer",
        "'; DROP TABLE article; --",
        "a:b:c",
    ] {
        let answer = run(q(hostile)).await;
        assert!(answer.is_ok(), "{hostile}: {answer:?}");
    }
    for empty in ["\"", "*", "-", "\"\"", "   ", "()", "((("] {
        let error = run(q(empty)).await.expect_err(empty);
        assert_eq!(
            error.code,
            toolforge::ErrorCode::InvalidArguments,
            "{empty}"
        );
        assert_eq!(error.details.as_ref().unwrap()["path"], "query", "{empty}");
    }
    assert_eq!(
        run(q("parser")).await.unwrap()["total"],
        4,
        "nothing changed"
    );
}
