//! The graphs `find_path` walks: every record the spec's edge tables name, by entity, and each
//! edge table's edges in both directions, loaded compactly within the call's memory cap and
//! kept for as long as the database's data stamp ([`Reader::data_stamp`]) stays the same, so
//! the searches after one load run in memory until something is committed.
//!
//! - **Compact.** A record is its entity and its position among that entity's ids, which live
//!   in one string per entity in byte order ([`IdList`]); each edge table's edges are two
//!   adjacency lists of `u32` positions (source to target, target to source), each record's
//!   neighbours in byte order of their ids. A graph of 200,000 records (36-byte ids) and
//!   1,000,000 edges takes about 17 MB. Rows are read in pages of [`PAGE_ROWS`] by keyset.
//! - **Kept per data stamp.** A call reads the stamp first and takes the kept graph only when
//!   it was loaded at that same stamp: an edge committed since is never missed. Otherwise it
//!   loads the graph again (one load per graph at a time, the calls that want it meanwhile
//!   wait for it; a place among the loads at once of `graphs.rs`). At most [`KEPT`] graphs
//!   are kept (one per set of edge tables), the least recently used forgotten.
//! - **Within limits.** More than [`MAX_GRAPH_NODES`] records or [`MAX_GRAPH_EDGES`] edges, or
//!   more memory than the call's cap ([`CallLimits::max_memory_bytes`](crate::CallLimits)),
//!   stops the load; the caller then walks statement by statement, as it would without a
//!   graph. What stopped a load is kept with the stamp, so the calls after it do not try again
//!   (unless their cap is higher).
//!
//! Nothing here applies row rules: the graph is read from the edge tables as every caller
//! would, so a spec with rules must not load one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::CallBudget;
use crate::sync::lock;

use super::backend::Reader;
use super::graphs::{IdList, MAX_GRAPH_EDGES, MAX_GRAPH_NODES, PAGE_ROWS, Places, check_deadline};
use super::handler_error::HandlerError;
use super::value::SqlValue;
use crate::sql::text::ident::quote;

/// How many graphs are kept.
pub(crate) const KEPT: usize = 2;

/// What an id takes while a load gathers them (its text twice, a hash slot, its position).
const BYTES_PER_GATHERED_ID: usize = 56;

/// One edge table: its name and the entities (indices in the spec) of its two ends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct EdgeTable {
    /// The table (`source_id`, `target_id`).
    pub table: String,
    /// The source entity's index.
    pub source: usize,
    /// The target entity's index.
    pub target: usize,
}

/// Which graph to load: the edge tables, and how many entities their indices range over.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PathGraphSpec {
    /// The number of entities.
    pub entities: usize,
    /// The edge tables, in spec order.
    pub tables: Vec<EdgeTable>,
}

/// Each record's neighbours: those of position `p` are `ends[starts[p]..starts[p + 1]]`.
#[derive(Debug, Default)]
struct Adjacency {
    starts: Vec<u32>,
    ends: Vec<u32>,
}

impl Adjacency {
    /// The lists of `near` records over the `pairs` (near, far), which are sorted.
    fn new(near: usize, pairs: &[(u32, u32)]) -> Adjacency {
        let mut starts = vec![0u32; near + 1];
        for &(a, _) in pairs {
            starts[a as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        Adjacency {
            starts,
            ends: pairs.iter().map(|&(_, b)| b).collect(),
        }
    }

    fn of(&self, position: u32) -> &[u32] {
        let position = position as usize;
        match (self.starts.get(position), self.starts.get(position + 1)) {
            (Some(&start), Some(&end)) => &self.ends[start as usize..end as usize],
            _ => &[],
        }
    }

    fn bytes(near: usize, edges: usize) -> usize {
        4 * (near + 1) + 4 * edges
    }
}

/// A loaded graph.
#[derive(Debug)]
pub(crate) struct PathGraph {
    /// Each entity's ids, in byte order.
    ids: Vec<IdList>,
    /// Each edge table's adjacency: source to target, then target to source.
    links: Vec<[Adjacency; 2]>,
    bytes: usize,
}

impl PathGraph {
    /// The position of the record `id` of entity `entity`, if an edge names it.
    pub(crate) fn position(&self, entity: usize, id: &str) -> Option<u32> {
        self.ids.get(entity)?.find(id)
    }

    /// The id at `position` of entity `entity`.
    pub(crate) fn id(&self, entity: usize, position: u32) -> &str {
        self.ids[entity].get(position as usize)
    }

    /// How many records of entity `entity` an edge names.
    pub(crate) fn len(&self, entity: usize) -> usize {
        self.ids.get(entity).map_or(0, IdList::len)
    }

    /// The neighbours of the record at `position` along edge table `table` (by its index in
    /// the spec), from source to target when `outgoing`, in byte order of their ids.
    pub(crate) fn next(&self, table: usize, outgoing: bool, position: u32) -> &[u32] {
        self.links[table][usize::from(!outgoing)].of(position)
    }

    /// The bytes the graph takes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

/// What the last load at a stamp gave.
#[derive(Debug, Clone)]
enum Loaded {
    Graph(Arc<PathGraph>),
    /// More records or edges than a graph tool loads.
    TooLarge,
    /// More memory than this cap.
    OverCap(usize),
}

/// One graph's last load and the stamp it was read at.
#[derive(Debug, Default)]
struct Slot {
    kept: Option<(String, Loaded)>,
}

#[derive(Debug)]
struct Entry {
    spec: PathGraphSpec,
    slot: Arc<tokio::sync::Mutex<Slot>>,
    used: u64,
}

/// The graphs kept, by what they are of.
#[derive(Debug, Default)]
pub(crate) struct PathGraphs {
    entries: Mutex<(u64, Vec<Entry>)>,
    /// How many graphs were loaded, and how many times one was handed to a call (what tests
    /// read through `__private::path_graph_counts`).
    loads: AtomicU64,
    handed: AtomicU64,
}

impl PathGraphs {
    /// The graph `spec` describes as the database holds it now, kept or loaded, within the
    /// call's memory cap; `None` when the backend gives no stamp, or the graph cannot be
    /// loaded within the limits (then the caller walks by statements).
    pub(crate) async fn graph(
        &self,
        conn: &dyn Reader,
        spec: &PathGraphSpec,
        places: &Places,
    ) -> Result<Option<Arc<PathGraph>>, HandlerError> {
        let Some(stamp) = conn.data_stamp().await? else {
            return Ok(None);
        };
        let cap = CallBudget::current().and_then(|budget| budget.limits().max_memory_bytes);
        let slot = self.slot(spec);
        let mut slot = slot.lock().await;
        if let Some((kept_at, loaded)) = &slot.kept
            && *kept_at == stamp
        {
            match loaded {
                Loaded::Graph(graph) => {
                    self.handed.fetch_add(1, Ordering::Relaxed);
                    return Ok(Some(graph.clone()));
                }
                Loaded::TooLarge => return Ok(None),
                Loaded::OverCap(over) if cap.is_some_and(|cap| cap <= *over) => return Ok(None),
                Loaded::OverCap(_) => {}
            }
        }
        // What was read at another stamp is of no use: its memory goes back before the load.
        slot.kept = None;
        let loaded = {
            let _place = places.take().await?;
            load(conn, spec, cap).await?
        };
        slot.kept = Some((stamp, loaded.clone()));
        Ok(match loaded {
            Loaded::Graph(graph) => {
                self.loads.fetch_add(1, Ordering::Relaxed);
                self.handed.fetch_add(1, Ordering::Relaxed);
                Some(graph)
            }
            _ => None,
        })
    }

    /// How many graphs were loaded, and how many times one was handed to a call.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (
            self.loads.load(Ordering::Relaxed),
            self.handed.load(Ordering::Relaxed),
        )
    }

    /// The slot of `spec`'s graph, made if needed (forgetting the least recently used one
    /// past [`KEPT`]).
    fn slot(&self, spec: &PathGraphSpec) -> Arc<tokio::sync::Mutex<Slot>> {
        let mut entries = lock(&self.entries);
        let (clock, entries) = &mut *entries;
        *clock += 1;
        if let Some(entry) = entries.iter_mut().find(|entry| entry.spec == *spec) {
            entry.used = *clock;
            return entry.slot.clone();
        }
        if entries.len() >= KEPT
            && let Some(oldest) = (0..entries.len()).min_by_key(|&i| entries[i].used)
        {
            entries.swap_remove(oldest);
        }
        let slot = Arc::new(tokio::sync::Mutex::new(Slot::default()));
        entries.push(Entry {
            spec: spec.clone(),
            slot: slot.clone(),
            used: *clock,
        });
        slot
    }
}

/// What a load takes, against the call's cap.
struct Meter {
    cap: Option<usize>,
    used: usize,
}

impl Meter {
    /// Counts `bytes`; `false` once past the cap.
    fn add(&mut self, bytes: usize) -> bool {
        self.used = self.used.saturating_add(bytes);
        self.cap.is_none_or(|cap| self.used <= cap)
    }
}

/// The ids of one entity as a load meets them: each one's order of arrival.
#[derive(Default)]
struct Gathered {
    index: HashMap<Box<str>, u32>,
}

impl Gathered {
    /// The arrival number of `id`, and whether it is new.
    fn add(&mut self, id: String) -> (u32, bool) {
        let next = self.index.len() as u32;
        match self.index.entry(id.into_boxed_str()) {
            std::collections::hash_map::Entry::Occupied(entry) => (*entry.get(), false),
            std::collections::hash_map::Entry::Vacant(entry) => (*entry.insert(next), true),
        }
    }

    /// The ids in byte order, and each arrival number's position among them.
    fn sorted(self) -> (IdList, Vec<u32>) {
        let mut ids: Vec<(Box<str>, u32)> = self.index.into_iter().collect();
        ids.sort_unstable();
        let mut list = IdList::default();
        let mut position = vec![0u32; ids.len()];
        for (at, (id, arrival)) in ids.into_iter().enumerate() {
            // Always added: the load stops before an entity's ids pass 4 GiB of text.
            list.push(&id);
            position[arrival as usize] = at as u32;
        }
        (list, position)
    }
}

/// Reads the graph `spec` describes, page by page, checking the call's deadline, the limits
/// and the memory cap as it goes.
async fn load(
    conn: &dyn Reader,
    spec: &PathGraphSpec,
    cap: Option<usize>,
) -> Result<Loaded, HandlerError> {
    let budget = CallBudget::current();
    let mut meter = Meter { cap, used: 0 };
    let over = |meter: &Meter| Loaded::OverCap(meter.cap.unwrap_or(usize::MAX));
    let mut gathered: Vec<Gathered> = (0..spec.entities).map(|_| Gathered::default()).collect();
    let (mut nodes, mut edges, mut text) = (0usize, 0usize, vec![0usize; spec.entities]);
    let mut pairs: Vec<Vec<(u32, u32)>> = Vec::with_capacity(spec.tables.len());
    for table in &spec.tables {
        let mut these: Vec<(u32, u32)> = Vec::new();
        let mut after: Option<(SqlValue, SqlValue)> = None;
        loop {
            check_deadline(budget.as_ref())?;
            let (filter, params) = match after.take() {
                Some((a, b)) => (
                    "WHERE (\"source_id\", \"target_id\") > (?1, ?2) ",
                    vec![a, b],
                ),
                None => ("", Vec::new()),
            };
            let rows = conn
                .rows(
                    &format!(
                        "SELECT \"source_id\", \"target_id\" FROM {} {filter}\
                     ORDER BY \"source_id\", \"target_id\" LIMIT {PAGE_ROWS}",
                        quote(&table.table)
                    ),
                    &params,
                )
                .await?;
            let full = rows.len() == PAGE_ROWS;
            edges += rows.len();
            if edges > MAX_GRAPH_EDGES {
                return Ok(Loaded::TooLarge);
            }
            if !meter.add(rows.len() * 8) {
                return Ok(over(&meter));
            }
            for row in rows {
                let mut values = row.into_iter();
                let (Some(a), Some(b)) = (values.next(), values.next()) else {
                    continue;
                };
                after = Some((a.clone(), b.clone()));
                let (Some(a), Some(b)) = (a.into_key_text(), b.into_key_text()) else {
                    continue;
                };
                let mut ends = [0u32; 2];
                for (end, (entity, id)) in [(table.source, a), (table.target, b)]
                    .into_iter()
                    .enumerate()
                {
                    let length = id.len();
                    let (at, new) = gathered[entity].add(id);
                    if new {
                        nodes += 1;
                        text[entity] += length;
                        if nodes > MAX_GRAPH_NODES || u32::try_from(text[entity]).is_err() {
                            return Ok(Loaded::TooLarge);
                        }
                        if !meter.add(length + BYTES_PER_GATHERED_ID) {
                            return Ok(over(&meter));
                        }
                    }
                    ends[end] = at;
                }
                these.push((ends[0], ends[1]));
            }
            if !full {
                break;
            }
        }
        pairs.push(these);
    }
    let mut ids = Vec::with_capacity(spec.entities);
    let mut positions = Vec::with_capacity(spec.entities);
    for entity in gathered {
        let (list, position) = entity.sorted();
        ids.push(list);
        positions.push(position);
    }
    let mut bytes: usize = ids.iter().map(IdList::bytes).sum();
    let mut links = Vec::with_capacity(spec.tables.len());
    for (table, mut these) in spec.tables.iter().zip(pairs) {
        check_deadline(budget.as_ref())?;
        let (sources, targets) = (ids[table.source].len(), ids[table.target].len());
        let size = Adjacency::bytes(sources, these.len()) + Adjacency::bytes(targets, these.len());
        bytes += size;
        if !meter.add(size) {
            return Ok(over(&meter));
        }
        for (a, b) in &mut these {
            *a = positions[table.source][*a as usize];
            *b = positions[table.target][*b as usize];
        }
        these.sort_unstable();
        these.dedup();
        let outgoing = Adjacency::new(sources, &these);
        let mut reversed: Vec<(u32, u32)> = these.into_iter().map(|(a, b)| (b, a)).collect();
        reversed.sort_unstable();
        let incoming = Adjacency::new(targets, &reversed);
        links.push([outgoing, incoming]);
    }
    Ok(Loaded::Graph(Arc::new(PathGraph { ids, links, bytes })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_are_listed_per_record_in_order() {
        let lists = Adjacency::new(4, &[(0, 1), (0, 3), (2, 0), (2, 2)]);
        assert_eq!(lists.of(0), [1, 3]);
        assert_eq!(lists.of(1), [] as [u32; 0]);
        assert_eq!(lists.of(2), [0, 2]);
        assert_eq!(lists.of(3), [] as [u32; 0]);
        assert_eq!(lists.of(9), [] as [u32; 0]);
    }

    #[test]
    fn gathered_ids_come_back_in_byte_order_with_their_positions() {
        let mut gathered = Gathered::default();
        for id in ["b", "a", "b", "ä", "B"] {
            gathered.add(id.to_owned());
        }
        let (list, position) = gathered.sorted();
        let listed: Vec<&str> = (0..list.len()).map(|i| list.get(i)).collect();
        assert_eq!(listed, ["B", "a", "b", "ä"]);
        // Arrivals: b, a, ä, B.
        assert_eq!(position, [2, 1, 3, 0]);
    }
}
