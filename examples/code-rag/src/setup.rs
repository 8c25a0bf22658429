//! From a source tree to a ready registry: ingest, recreate the database, load, build tools.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolforge::ToolRegistry;
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
    /// Time spent creating and loading the database.
    pub load_time: Duration,
}

/// Reads the Rust tree at `src`, recreates the SQLite file `db_path` (and its parent
/// directory) with the generated schema, loads the records with the typed upserts and links, and builds the registry.
pub fn prepare(src: &Path, db_path: &Path) -> Result<Prepared, Error> {
    let started = Instant::now();
    let codebase = ingest(src).map_err(|e| format!("cannot read the source tree: {e}"))?;
    let parse_time = started.elapsed();

    let started = Instant::now();
    recreate(db_path)?;
    let db = Database::open(db_path)
        .map_err(|e| format!("cannot open the database {}: {e}", db_path.display()))?;
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
    })
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
