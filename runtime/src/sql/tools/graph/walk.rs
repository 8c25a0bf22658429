//! What the graph tools (`find_path`, `rank_entities`, `find_clusters`) share: the edge tables
//! a relationship type and a direction select, read in bounded batches, the loaded graph of an
//! entity's records, and PageRank.

use std::sync::Arc;
use std::time::Instant;

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{CallBudget, ToolError};

use crate::sql::backend::{ExecError, Reader};
use crate::sql::describe::relationship_arrow;
use crate::sql::graphs::{GraphCache, GraphSpec, LoadedGraph};
use crate::sql::handler_error::HandlerError;
use crate::sql::query::ROW_ALIAS;
use crate::sql::text::ident::quote;
use crate::sql::tools::TraversalDirection;
use crate::sql::value::SqlValue;

pub(crate) use crate::sql::graphs::{MAX_GRAPH_EDGES, MAX_GRAPH_NODES};
/// How many ids one statement looks up.
pub(crate) const ID_BATCH: usize = 500;

/// One edge table, walked from `near` to `far`.
#[derive(Debug, Clone)]
pub(crate) struct Walk<'s> {
    /// The relationship.
    pub relationship: &'s crate::spec::RelationshipSpec,
    /// True when walked from source to target.
    pub outgoing: bool,
}

impl Walk<'_> {
    /// The column of the end the walk starts from.
    pub fn near(&self) -> &'static str {
        if self.outgoing {
            "source_id"
        } else {
            "target_id"
        }
    }

    /// The column of the end the walk reaches.
    pub fn far(&self) -> &'static str {
        if self.outgoing {
            "target_id"
        } else {
            "source_id"
        }
    }

    /// The entity the walk starts from.
    pub fn start_entity(&self) -> &str {
        if self.outgoing {
            &self.relationship.source
        } else {
            &self.relationship.target
        }
    }

    /// The entity the walk reaches.
    pub fn to_entity(&self) -> &str {
        if self.outgoing {
            &self.relationship.target
        } else {
            &self.relationship.source
        }
    }
}

/// A record of the graph: its entity's index in the spec and its id.
pub(crate) type Node = (usize, String);

/// A path as its hops, from the start: the record left, the record reached and the index of
/// the walk followed.
pub(crate) type Hops = Vec<(Node, Node, usize)>;

/// What a search for a shortest path is asked: from `start` to `goal` along `walks`, at most
/// `max_depth` hops. Both searches (`path_by_statements.rs`, `path_in_memory.rs`) answer the
/// same path: breadth first, a level's records in order of entity then id (bytes), the walks
/// in order, each record's edges in order of the far id (bytes); a record is reached by the
/// first edge found to it.
pub(crate) struct PathSearch<'a, 's> {
    /// The spec.
    pub spec: &'s SchemaSpec,
    /// The walks a path may follow.
    pub walks: &'a [Walk<'s>],
    /// Where the path starts.
    pub start: Node,
    /// Where it ends.
    pub goal: Node,
    /// The most hops.
    pub max_depth: usize,
}

impl PathSearch<'_, '_> {
    /// The index in the spec of the entity named `name`.
    pub fn entity_index(&self, name: &str) -> Option<usize> {
        self.spec.entities.iter().position(|e| e.name == name)
    }
}

/// The walks of the relationships named `types` (every relationship when empty) in
/// `direction`, in spec order (outgoing before incoming).
pub(crate) fn walks<'s>(
    spec: &'s SchemaSpec,
    types: &[String],
    direction: TraversalDirection,
) -> Vec<Walk<'s>> {
    let mut walks = Vec::new();
    for relationship in &spec.relationships {
        if !types.is_empty() && !types.contains(&relationship.rel_type) {
            continue;
        }
        if matches!(
            direction,
            TraversalDirection::Outgoing | TraversalDirection::Both
        ) {
            walks.push(Walk {
                relationship,
                outgoing: true,
            });
        }
        if matches!(
            direction,
            TraversalDirection::Incoming | TraversalDirection::Both
        ) {
            walks.push(Walk {
                relationship,
                outgoing: false,
            });
        }
    }
    walks
}

/// The error of a call that stopped because its deadline passed.
pub(crate) fn check_deadline() -> Result<(), ExecError> {
    crate::sql::graphs::check_deadline(CallBudget::current().as_ref())
}

/// The edges `(near, far)` of `walk` whose near end is one of `ids`, ordered by near then far
/// (their ids' bytes, whatever order the backend's collation or an integer key gives).
pub(crate) async fn edges_from(
    conn: &dyn Reader,
    walk: &Walk<'_>,
    near: &crate::spec::EntitySpec,
    ids: &[String],
) -> Result<Vec<(String, String)>, ExecError> {
    let mut out = Vec::new();
    for chunk in ids.chunks(ID_BATCH) {
        check_deadline()?;
        let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("?{i}")).collect();
        let params: Vec<SqlValue> = chunk
            .iter()
            .map(|id| crate::sql::tools::shared::key::param(near, id))
            .collect();
        let rows = conn
            .rows(
                &format!(
                    "SELECT {near}, {far} FROM {table} WHERE {near} IN ({}) ORDER BY {near}, {far}",
                    placeholders.join(", "),
                    near = quote(walk.near()),
                    far = quote(walk.far()),
                    table = quote(&walk.relationship.table),
                ),
                &params,
            )
            .await?;
        out.extend(rows.into_iter().filter_map(|row| {
            let mut values = row.into_iter();
            Some((
                values.next()?.into_key_text()?,
                values.next()?.into_key_text()?,
            ))
        }));
    }
    out.sort_unstable();
    Ok(out)
}

/// The relationships touching `entity`, as arrows (for messages).
pub(crate) fn touching(spec: &SchemaSpec, entity: &EntitySpec) -> Vec<String> {
    spec.relationships
        .iter()
        .filter(|r| r.source == entity.name || r.target == entity.name)
        .map(relationship_arrow)
        .collect()
}

/// PageRank with damping `damping` over `n` nodes and directed `edges` (`from`, `to`): the
/// stationary distribution of a walk that follows an out-edge with probability `damping` and
/// jumps to a uniformly chosen node otherwise (always, from a node without out-edges). Scores
/// sum to 1; iteration stops when the L1 change is below 1e-12 or after 1,000 rounds, or with
/// `Err` when `deadline_passed` says so.
pub(crate) fn page_rank(
    n: usize,
    edges: &[(u32, u32)],
    damping: f64,
    mut deadline_passed: impl FnMut() -> bool,
) -> Result<Vec<f64>, ExecError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut out_degree = vec![0u32; n];
    for &(from, _) in edges {
        out_degree[from as usize] += 1;
    }
    let uniform = 1.0 / n as f64;
    let mut rank = vec![uniform; n];
    let mut next = vec![0.0; n];
    for _ in 0..1_000 {
        if deadline_passed() {
            return Err(ExecError::Stopped);
        }
        let dangling: f64 = (0..n)
            .filter(|&i| out_degree[i] == 0)
            .map(|i| rank[i])
            .sum();
        let base = (1.0 - damping) * uniform + damping * dangling * uniform;
        next.iter_mut().for_each(|x| *x = base);
        for &(from, to) in edges {
            let (from, to) = (from as usize, to as usize);
            next[to] += damping * rank[from] / f64::from(out_degree[from]);
        }
        let change: f64 = rank.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if change < 1e-12 {
            break;
        }
    }
    Ok(rank)
}

/// The graph of `entity`'s records (`total` of them) and the edges of `within` (walks from the
/// entity to itself), loaded (or shared, see `sql/graphs.rs`) within [`MAX_GRAPH_NODES`] and
/// [`MAX_GRAPH_EDGES`]; past them, a `too_large` error saying what `tool` loads and `instead`.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn load_within(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    entity: &EntitySpec,
    total: u64,
    within: &[&Walk<'_>],
    graphs: Option<&GraphCache>,
    started: Instant,
    tool: &str,
    instead: &str,
) -> Result<Arc<LoadedGraph>, HandlerError> {
    let too_large = |message: String| -> HandlerError {
        ToolError::new(crate::ErrorCode::TooLarge, message).into()
    };
    if total as usize > MAX_GRAPH_NODES {
        return Err(too_large(format!(
            "{} has {total} records, more than {tool} ({MAX_GRAPH_NODES}); {instead}",
            entity.name
        )));
    }
    let mut edge_count = 0;
    for walk in within {
        edge_count += conn
            .count(
                &format!("SELECT count(*) FROM {}", quote(&walk.relationship.table)),
                &[],
            )
            .await?;
        if edge_count > MAX_GRAPH_EDGES as u64 {
            let mut names: Vec<&str> = within
                .iter()
                .map(|w| w.relationship.rel_type.as_str())
                .collect();
            names.dedup();
            return Err(too_large(format!(
                "{} has more edges than {tool} ({MAX_GRAPH_EDGES}); {instead}",
                names.join(", ")
            )));
        }
    }
    let graph_spec = GraphSpec {
        table: entity.table.clone(),
        unique: entity.unique_field.clone(),
        // Walked from the far end (the record ranked) back: rank flows far <- near.
        edges: within
            .iter()
            .map(|walk| (walk.relationship.table.clone(), walk.near(), walk.far()))
            .collect(),
    };
    // With row rules each caller sees its own rows, so nothing is shared.
    let shareable = spec.access.is_empty();
    let own;
    let graphs = match graphs {
        Some(graphs) => graphs,
        None => {
            own = GraphCache::default();
            &own
        }
    };
    graphs.graph(conn, &graph_spec, shareable, started).await
}

/// How many records `entity` has (as the call sees them).
pub(crate) async fn records_of(conn: &dyn Reader, entity: &EntitySpec) -> Result<u64, ExecError> {
    conn.count(
        &format!(
            "SELECT count(*) FROM {} AS {}",
            quote(&entity.table),
            quote(ROW_ALIAS)
        ),
        &[],
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    #[test]
    fn a_cycle_ranks_every_node_alike() {
        let ranks = page_rank(4, &[(0, 1), (1, 2), (2, 3), (3, 0)], 0.85, || false).unwrap();
        assert!(close(&ranks, &[0.25; 4]), "{ranks:?}");
    }

    #[test]
    fn a_star_matches_its_closed_form() {
        // Leaves 1..=k point to the hub 0, which has no out-edge (dangling).
        // Hub: h = (1-d)/n + d*h/n + d*k*l, leaf: l = (1-d)/n + d*h/n.
        let (k, d) = (4usize, 0.85);
        let n = (k + 1) as f64;
        let edges: Vec<(u32, u32)> = (1..=k as u32).map(|leaf| (leaf, 0)).collect();
        let ranks = page_rank(k + 1, &edges, d, || false).unwrap();
        // From h + k*l = 1 and the leaf equation: l = ((1-d) + d*h)/n.
        let h = {
            // h = (1-d)/n + d*h/n + d*k*((1-d) + d*h)/n
            let a = (1.0 - d) / n + d * k as f64 * (1.0 - d) / n;
            let b = 1.0 - d / n - d * d * k as f64 / n;
            a / b
        };
        let l = ((1.0 - d) + d * h) / n;
        let mut expected = vec![l; k + 1];
        expected[0] = h;
        assert!(close(&ranks, &expected), "{ranks:?} vs {expected:?}");
    }

    #[test]
    fn matches_published_values_of_a_known_graph() {
        // A->B, A->C, B->C, C->A, D->C with damping 0.85, as a separate power iteration of
        // r = (1-d)/n + d * sum(r[from] / outdeg[from]) gives them (D: (1-d)/n exactly).
        let ranks =
            page_rank(4, &[(0, 1), (0, 2), (1, 2), (2, 0), (3, 2)], 0.85, || false).unwrap();
        let expected = [0.372_526_851, 0.195_823_912, 0.394_149_237, 0.0375];
        for (got, want) in ranks.iter().zip(expected) {
            assert!((got - want).abs() < 1e-8, "{ranks:?}");
        }
        assert!((ranks.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_passed_deadline_stops_the_iteration() {
        assert!(page_rank(2, &[(0, 1)], 0.85, || true).is_err());
    }
}
