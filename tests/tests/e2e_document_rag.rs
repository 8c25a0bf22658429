//! End to end on the document-rag example config: a custom unique field (`path`), entities
//! without relationships, and an embedding field that is stored but never returned.

use crate::e2e_support;

use serde_json::json;
use toolforge::ErrorCode;
use toolforge::sql::Database;

use e2e_support::{in_order, seeded, sorted};

#[tokio::test]
async fn every_tool_of_the_document_rag_config_answers() {
    let s = seeded(
        "ragforge__examples__document-rag__ragforge.config.yaml",
        "document-rag.jsonl",
    );
    // no relationships: no explore_relationships tool, and calling it says what exists
    assert!(!s.registry.contains("explore_relationships"));
    let unknown = s.err("explore_relationships", json!({})).await;
    assert_eq!(unknown.code, ErrorCode::UnknownTool);

    let guide = s
        .ok(
            "get_entity_by_id",
            json!({"entity_type": "Document", "id_value": "docs/guide.md"}),
        )
        .await;
    assert_eq!(
        guide["record"],
        json!({"path": "docs/guide.md", "title": "User Guide", "author": "Ada Lovelace"})
    );
    let without_author = s
        .ok(
            "query_entities",
            json!({"entity_type": "Document", "conditions": [{"field": "author", "operator": "=", "value": null}]}),
        )
        .await;
    assert_eq!(sorted(&without_author, "path"), ["notes/todo.txt"]);
    let api = s
        .ok(
            "query_entities",
            json!({"entity_type": "Document", "conditions": [{"field": "title", "operator": "CONTAINS", "value": "API"}]}),
        )
        .await;
    assert_eq!(sorted(&api, "path"), ["docs/api/reference.pdf"]);
    let docs = s
        .ok(
            "glob_search",
            json!({"entity_type": "Document", "field": "path", "pattern": "docs/*"}),
        )
        .await;
    assert_eq!(
        sorted(&docs, "path"),
        ["docs/api/reference.pdf", "docs/guide.md"]
    );
    let projected = s
        .ok(
            "get_entities_by_ids",
            json!({"entity_type": "Document", "ids": ["notes/todo.txt"], "fields": ["title"]}),
        )
        .await;
    assert_eq!(
        projected["results"],
        json!([{"path": "notes/todo.txt", "title": "Todo"}])
    );

    // an embedding loaded through the importer is stored, and never handed to the model
    {
        let db = Database::open(&s.db).unwrap();
        let line = json!({"entity": "Chunk", "data": {"uuid": "c-4", "content": "Vectors here.", "embedding": vec![0.5; 768]}});
        db.import_jsonl(&s.spec, line.to_string().as_bytes())
            .unwrap();
        let stored: i64 = db
            .read_blocking(|conn| {
                conn.query_row(
                    "SELECT length(\"embedding\") FROM \"chunk\" WHERE \"uuid\" = 'c-4'",
                    [],
                    |r| r.get(0),
                )
            })
            .expect("a SQLite read")
            .unwrap();
        assert_eq!(stored, 768 * 4);
    }
    let chunk = s
        .ok(
            "get_entity_by_id",
            json!({"entity_type": "Chunk", "id_value": "c-4"}),
        )
        .await;
    assert_eq!(
        chunk["record"],
        json!({"uuid": "c-4", "content": "Vectors here."})
    );
    let chunks = s
        .ok(
            "query_entities",
            json!({"entity_type": "Chunk", "conditions": [{"field": "content", "operator": "REGEX", "value": "(?i)^the|vectors"}]}),
        )
        .await;
    assert_eq!(sorted(&chunks, "uuid"), ["c-2", "c-4"]);
    let embedding = s
        .err(
            "query_entities",
            json!({"entity_type": "Chunk", "conditions": [{"field": "embedding", "operator": "=", "value": "x"}]}),
        )
        .await;
    assert_eq!(embedding.code, ErrorCode::InvalidArguments);

    let schema = s.ok("get_schema", json!({})).await;
    assert_eq!(schema["entities"][0]["unique_field"], "path");
    let described = s
        .ok("describe_entity", json!({"entity_name": "Chunk"}))
        .await;
    assert!(described.to_string().contains("content"));
    let batch = s
        .ok(
            "batch",
            json!({"calls": [
                {"tool": "get_entity_by_id", "args": {"entity_type": "Document", "id_value": "nope"}},
                {"tool": "get_schema"},
            ]}),
        )
        .await;
    assert_eq!(batch["results"][0]["error"]["error"], "not_found");
    assert_eq!(batch["results"][1]["ok"], true);

    let authors = s
        .ok(
            "query_entities_by_pattern",
            json!({"entity_type": "Document", "field": "author", "pattern": "grace hoper", "pattern_type": "fuzzy"}),
        )
        .await;
    assert_eq!(in_order(&authors, "path"), ["docs/api/reference.pdf"]);
    assert_eq!(authors["distances"], json!([1]));

    e2e_support::semantic_search_says_what_it_needs(&s).await;
    e2e_support::join_and_similar_answer(&s).await;
    assert_eq!(s.uncalled(), Vec::<String>::new());
}
