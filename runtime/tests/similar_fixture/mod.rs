//! `find_similar` on every backend against a brute force written here: papers that cite
//! papers and have authors, each with a stored vector; Jaccard and Adamic–Adar from neighbour
//! sets, cosine from the raw vectors in f64, reciprocal rank fusion of the two — all computed
//! by this file from the records it imports, none by the code under test.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

const PAPERS: usize = 30;
const AUTHORS: usize = 8;
const DIMENSION: usize = 6;

/// Papers (a vector index given on import) citing papers and written by authors; authors
/// have no vector and no relationship of their own kind besides `WROTE`.
pub fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "papers",
        "entities": [
            {"name": "Paper", "table": "paper", "unique_field": "id",
             "display_name_field": "title",
             "fields": [{"name": "id", "type": "string", "unique": true},
                        {"name": "title", "type": "string"},
                        {"name": "year", "type": "number"}],
             "vector_indexes": [{"name": "paper_vectors", "column": "embedding",
                                 "dimension": DIMENSION}]},
            {"name": "Author", "table": "author", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true}]},
            {"name": "Venue", "table": "venue", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true}]}
        ],
        "relationships": [
            {"type": "CITES", "source": "Paper", "target": "Paper", "table": "paper__cites__paper"},
            {"type": "WROTE", "source": "Author", "target": "Paper", "table": "author__wrote__paper"}
        ],
        "tools": {"default_limit": 10, "max_limit": 100, "families": ["search"]}
    }))
    .unwrap()
}

/// The imported graph, as the brute force reads it.
struct Graph {
    vectors: Vec<Vec<f32>>,
    years: Vec<i64>,
    cites: Vec<(usize, usize)>,
    wrote: Vec<(usize, usize)>,
}

fn paper(i: usize) -> String {
    format!("p{i:02}")
}

fn graph() -> Graph {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    let vectors = (0..PAPERS)
        .map(|_| {
            (0..DIMENSION)
                .map(|_| next(2001) as f32 / 1000.0 - 1.0)
                .collect()
        })
        .collect();
    let years = (0..PAPERS).map(|_| 2015 + next(10) as i64).collect();
    let mut cites = BTreeSet::new();
    for _ in 0..70 {
        let (a, b) = (next(PAPERS as u64) as usize, next(PAPERS as u64) as usize);
        if a != b {
            cites.insert((a, b));
        }
    }
    let mut wrote = BTreeSet::new();
    for p in 0..PAPERS {
        for _ in 0..1 + next(3) {
            wrote.insert((next(AUTHORS as u64) as usize, p));
        }
    }
    Graph {
        vectors,
        years,
        cites: cites.into_iter().collect(),
        wrote: wrote.into_iter().collect(),
    }
}

fn import_lines(graph: &Graph) -> String {
    let mut lines = Vec::new();
    for p in 0..PAPERS {
        // Paper 29 has no vector: semantic similarity of it is refused, structural answers.
        let mut data =
            json!({"id": paper(p), "title": format!("paper {p}"), "year": graph.years[p]});
        if p != PAPERS - 1 {
            data["embedding"] = json!(graph.vectors[p]);
        }
        lines.push(json!({"entity": "Paper", "data": data}));
    }
    for a in 0..AUTHORS {
        lines.push(json!({"entity": "Author", "data": {"id": format!("a{a}")}}));
    }
    lines.push(json!({"entity": "Venue", "data": {"id": "v0"}}));
    for (a, b) in &graph.cites {
        lines.push(
            json!({"relationship": "CITES", "from": {"entity": "Paper", "id": paper(*a)},
                          "to": {"entity": "Paper", "id": paper(*b)}}),
        );
    }
    for (a, p) in &graph.wrote {
        lines.push(
            json!({"relationship": "WROTE", "from": {"entity": "Author", "id": format!("a{a}")},
                          "to": {"entity": "Paper", "id": paper(*p)}}),
        );
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The neighbours of every paper along `relationships`, either direction, as
/// (relationship kind, index) pairs: papers by citation, authors by authorship.
fn neighbours(graph: &Graph, relationships: &[&str]) -> Vec<BTreeSet<(u8, usize)>> {
    let mut sets = vec![BTreeSet::new(); PAPERS];
    if relationships.contains(&"CITES") {
        for &(a, b) in &graph.cites {
            sets[a].insert((0, b));
            sets[b].insert((0, a));
        }
    }
    if relationships.contains(&"WROTE") {
        for &(author, p) in &graph.wrote {
            sets[p].insert((1, author));
        }
    }
    sets
}

/// Ranked (id, score): best first, ties by id, at most `k`.
fn ranked(mut scored: Vec<(String, f64)>, k: usize) -> Vec<(String, f64)> {
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    scored.truncate(k);
    scored
}

fn structural(
    graph: &Graph,
    x: usize,
    relationships: &[&str],
    adamic_adar: bool,
    keep: &dyn Fn(usize) -> bool,
    k: usize,
) -> Vec<(String, f64)> {
    let sets = neighbours(graph, relationships);
    let mut degree: HashMap<(u8, usize), usize> = HashMap::new();
    for set in &sets {
        for z in set {
            *degree.entry(*z).or_default() += 1;
        }
    }
    let scored = (0..PAPERS)
        .filter(|&y| y != x && keep(y))
        .filter_map(|y| {
            let shared: Vec<&(u8, usize)> = sets[x].intersection(&sets[y]).collect();
            if shared.is_empty() {
                return None;
            }
            let score = if adamic_adar {
                shared.iter().map(|z| 1.0 / (degree[z] as f64).ln()).sum()
            } else {
                shared.len() as f64 / sets[x].union(&sets[y]).count() as f64
            };
            Some((paper(y), score))
        })
        .collect();
    ranked(scored, k)
}

fn semantic(graph: &Graph, x: usize, keep: &dyn Fn(usize) -> bool, k: usize) -> Vec<(String, f64)> {
    let cosine = |a: &[f32], b: &[f32]| {
        let dot: f64 = a
            .iter()
            .zip(b)
            .map(|(a, b)| f64::from(*a) * f64::from(*b))
            .sum();
        let norm = |v: &[f32]| v.iter().map(|a| f64::from(*a).powi(2)).sum::<f64>().sqrt();
        dot / (norm(a) * norm(b))
    };
    let scored = (0..PAPERS - 1)
        .filter(|&y| y != x && keep(y))
        .map(|y| (paper(y), cosine(&graph.vectors[x], &graph.vectors[y])))
        .collect();
    ranked(scored, k)
}

fn fused(lists: &[&[(String, f64)]], k: usize) -> Vec<(String, f64)> {
    let mut scores: HashMap<String, f64> = HashMap::new();
    for list in lists {
        for (rank, (id, _)) in list.iter().enumerate() {
            *scores.entry(id.clone()).or_default() += 1.0 / (60.0 + rank as f64 + 1.0);
        }
    }
    ranked(scores.into_iter().collect(), k)
}

fn same(answer: &Value, expected: &[(String, f64)], what: &str) {
    let got: Vec<(String, f64)> = answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: {answer}"))
        .iter()
        .map(|hit| {
            (
                hit["id"].as_str().unwrap().to_owned(),
                hit["score"].as_f64().unwrap(),
            )
        })
        .collect();
    let ids = |list: &[(String, f64)]| list.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&got), ids(expected), "{what}: {answer:#}");
    for ((id, score), (_, want)) in got.iter().zip(expected) {
        assert!(
            (score - want).abs() < 1e-5,
            "{what}: {id} scored {score}, not {want}"
        );
    }
}

/// Imports the papers into `db` and checks every kind of similarity against the brute force.
pub async fn check_similar(db: &Database) {
    let spec = spec();
    db.init(&spec).unwrap();
    db.import_jsonl(&spec, import_lines(&graph()).as_bytes())
        .unwrap();
    check_answers(db).await;
}

/// Checks every kind of similarity on the papers [`check_similar`] imported.
pub async fn check_answers(db: &Database) {
    let spec = Arc::new(spec());
    let graph = graph();
    let call = |args: Value| {
        let spec = spec.clone();
        let db = db.clone();
        async move {
            DatabaseTool::FindSimilar
                .call(spec, db, args.clone())
                .await
                .unwrap_or_else(|error| panic!("{args}: {}", error.to_json()))
        }
    };
    let every = |_: usize| true;
    let recent = |y: usize| graph.years[y] >= 2020;
    let both = ["CITES", "WROTE"];
    for x in [0, 7, 13, 22] {
        let id = paper(x);
        // The default for an entity with vectors: semantic.
        let answer = call(json!({"entity_type": "Paper", "id": id, "top_k": 5})).await;
        assert_eq!(answer["similarity"], json!("cosine"), "{answer}");
        same(
            &answer,
            &semantic(&graph, x, &every, 5),
            &format!("semantic {id}"),
        );
        let answer = call(
            json!({"entity_type": "Paper", "id": id, "similarity": "semantic",
            "conditions": [{"field": "year", "operator": ">=", "value": 2020}]}),
        )
        .await;
        same(
            &answer,
            &semantic(&graph, x, &recent, 10),
            &format!("semantic {id}, recent"),
        );

        for (measure, adamic_adar) in [("jaccard", false), ("adamic_adar", true)] {
            for relationships in [&both[..], &["CITES"][..], &["WROTE"][..]] {
                let answer = call(json!({"entity_type": "Paper", "id": id,
                    "similarity": "structural", "measure": measure,
                    "relationships": relationships, "top_k": 8}))
                .await;
                assert_eq!(answer["similarity"], json!(measure), "{answer}");
                same(
                    &answer,
                    &structural(&graph, x, relationships, adamic_adar, &every, 8),
                    &format!("{measure} along {relationships:?} from {id}"),
                );
            }
        }
        let answer = call(
            json!({"entity_type": "Paper", "id": id, "similarity": "structural",
            "conditions": [{"field": "year", "operator": ">=", "value": 2020}]}),
        )
        .await;
        same(
            &answer,
            &structural(&graph, x, &both, false, &recent, 10),
            &format!("jaccard from {id}, recent"),
        );

        let answer = call(
            json!({"entity_type": "Paper", "id": id, "similarity": "hybrid",
            "top_k": 6}),
        )
        .await;
        assert_eq!(answer["similarity"], json!("rrf"), "{answer}");
        let expected = fused(
            &[
                &semantic(&graph, x, &every, 50),
                &structural(&graph, x, &both, false, &every, 50),
            ],
            6,
        );
        same(&answer, &expected, &format!("hybrid {id}"));
    }

    // Paper 29 has no vector: semantic similarity says so, structural answers.
    let last = paper(PAPERS - 1);
    let error = DatabaseTool::FindSimilar
        .call(
            spec.clone(),
            db.clone(),
            json!({"entity_type": "Paper", "id": last}),
        )
        .await
        .unwrap_err();
    assert!(error.message.contains("has no vector"), "{}", error.message);
    assert!(
        error.message.contains("similarity: structural"),
        "{}",
        error.message
    );
    let answer =
        call(json!({"entity_type": "Paper", "id": last, "similarity": "structural"})).await;
    same(
        &answer,
        &structural(&graph, PAPERS - 1, &both, false, &every, 10),
        "jaccard from the paper without a vector",
    );

    // What cannot be compared, and a record that is not there, said.
    let refused = |args: Value| {
        let spec = spec.clone();
        let db = db.clone();
        async move {
            DatabaseTool::FindSimilar
                .call(spec, db, args)
                .await
                .unwrap_err()
        }
    };
    let error =
        refused(json!({"entity_type": "Author", "id": "a1", "similarity": "semantic"})).await;
    assert!(
        error.message.contains("no vector index"),
        "{}",
        error.message
    );
    assert!(error.message.contains("structural"), "{}", error.message);
    let error = refused(json!({"entity_type": "Venue", "id": "v0"})).await;
    assert!(error.message.contains("neither"), "{}", error.message);
    let error = refused(json!({"entity_type": "Paper", "id": "p99"})).await;
    assert_eq!(
        error.code,
        toolforge::ErrorCode::NotFound,
        "{}",
        error.message
    );
    let error = refused(
        json!({"entity_type": "Paper", "id": "p01", "similarity": "structural",
        "relationships": ["CITE"]}),
    )
    .await;
    assert!(error.message.contains("CITES"), "{}", error.message);
    // An author is compared with authors by the papers they share.
    let answer = call(json!({"entity_type": "Author", "id": "a1"})).await;
    assert_eq!(answer["similarity"], json!("jaccard"), "{answer}");
    assert!(
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|hit| hit["id"] != "a1"),
        "{answer}"
    );
}
