//! Approximate vector search (the HNSW graph of feature `ann`) against exact search on the
//! same vectors: clustered 64-dimension vectors (embeddings cluster by topic), recall@10 of at
//! least 0.95 for cosine and Euclidean, scores identical to the exact ones, filters respected;
//! and through a database, `semantic_search` answering from the graph once it is built.

use crate::row_embedder;

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::search::approximate::{ApproximateIndex, ApproximateSettings};
use toolforge::search::vector::VectorMatrix;
use toolforge::spec::{SchemaSpec, Similarity};
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

use row_embedder::RowEmbedder;

const DIMENSION: usize = 64;

/// A xorshift generator: the same vectors on every run.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    fn vector(&mut self) -> Vec<f32> {
        (0..DIMENSION).map(|_| self.unit()).collect()
    }
}

/// `count` vectors around 50 centres, and 40 queries near some of them.
fn clustered(count: usize, seed: u64) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let mut random = Random(seed);
    let centres: Vec<Vec<f32>> = (0..50).map(|_| random.vector()).collect();
    let rows: Vec<Vec<f32>> = (0..count)
        .map(|i| {
            centres[i % centres.len()]
                .iter()
                .map(|x| x + 0.5 * random.unit())
                .collect()
        })
        .collect();
    let queries = (0..40)
        .map(|i| {
            rows[i * 97 % count]
                .iter()
                .map(|x| x + 0.2 * random.unit())
                .collect()
        })
        .collect();
    (rows, queries)
}

fn matrix(similarity: Similarity, rows: &[Vec<f32>]) -> VectorMatrix {
    let mut matrix = VectorMatrix::new(DIMENSION, similarity);
    for (row, vector) in rows.iter().enumerate() {
        assert!(matrix.push(format!("id-{row}"), vector));
    }
    matrix
}

fn settings() -> ApproximateSettings {
    ApproximateSettings {
        min_vectors: 1,
        ..ApproximateSettings::default()
    }
}

#[test]
fn the_graph_finds_the_exact_neighbours_with_their_exact_scores() {
    let (rows, queries) = clustered(1_500, 7);
    for similarity in [Similarity::Cosine, Similarity::Euclidean] {
        let matrix = matrix(similarity, &rows);
        let graph = ApproximateIndex::build(&matrix, &settings()).expect("a graph");
        let (mut found, mut wanted) = (0, 0);
        for query in &queries {
            let exact = matrix.top_k(query, 10, |_| true);
            let approximate = graph.top_k(&matrix, query, 10, &|_| true);
            assert_eq!(approximate.len(), 10);
            let prepared = matrix.prepare_query(query);
            for hit in &approximate {
                assert_eq!(
                    hit.score,
                    matrix.score(&prepared, hit.row),
                    "{similarity:?}"
                );
            }
            assert!(
                approximate.windows(2).all(|w| w[0].score >= w[1].score),
                "best first"
            );
            let exact_rows: HashSet<usize> = exact.iter().map(|hit| hit.row).collect();
            found += approximate
                .iter()
                .filter(|hit| exact_rows.contains(&hit.row))
                .count();
            wanted += exact.len();
        }
        let recall = found as f64 / wanted as f64;
        assert!(recall >= 0.95, "{similarity:?}: recall@10 {recall}");
    }
}

#[test]
fn a_filter_keeps_only_the_rows_it_accepts() {
    let (rows, queries) = clustered(1_500, 11);
    let matrix = matrix(Similarity::Cosine, &rows);
    let graph = ApproximateIndex::build(&matrix, &settings()).expect("a graph");
    let even = |row: usize| row.is_multiple_of(2);
    for query in &queries {
        let hits = graph.top_k(&matrix, query, 10, &even);
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|hit| even(hit.row)));
    }
}

#[test]
fn dot_product_and_empty_indexes_have_no_graph() {
    let (rows, _) = clustered(100, 3);
    assert!(ApproximateIndex::build(&matrix(Similarity::Dot, &rows), &settings()).is_none());
    assert!(ApproximateIndex::build(&matrix(Similarity::Cosine, &[]), &settings()).is_none());
}

fn notes_spec() -> Arc<SchemaSpec> {
    Arc::new(
        serde_json::from_value(json!({
            "name": "notes",
            "entities": [{
                "name": "Note", "table": "note", "unique_field": "uuid",
                "display_name_field": "title",
                "fields": [
                    {"name": "uuid", "type": "string", "unique": true},
                    {"name": "title", "type": "string"}
                ],
                "vector_indexes": [{"name": "note_vectors", "column": "embedding",
                                    "dimension": DIMENSION}]
            }],
            "relationships": [],
            "tools": {"default_limit": 5, "max_limit": 50, "families": ["search"]}
        }))
        .unwrap(),
    )
}

fn search(spec: &Arc<SchemaSpec>, db: &Database, arguments: Value) -> Value {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime
        .block_on(DatabaseTool::SemanticSearch.call(spec.clone(), db.clone(), arguments.clone()))
        .unwrap_or_else(|error| panic!("{arguments}: {}", error.to_json()))
}

fn ids(answer: &Value) -> Vec<&str> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect()
}

#[test]
fn semantic_search_answers_from_the_graph_once_it_is_built() {
    let (rows, _) = clustered(1_200, 5);
    let spec = notes_spec();
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("notes.db"))
        .unwrap()
        .with_embedder(Arc::new(RowEmbedder(rows.clone())))
        .with_approximate_search(ApproximateSettings {
            min_vectors: 1_000,
            ..ApproximateSettings::default()
        });
    db.init(&spec).unwrap();
    db.import(&spec, |import| {
        for (row, vector) in rows.iter().enumerate() {
            let data = json!({"uuid": format!("n{row}"), "title": format!("note {row}"), "embedding": vector});
            import.entity("Note", data.as_object().unwrap())?;
        }
        Ok(())
    })
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    assert_eq!(
        runtime.block_on(db.prepare_vector_search(&spec)).unwrap(),
        1
    );

    assert_eq!(toolforge::__private::approximate_answers(&db), 0);
    for (searched, row) in [0, 17, 1_199].into_iter().enumerate() {
        let answer = search(
            &spec,
            &db,
            json!({"entity_type": "Note", "query": format!("row {row}"), "top_k": 3}),
        );
        assert_eq!(ids(&answer)[0], format!("n{row}"), "{answer:#}");
        assert!((answer["results"][0]["score"].as_f64().unwrap() - 1.0).abs() < 1e-5);
        // The graph answered it, not an exact scan.
        assert_eq!(
            toolforge::__private::approximate_answers(&db),
            searched as u64 + 1
        );
    }
    // Conditions that keep a small share of the rows are answered exactly among them.
    let answer = search(
        &spec,
        &db,
        json!({"entity_type": "Note", "query": "row 17", "top_k": 3,
               "conditions": [{"field": "title", "operator": "=", "value": "note 18"}]}),
    );
    assert_eq!(ids(&answer), ["n18"], "{answer:#}");
    assert_eq!(
        toolforge::__private::approximate_answers(&db),
        3,
        "an exact scan"
    );
    // A write makes the next search read the vectors again (exact until a new graph is built).
    db.import(&spec, |import| {
        let data = json!({"uuid": "n0", "title": "note 0", "embedding": rows[1]});
        import.entity("Note", data.as_object().unwrap())
    })
    .unwrap();
    let answer = search(
        &spec,
        &db,
        json!({"entity_type": "Note", "query": "row 1", "top_k": 2}),
    );
    let mut found = ids(&answer);
    found.sort();
    assert_eq!(found, ["n0", "n1"], "{answer:#}");
}
