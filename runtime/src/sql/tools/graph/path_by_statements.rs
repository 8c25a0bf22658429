//! A shortest path found statement by statement: breadth first, one level at a time, each
//! level one batched statement per edge table and [`ID_BATCH`](super::walk::ID_BATCH) records,
//! visiting at most [`MAX_GRAPH_NODES`] records within the call's memory cap. What
//! `find_path` does when no graph is kept or loaded for it (row rules, a graph past the
//! limits or the cap, a backend without data stamps).

use std::collections::HashMap;

use serde_json::json;

use crate::{CallBudget, ErrorCode, ToolError};

use crate::sql::backend::Reader;
use crate::sql::handler_error::HandlerError;
use crate::sql::tools::graph::walk::{Hops, MAX_GRAPH_NODES, Node, PathSearch, edges_from};

/// What one visited record takes besides its id's text: its place in the visited map (key,
/// parent, hash slot) and in the frontier.
const NODE_BYTES: usize = 160;

/// The shortest path `search` asks for, if there is one.
pub(crate) async fn shortest(
    conn: &dyn Reader,
    search: &PathSearch<'_, '_>,
) -> Result<Option<Hops>, HandlerError> {
    let spec = search.spec;
    // How each visited node was reached: (previous node, walk index).
    let mut parent: HashMap<Node, Option<(Node, usize)>> = HashMap::new();
    parent.insert(search.start.clone(), None);
    let mut frontier: Vec<Node> = vec![search.start.clone()];
    let mut found = search.start == search.goal;
    let mut depth = 0;
    let cap = CallBudget::current().and_then(|budget| budget.limits().max_memory_bytes);
    let mut used = 0usize;
    while !found && depth < search.max_depth && !frontier.is_empty() {
        depth += 1;
        frontier.sort();
        let mut next: Vec<Node> = Vec::new();
        for (walk_index, walk) in search.walks.iter().enumerate() {
            let Some(near) = search.entity_index(walk.start_entity()) else {
                continue;
            };
            let Some(far) = search.entity_index(walk.to_entity()) else {
                continue;
            };
            let ids: Vec<String> = frontier
                .iter()
                .filter(|(index, _)| *index == near)
                .map(|(_, id)| id.clone())
                .collect();
            if ids.is_empty() {
                continue;
            }
            for (a, b) in edges_from(conn, walk, &spec.entities[near], &ids).await? {
                let reached: Node = (far, b);
                if parent.contains_key(&reached) {
                    continue;
                }
                if parent.len() >= MAX_GRAPH_NODES {
                    return Err(ToolError::new(
                        ErrorCode::TooLarge,
                        format!(
                            "the search visited {MAX_GRAPH_NODES} records without reaching the \
                             target; lower max_depth or narrow relationship_types"
                        ),
                    )
                    .into());
                }
                // The node is held twice (visited, frontier), its parent once more.
                used = used.saturating_add(3 * reached.1.len() + NODE_BYTES);
                if let Some(cap) = cap
                    && used > cap
                {
                    return Err(ToolError::new(
                        ErrorCode::TooLarge,
                        format!(
                            "the search visited {} records without reaching the target and \
                             holds more memory than one call may use (max_memory_bytes: {cap} \
                             bytes); lower max_depth, narrow relationship_types, or raise the \
                             cap (--max-memory-bytes)",
                            parent.len()
                        ),
                    )
                    .with_details(json!({"limit": "max_memory_bytes", "max_memory_bytes": cap}))
                    .into());
                }
                parent.insert(reached.clone(), Some(((near, a), walk_index)));
                if reached == search.goal {
                    found = true;
                }
                next.push(reached);
            }
        }
        frontier = next;
    }
    if !found {
        return Ok(None);
    }
    let mut hops: Hops = Vec::new();
    let mut at = search.goal.clone();
    while let Some(Some((previous, walk_index))) = parent.get(&at) {
        hops.push((previous.clone(), at.clone(), *walk_index));
        at = previous.clone();
    }
    hops.reverse();
    Ok(Some(hops))
}
