//! The graphs `rank_entities` ranks over: one entity's records and the edges between them,
//! loaded compactly, within the call's memory cap, a few at a time, and shared by the calls
//! that want the same graph at the same time.
//!
//! - **Compact.** Record ids live in one string with their end offsets (sorted, so an id is
//!   found by binary search), edges are pairs of `u32` positions. Rows are read in pages of
//!   [`PAGE_ROWS`] by keyset (`WHERE (near, far) > (?, ?)`), so a million edges never sit in
//!   memory as a million rows of values. A graph of 200,000 records and 1,000,000 edges takes
//!   about 20 MB, where rows of values took some 200 MB.
//! - **Within the call's memory cap** ([`CallLimits::max_memory_bytes`](crate::CallLimits)):
//!   what a graph will take is counted as it loads (ids, edges, PageRank's vectors); passing
//!   the cap stops the load with an error naming the setting and what to do.
//! - **A few at a time.** At most [`LOADS_AT_ONCE`] graphs load at the same time in a process;
//!   other calls wait for a place within their deadline.
//! - **Shared while in use.** Calls that want the same graph (entity, relationship, direction)
//!   while one loads wait for that load and use its graph (and its PageRank scores) instead of
//!   loading their own; the graph is dropped, and its memory returned, when the last call using
//!   it ends. A call only takes a graph whose load ended after the call started, so it never
//!   sees data older than itself; with row rules nothing is shared (each caller sees its own
//!   rows).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Instant;

use serde_json::json;

use crate::sync::lock;
use crate::{CallBudget, ErrorCode, ToolError};

use super::backend::{ExecError, Reader};
use super::handler_error::HandlerError;
use super::value::SqlValue;
use crate::sql::text::ident::quote;

/// The most records a graph tool loads or visits in one call.
pub(crate) const MAX_GRAPH_NODES: usize = 1_000_000;
/// The most edges a graph tool loads in one call.
pub(crate) const MAX_GRAPH_EDGES: usize = 5_000_000;

/// How many rows one statement of a load reads.
pub(crate) const PAGE_ROWS: usize = 10_000;

/// How many graphs a process loads at the same time.
pub(crate) const LOADS_AT_ONCE: usize = 2;

/// Bytes a graph takes per record besides its id's text: the id's end offset, the position
/// kept while sorting, and PageRank's three vectors (rank, next, out-degree).
const BYTES_PER_RECORD: usize = 4 + 4 + 8 + 8 + 4;

/// Bytes a graph takes per edge.
const BYTES_PER_EDGE: usize = 8;

/// Which graph to load: the records of one table and the edges of some edge tables between
/// them, each walked from its `near` column to its `far` column (rank flows near to far).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct GraphSpec {
    /// The entity's table.
    pub table: String,
    /// The entity's unique field.
    pub unique: String,
    /// The edge tables: (table, near column, far column).
    pub edges: Vec<(String, &'static str, &'static str)>,
}

/// A loaded graph: the record ids in byte order, and the edges as positions, sorted, without
/// repeats.
#[derive(Debug)]
pub(crate) struct LoadedGraph {
    ids: IdList,
    edges: Vec<(u32, u32)>,
    /// PageRank's scores, computed once by the first call that needs them.
    scores: OnceLock<Arc<Vec<f64>>>,
}

impl LoadedGraph {
    /// The number of records.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The id of the record at `position`.
    pub(crate) fn id(&self, position: usize) -> &str {
        self.ids.get(position)
    }

    /// The edges, as (from, to) positions.
    pub(crate) fn edges(&self) -> &[(u32, u32)] {
        &self.edges
    }

    /// The scores `compute` gives this graph, computed once and shared.
    pub(crate) fn scores(
        &self,
        compute: impl FnOnce(&LoadedGraph) -> Result<Vec<f64>, ExecError>,
    ) -> Result<Arc<Vec<f64>>, ExecError> {
        if let Some(scores) = self.scores.get() {
            return Ok(scores.clone());
        }
        let scores = Arc::new(compute(self)?);
        Ok(self.scores.get_or_init(|| scores).clone())
    }
}

/// Ids in one string, with where each ends (also what `path_graphs.rs` keeps).
#[derive(Debug, Default)]
pub(crate) struct IdList {
    text: String,
    ends: Vec<u32>,
}

impl IdList {
    /// The number of ids.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The bytes the list takes: its text and one end offset per id.
    pub(crate) fn bytes(&self) -> usize {
        self.text.len() + 4 * self.ends.len()
    }

    /// The id at `position`.
    pub(crate) fn get(&self, position: usize) -> &str {
        let start = match position {
            0 => 0,
            _ => self.ends[position - 1] as usize,
        };
        &self.text[start..self.ends[position] as usize]
    }

    /// Adds `id`; `false` (nothing added) once the ids would pass 4 GiB of text, which
    /// offsets of 32 bits cannot reach.
    pub(crate) fn push(&mut self, id: &str) -> bool {
        let Ok(end) = u32::try_from(self.text.len() + id.len()) else {
            return false;
        };
        self.text.push_str(id);
        self.ends.push(end);
        true
    }

    /// The position of `id` in a list in byte order ([`IdList::sorted`]).
    pub(crate) fn find(&self, id: &str) -> Option<u32> {
        let (mut low, mut high) = (0usize, self.len());
        while low < high {
            let middle = (low + high) / 2;
            match self.get(middle).cmp(id) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle as u32),
            }
        }
        None
    }

    /// The same ids in byte order (a backend's collation may order text otherwise).
    pub(crate) fn sorted(self) -> IdList {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        if order
            .windows(2)
            .all(|pair| self.get(pair[0] as usize) < self.get(pair[1] as usize))
        {
            return self;
        }
        order.sort_unstable_by(|&a, &b| self.get(a as usize).cmp(self.get(b as usize)));
        order.dedup_by(|a, b| self.get(*a as usize) == self.get(*b as usize));
        let mut sorted = IdList {
            text: String::with_capacity(self.text.len()),
            ends: Vec::with_capacity(order.len()),
        };
        for position in order {
            // The same ids as before, so they fit as they did.
            sorted.push(self.get(position as usize));
        }
        sorted
    }
}

/// The graphs being used, by what they are of, and the places for loads.
#[derive(Debug, Default)]
pub(crate) struct GraphCache {
    flights: Mutex<HashMap<GraphSpec, Arc<tokio::sync::Mutex<Option<Flight>>>>>,
    places: Places,
}

/// The last load of one graph: when it ended, and the graph while some call uses it.
#[derive(Debug)]
struct Flight {
    ended: Instant,
    graph: Weak<LoadedGraph>,
}

impl GraphCache {
    /// The places for loads, which the graphs `find_path` walks take too.
    pub(crate) fn places(&self) -> &Places {
        &self.places
    }

    /// The graph `spec` describes, as of a moment after `started`: one a call loaded since
    /// then and still in use (when `shareable`), or loaded now.
    pub(crate) async fn graph(
        &self,
        conn: &dyn Reader,
        spec: &GraphSpec,
        shareable: bool,
        started: Instant,
    ) -> Result<Arc<LoadedGraph>, HandlerError> {
        if !shareable {
            let _place = self.places.take().await?;
            return load(conn, spec).await.map(Arc::new);
        }
        let flight = lock(&self.flights).entry(spec.clone()).or_default().clone();
        // One load per graph at a time: calls that want it wait here for the one loading.
        let mut last = flight.lock().await;
        if let Some(Flight { ended, graph }) = last.as_ref()
            && *ended >= started
            && let Some(graph) = graph.upgrade()
        {
            return Ok(graph);
        }
        let graph = {
            let _place = self.places.take().await?;
            Arc::new(load(conn, spec).await?)
        };
        *last = Some(Flight {
            ended: Instant::now(),
            graph: Arc::downgrade(&graph),
        });
        drop(last);
        // Forget the graphs nobody uses, so the map stays as small as the graphs in use.
        lock(&self.flights).retain(|_, flight| {
            Arc::strong_count(flight) > 1
                || flight.try_lock().map_or(true, |last| {
                    last.as_ref()
                        .is_some_and(|last| last.graph.strong_count() > 0)
                })
        });
        Ok(graph)
    }
}

/// The places for loads: at most [`LOADS_AT_ONCE`] at a time.
#[derive(Debug)]
pub(crate) struct Places {
    free: tokio::sync::Semaphore,
}

impl Default for Places {
    fn default() -> Places {
        Places {
            free: tokio::sync::Semaphore::new(LOADS_AT_ONCE),
        }
    }
}

/// A place taken; given back when dropped.
pub(crate) struct Place<'a>(#[allow(dead_code)] tokio::sync::SemaphorePermit<'a>);

impl Places {
    /// Waits for a place until the call's deadline.
    pub(crate) async fn take(&self) -> Result<Place<'_>, ExecError> {
        let deadline = CallBudget::current().and_then(|budget| budget.deadline());
        let acquire = self.free.acquire();
        let permit = match deadline {
            // The wait needs the runtime's timers, which every call of a tool has.
            Some(deadline) if tokio::runtime::Handle::try_current().is_ok() => {
                tokio::time::timeout_at(deadline.into(), acquire)
                    .await
                    .map_err(|_| ExecError::Stopped)?
            }
            _ => acquire.await,
        };
        permit.map(Place).map_err(|_| ExecError::Stopped)
    }
}

/// What a load may still take, and what it took.
struct Meter {
    cap: Option<usize>,
    used: usize,
}

impl Meter {
    fn add(&mut self, bytes: usize) -> Result<(), HandlerError> {
        self.used = self.used.saturating_add(bytes);
        match self.cap {
            Some(cap) if self.used > cap => Err(ToolError::new(
                ErrorCode::TooLarge,
                format!(
                    "this graph takes more memory than one call may use (max_memory_bytes: \
                     {cap} bytes, passed while loading it); use algorithm degree, rank along a \
                     smaller relationship, or raise the cap (--max-memory-bytes)"
                ),
            )
            .with_details(json!({"limit": "max_memory_bytes", "max_memory_bytes": cap}))
            .into()),
            _ => Ok(()),
        }
    }
}

/// Reads the graph `spec` describes, page by page, checking the call's deadline and memory
/// cap as it goes.
async fn load(conn: &dyn Reader, spec: &GraphSpec) -> Result<LoadedGraph, HandlerError> {
    let budget = CallBudget::current();
    let mut meter = Meter {
        cap: budget
            .as_ref()
            .and_then(|budget| budget.limits().max_memory_bytes),
        used: 0,
    };
    let unique = quote(&spec.unique);
    let mut ids = IdList::default();
    let mut after: Option<String> = None;
    loop {
        check_deadline(budget.as_ref())?;
        let (filter, params) = match &after {
            Some(last) => (
                format!("WHERE {unique} > ?1 "),
                vec![SqlValue::Text(last.clone())],
            ),
            None => (String::new(), Vec::new()),
        };
        let rows = conn
            .rows(
                &format!(
                    "SELECT {unique} FROM {} {filter}ORDER BY {unique} LIMIT {PAGE_ROWS}",
                    quote(&spec.table)
                ),
                &params,
            )
            .await?;
        let full = rows.len() == PAGE_ROWS;
        for row in rows {
            if let Some(id) = row.into_iter().next().and_then(SqlValue::into_key_text) {
                meter.add(id.len() + BYTES_PER_RECORD)?;
                if !ids.push(&id) {
                    return Err(ToolError::new(
                        ErrorCode::TooLarge,
                        "the ids of this entity's records hold more than 4 GiB of text, more \
                         than a graph loads; use algorithm degree",
                    )
                    .into());
                }
                after = Some(id);
            }
        }
        if !full {
            break;
        }
    }
    let ids = ids.sorted();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for (table, near, far) in &spec.edges {
        let (near, far) = (quote(near), quote(far));
        let mut after: Option<(String, String)> = None;
        loop {
            check_deadline(budget.as_ref())?;
            let (filter, params) = match &after {
                Some((a, b)) => (
                    format!("WHERE ({near}, {far}) > (?1, ?2) "),
                    vec![SqlValue::Text(a.clone()), SqlValue::Text(b.clone())],
                ),
                None => (String::new(), Vec::new()),
            };
            let rows = conn.rows(
                &format!(
                    "SELECT {near}, {far} FROM {} {filter}ORDER BY {near}, {far} LIMIT {PAGE_ROWS}",
                    quote(table)
                ),
                &params,
            ).await?;
            let full = rows.len() == PAGE_ROWS;
            meter.add(rows.len() * BYTES_PER_EDGE)?;
            for row in rows {
                let mut values = row.into_iter();
                if let (Some(a), Some(b)) = (
                    values.next().and_then(SqlValue::into_key_text),
                    values.next().and_then(SqlValue::into_key_text),
                ) {
                    if let (Some(from), Some(to)) = (ids.find(&a), ids.find(&b)) {
                        edges.push((from, to));
                    }
                    after = Some((a, b));
                }
            }
            if !full {
                break;
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    edges.shrink_to_fit();
    Ok(LoadedGraph {
        ids,
        edges,
        scores: OnceLock::new(),
    })
}

/// [`ExecError::Stopped`] once `budget`'s deadline has passed.
pub(crate) fn check_deadline(budget: Option<&CallBudget>) -> Result<(), ExecError> {
    if budget.is_some_and(CallBudget::is_expired) {
        Err(ExecError::Stopped)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::IdList;

    #[test]
    fn ids_are_found_in_byte_order_whatever_order_they_came_in() {
        let mut ids = IdList::default();
        for id in ["b", "a", "ä", "B", "a", ""] {
            assert!(ids.push(id));
        }
        let ids = ids.sorted();
        let listed: Vec<&str> = (0..ids.len()).map(|i| ids.get(i)).collect();
        assert_eq!(listed, ["", "B", "a", "b", "ä"]);
        for (position, id) in listed.iter().enumerate() {
            assert_eq!(ids.find(id), Some(position as u32));
        }
        assert_eq!(ids.find("c"), None);
    }
}
