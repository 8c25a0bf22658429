//! `find_clusters` against what this file knows of its graphs: planted communities (cliques in
//! a ring) found exactly, every cluster's edge counts and the partition's modularity recomputed
//! here from the edges, and on small random graphs a modularity at least the best of every
//! partition (all of them enumerated).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

pub fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "nets",
        "entities": [
            {"name": "Node", "table": "node", "unique_field": "id", "display_name_field": "label",
             "fields": [{"name": "id", "type": "string", "unique": true},
                        {"name": "label", "type": "string"}]},
            {"name": "Tag", "table": "tag", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true}]}
        ],
        "relationships": [
            {"type": "LINKS", "source": "Node", "target": "Node", "table": "node__links__node"},
            {"type": "TAGGED", "source": "Node", "target": "Tag", "table": "node__tagged__tag"}
        ],
        "tools": {"default_limit": 20, "max_limit": 100, "families": ["graph"]}
    }))
    .unwrap()
}

fn node(i: usize) -> String {
    format!("n{i:03}")
}

/// Imports `nodes` nodes (ids in order) and the edges, each one way.
fn load(db: &Database, spec: &SchemaSpec, nodes: usize, edges: &[(usize, usize)]) {
    let mut lines = Vec::new();
    for i in 0..nodes {
        lines
            .push(json!({"entity": "Node", "data": {"id": node(i), "label": format!("node {i}")}}));
    }
    lines.push(json!({"entity": "Tag", "data": {"id": "t"}}));
    for &(a, b) in edges {
        lines.push(
            json!({"relationship": "LINKS", "from": {"entity": "Node", "id": node(a)},
                          "to": {"entity": "Node", "id": node(b)}}),
        );
    }
    lines.push(
        json!({"relationship": "TAGGED", "from": {"entity": "Node", "id": node(0)},
                      "to": {"entity": "Tag", "id": "t"}}),
    );
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    db.import_jsonl(spec, text.as_bytes()).unwrap();
}

/// The modularity of a partition (community per node) of the undirected simple graph of
/// `edges`, from the definition: Σ_c (L_c / m − (d_c / 2m)²).
fn modularity(nodes: usize, edges: &[(usize, usize)], community: &[usize]) -> f64 {
    let links: BTreeSet<(usize, usize)> = edges
        .iter()
        .filter(|(a, b)| a != b)
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    let m = links.len() as f64;
    if m == 0.0 {
        return 0.0;
    }
    let communities = community.iter().max().map_or(0, |c| c + 1);
    let mut inner = vec![0.0; communities];
    let mut degree = vec![0.0; communities];
    for &(a, b) in &links {
        if community[a] == community[b] {
            inner[community[a]] += 1.0;
        }
        degree[community[a]] += 1.0;
        degree[community[b]] += 1.0;
    }
    let _ = nodes;
    inner
        .iter()
        .zip(&degree)
        .map(|(l, d)| l / m - (d / (2.0 * m)).powi(2))
        .sum()
}

/// The best modularity over every partition of `nodes` nodes (restricted growth strings).
fn best_modularity(nodes: usize, edges: &[(usize, usize)]) -> f64 {
    let mut best = f64::NEG_INFINITY;
    let mut community = vec![0usize; nodes];
    fn visit(
        at: usize,
        highest: usize,
        community: &mut Vec<usize>,
        edges: &[(usize, usize)],
        best: &mut f64,
    ) {
        if at == community.len() {
            *best = best.max(modularity(community.len(), edges, community));
            return;
        }
        for c in 0..=highest + 1 {
            community[at] = c;
            visit(at + 1, highest.max(c), community, edges, best);
        }
    }
    if nodes > 0 {
        visit(1, 0, &mut community, edges, &mut best);
    }
    best
}

async fn clusters(spec: &Arc<SchemaSpec>, db: &Database, args: Value) -> Value {
    DatabaseTool::FindClusters
        .call(spec.clone(), db.clone(), args.clone())
        .await
        .unwrap_or_else(|error| panic!("{args}: {}", error.to_json()))
}

/// Each listed cluster's member ids (every member listed).
fn member_sets(answer: &Value) -> Vec<BTreeSet<String>> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cluster| {
            cluster["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

pub async fn check_clusters(make: impl Fn(&str) -> Database) {
    let spec = Arc::new(spec());

    // Five cliques in a ring, joined by one edge each; a pair on its own; three alone.
    let sizes = [6usize, 5, 5, 4, 7];
    let mut edges = Vec::new();
    let mut cliques: Vec<Vec<usize>> = Vec::new();
    let mut next = 0;
    for &size in &sizes {
        let members: Vec<usize> = (next..next + size).collect();
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                edges.push((a, b));
            }
        }
        cliques.push(members);
        next += size;
    }
    for k in 0..cliques.len() {
        let (a, b) = (cliques[k][0], cliques[(k + 1) % cliques.len()][1]);
        edges.push((a, b));
    }
    let pair = (next, next + 1);
    edges.push(pair);
    // One link given both ways, and a self-loop: neither changes the undirected graph.
    edges.push((1, 0));
    edges.push((2, 2));
    let nodes = next + 2 + 3;
    let db = make("ring");
    db.init(&spec).unwrap();
    load(&db, &spec, nodes, &edges);

    let answer = clusters(&spec, &db, json!({"entity_type": "Node", "members": 50})).await;
    let mut expected: Vec<BTreeSet<String>> = cliques
        .iter()
        .map(|c| c.iter().map(|&i| node(i)).collect())
        .collect();
    expected.push([node(pair.0), node(pair.1)].into_iter().collect());
    expected.sort_by_key(|set| (std::cmp::Reverse(set.len()), set.iter().next().cloned()));
    assert_eq!(member_sets(&answer), expected, "{answer:#}");
    assert_eq!(answer["total"], json!(6), "{answer:#}");
    assert_eq!(answer["unclustered"], json!(3), "{answer:#}");
    assert_eq!(answer["records"], json!(nodes), "{answer:#}");
    // The partition's modularity, recomputed: cliques, the pair, three alone.
    let mut community = vec![0usize; nodes];
    for (c, clique) in cliques.iter().enumerate() {
        for &i in clique {
            community[i] = c;
        }
    }
    community[pair.0] = 5;
    community[pair.1] = 5;
    for (k, i) in (next + 2..nodes).enumerate() {
        community[i] = 6 + k;
    }
    let q = modularity(nodes, &edges, &community);
    let reported = answer["modularity"].as_f64().unwrap();
    assert!((reported - q).abs() < 1e-9, "{reported} != {q}");
    for cluster in answer["results"].as_array().unwrap() {
        let size = cluster["size"].as_u64().unwrap() as usize;
        if size == 2 {
            assert_eq!(
                (
                    cluster["internal_edges"].as_u64(),
                    cluster["external_edges"].as_u64()
                ),
                (Some(1), Some(0))
            );
        } else {
            assert_eq!(
                cluster["internal_edges"].as_u64(),
                Some((size * (size - 1) / 2) as u64),
                "{cluster}"
            );
            assert_eq!(cluster["external_edges"].as_u64(), Some(2), "{cluster}");
        }
        // The most connected first, with their display field.
        let degrees: Vec<u64> = cluster["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["degree"].as_u64().unwrap())
            .collect();
        assert!(degrees.windows(2).all(|w| w[0] >= w[1]), "{cluster}");
        assert!(cluster["members"][0]["label"].is_string(), "{cluster}");
    }
    // Fewer listed: the two largest, three members each; the pair left out by size.
    let answer = clusters(
        &spec,
        &db,
        json!({"entity_type": "Node", "limit": 2, "members": 3, "min_cluster_size": 3}),
    )
    .await;
    assert_eq!(answer["total"], json!(5), "{answer:#}");
    assert_eq!(answer["unclustered"], json!(5), "{answer:#}");
    assert_eq!(answer["returned"], json!(2), "{answer:#}");
    assert_eq!(answer["truncated"], json!(true), "{answer:#}");
    assert_eq!(answer["results"][0]["size"], json!(7), "{answer:#}");
    assert_eq!(answer["results"][0]["members"].as_array().unwrap().len(), 3);
    // The same seed, the same answer.
    let again = clusters(
        &spec,
        &db,
        json!({"entity_type": "Node", "limit": 2, "members": 3, "min_cluster_size": 3}),
    )
    .await;
    assert_eq!(answer, again);

    // What clusters need, said.
    let refused = |args: Value| {
        let spec = spec.clone();
        let db = db.clone();
        async move {
            DatabaseTool::FindClusters
                .call(spec, db, args)
                .await
                .unwrap_err()
                .message
        }
    };
    let message = refused(json!({"entity_type": "Tag"})).await;
    assert!(
        message.contains("no relationship links Tag to itself"),
        "{message}"
    );
    let message = refused(json!({"entity_type": "Node", "relationships": ["TAGGED"]})).await;
    assert!(message.contains("TAGGED do not"), "{message}");
    let message = refused(json!({"entity_type": "Node", "resolution": 0})).await;
    assert!(message.contains("resolution"), "{message}");

    // Small random graphs: at least the best modularity of any partition.
    let mut state = 0xdead_beef_cafe_f00d_u64;
    let mut next_random = move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    for round in 0..6 {
        let nodes = 9;
        let mut edges = Vec::new();
        for a in 0..nodes {
            for b in a + 1..nodes {
                if next_random(100) < 35 {
                    edges.push((a, b));
                }
            }
        }
        let db = make(&format!("random{round}"));
        db.init(&spec).unwrap();
        load(&db, &spec, nodes, &edges);
        let answer = clusters(
            &spec,
            &db,
            json!({"entity_type": "Node", "members": 50, "min_cluster_size": 1}),
        )
        .await;
        let reported = answer["modularity"].as_f64().unwrap();
        // The partition listed is the one whose modularity is reported.
        let mut community = vec![usize::MAX; nodes];
        for (c, set) in member_sets(&answer).iter().enumerate() {
            for id in set {
                community[id[1..].parse::<usize>().unwrap()] = c;
            }
        }
        assert!(community.iter().all(|&c| c != usize::MAX), "{answer:#}");
        let q = modularity(nodes, &edges, &community);
        assert!(
            (reported - q).abs() < 1e-9,
            "round {round}: {reported} != {q}"
        );
        let best = best_modularity(nodes, &edges);
        assert!(
            reported >= best - 1e-9,
            "round {round}: louvain {reported} < best {best} on {edges:?}"
        );
    }
}
