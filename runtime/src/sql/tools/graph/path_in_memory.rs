//! A shortest path found in a loaded graph (`sql/path_graphs.rs`): the same breadth-first
//! search as `path_by_statements.rs`, in the same order, so it answers the same path, over
//! positions instead of statements.

use crate::sql::handler_error::HandlerError;
use crate::sql::path_graphs::PathGraph;
use crate::sql::tools::graph::walk::{Hops, Node, PathSearch, check_deadline};

/// Not yet reached.
const UNSEEN: u32 = u32::MAX;

/// The bytes a search over `graph` holds besides the graph: each record's parent and walk,
/// and the two frontiers at their largest.
pub(crate) fn search_bytes(graph: &PathGraph, entities: usize) -> usize {
    let records: usize = (0..entities).map(|entity| graph.len(entity)).sum();
    16 * records
}

/// The records of `graph` numbered one after another, entity after entity.
struct Numbering {
    /// Where each entity's records start; one more at the end, the total.
    starts: Vec<u32>,
}

impl Numbering {
    fn entity(&self, number: u32) -> usize {
        self.starts.partition_point(|&start| start <= number) - 1
    }

    fn node(&self, graph: &PathGraph, number: u32) -> Node {
        let entity = self.entity(number);
        (
            entity,
            graph.id(entity, number - self.starts[entity]).to_owned(),
        )
    }

    fn number(&self, graph: &PathGraph, (entity, id): &Node) -> Option<u32> {
        Some(self.starts[*entity] + graph.position(*entity, id)?)
    }
}

/// The shortest path `search` asks for in `graph`, if there is one.
pub(crate) fn shortest(
    graph: &PathGraph,
    search: &PathSearch<'_, '_>,
) -> Result<Option<Hops>, HandlerError> {
    if search.start == search.goal {
        return Ok(Some(Vec::new()));
    }
    let entities = search.spec.entities.len();
    let mut starts = Vec::with_capacity(entities + 1);
    let mut total = 0u32;
    for entity in 0..entities {
        starts.push(total);
        // At most MAX_GRAPH_NODES records in all: the sum fits.
        total += graph.len(entity) as u32;
    }
    starts.push(total);
    let numbering = Numbering { starts };
    // A record no edge names reaches nothing, and nothing reaches it.
    let (Some(start), Some(goal)) = (
        numbering.number(graph, &search.start),
        numbering.number(graph, &search.goal),
    ) else {
        return Ok(None);
    };
    // Each walk: the edge table's index, its direction, its near and far entity.
    let walks: Vec<Option<(usize, bool, usize, usize)>> = search
        .walks
        .iter()
        .map(|walk| {
            let table = search
                .spec
                .relationships
                .iter()
                .position(|r| std::ptr::eq(r, walk.relationship))?;
            Some((
                table,
                walk.outgoing,
                search.entity_index(walk.start_entity())?,
                search.entity_index(walk.to_entity())?,
            ))
        })
        .collect();
    let mut parent = vec![UNSEEN; total as usize];
    let mut via = vec![0u32; total as usize];
    parent[start as usize] = start;
    let mut frontier = vec![start];
    let mut depth = 0;
    'levels: while depth < search.max_depth && !frontier.is_empty() {
        check_deadline()?;
        depth += 1;
        frontier.sort_unstable();
        let mut next = Vec::new();
        for (walk_index, walk) in walks.iter().enumerate() {
            let Some((table, outgoing, near, far)) = *walk else {
                continue;
            };
            let (low, high) = (numbering.starts[near], numbering.starts[near + 1]);
            let from = frontier.partition_point(|&n| n < low);
            let to = frontier.partition_point(|&n| n < high);
            for &number in &frontier[from..to] {
                for &position in graph.next(table, outgoing, number - low) {
                    let reached = numbering.starts[far] + position;
                    if parent[reached as usize] != UNSEEN {
                        continue;
                    }
                    parent[reached as usize] = number;
                    via[reached as usize] = walk_index as u32;
                    if reached == goal {
                        break 'levels;
                    }
                    next.push(reached);
                }
            }
        }
        frontier = next;
    }
    if parent[goal as usize] == UNSEEN {
        return Ok(None);
    }
    let mut hops: Hops = Vec::new();
    let mut at = goal;
    while at != start {
        let previous = parent[at as usize];
        hops.push((
            numbering.node(graph, previous),
            numbering.node(graph, at),
            via[at as usize] as usize,
        ));
        at = previous;
    }
    hops.reverse();
    Ok(Some(hops))
}
