//! What the end-to-end tests share: a corpus config compiled by the generator, a fresh
//! database initialised from it and seeded from a JSON-lines fixture through the importer,
//! and the live registry built from both.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use toolforge::spec::{SchemaSpec, ToolFamily};
use toolforge::sql::Database;
use toolforge::{ToolError, ToolRegistry};
use toolforge_cli::dynamic;
use toolforge_generator::CompileOptions;
use toolforge_tests::corpus_dir;

/// The folder of the JSON-lines fixtures.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A seeded database and the live registry over it.
pub struct Seeded {
    /// Holds the database file.
    pub dir: tempfile::TempDir,
    /// The corpus config.
    pub config: PathBuf,
    /// The database file.
    pub db: PathBuf,
    /// The compiled spec.
    pub spec: Arc<SchemaSpec>,
    /// The live registry, as `toolforge call` builds it.
    pub registry: Arc<ToolRegistry>,
    called: Mutex<BTreeSet<String>>,
}

/// The options the end-to-end tests compile with: the default tool families and the two that
/// are off unless a config lists them (`ranges`, `patterns`), so that every query tool meets
/// every corpus config. `aggregates` stays off, as by default.
pub fn options() -> CompileOptions {
    CompileOptions::default().tools(
        ToolFamily::ALL
            .into_iter()
            .filter(|family| *family != ToolFamily::Aggregates),
    )
}

/// Compiles `corpus_file` with [`options`], creates a database from it, imports `fixture` and
/// loads the registry with [`dynamic::load`].
pub fn seeded(corpus_file: &str, fixture: &str) -> Seeded {
    let config = corpus_dir().join(corpus_file);
    let dir = tempfile::tempdir().expect("temporary directory");
    let db_path = dir.path().join("e2e.db");
    let compiled = dynamic::compile(&config, &options()).unwrap_or_else(|e| panic!("{e}"));
    {
        let db = Database::open(&db_path).expect("open");
        db.init(&compiled.spec).expect("init");
        let data = std::fs::read(fixtures_dir().join(fixture)).expect("fixture");
        db.import_jsonl(&compiled.spec, data.as_slice())
            .unwrap_or_else(|e| panic!("{fixture}: {e}"));
    }
    let live = dynamic::load(&config, &db_path, &options()).unwrap_or_else(|e| panic!("{e}"));
    Seeded {
        dir,
        config,
        db: db_path,
        spec: live.spec,
        registry: live.registry,
        called: Mutex::new(BTreeSet::new()),
    }
}

impl Seeded {
    /// Calls a tool through the registry, recording the name. A successful answer must
    /// match the tool's `outputSchema` (what MCP clients check `structuredContent` against).
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Value, ToolError> {
        self.called.lock().unwrap().insert(tool.to_string());
        let answer = self.registry.call(tool, arguments.clone()).await;
        if let (Ok(value), Some(registered)) = (&answer, self.registry.get(tool)) {
            toolforge_tests::assert_answer_matches_output_schema(
                registered.definition(),
                &arguments,
                value,
            );
        }
        answer
    }

    /// A call that must succeed.
    pub async fn ok(&self, tool: &str, arguments: Value) -> Value {
        match self.call(tool, arguments.clone()).await {
            Ok(value) => value,
            Err(error) => panic!("{tool} {arguments} failed: {}", error.to_json()),
        }
    }

    /// A call that must fail.
    pub async fn err(&self, tool: &str, arguments: Value) -> ToolError {
        match self.call(tool, arguments.clone()).await {
            Ok(value) => panic!("{tool} {arguments} should fail, got {value}"),
            Err(error) => error,
        }
    }

    /// The tools of the registry no test call has reached yet.
    pub fn uncalled(&self) -> Vec<String> {
        let called = self.called.lock().unwrap();
        self.registry
            .names()
            .filter(|name| !called.contains(*name))
            .map(str::to_string)
            .collect()
    }
}

/// The values of `key` in `answer["results"]`, sorted.
pub fn sorted(answer: &Value, key: &str) -> Vec<String> {
    let mut values = in_order(answer, key);
    values.sort();
    values
}

/// The values of `key` in `answer["results"]`, in answer order.
pub fn in_order(answer: &Value, key: &str) -> Vec<String> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {answer}"))
        .iter()
        .map(|record| match &record[key] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// A fresh current-thread runtime.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// `semantic_search` over a config whose provider (Gemini or OpenAI in the corpus) has no API key in
/// the environment: an `unavailable` answer that names the variable to set, and a call on
/// an entity without a vector index that names the ones with one.
pub async fn semantic_search_says_what_it_needs(s: &Seeded) {
    let indexed = s
        .spec
        .entities
        .iter()
        .find(|e| !e.vector_indexes.is_empty())
        .expect("an entity with a vector index");
    let error = s
        .err(
            "semantic_search",
            serde_json::json!({"entity_type": indexed.name, "query": "where is the config parsed"}),
        )
        .await;
    assert_eq!(
        error.code,
        toolforge::ErrorCode::Unavailable,
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("API key in the environment variable"),
        "{}",
        error.message
    );
    if let Some(plain) = s.spec.entities.iter().find(|e| e.vector_indexes.is_empty()) {
        let error = s
            .err(
                "semantic_search",
                serde_json::json!({"entity_type": plain.name, "query": "anything"}),
            )
            .await;
        assert_eq!(error.code, toolforge::ErrorCode::InvalidArguments);
        assert!(error.message.contains(&indexed.name), "{}", error.message);
    }
}

/// `join_entities`, `find_similar` and `find_clusters` on the seeded records of a config. A one-hop chain along
/// each relationship reaches the same pairs as `explore_relationships`; `find_similar` by
/// structure ranks other records of the start entity, best first, never the record itself; by
/// meaning it says the record has no vector (the corpus configs' providers have no key here).
pub async fn join_and_similar_answer(s: &Seeded) {
    use serde_json::json;
    let ids_of = |answer: &Value, pointer: &str| -> BTreeSet<String> {
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row.pointer(pointer).unwrap().to_string())
            .collect()
    };
    let mut similar_from = None;
    for relationship in &s.spec.relationships {
        let hop = json!({"relationship_type": relationship.rel_type, "direction": "outgoing",
                         "entity_type": relationship.target});
        let joined = s
            .ok(
                "join_entities",
                json!({"start_entity_type": relationship.source, "hops": [hop], "limit": 500}),
            )
            .await;
        let explored = s
            .ok(
                "explore_relationships",
                json!({"start_entity_type": relationship.source,
                       "relationship_type": relationship.rel_type, "direction": "outgoing",
                       "target_entity_type": relationship.target, "limit": 500}),
            )
            .await;
        let target = s.spec.entity(&relationship.target).unwrap();
        let pairs = |answer: &Value, from: &str, to: String| -> BTreeSet<(String, String)> {
            answer["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| {
                    (
                        row.pointer(from).unwrap().to_string(),
                        row.pointer(&to).unwrap().to_string(),
                    )
                })
                .collect()
        };
        let joined_pairs = pairs(&joined, "/path/0", "/path/1".to_owned());
        assert_eq!(
            joined_pairs,
            pairs(
                &explored,
                "/from",
                format!("/record/{}", target.unique_field)
            ),
            "{} along {}: {joined:#}",
            relationship.source,
            relationship.rel_type
        );
        if similar_from.is_none()
            && let Some((from, _)) = joined_pairs.iter().next()
        {
            similar_from = Some((relationship.source.clone(), from.clone()));
        }
    }
    if let Some((entity, id)) = similar_from {
        let id: String = serde_json::from_str(&id).unwrap();
        let answer = s
            .ok(
                "find_similar",
                json!({"entity_type": entity, "id": id, "similarity": "structural"}),
            )
            .await;
        assert!(
            !ids_of(&answer, "/id").contains(&Value::String(id.clone()).to_string()),
            "{answer:#}"
        );
        let scores: Vec<f64> = answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hit| hit["score"].as_f64().unwrap())
            .collect();
        assert!(
            scores.windows(2).all(|w| w[0] >= w[1]) && scores.iter().all(|s| *s > 0.0 && *s <= 1.0),
            "{answer:#}"
        );
    }
    // Clusters along a relationship from an entity to itself: every record in one cluster.
    if let Some(relationship) = s.spec.relationships.iter().find(|r| r.source == r.target) {
        let answer = s
            .ok(
                "find_clusters",
                json!({"entity_type": relationship.source,
                       "relationships": [relationship.rel_type],
                       "min_cluster_size": 1, "members": 50, "limit": 100}),
            )
            .await;
        let mut seen = BTreeSet::new();
        let mut listed = 0;
        for cluster in answer["results"].as_array().unwrap() {
            let members = cluster["members"].as_array().unwrap();
            if cluster["size"].as_u64() <= Some(50) {
                assert_eq!(
                    cluster["size"].as_u64(),
                    Some(members.len() as u64),
                    "{answer:#}"
                );
            }
            for member in members {
                assert!(seen.insert(member["id"].to_string()), "{answer:#}");
            }
            listed += cluster["size"].as_u64().unwrap();
        }
        if answer["truncated"] == false {
            assert_eq!(json!(listed), answer["records"], "{answer:#}");
        }
        assert_eq!(answer["unclustered"], json!(0), "{answer:#}");
    }
    if let Some(indexed) = s
        .spec
        .entities
        .iter()
        .find(|e| !e.vector_indexes.is_empty())
    {
        let first = s
            .ok(
                "query_entities",
                json!({"entity_type": indexed.name, "limit": 1}),
            )
            .await;
        let id = &first["results"][0][&indexed.unique_field];
        if let Some(id) = id.as_str() {
            let error = s
                .err(
                    "find_similar",
                    json!({"entity_type": indexed.name, "id": id, "similarity": "semantic"}),
                )
                .await;
            assert!(error.message.contains("has no vector"), "{}", error.message);
        }
    }
}
