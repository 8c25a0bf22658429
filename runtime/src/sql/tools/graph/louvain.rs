//! Louvain modularity maximisation (Blondel, Guillaume, Lambiotte, Lefebvre 2008) over an
//! undirected graph: nodes move, one at a time, to the neighbouring community that raises the
//! modularity most, until none does; then each community becomes one node and the same is done
//! on that smaller graph, until a level changes nothing. A node is visited again only when a
//! neighbour moved (see `local_moves`). Deterministic for a given seed (the order nodes are
//! first visited in), and stopped within a few thousand moves when `stop` says so.

/// An undirected weighted graph as adjacency lists: `(neighbour, weight)` per node, both
/// directions stored, a self-loop once with its weight counted twice in the degree.
struct Level {
    adjacency: Vec<Vec<(u32, f64)>>,
    /// Each node's weighted degree (a self-loop counts twice).
    degree: Vec<f64>,
}

impl Level {
    /// The level of `nodes` nodes with the [`undirected_links`] `links`, each weight 1.
    fn of_links(nodes: usize, links: &[(u32, u32)]) -> Level {
        let mut adjacency = vec![Vec::new(); nodes];
        for &(a, b) in links {
            adjacency[a as usize].push((b, 1.0));
            adjacency[b as usize].push((a, 1.0));
        }
        Level::new(adjacency)
    }

    fn new(adjacency: Vec<Vec<(u32, f64)>>) -> Level {
        let degree = adjacency
            .iter()
            .enumerate()
            .map(|(node, links)| {
                links
                    .iter()
                    .map(|&(other, w)| if other as usize == node { 2.0 * w } else { w })
                    .sum()
            })
            .collect();
        Level { adjacency, degree }
    }

    /// Twice the total edge weight.
    fn two_m(&self) -> f64 {
        self.degree.iter().sum()
    }

    /// One local-moving phase: the community of each node (numbered from 0, in order of first
    /// appearance), how many communities, and whether any node moved. `None` when `stop` said
    /// so.
    ///
    /// Nodes wait in a queue, first in the seeded order; a node that moves puts back in the
    /// queue its neighbours outside its new community, the only nodes whose best move it can
    /// have changed much (Traag's "faster unfolding", the local moves Leiden uses). When the
    /// queue runs dry, every node is queued again in the seeded order; the phase ends when such
    /// a round moves no node, so no node can raise the modularity by moving (as with whole
    /// sweeps), in far fewer sweeps over the graph.
    fn local_moves(
        &self,
        resolution: f64,
        seed: u64,
        stop: &dyn Fn() -> bool,
    ) -> Option<(Vec<u32>, usize, bool)> {
        /// How many nodes are moved between two looks at `stop`.
        const STOP_EVERY: usize = 4096;
        let n = self.adjacency.len();
        let two_m = self.two_m();
        let mut community: Vec<u32> = (0..n as u32).collect();
        let mut total: Vec<f64> = self.degree.clone();
        let mut order: Vec<u32> = (0..n as u32).collect();
        shuffle(&mut order, seed);
        let mut queue: std::collections::VecDeque<u32> = order.iter().copied().collect();
        let mut queued = vec![true; n];
        let mut moved_in_round = false;
        let mut moved_any = false;
        // The weight from the node to each neighbouring community, reset after each node.
        let mut weight_to: Vec<f64> = vec![0.0; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut visits = 0usize;
        loop {
            let Some(node) = queue.pop_front() else {
                // The queue is empty: a whole sweep in the seeded order confirms that no node
                // can move any more, or starts another round from where it could.
                if !moved_in_round {
                    break;
                }
                moved_in_round = false;
                queue.extend(order.iter().copied());
                queued.fill(true);
                continue;
            };
            if visits.is_multiple_of(STOP_EVERY) && stop() {
                return None;
            }
            visits += 1;
            let node = node as usize;
            queued[node] = false;
            let own = community[node];
            let k = self.degree[node];
            for &(other, w) in &self.adjacency[node] {
                if other as usize == node {
                    continue;
                }
                let c = community[other as usize];
                if weight_to[c as usize] == 0.0 {
                    touched.push(c);
                }
                weight_to[c as usize] += w;
            }
            total[own as usize] -= k;
            // The gain of joining `c`, up to terms that do not depend on `c`.
            let gain = |c: u32, to: f64| to - resolution * total[c as usize] * k / two_m;
            // A node leaves its community only for a strictly better one; among equally
            // good ones, the lowest numbered.
            let stay = gain(own, weight_to[own as usize]);
            let mut best = own;
            let mut best_gain = stay;
            for &c in &touched {
                if c == own {
                    continue;
                }
                let candidate = gain(c, weight_to[c as usize]);
                let better = candidate > stay + 1e-12
                    && (best == own
                        || candidate > best_gain + 1e-12
                        || (candidate >= best_gain - 1e-12 && c < best));
                if better {
                    best = c;
                    best_gain = candidate;
                }
            }
            total[best as usize] += k;
            for &c in &touched {
                weight_to[c as usize] = 0.0;
            }
            weight_to[own as usize] = 0.0;
            touched.clear();
            if best != own {
                community[node] = best;
                moved_any = true;
                moved_in_round = true;
                for &(other, _) in &self.adjacency[node] {
                    let other = other as usize;
                    if !queued[other] && community[other] != best {
                        queued[other] = true;
                        queue.push_back(other as u32);
                    }
                }
            }
        }
        let count = renumber(&mut community);
        Some((community, count, moved_any))
    }

    /// The level whose nodes are the communities of this one (`count` of them).
    fn aggregate(&self, community: &[u32], count: usize) -> Level {
        let mut merged: Vec<std::collections::BTreeMap<u32, f64>> = vec![Default::default(); count];
        for (node, links) in self.adjacency.iter().enumerate() {
            let from = community[node];
            for &(other, w) in links {
                let to = community[other as usize];
                // Each undirected link is stored twice (once per end), a self-loop once.
                let share = if other as usize == node { w } else { w / 2.0 };
                *merged[from as usize].entry(to).or_default() += share;
                if from != to {
                    *merged[to as usize].entry(from).or_default() += share;
                }
            }
        }
        let adjacency = merged
            .into_iter()
            .map(|links| links.into_iter().collect())
            .collect();
        Level::new(adjacency)
    }
}

/// The distinct undirected links of directed `edges`, as (low, high) pairs in order: repeats,
/// the reverse of a link and self-loops left out. What [`louvain`] and [`modularity`] read.
pub(crate) fn undirected_links(edges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut links: Vec<(u32, u32)> = edges
        .iter()
        .filter(|(a, b)| a != b)
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    links.sort_unstable();
    links.dedup();
    links
}

/// Renumbers communities from 0 in order of first appearance; returns how many there are.
fn renumber(community: &mut [u32]) -> usize {
    let mut map: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for c in community.iter_mut() {
        let next = map.len() as u32;
        *c = *map.entry(*c).or_insert(next);
    }
    map.len()
}

/// A deterministic Fisher–Yates shuffle (splitmix64).
fn shuffle(items: &mut [u32], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// The communities Louvain finds on the graph of `nodes` nodes and [`undirected_links`]
/// `links`: each node's community, numbered from 0. `None` when `stop` said so.
pub(crate) fn louvain(
    nodes: usize,
    links: &[(u32, u32)],
    resolution: f64,
    seed: u64,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<u32>> {
    let mut membership: Vec<u32> = (0..nodes as u32).collect();
    let mut level = Level::of_links(nodes, links);
    if level.two_m() == 0.0 {
        return Some(membership);
    }
    for round in 0u64.. {
        let (community, count, moved) =
            level.local_moves(resolution, seed.wrapping_add(round), stop)?;
        if !moved {
            break;
        }
        for c in membership.iter_mut() {
            *c = community[*c as usize];
        }
        level = level.aggregate(&community, count);
    }
    renumber(&mut membership);
    Some(membership)
}

/// The modularity of `membership` on the graph [`louvain`] reads, with `resolution`: Σ over
/// communities of `in/2m − resolution·(tot/2m)²`.
pub(crate) fn modularity(
    nodes: usize,
    links: &[(u32, u32)],
    membership: &[u32],
    resolution: f64,
) -> f64 {
    let level = Level::of_links(nodes, links);
    let two_m = level.two_m();
    if two_m == 0.0 {
        return 0.0;
    }
    let count = membership.iter().max().map_or(0, |c| *c as usize + 1);
    let mut inside = vec![0.0; count];
    let mut total = vec![0.0; count];
    for (node, links) in level.adjacency.iter().enumerate() {
        let c = membership[node] as usize;
        total[c] += level.degree[node];
        for &(other, w) in links {
            if membership[other as usize] as usize == c {
                inside[c] += w;
            }
        }
    }
    inside
        .iter()
        .zip(&total)
        .map(|(i, t)| i / two_m - resolution * (t / two_m) * (t / two_m))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_joined_by_one_edge_are_two_communities() {
        let edges = undirected_links(&[(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)]);
        let membership = louvain(6, &edges, 1.0, 7, &|| false).unwrap();
        assert_eq!(membership, [0, 0, 0, 1, 1, 1]);
        let q = modularity(6, &edges, &membership, 1.0);
        // Each triangle: 3 inner edges of 7, degree 7 of 14: 2 × (3/7 − 1/4).
        assert!((q - 2.0 * (3.0 / 7.0 - 0.25)).abs() < 1e-12, "{q}");
    }

    #[test]
    fn a_stop_request_ends_the_run() {
        let edges = undirected_links(&[(0, 1), (1, 2)]);
        assert_eq!(louvain(3, &edges, 1.0, 1, &|| true), None);
    }

    #[test]
    fn a_graph_without_edges_keeps_every_node_alone() {
        assert_eq!(louvain(3, &[], 1.0, 1, &|| false).unwrap(), [0, 1, 2]);
    }
}
