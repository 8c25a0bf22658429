//! `full_text_search` on SQLite: ranking, phrases, prefixes, snippets and hostile queries
//! (the behaviour PostgreSQL must share, in `full_text_fixture`), weights, the index kept in
//! sync by every write, and `db init` creating it idempotently.
#![cfg(feature = "sqlite")]

use crate::full_text_fixture;

use std::sync::Arc;

use full_text_fixture::{articles, check_behaviour, id_set, ids, jsonl, search, spec, sqlite};
use serde_json::json;
use toolforge::ErrorCode;
use toolforge::sql::tools::database_tool_definitions;

#[tokio::test]
async fn behaviour() {
    let spec = Arc::new(spec(5.0, 1.0));
    let (_dir, db) = sqlite(&spec);
    check_behaviour(&spec, &db).await;
}

#[tokio::test]
async fn weights_change_the_ranking() {
    let query = json!({"entity_type": "Article", "query": "compiler"});
    let title_heavy = Arc::new(spec(10.0, 1.0));
    let (_a, db) = sqlite(&title_heavy);
    let answer = search(&title_heavy, &db, query.clone()).await.unwrap();
    assert_eq!(ids(&answer), ["compiler-title", "compiler-body"]);
    let body_heavy = Arc::new(spec(1.0, 10.0));
    let (_b, db) = sqlite(&body_heavy);
    let answer = search(&body_heavy, &db, query).await.unwrap();
    assert_eq!(ids(&answer), ["compiler-body", "compiler-title"]);
}

#[tokio::test]
async fn definition_lists_indexed_fields_and_weights() {
    let spec = spec(5.0, 1.0);
    let definitions = database_tool_definitions(&spec);
    let search = definitions
        .iter()
        .find(|d| d.name == "full_text_search")
        .expect("full_text_search is built");
    assert!(
        search
            .description
            .contains("Article: title (weight 5), body (weight 1)"),
        "{}",
        search.description
    );
    assert_eq!(
        search.input_schema["properties"]["entity_type"]["enum"],
        json!(["Article"])
    );
    assert_eq!(
        search.input_schema["properties"]["fields"]["items"]["enum"],
        json!(["title", "body"])
    );
    assert_eq!(
        search.input_schema["required"],
        json!(["entity_type", "query"])
    );
    let mut plain = spec.clone();
    plain.entities[0].full_text = None;
    assert!(
        database_tool_definitions(&plain)
            .iter()
            .all(|d| d.name != "full_text_search"),
        "no index, no tool"
    );
}

#[tokio::test]
async fn argument_errors_name_the_argument() {
    let spec = Arc::new(spec(5.0, 1.0));
    let (_dir, db) = sqlite(&spec);
    let cases = [
        (json!({"entity_type": "Note", "query": "x"}), "entity_type"),
        (
            json!({"entity_type": "Articel", "query": "x"}),
            "entity_type",
        ),
        (
            json!({"entity_type": "Article", "query": "x", "fields": ["titel"]}),
            "fields[0]",
        ),
        (
            json!({"entity_type": "Article", "query": "x", "fields": ["year"]}),
            "fields[0]",
        ),
        (
            json!({"entity_type": "Article", "query": "x", "top_k": 0}),
            "top_k",
        ),
        (
            json!({"entity_type": "Article", "query": "x", "top_k": 51}),
            "top_k",
        ),
        (
            json!({"entity_type": "Article", "query": "x", "offset": -1}),
            "offset",
        ),
    ];
    for (arguments, path) in cases {
        let error = search(&spec, &db, arguments.clone())
            .await
            .expect_err(&arguments.to_string());
        assert_eq!(error.code, ErrorCode::InvalidArguments, "{arguments}");
        assert_eq!(error.details.unwrap()["path"], path, "{arguments}");
    }
    let error = search(
        &spec,
        &db,
        json!({"entity_type": "Article", "query": "x", "fields": ["titel"]}),
    )
    .await
    .unwrap_err();
    assert!(
        error.message.contains("Did you mean `title`?"),
        "{}",
        error.message
    );
}

/// The postings in the index: (terms, term instances), from the `fts5vocab` of the table.
fn postings(db: &toolforge::sql::Database) -> (i64, i64) {
    db.write_blocking(|conn| {
        conn.execute_batch(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'article__fts', 'row')",
        )
        .unwrap();
        conn.query_row("SELECT count(*), coalesce(sum(cnt), 0) FROM temp.vocab", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap()
    })
    .unwrap()
}

/// FTS5's own check that the index holds exactly the postings of the stored rows.
fn integrity_check(db: &toolforge::sql::Database) {
    db.write_blocking(|conn| {
        conn.execute_batch(
            "INSERT INTO article__fts(article__fts, rank) VALUES ('integrity-check', 1)",
        )
    })
    .unwrap()
    .expect("the full-text index matches the rows");
}

#[tokio::test]
async fn reimporting_the_same_data_leaves_no_ghost_postings() {
    let spec = Arc::new(spec(5.0, 1.0));
    let (_dir, db) = sqlite(&spec);
    let before = postings(&db);
    assert!(before.0 > 10, "{before:?}");
    let first = search(
        &spec,
        &db,
        json!({"entity_type": "Article", "query": "parser"}),
    )
    .await
    .unwrap();
    for _ in 0..25 {
        db.import_jsonl(&spec, jsonl(&articles()).as_bytes())
            .expect("re-import");
    }
    assert_eq!(postings(&db), before);
    integrity_check(&db);
    let again = search(
        &spec,
        &db,
        json!({"entity_type": "Article", "query": "parser"}),
    )
    .await
    .unwrap();
    assert_eq!(first, again);
}

#[tokio::test]
async fn updates_and_deletes_keep_the_index_in_sync() {
    let spec = Arc::new(spec(5.0, 1.0));
    let (_dir, db) = sqlite(&spec);
    let q = |query: &str| json!({"entity_type": "Article", "query": query, "top_k": 50});
    let update = json!({"entity": "Article", "data": {"slug": "lexer-notes", "title": "Scanner notes",
        "body": "A scanner reads characters one by one.", "year": 2020}});
    db.import_jsonl(&spec, jsonl(&[update]).as_bytes()).unwrap();
    assert_eq!(
        id_set(&search(&spec, &db, q("lexer")).await.unwrap()),
        Vec::<String>::new()
    );
    assert_eq!(
        ids(&search(&spec, &db, q("scanner characters")).await.unwrap()),
        ["lexer-notes"]
    );
    assert_eq!(
        id_set(&search(&spec, &db, q("parser")).await.unwrap()),
        ["parser-guide", "query-plans", "title-field"]
    );
    // A field outside the index changes nothing in it.
    let before = postings(&db);
    let year = json!({"entity": "Article", "data": {"slug": "lexer-notes", "year": 1999}});
    db.import_jsonl(&spec, jsonl(&[year]).as_bytes()).unwrap();
    assert_eq!(postings(&db), before);
    // A delete by any path removes the postings.
    db.write_blocking(|conn| conn.execute("DELETE FROM article WHERE slug = 'query-plans'", []))
        .unwrap()
        .unwrap();
    assert_eq!(
        id_set(&search(&spec, &db, q("parser")).await.unwrap()),
        ["parser-guide", "title-field"]
    );
    integrity_check(&db);
}

#[tokio::test]
async fn init_is_idempotent_and_indexes_rows_stored_before() {
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("late.db")).unwrap();
    // The rows come first, under a spec without the index.
    let mut plain = spec(5.0, 1.0);
    plain.entities[0].full_text = None;
    db.init(&plain).unwrap();
    db.import_jsonl(&plain, jsonl(&articles()).as_bytes())
        .unwrap();
    let spec = Arc::new(spec(5.0, 1.0));
    let report = db.init(&spec).unwrap();
    assert_eq!(
        report.created,
        [
            "article__fts",
            "article__fts__insert",
            "article__fts__delete",
            "article__fts__update"
        ]
    );
    let again = db.init(&spec).unwrap();
    assert!(again.created.is_empty(), "{again:?}");
    assert!(db.check_schema(&spec).unwrap().is_empty());
    assert_eq!(
        search(
            &spec,
            &db,
            json!({"entity_type": "Article", "query": "parser"})
        )
        .await
        .unwrap()["total"],
        4
    );
    integrity_check(&db);
    // Other weights are a ranking setting, not a schema change; another field list is.
    assert!(db.check_schema(&spec_weights(2.0)).unwrap().is_empty());
    let mut fewer = spec_weights(5.0);
    fewer.entities[0].full_text.as_mut().unwrap().fields.pop();
    let differences = db.check_schema(&fewer).unwrap();
    assert!(
        differences
            .iter()
            .any(|d| d.object == "table \"article__fts\""),
        "{differences:?}"
    );
}

fn spec_weights(title: f64) -> toolforge::spec::SchemaSpec {
    spec(title, 1.0)
}
