//! The vectors of each index, read once into memory ([`VectorMatrix`]) and read again only when
//! the table's version in [`VERSIONS_TABLE`] changed (every write path bumps it), so a search
//! costs one small query plus the scoring, whatever the backend. One load at a time per index:
//! searches that find the same new version wait for the one load rather than each reading it.
//! What a process holds is capped ([`VectorSearchSettings::max_vectors_in_memory`]): an index
//! that would pass the cap is refused with an error naming the cap.
//!
//! A column in pgvector's type is not loaded at all: the server searches it
//! ([`VectorCache::home`] tells which), and this cache only remembers that.
//!
//! With the `ann` feature, an index of at least [`ApproximateSettings::min_vectors`] vectors
//! also gets an HNSW graph, built on a background thread when its vectors are loaded; searches
//! stay exact until the graph is ready, then use it (unless their conditions keep only a small
//! share of the rows, which an exact scan of those rows answers better).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex};

use serde_json::json;

#[cfg(feature = "ann")]
use crate::search::approximate::ApproximateIndex;
use crate::search::vector::Hit;
use crate::search::vector::VectorMatrix;
use crate::spec::{EntitySpec, VectorIndexSpec, VectorSearchSettings};
use crate::{ErrorCode, ToolError};

use crate::sql::backend::{ExecError, Reader, SqlDialect};
use crate::sql::ddl::VERSIONS_TABLE;
use crate::sql::handler_error::HandlerError;
use crate::sql::text::ident::quote;
use crate::sql::value::SqlValue;

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
    /// How many searches the graph answered.
    #[cfg(feature = "ann")]
    approximate_answers: std::sync::atomic::AtomicU64,
}

impl IndexVectors {
    fn new(matrix: VectorMatrix) -> Self {
        IndexVectors {
            matrix,
            #[cfg(feature = "ann")]
            approximate: std::sync::OnceLock::new(),
            #[cfg(feature = "ann")]
            approximate_answers: std::sync::atomic::AtomicU64::new(0),
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
                self.approximate_answers
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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

/// Where the vectors of one index are searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum VectorHome {
    /// In this process's memory (SQLite; PostgreSQL without pgvector), as of this version of
    /// the table.
    Process {
        /// The table's version in [`VERSIONS_TABLE`], read for this search.
        version: i64,
    },
    /// By the PostgreSQL server, in a pgvector column.
    Server {
        /// The installed pgvector version (`0.8.1`).
        version: String,
    },
}

impl VectorHome {
    /// Whether the server scans an HNSW index on until enough rows pass a filter
    /// (`hnsw.iterative_scan`, pgvector 0.8 and later).
    pub(crate) fn iterative_scans(&self) -> bool {
        let VectorHome::Server { version } = self else {
            return false;
        };
        let mut parts = version
            .split('.')
            .map(|part| part.parse::<u32>().unwrap_or(0));
        let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        (major, minor) >= (0, 8)
    }
}

/// Held while one index loads, so that searches asking at once read it once.
type LoadGate = Arc<tokio::sync::Mutex<()>>;

/// Where each index was last found, by (table, column): the pgvector version when the server
/// searches it, `None` when it is in memory as of the table version beside it (a column found
/// in memory is looked at again when its table changes: a conversion to pgvector bumps the
/// version).
type Homes = HashMap<(String, String), (Option<String>, i64)>;

/// The indexes loaded so far.
#[derive(Debug, Default)]
pub(crate) struct VectorCache {
    entries: Mutex<Entries>,
    /// One lock per index, held while it loads.
    loads: Mutex<HashMap<(String, String), LoadGate>>,
    /// Where each index is searched.
    homes: Mutex<Homes>,
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
            approximate: settings,
            ..VectorCache::default()
        }
    }

    /// How many searches the HNSW graphs of the indexes loaded now answered (the rest were
    /// exact scans): what tests read through `__private::approximate_answers`.
    #[cfg(feature = "ann")]
    pub(crate) fn approximate_answers(&self) -> u64 {
        lock(&self.entries)
            .values()
            .map(|(_, vectors)| {
                vectors
                    .approximate_answers
                    .load(std::sync::atomic::Ordering::Relaxed)
            })
            .sum()
    }

    /// Where `index` is searched. `server_column` is the backend's answer, asked only when the
    /// table changed since it last was: the pgvector version when the column holds pgvector's
    /// type, `None` otherwise.
    pub(crate) async fn home(
        &self,
        conn: &dyn Reader,
        entity: &EntitySpec,
        index: &VectorIndexSpec,
        server_column: impl Future<Output = Result<Option<String>, ExecError>>,
    ) -> Result<VectorHome, HandlerError> {
        let key = (entity.table.clone(), index.column.clone());
        let known = lock(&self.homes).get(&key).cloned();
        if let Some((Some(version), _)) = known {
            return Ok(VectorHome::Server { version });
        }
        if let Some(column) = &index.existing_column {
            // A user's own column is searched where it is, always current: only pgvector's
            // columns can be (nothing tells a process that a column of bytes changed).
            let Some(version) = server_column.await? else {
                return Err(HandlerError::Tool(ToolError::execution_failed(format!(
                    "vector index `{}` of {} reads the column \"{column}\" of your table, \
                     which is not a pgvector column (`vector(N)` or `halfvec(N)`) of \
                     PostgreSQL: only those are searched as they are; remove `column:` to \
                     keep toolforge's own vectors of `source_field` in its side store",
                    index.name, entity.name
                ))));
            };
            lock(&self.homes).insert(key, (Some(version.clone()), 0));
            return Ok(VectorHome::Server { version });
        }
        let version = table_version(conn, &entity.table).await?;
        let server = match known {
            Some((None, seen)) if seen == version => None,
            _ => {
                let server = server_column.await?;
                lock(&self.homes).insert(key, (server.clone(), version));
                server
            }
        };
        Ok(match server {
            Some(version) => VectorHome::Server { version },
            None => VectorHome::Process { version },
        })
    }

    /// Forgets where indexes are searched (after initialisation may have converted them).
    pub(crate) fn forget_storage(&self) {
        lock(&self.homes).clear();
    }

    /// The vectors of `index` at `version` of its table (from [`VectorCache::home`]): from
    /// memory when they were read at that version. A newly loaded large index starts its graph
    /// in the background.
    pub(crate) async fn vectors(
        &self,
        conn: &dyn Reader,
        (entity, index): (&EntitySpec, &VectorIndexSpec),
        version: i64,
        settings: &VectorSearchSettings,
    ) -> Result<Arc<IndexVectors>, HandlerError> {
        let vectors = self
            .load_current(conn, (entity, index), version, settings)
            .await?;
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
    pub(crate) async fn vectors_ready(
        &self,
        conn: &dyn Reader,
        (entity, index): (&EntitySpec, &VectorIndexSpec),
        version: i64,
        settings: &VectorSearchSettings,
    ) -> Result<Arc<IndexVectors>, HandlerError> {
        let vectors = self
            .load_current(conn, (entity, index), version, settings)
            .await?;
        if vectors.matrix.similarity() != crate::spec::Similarity::Dot {
            vectors.build_graph(&self.approximate);
        }
        Ok(vectors)
    }

    /// The vectors at `version`, loaded once per table version however many searches ask at
    /// once.
    async fn load_current(
        &self,
        conn: &dyn Reader,
        (entity, index): (&EntitySpec, &VectorIndexSpec),
        version: i64,
        settings: &VectorSearchSettings,
    ) -> Result<Arc<IndexVectors>, HandlerError> {
        let key = (entity.table.clone(), index.column.clone());
        let current = || match lock(&self.entries).get(&key) {
            Some((seen, vectors)) if *seen == version => Some(vectors.clone()),
            _ => None,
        };
        if let Some(vectors) = current() {
            return Ok(vectors);
        }
        let gate = lock(&self.loads).entry(key.clone()).or_default().clone();
        let _loading = gate.lock().await;
        // Another search may have loaded this version while this one waited.
        if let Some(vectors) = current() {
            return Ok(vectors);
        }
        // The base table, not a row rule's view of it: the vectors are shared by every call.
        let table = base_table(conn, entity).await?;
        self.check_room(conn, &table, (entity, index), settings)
            .await?;
        let vectors = Arc::new(IndexVectors::new(load(conn, &table, entity, index).await?));
        lock(&self.entries).insert(key, (version, vectors.clone()));
        Ok(vectors)
    }

    /// Refuses to load `index` (of `table`) when the vectors it holds, with those of the other
    /// indexes in memory, pass the process's cap.
    async fn check_room(
        &self,
        conn: &dyn Reader,
        table: &str,
        (entity, index): (&EntitySpec, &VectorIndexSpec),
        settings: &VectorSearchSettings,
    ) -> Result<(), HandlerError> {
        let cap = settings.max_vectors_in_memory;
        let others: u64 = lock(&self.entries)
            .iter()
            .filter(|((table, column), _)| *table != entity.table || *column != index.column)
            .map(|(_, (_, vectors))| vectors.matrix.len() as u64)
            .sum();
        let count = conn
            .count(
                &format!(
                    "SELECT count(*) FROM {table} WHERE {} IS NOT NULL",
                    quote(&index.column)
                ),
                &[],
            )
            .await?;
        if others + count <= cap {
            return Ok(());
        }
        let pgvector = match conn.dialect() {
            SqlDialect::Postgres => {
                "install pgvector on the server and run `toolforge db init` so that PostgreSQL \
                 searches the vectors"
            }
            SqlDialect::Sqlite => {
                "move the data to PostgreSQL with pgvector (`toolforge db import --db \
                 postgres://...`) so that the database searches the vectors"
            }
        };
        let message = format!(
            "vector index `{}` of {} holds {count} vectors{}, more than this server keeps in \
             memory (toolforge.vector_search.max_vectors_in_memory: {cap}); raise the cap if \
             the machine has the memory (about {} bytes per vector), or {pgvector}",
            index.name,
            entity.name,
            if others > 0 {
                format!(" and other indexes hold {others}")
            } else {
                String::new()
            },
            u64::from(index.dimension) * 4 + 32,
        );
        Err(ToolError::new(ErrorCode::ExecutionFailed, message)
            .with_details(json!({
                "setting": "toolforge.vector_search.max_vectors_in_memory",
                "cap": cap,
                "index_vectors": count,
                "other_vectors": others,
            }))
            .into())
    }
}

use crate::sync::lock;

/// The version of `table` (0 before its first write).
async fn table_version(conn: &dyn Reader, table: &str) -> Result<i64, ExecError> {
    let rows = conn
        .rows(
            &format!(
                "SELECT \"version\" FROM {} WHERE \"name\" = ?1",
                quote(VERSIONS_TABLE)
            ),
            &[SqlValue::Text(table.to_owned())],
        )
        .await?;
    Ok(match rows.first().and_then(|row| row.first()) {
        Some(SqlValue::Integer(version)) => *version,
        _ => 0,
    })
}

/// Every stored vector of `index` (ordered by unique id); values of the wrong length are
/// skipped.
async fn load(
    conn: &dyn Reader,
    table: &str,
    entity: &EntitySpec,
    index: &VectorIndexSpec,
) -> Result<VectorMatrix, ExecError> {
    let rows = conn
        .rows(
            &format!(
                "SELECT {}, {} FROM {table} WHERE {} IS NOT NULL ORDER BY {}",
                quote(&entity.unique_field),
                quote(&index.column),
                quote(&index.column),
                quote(&entity.unique_field),
            ),
            &[],
        )
        .await?;
    let dimension = index.dimension as usize;
    let mut matrix = VectorMatrix::new(dimension, index.similarity);
    let mut vector = Vec::with_capacity(dimension);
    for row in rows {
        let mut row = row.into_iter();
        let (Some(id), Some(SqlValue::Blob(bytes))) =
            (row.next().and_then(SqlValue::into_key_text), row.next())
        else {
            continue;
        };
        if read_vector(&bytes, dimension, &mut vector) {
            matrix.push(id, &vector);
        }
    }
    Ok(matrix)
}

/// A stored vector (`dimension` little-endian `f32`s, as every backend reads a vector column
/// back) into `into`; false when the bytes hold another number of values.
pub(crate) fn read_vector(bytes: &[u8], dimension: usize, into: &mut Vec<f32>) -> bool {
    into.clear();
    if bytes.len() != dimension * 4 {
        return false;
    }
    into.extend(
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
    );
    true
}

/// `entity`'s table itself, schema-qualified, rather than a row rule's view of it: for an
/// entity over an existing table, its vectors table in the side store (which every read
/// connection sees under its own name).
async fn base_table(conn: &dyn Reader, entity: &EntitySpec) -> Result<String, ExecError> {
    if entity.has_side_vectors() {
        return Ok(quote(&crate::sql::mapping::vectors_table(entity)));
    }
    let schema = match conn.dialect() {
        SqlDialect::Sqlite => "main".to_owned(),
        SqlDialect::Postgres => {
            match conn
                .rows("SELECT CAST(current_schema() AS TEXT)", &[])
                .await?
                .into_iter()
                .next()
                .and_then(|row| row.into_iter().next())
            {
                Some(SqlValue::Text(schema)) => quote(&schema),
                _ => "\"public\"".to_owned(),
            }
        }
    };
    Ok(format!("{schema}.{}", quote(&entity.table)))
}

#[cfg(all(test, feature = "sqlite"))]
mod tests {
    use std::sync::{Arc, Barrier};

    use crate::spec::{SchemaSpec, VectorSearchSettings};

    use super::{VectorCache, table_version};

    const DIMENSION: usize = 64;

    fn spec() -> SchemaSpec {
        serde_json::from_value(serde_json::json!({
            "name": "notes",
            "entities": [{
                "name": "Note", "table": "note", "unique_field": "uuid",
                "fields": [{"name": "uuid", "type": "string", "unique": true}],
                "vector_indexes": [{"name": "embedding", "column": "embedding", "dimension": DIMENSION}]
            }],
            "relationships": [],
            "tools": {"default_limit": 10, "max_limit": 100, "families": []}
        }))
        .unwrap()
    }

    #[test]
    fn searches_that_find_the_same_new_version_share_one_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        {
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            // One transaction: 20,000 statements each committed on their own took a minute.
            let transaction = conn.transaction().unwrap();
            transaction
                .execute_batch(
                    "CREATE TABLE note (uuid TEXT, embedding BLOB); \
                     CREATE TABLE toolforge_versions (name TEXT PRIMARY KEY, version INTEGER); \
                     INSERT INTO toolforge_versions VALUES ('note', 3)",
                )
                .unwrap();
            {
                let mut insert = transaction
                    .prepare("INSERT INTO note VALUES (?1, ?2)")
                    .unwrap();
                for row in 0..20_000_u32 {
                    let vector: Vec<u8> = (0..DIMENSION)
                        .flat_map(|i| ((row as f32) + i as f32).to_le_bytes())
                        .collect();
                    insert
                        .execute(rusqlite::params![format!("n{row:05}"), vector])
                        .unwrap();
                }
            }
            transaction.commit().unwrap();
        }
        let spec = Arc::new(spec());
        let cache = Arc::new(VectorCache::default());
        let start = Arc::new(Barrier::new(4));
        let searches: Vec<_> = (0..4)
            .map(|_| {
                let (spec, cache, start, path) =
                    (spec.clone(), cache.clone(), start.clone(), path.clone());
                std::thread::spawn(move || {
                    let conn = std::sync::Mutex::new(rusqlite::Connection::open(&path).unwrap());
                    let entity = &spec.entities[0];
                    let version = pollster::block_on(table_version(&conn, &entity.table)).unwrap();
                    start.wait();
                    let loaded = pollster::block_on(cache.vectors(
                        &conn,
                        (entity, &entity.vector_indexes[0]),
                        version,
                        &VectorSearchSettings::default(),
                    ));
                    match loaded {
                        Ok(vectors) => vectors,
                        Err(_) => panic!("the vectors did not load"),
                    }
                })
            })
            .collect();
        let loaded: Vec<_> = searches.into_iter().map(|s| s.join().unwrap()).collect();
        assert_eq!(loaded[0].matrix.len(), 20_000);
        for other in &loaded[1..] {
            assert!(
                Arc::ptr_eq(&loaded[0], other),
                "each search read the vectors itself"
            );
        }
    }
}
