//! The example's tools answer from the loaded sample, checked against the sample data itself.

use serde_json::{Value, json};
use toolforge::sql::Database;

use cli_client_example::{library, sample};

async fn registry() -> (tempfile::TempDir, std::sync::Arc<toolforge::ToolRegistry>) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    let stats = sample::load(&db).unwrap();
    let pairs: usize = sample::books()
        .iter()
        .map(|(_, authors)| authors.len())
        .sum();
    assert_eq!(
        stats.entities,
        sample::books().len() + sample::authors().len()
    );
    assert_eq!(stats.relationships, pairs);
    (dir, library::setup_tool_registry(db).unwrap())
}

#[tokio::test]
async fn author_bibliography_lists_the_authors_books_by_year_with_their_pages() {
    let (_dir, registry) = registry().await;
    let answer = registry
        .call("author_bibliography", json!({"name": "Gaiman"}))
        .await
        .unwrap();
    let expected: Vec<_> = sample::books()
        .into_iter()
        .filter(|(_, authors)| authors.contains(&"neil-gaiman"))
        .map(|(book, _)| book)
        .collect();
    let entry = &answer[0];
    assert_eq!(answer.as_array().unwrap().len(), 1);
    assert_eq!(entry["author"]["slug"], "neil-gaiman");
    let titles: Vec<_> = entry["books"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["title"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(titles, ["Good Omens", "American Gods"]);
    let pages: f64 = expected.iter().filter_map(|b| b.pages).sum();
    assert_eq!(entry["total_pages"], json!(pages as u64));
    // the computed field comes back on every book
    assert!(
        entry["books"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["is_long"].is_boolean())
    );
}

#[tokio::test]
async fn an_unknown_author_is_a_not_found_error_that_says_what_to_do() {
    let (_dir, registry) = registry().await;
    let error = registry
        .call("author_bibliography", json!({"name": "Tolkien"}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("Tolkien"), "{error}");
    assert!(error.to_string().contains("query_entities"), "{error}");
}

#[tokio::test]
async fn the_computed_field_filters_like_the_sample_says() {
    let (_dir, registry) = registry().await;
    let answer = registry
        .call(
            "query_entities",
            json!({"entity_type": "Book", "conditions": [{"field": "is_long", "operator": "=", "value": true}]}),
        )
        .await
        .unwrap();
    let long = sample::books()
        .iter()
        .filter(|(book, _)| book.pages.unwrap() > 400.0)
        .count();
    assert_eq!(answer["total"], json!(long));
    assert!(
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b: &Value| b["is_long"] == true)
    );
}
