//! The vectors of each index, read once into memory ([`VectorMatrix`]) and read again only when
//! the table's version in [`VERSIONS_TABLE`] changed (every write path bumps it), so a search
//! costs one small query plus the scoring, whatever the backend.
//!
//! With the `ann` feature, an index of at least [`ApproximateSettings::min_vectors`] vectors
//! also gets an HNSW graph, built on a background thread when its vectors are loaded; searches
//! stay exact until the graph is ready, then use it (unless their conditions keep only a small
//! share of the rows, which an exact scan of those rows answers better).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

#[cfg(feature = "ann")]
use crate::search::approximate::ApproximateIndex;
use crate::search::vector::Hit;
use crate::search::vector::VectorMatrix;
use crate::spec::{EntitySpec, VectorIndexSpec};

use super::backend::{ExecError, Reader};
use super::ddl::VERSIONS_TABLE;
use super::ident::quote;
use super::value::SqlValue;

#[cfg(feature = "ann")]
pub use crate::search::approximate::ApproximateSettings;

/// A search with conditions that keep fewer than this share of the rows scans them exactly.
#[cfg(feature = "ann")]
const SELECTIVE: f64 = 0.1;

/// The vectors of one index as loaded, and the graph over them once it is built.
#[derive(Debug)]
pub(crate) struct IndexVectors {
    /// Every stored vector of the index.
    pub(crate) matrix: VectorMatrix,
    /// The HNSW graph, set once built (never for a small or dot-product index).
    #[cfg(feature = "ann")]
    approximate: std::sync::OnceLock<ApproximateIndex>,
}

impl IndexVectors {
    fn new(matrix: VectorMatrix) -> Self {
        IndexVectors {
            matrix,
            #[cfg(feature = "ann")]
            approximate: std::sync::OnceLock::new(),
        }
    }

    /// The `k` records closest to `query` among `allowed` (every record when `None`), best
    /// first: through the graph when it is ready and the filter keeps enough rows.
    pub(crate) fn top_k(
        &self,
        query: &[f32],
        k: usize,
        allowed: Option<&HashSet<String>>,
    ) -> Vec<Hit> {
        let keep = |row: usize| allowed.is_none_or(|ids| ids.contains(self.matrix.id(row)));
        #[cfg(feature = "ann")]
        if let Some(graph) = self.approximate.get() {
            let share = allowed.map_or(1.0, |ids| ids.len() as f64 / self.matrix.len() as f64);
            if share >= SELECTIVE {
                return graph.top_k(&self.matrix, query, k, &keep);
            }
        }
        self.matrix.top_k(query, k, keep)
    }

    /// Whether searches go through an HNSW graph.
    #[cfg(feature = "ann")]
    pub(crate) fn is_approximate(&self) -> bool {
        self.approximate.get().is_some()
    }

    /// Builds the graph now, on this thread, if the index is large enough and has none.
    #[cfg(feature = "ann")]
    fn build_graph(&self, settings: &ApproximateSettings) {
        if self.matrix.len() >= settings.min_vectors
            && self.approximate.get().is_none()
            && let Some(graph) = ApproximateIndex::build(&self.matrix, settings)
        {
            let _ = self.approximate.set(graph);
        }
    }
}

/// A loaded index by (table, column), with the table version it was read at.
type Entries = HashMap<(String, String), (i64, Arc<IndexVectors>)>;

/// The indexes loaded so far.
#[derive(Debug, Default)]
pub(crate) struct VectorCache {
    entries: Mutex<Entries>,
    /// When large indexes get a graph.
    #[cfg(feature = "ann")]
    approximate: ApproximateSettings,
    /// Whether a graph is being built.
    #[cfg(feature = "ann")]
    building: Arc<std::sync::atomic::AtomicBool>,
}

impl VectorCache {
    /// An empty cache whose large indexes get a graph as `settings` say.
    #[cfg(feature = "ann")]
    pub(crate) fn with_approximate(settings: ApproximateSettings) -> Self {
        VectorCache {
            entries: Mutex::default(),
            approximate: settings,
            building: Arc::default(),
        }
    }

    /// The vectors of `index` as they are now: from memory when the table has not changed
    /// since they were read. A newly loaded large index starts its graph in the background.
    pub(crate) fn vectors(
        &self,
        conn: &dyn Reader,
        entity: &EntitySpec,
        index: &VectorIndexSpec,
    ) -> Result<Arc<IndexVectors>, ExecError> {
        let vectors = self.load_current(conn, entity, index)?;
        #[cfg(feature = "ann")]
        self.start_graph(&vectors);
        Ok(vectors)
    }

    /// Starts building the graph of `vectors` on a background thread if they need one and no
    /// other graph is being built (one build at a time bounds the threads and memory; a later
    /// search starts the next).
    #[cfg(feature = "ann")]
    fn start_graph(&self, vectors: &Arc<IndexVectors>) {
        use std::sync::atomic::Ordering;
        if vectors.matrix.len() < self.approximate.min_vectors
            || vectors.matrix.similarity() == crate::spec::Similarity::Dot
            || vectors.is_approximate()
            || self.building.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let (vectors, settings, building) =
            (vectors.clone(), self.approximate, self.building.clone());
        let spawned = std::thread::Builder::new()
            .name("toolforge-hnsw".into())
            .spawn(move || {
                vectors.build_graph(&settings);
                building.store(false, Ordering::Release);
            });
        if spawned.is_err() {
            // Searches simply stay exact.
            self.building.store(false, Ordering::Release);
        }
    }

    /// The vectors of `index`, with their graph built before this returns when the index is
    /// large enough (for start-up and benchmarks).
    #[cfg(feature = "ann")]
    pub(crate) fn vectors_ready(
        &self,
        conn: &dyn Reader,
        entity: &EntitySpec,
        index: &VectorIndexSpec,
    ) -> Result<Arc<IndexVectors>, ExecError> {
        let vectors = self.load_current(conn, entity, index)?;
        if vectors.matrix.similarity() != crate::spec::Similarity::Dot {
            vectors.build_graph(&self.approximate);
        }
        Ok(vectors)
    }

    /// The current vectors.
    fn load_current(
        &self,
        conn: &dyn Reader,
        entity: &EntitySpec,
        index: &VectorIndexSpec,
    ) -> Result<Arc<IndexVectors>, ExecError> {
        let version = table_version(conn, &entity.table)?;
        let key = (entity.table.clone(), index.column.clone());
        if let Some((seen, vectors)) = self.lock().get(&key)
            && *seen == version
        {
            return Ok(vectors.clone());
        }
        let vectors = Arc::new(IndexVectors::new(load(conn, entity, index)?));
        self.lock().insert(key, (version, vectors.clone()));
        Ok(vectors)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The version of `table` (0 before its first write).
fn table_version(conn: &dyn Reader, table: &str) -> Result<i64, ExecError> {
    let rows = conn.rows(
        &format!(
            "SELECT \"version\" FROM {} WHERE \"name\" = ?1",
            quote(VERSIONS_TABLE)
        ),
        &[SqlValue::Text(table.to_owned())],
    )?;
    Ok(match rows.first().and_then(|row| row.first()) {
        Some(SqlValue::Integer(version)) => *version,
        _ => 0,
    })
}

/// Every stored vector of `index` (ordered by unique id); values of the wrong length are
/// skipped.
fn load(
    conn: &dyn Reader,
    entity: &EntitySpec,
    index: &VectorIndexSpec,
) -> Result<VectorMatrix, ExecError> {
    // The base table, not a row rule's view of it: the vectors are shared by every call.
    let schema = match conn.dialect() {
        super::backend::SqlDialect::Sqlite => "main".to_owned(),
        super::backend::SqlDialect::Postgres => {
            match conn
                .rows("SELECT CAST(current_schema() AS TEXT)", &[])?
                .into_iter()
                .next()
                .and_then(|row| row.into_iter().next())
            {
                Some(SqlValue::Text(schema)) => quote(&schema),
                _ => "\"public\"".to_owned(),
            }
        }
    };
    let rows = conn.rows(
        &format!(
            "SELECT {}, {} FROM {schema}.{} WHERE {} IS NOT NULL ORDER BY {}",
            quote(&entity.unique_field),
            quote(&index.column),
            quote(&entity.table),
            quote(&index.column),
            quote(&entity.unique_field),
        ),
        &[],
    )?;
    let dimension = index.dimension as usize;
    let mut matrix = VectorMatrix::new(dimension, index.similarity);
    let mut vector = Vec::with_capacity(dimension);
    for row in rows {
        let mut row = row.into_iter();
        let (Some(SqlValue::Text(id)), Some(SqlValue::Blob(bytes))) = (row.next(), row.next())
        else {
            continue;
        };
        if bytes.len() != dimension * 4 {
            continue;
        }
        vector.clear();
        vector.extend(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        matrix.push(id, &vector);
    }
    Ok(matrix)
}
