//! `full_text_search` on a real PostgreSQL server (`TOOLFORGE_TEST_POSTGRES_URL`, see
//! `scripts/with-postgres`): the same behaviour as on SQLite, the same results in the same
//! order with the same scores (a differential run over the same data and queries), the index
//! kept in sync by imports and deletes, stable under re-imports, and built by `db init` over
//! rows stored before. Without a server each test says it was skipped.
#![cfg(feature = "postgres")]

use crate::full_text_fixture;
use crate::pg_support;

use std::sync::Arc;

use full_text_fixture::{
    articles, check_behaviour, id_set, ids, jsonl, load, search, spec, sqlite,
};
use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;

/// A fresh PostgreSQL database named after `test` with the articles, or `None` without a
/// server.
fn postgres(test: &str, spec: &SchemaSpec) -> Option<(Database, String)> {
    let base = pg_support::url(&format!("full_text_postgres::{test}"))?;
    let (db, url) = pg_support::fresh(&base, test);
    load(&db, spec);
    Some((db, url))
}

/// The value of a one-row, one-column query on PostgreSQL.
fn scalar(url: &str, sql: &str) -> i64 {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                let task = tokio::spawn(connection);
                let row = client.query_one(&sql, &[]).await.unwrap();
                drop(client);
                let _ = task.await;
                row.get::<_, i64>(0)
            })
    })
    .join()
    .unwrap()
}

#[tokio::test]
async fn behaviour() {
    let spec = Arc::new(spec(5.0, 1.0));
    let Some((db, _url)) = postgres("behaviour", &spec) else {
        return;
    };
    check_behaviour(&spec, &db).await;
}

/// Queries of every kind, for the differential run.
fn queries() -> Vec<Value> {
    let mut calls = Vec::new();
    for query in [
        "parser",
        "tree",
        "syntax tree",
        "\"syntax tree\"",
        "the",
        "runs",
        "a",
        "compiler",
        "title:parser",
        "index",
        "query plan",
        "tokens parser",
    ] {
        calls.push(json!({"entity_type": "Article", "query": query, "top_k": 50}));
        calls.push(
            json!({"entity_type": "Article", "query": query, "top_k": 50, "fields": ["body"]}),
        );
        calls.push(json!({"entity_type": "Article", "query": query, "top_k": 2, "offset": 1}));
        calls.push(json!({"entity_type": "Article", "query": query, "top_k": 2, "offset": 100}));
    }
    for query in ["pars", "tre", "sy", "datab", "ru"] {
        calls.push(json!({"entity_type": "Article", "query": query, "prefix": true, "top_k": 50}));
    }
    calls
}

#[tokio::test]
async fn postgres_answers_as_sqlite_does() {
    for (title, body) in [(5.0, 1.0), (1.0, 10.0)] {
        let spec = Arc::new(spec(title, body));
        let Some((pg, _url)) = postgres(&format!("differential_{}", title as i64), &spec) else {
            return;
        };
        let (_dir, lite) = sqlite(&spec);
        for arguments in queries() {
            let expected = search(&spec, &lite, arguments.clone()).await.unwrap();
            let got = search(&spec, &pg, arguments.clone()).await.unwrap();
            assert_eq!(got["total"], expected["total"], "{arguments}");
            assert_eq!(ids(&got), ids(&expected), "{arguments}");
            for (a, b) in got["results"]
                .as_array()
                .unwrap()
                .iter()
                .zip(expected["results"].as_array().unwrap())
            {
                let (a_score, b_score) =
                    (a["score"].as_f64().unwrap(), b["score"].as_f64().unwrap());
                assert!(
                    (a_score - b_score).abs() <= 1e-9 * b_score.abs().max(1.0),
                    "{arguments}: {a} vs {b}"
                );
                assert_eq!(a["snippet"], b["snippet"], "{arguments}");
                assert_eq!(a["name"], b["name"], "{arguments}");
            }
        }
    }
}

#[tokio::test]
async fn writes_keep_the_index_in_sync_and_reimports_are_stable() {
    let spec = Arc::new(spec(5.0, 1.0));
    let Some((db, url)) = postgres("sync", &spec) else {
        return;
    };
    let postings = |url: &str| scalar(url, "SELECT count(*) FROM article__fts_terms");
    let before = postings(&url);
    assert!(before > 50, "{before}");
    let first = search(
        &spec,
        &db,
        json!({"entity_type": "Article", "query": "parser"}),
    )
    .await
    .unwrap();
    for _ in 0..10 {
        db.import_jsonl(&spec, jsonl(&articles()).as_bytes())
            .unwrap();
    }
    assert_eq!(postings(&url), before);
    assert_eq!(
        search(
            &spec,
            &db,
            json!({"entity_type": "Article", "query": "parser"})
        )
        .await
        .unwrap(),
        first
    );
    let q = |query: &str| json!({"entity_type": "Article", "query": query, "top_k": 50});
    let update = json!({"entity": "Article", "data": {"slug": "lexer-notes", "title": "Scanner notes",
        "body": "A scanner reads characters one by one.", "year": 2020}});
    db.import_jsonl(&spec, jsonl(&[update]).as_bytes()).unwrap();
    assert_eq!(search(&spec, &db, q("lexer")).await.unwrap()["total"], 0);
    assert_eq!(
        ids(&search(&spec, &db, q("scanner characters")).await.unwrap()),
        ["lexer-notes"]
    );
    // A partial update (a field outside the index) keeps the record's postings.
    let year = json!({"entity": "Article", "data": {"slug": "lexer-notes", "year": 1999}});
    db.import_jsonl(&spec, jsonl(&[year]).as_bytes()).unwrap();
    assert_eq!(
        ids(&search(&spec, &db, q("scanner")).await.unwrap()),
        ["lexer-notes"]
    );
    pg_support::batch(&url, "DELETE FROM article WHERE slug = 'query-plans'");
    assert_eq!(
        id_set(&search(&spec, &db, q("parser")).await.unwrap()),
        ["parser-guide", "title-field"]
    );
    assert_eq!(
        scalar(&url, "SELECT count(*) FROM article__fts_docs"),
        scalar(&url, "SELECT count(*) FROM article")
    );
}

#[tokio::test]
async fn init_indexes_rows_stored_before_and_is_idempotent() {
    let Some(base) = pg_support::url("full_text_postgres::init") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "fts_init");
    let mut plain = spec(5.0, 1.0);
    plain.entities[0].full_text = None;
    load(&db, &plain);
    let spec = Arc::new(spec(5.0, 1.0));
    let report = db.init(&spec).unwrap();
    assert_eq!(
        report.created,
        [
            "article__fts_terms",
            "article__fts_terms__id__idx",
            "article__fts_docs",
            "article__fts_totals",
            "article__fts_totals__keep"
        ]
    );
    assert!(db.init(&spec).unwrap().created.is_empty());
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
}

/// The totals row and what it sums, `(documents, tokens)` each.
fn totals(url: &str) -> ((i64, i64), (i64, i64)) {
    let kept = (
        scalar(url, "SELECT documents FROM article__fts_totals"),
        scalar(url, "SELECT tokens FROM article__fts_totals"),
    );
    let summed = (
        scalar(url, "SELECT count(*) FROM article__fts_docs"),
        scalar(
            url,
            "SELECT coalesce(sum(length), 0)::bigint FROM article__fts_docs",
        ),
    );
    (kept, summed)
}

#[tokio::test]
async fn the_totals_row_stays_exact_on_every_write_path() {
    let spec = Arc::new(spec(5.0, 1.0));
    let Some((db, url)) = postgres("totals", &spec) else {
        return;
    };
    let (kept, summed) = totals(&url);
    assert_eq!(kept, summed);
    assert_eq!(kept.0, articles().len() as i64);
    // Re-imports (updates of every length), a changed text, a cascaded delete, a direct
    // delete, a truncation, and the rows again.
    db.import_jsonl(&spec, jsonl(&articles()).as_bytes())
        .unwrap();
    assert_eq!(totals(&url).0, kept);
    let update = json!({"entity": "Article", "data": {"slug": "lexer-notes", "title": "Scanner",
        "body": "A scanner.", "year": 2020}});
    db.import_jsonl(&spec, jsonl(&[update]).as_bytes()).unwrap();
    let (after, summed) = totals(&url);
    assert_eq!(after, summed);
    assert!(after.1 < kept.1, "{after:?} {kept:?}");
    pg_support::batch(&url, "DELETE FROM article WHERE slug = 'query-plans'");
    assert_eq!(totals(&url).0, totals(&url).1);
    assert_eq!(totals(&url).0.0, kept.0 - 1);
    pg_support::batch(
        &url,
        "UPDATE article__fts_docs SET length = length + 3 WHERE id = 'tree-walk'",
    );
    assert_eq!(totals(&url).0, totals(&url).1);
    pg_support::batch(&url, "TRUNCATE article CASCADE");
    assert_eq!(totals(&url), ((0, 0), (0, 0)));
    db.import_jsonl(&spec, jsonl(&articles()).as_bytes())
        .unwrap();
    assert_eq!(totals(&url), (kept, kept));
}

#[tokio::test]
async fn init_adds_the_totals_to_an_index_built_without_them() {
    let spec = Arc::new(spec(5.0, 1.0));
    let Some((db, url)) = postgres("totals_upgrade", &spec) else {
        return;
    };
    let (kept, _) = totals(&url);
    let before = search(
        &spec,
        &db,
        json!({"entity_type": "Article", "query": "tree"}),
    )
    .await
    .unwrap();
    // An index as the first releases built it: postings and lengths, no totals.
    pg_support::batch(
        &url,
        "DROP TABLE article__fts_totals; DROP FUNCTION article__fts_totals__keep() CASCADE",
    );
    let gaps = toolforge::sql::schema_gaps(&db, &spec).unwrap();
    let gaps: Vec<String> = gaps.iter().map(|gap| gap.object.clone()).collect();
    assert_eq!(
        gaps,
        [
            "table \"article__fts_totals\"",
            "trigger \"article__fts_totals__keep\""
        ]
    );
    let report = db.init(&spec).unwrap();
    assert_eq!(
        report.created,
        ["article__fts_totals", "article__fts_totals__keep"]
    );
    assert_eq!(totals(&url), (kept, kept));
    assert_eq!(
        search(
            &spec,
            &db,
            json!({"entity_type": "Article", "query": "tree"})
        )
        .await
        .unwrap(),
        before
    );
    pg_support::batch(&url, "DELETE FROM article WHERE slug = 'tree-walk'");
    assert_eq!(totals(&url).0, totals(&url).1);
}
