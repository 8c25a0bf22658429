//! Vector search inside PostgreSQL (pgvector): the same answers as the in-process search, an
//! HNSW index that finds what the exact search finds, filters that still fill `top_k`,
//! `find_similar` by a record's own vector in the server, and databases made before the
//! extension converted in place.
//!
//! Needs two servers: `TOOLFORGE_TEST_PGVECTOR_URL` (with pgvector; `scripts/with-pgvector`)
//! and `TOOLFORGE_TEST_POSTGRES_URL` (without; `scripts/with-postgres`). Embeddings come from
//! the real all-MiniLM-L6-v2 model, except in the recall test, where each query names a
//! stored vector.

use crate::pg_support;
use crate::row_embedder;
use crate::similar_fixture;
use crate::test_model;

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::{ToolContext, ToolRegistry};
use toolforge_generator::{CompileOptions, compile_str};

use row_embedder::RowEmbedder;
use test_model::model;

fn compile(source: &str, name: &str) -> Arc<SchemaSpec> {
    let compiled = compile_str(source, name, &CompileOptions::default())
        .unwrap_or_else(|errors| panic!("{}", errors.render()));
    Arc::new(compiled.spec)
}

fn articles_spec() -> Arc<SchemaSpec> {
    compile(
        include_str!("../fixtures/pgvector/articles.yaml"),
        "articles.yaml",
    )
}

const TOPICS: [(&str, &str); 6] = [
    (
        "rivers",
        "floods on the river delta, levees and the rising water after rain",
    ),
    (
        "markets",
        "stock markets fell as investors sold shares and bond yields rose",
    ),
    (
        "football",
        "the striker scored twice and the team won the league final",
    ),
    (
        "kitchens",
        "a recipe for bread: flour, yeast, salt and a hot oven",
    ),
    (
        "space",
        "the rocket launched a satellite into orbit around the moon",
    ),
    (
        "health",
        "doctors tested a vaccine against the virus in a clinical trial",
    ),
];

const DESKS: [&str; 3] = ["public", "north", "south"];

/// 54 articles: for each topic, nine takes on it from three desks over three years.
fn articles() -> String {
    let mut lines = String::new();
    let mut n = 0;
    for (topic, text) in TOPICS {
        for (variant, angle) in ["a report", "an opinion", "a short note"]
            .iter()
            .enumerate()
        {
            for (year_index, desk) in DESKS.iter().enumerate() {
                n += 1;
                let year = 2020 + year_index as i64 + variant as i64;
                let body = format!("{angle} from {year}: {text} (item {n})");
                let line = json!({"entity": "Article", "data": {
                    "id": format!("a{n:02}"), "title": format!("{topic} {n}"), "body": body,
                    "section": topic, "year": year, "desk": desk}});
                lines.push_str(&format!("{line}\n"));
            }
        }
    }
    lines
}

fn registry(spec: &Arc<SchemaSpec>, db: &Database, desk: &str) -> Arc<ToolRegistry> {
    toolforge::sql::registry_builder(spec.clone(), db.clone())
        .unwrap()
        .with_context(ToolContext::new().with_value("desk", desk))
        .build()
}

/// Every search the comparison makes: semantic with and without conditions, hybrid.
fn searches() -> Vec<(&'static str, Value)> {
    vec![
        (
            "semantic_search",
            json!({"entity_type": "Article", "query": "water levels and flooding", "top_k": 8}),
        ),
        (
            "semantic_search",
            json!({"entity_type": "Article", "query": "a vaccine trial", "top_k": 5,
                   "conditions": [{"field": "year", "operator": ">=", "value": 2022}]}),
        ),
        (
            "semantic_search",
            json!({"entity_type": "Article", "query": "baking bread at home", "top_k": 6,
                   "conditions": [{"field": "section", "operator": "IN", "value": ["kitchens", "markets"]}]}),
        ),
        (
            "semantic_search",
            json!({"entity_type": "Article", "query": "orbit", "top_k": 50, "min_score": 0.2}),
        ),
        (
            "hybrid_search",
            json!({"entity_type": "Article", "query": "investors sold shares", "top_k": 7}),
        ),
    ]
}

/// Each search's ids in order, and scores, as `desk` sees them.
async fn answers(spec: &Arc<SchemaSpec>, db: &Database, desk: &str) -> Vec<Vec<(String, f64)>> {
    let registry = registry(spec, db, desk);
    let mut all = Vec::new();
    for (tool, arguments) in searches() {
        let answer = registry
            .call(tool, arguments.clone())
            .await
            .unwrap_or_else(|error| panic!("{tool} {arguments}: {}", error.to_json()));
        let definition = registry.get(tool).unwrap().definition();
        toolforge_tests::assert_answer_matches_output_schema(definition, &arguments, &answer);
        let hits: Vec<(String, f64)> = answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hit| {
                (
                    hit["id"].as_str().unwrap().to_owned(),
                    hit["score"].as_f64().unwrap(),
                )
            })
            .collect();
        assert!(!hits.is_empty(), "{tool} {arguments} found nothing");
        all.push(hits);
    }
    all
}

fn same(left: &[Vec<(String, f64)>], right: &[Vec<(String, f64)>], what: &str) {
    for (i, (l, r)) in left.iter().zip(right).enumerate() {
        let ids = |hits: &[(String, f64)]| hits.iter().map(|h| h.0.clone()).collect::<Vec<_>>();
        assert_eq!(ids(l), ids(r), "search {i}: {what}");
        for ((id, a), (_, b)) in l.iter().zip(r) {
            assert!(
                (a - b).abs() < 1e-4,
                "search {i}, {id}: score {a} vs {b}: {what}"
            );
        }
    }
}

/// The type of `column` of `table` in the database at `url`.
fn column_type(url: &str, table: &str, column: &str) -> String {
    let dump = pg_support::query_text(
        url,
        &format!(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute \
             WHERE attrelid = '\"{table}\"'::regclass AND attname = '{column}'"
        ),
    );
    dump.trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semantic_and_hybrid_search_give_the_same_answers_on_every_backend() {
    let Some(pgvector) = pg_support::pgvector_url(
        "pgvector::semantic_and_hybrid_search_give_the_same_answers_on_every_backend",
    ) else {
        return;
    };
    let Some(plain) = pg_support::url(
        "pgvector::semantic_and_hybrid_search_give_the_same_answers_on_every_backend",
    ) else {
        return;
    };
    let spec = articles_spec();
    let data = articles();

    let dir = tempfile::tempdir().unwrap();
    let sqlite = Database::open(dir.path().join("articles.db"))
        .unwrap()
        .with_embedder(model());
    sqlite.init(&spec).unwrap();
    sqlite.import_jsonl(&spec, data.as_bytes()).unwrap();

    let (bytes, bytes_url) = pg_support::fresh(&plain, "pgv_bytes");
    let bytes = bytes.with_embedder(model());
    bytes.init(&spec).unwrap();
    bytes.import_jsonl(&spec, data.as_bytes()).unwrap();
    assert_eq!(
        column_type(&bytes_url, "article", "body_embedding"),
        "bytea"
    );

    let (vectors, vectors_url) = pg_support::fresh(&pgvector, "pgv_vectors");
    let vectors = vectors.with_embedder(model());
    let report = vectors.init(&spec).unwrap();
    assert!(
        report
            .created
            .contains(&"article__body_embedding__hnsw".to_owned()),
        "{report:?}"
    );
    vectors.import_jsonl(&spec, data.as_bytes()).unwrap();
    assert_eq!(
        column_type(&vectors_url, "article", "body_embedding"),
        "vector(384)"
    );

    for desk in ["north", "south"] {
        let expected = answers(&spec, &sqlite, desk).await;
        // The other desk's records never show.
        let hidden = if desk == "north" { "south" } else { "north" };
        let visible: std::collections::HashSet<String> = data
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|line| line["data"]["desk"] != hidden)
            .map(|line| line["data"]["id"].as_str().unwrap().to_owned())
            .collect();
        for hits in &expected {
            assert!(hits.iter().all(|(id, _)| visible.contains(id)), "{hits:?}");
        }
        same(
            &expected,
            &answers(&spec, &bytes, desk).await,
            "PostgreSQL without pgvector",
        );
        // With the HNSW index (on 54 rows it finds every neighbour) and without it (exact).
        same(
            &expected,
            &answers(&spec, &vectors, desk).await,
            "pgvector, HNSW index",
        );
        pg_support::batch(&vectors_url, "DROP INDEX article__body_embedding__hnsw");
        same(
            &expected,
            &answers(&spec, &vectors, desk).await,
            "pgvector, exact",
        );
        vectors.init(&spec).unwrap();
    }
}

/// `count` vectors of 32 values around 40 centres, from a fixed seed.
fn points(count: usize) -> Vec<Vec<f32>> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0
    };
    let centres: Vec<Vec<f32>> = (0..40).map(|_| (0..32).map(|_| next()).collect()).collect();
    (0..count)
        .map(|i| {
            centres[i % centres.len()]
                .iter()
                .map(|c| c + 0.35 * next())
                .collect()
        })
        .collect()
}

async fn top_ids(registry: &ToolRegistry, arguments: Value) -> Vec<String> {
    let answer = registry
        .call("semantic_search", arguments.clone())
        .await
        .unwrap_or_else(|error| panic!("{arguments}: {}", error.to_json()));
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hnsw_index_finds_what_the_exact_search_finds_and_filters_still_fill_top_k() {
    let Some(pgvector) = pg_support::pgvector_url(
        "pgvector::the_hnsw_index_finds_what_the_exact_search_finds_and_filters_still_fill_top_k",
    ) else {
        return;
    };
    let spec = compile(
        include_str!("../fixtures/pgvector/points.yaml"),
        "points.yaml",
    );
    let rows = points(20_000);
    let (db, url) = pg_support::fresh(&pgvector, "pgv_recall");
    let db = db.with_embedder(Arc::new(RowEmbedder(rows.clone())));
    db.init(&spec).unwrap();
    db.import(&spec, |import| {
        for (row, vector) in rows.iter().enumerate() {
            // One point in fifty is in bucket 1: a filter that keeps 2 % of the rows.
            let data = json!({"id": format!("p{row:05}"), "bucket": i64::from(row % 50 == 0),
                              "position": vector});
            import.entity("Point", data.as_object().unwrap())?;
        }
        Ok(())
    })
    .unwrap();
    let registry = toolforge::sql::registry(spec.clone(), db.clone()).unwrap();
    let queries: Vec<usize> = (0..60).map(|i| i * 331 % rows.len()).collect();
    let filter = json!([{"field": "bucket", "operator": "=", "value": 1}]);
    let mut approximate = Vec::new();
    for &row in &queries {
        approximate.push((
            top_ids(
                &registry,
                json!({"entity_type": "Point", "query": format!("row {row}"), "top_k": 10}),
            )
            .await,
            top_ids(
                &registry,
                json!({"entity_type": "Point", "query": format!("row {row}"), "top_k": 10,
                       "conditions": filter}),
            )
            .await,
        ));
    }
    pg_support::batch(&url, "DROP INDEX point__position__hnsw");
    let (mut found, mut wanted, mut found_filtered, mut wanted_filtered) = (0, 0, 0, 0);
    for (&row, (plain, filtered)) in queries.iter().zip(&approximate) {
        let exact = top_ids(
            &registry,
            json!({"entity_type": "Point", "query": format!("row {row}"), "top_k": 10}),
        )
        .await;
        let exact_filtered = top_ids(
            &registry,
            json!({"entity_type": "Point", "query": format!("row {row}"), "top_k": 10,
                   "conditions": filter}),
        )
        .await;
        assert_eq!(exact.len(), 10);
        assert_eq!(
            filtered.len(),
            10,
            "a filter keeping 2 % of the rows still fills top_k"
        );
        found += plain.iter().filter(|id| exact.contains(id)).count();
        wanted += exact.len();
        found_filtered += filtered
            .iter()
            .filter(|id| exact_filtered.contains(id))
            .count();
        wanted_filtered += exact_filtered.len();
    }
    let recall = found as f64 / wanted as f64;
    let recall_filtered = found_filtered as f64 / wanted_filtered as f64;
    eprintln!("recall@10: {recall:.3}; with a 2 % filter: {recall_filtered:.3}");
    assert!(recall >= 0.95, "recall@10 {recall}");
    assert!(
        recall_filtered >= 0.95,
        "recall@10 with a filter {recall_filtered}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_converts_vectors_stored_before_the_extension_keeping_every_value() {
    let Some(pgvector) = pg_support::pgvector_url(
        "pgvector::init_converts_vectors_stored_before_the_extension_keeping_every_value",
    ) else {
        return;
    };
    let spec = articles_spec();
    // A role that may not create the extension: its database gets `BYTEA` vectors.
    let role = format!("tf_plain_{}", std::process::id());
    pg_support::batch(
        &pgvector,
        &format!("DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN NOSUPERUSER"),
    );
    let (_, url) = pg_support::fresh(&pgvector, "pgv_convert");
    pg_support::batch(
        &url,
        &format!("ALTER SCHEMA public OWNER TO {role}; GRANT ALL ON SCHEMA public TO {role}"),
    );
    let as_role = url.replacen("toolforge@", &format!("{role}@"), 1);
    let db = Database::open(&as_role).unwrap().with_embedder(model());
    db.init(&spec).unwrap();
    db.import_jsonl(&spec, articles().as_bytes()).unwrap();
    assert_eq!(column_type(&url, "article", "body_embedding"), "bytea");
    let stored = |url: &str| {
        pg_support::query_text(
            url,
            "SELECT string_agg(id || '=' || CAST(body_embedding AS text), ';' ORDER BY id) \
             FROM article",
        )
    };
    let before = answers(&spec, &db, "north").await;
    let before_values = pg_support::query_text(
        &url,
        "SELECT count(*) FROM article WHERE length(body_embedding) = 1536",
    );
    assert_eq!(before_values.trim(), "54");

    // The extension arrives (a superuser creates it); the schema plan says what init does.
    pg_support::batch(&url, "CREATE EXTENSION vector");
    let plan = db.schema_plan(&spec).unwrap();
    assert!(plan.differences.is_empty(), "{:?}", plan.differences);
    assert_eq!(plan.conversions.len(), 1, "{plan:?}");
    assert!(
        plan.conversions[0].to_string().contains("vector(384)"),
        "{}",
        plan.conversions[0]
    );
    // The database still serves as it is, searching in memory.
    assert!(toolforge::sql::schema_gaps(&db, &spec).unwrap().is_empty());
    same(
        &before,
        &answers(&spec, &db, "north").await,
        "before the conversion",
    );

    // While connections of a server hold their row-rule views, the column cannot change:
    // init says so and changes nothing.
    let error = db.init(&spec).unwrap_err().to_string();
    assert!(
        error.contains("cannot convert") && error.contains("stop them"),
        "{error}"
    );
    assert_eq!(column_type(&url, "article", "body_embedding"), "bytea");
    drop(db);
    // The servers stopped: their sessions (and views) are gone.
    for _ in 0..100 {
        let sessions = pg_support::query_text(
            &url,
            &format!("SELECT count(*) FROM pg_stat_activity WHERE usename = '{role}'"),
        );
        if sessions.trim() == "0" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let db = Database::open(&as_role).unwrap().with_embedder(model());
    let report = db.init(&spec).unwrap();
    assert_eq!(report.converted.len(), 1, "{report:?}");
    assert!(
        report
            .created
            .contains(&"article__body_embedding__hnsw".to_owned()),
        "{report:?}"
    );
    assert_eq!(
        column_type(&url, "article", "body_embedding"),
        "vector(384)"
    );
    // Every value kept exactly: the vectors read back as the same 32-bit floats the model gave.
    let (_, reference_url) = pg_support::fresh(&pgvector, "pgv_reference");
    let reference = Database::open(&reference_url)
        .unwrap()
        .with_embedder(model());
    reference.init(&spec).unwrap();
    reference
        .import_jsonl(&spec, articles().as_bytes())
        .unwrap();
    assert_eq!(stored(&url), stored(&reference_url));
    same(
        &before,
        &answers(&spec, &db, "north").await,
        "after the conversion",
    );
    // Run again, init has nothing left to convert.
    let again = db.init(&spec).unwrap();
    assert!(
        again.converted.is_empty() && again.created.is_empty(),
        "{again:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_index_past_the_memory_cap_is_refused_with_the_cap_and_the_way_out() {
    let source = include_str!("../fixtures/pgvector/articles.yaml").replace(
        "toolforge:\n",
        "toolforge:\n  vector_search: {max_vectors_in_memory: 50}\n",
    );
    let spec = compile(&source, "articles.yaml");
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("articles.db"))
        .unwrap()
        .with_embedder(model());
    db.init(&spec).unwrap();
    db.import_jsonl(&spec, articles().as_bytes()).unwrap();
    let error = registry(&spec, &db, "north")
        .call(
            "semantic_search",
            json!({"entity_type": "Article", "query": "rivers"}),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, toolforge::ErrorCode::ExecutionFailed);
    assert!(
        error.message.contains("54 vectors")
            && error.message.contains("max_vectors_in_memory: 50")
            && error.message.contains("pgvector"),
        "{}",
        error.message
    );
    assert_eq!(error.details.as_ref().unwrap()["cap"], json!(50));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_precision_keeps_halfvec_columns_searched_through_their_own_index() {
    let Some(pgvector) = pg_support::pgvector_url(
        "pgvector::half_precision_keeps_halfvec_columns_searched_through_their_own_index",
    ) else {
        return;
    };
    let source = include_str!("../fixtures/pgvector/points.yaml")
        .replace("vector_search:\n", "vector_search:\n    precision: half\n");
    let spec = compile(&source, "points.yaml");
    let rows = points(2_000);
    let (db, url) = pg_support::fresh(&pgvector, "pgv_half");
    let db = db.with_embedder(Arc::new(RowEmbedder(rows.clone())));
    db.init(&spec).unwrap();
    db.import(&spec, |import| {
        for (row, vector) in rows.iter().enumerate() {
            let data = json!({"id": format!("p{row:05}"), "bucket": 0, "position": vector});
            import.entity("Point", data.as_object().unwrap())?;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(column_type(&url, "point", "position"), "halfvec(32)");
    let index = pg_support::query_text(
        &url,
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'point__position__hnsw'",
    );
    assert!(index.contains("halfvec_cosine_ops"), "{index}");
    let registry = toolforge::sql::registry(spec.clone(), db.clone()).unwrap();
    for row in [0, 17, 1_999] {
        let ids = top_ids(
            &registry,
            json!({"entity_type": "Point", "query": format!("row {row}"), "top_k": 3}),
        )
        .await;
        assert_eq!(ids[0], format!("p{row:05}"), "{ids:?}");
    }
}

/// `find_similar` with the vectors in a pgvector column: the server orders by distance to the
/// record's own stored vector, with the HNSW index and without it, and every kind of similarity
/// matches the brute force of `similar_fixture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_similar_by_a_stored_vector_in_the_server() {
    let Some(pgvector) =
        pg_support::pgvector_url("pgvector::find_similar_by_a_stored_vector_in_the_server")
    else {
        return;
    };
    let (db, url) = pg_support::fresh(&pgvector, "pgv_similar");
    similar_fixture::check_similar(&db).await;
    assert_eq!(column_type(&url, "paper", "embedding"), "vector(6)");
    pg_support::batch(&url, "DROP INDEX paper__embedding__hnsw");
    similar_fixture::check_answers(&db).await;
}
