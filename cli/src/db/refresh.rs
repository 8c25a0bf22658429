//! `toolforge db refresh --config FILE --db DB`: brings the full-text indexes, the vectors and
//! the change log a config over existing tables keeps in toolforge's side store up to date
//! with the tables' rows. Only records that are new or whose indexed text changed are
//! indexed (or embedded) again; records gone from a table leave its index; each record
//! created, updated or deleted since the last refresh gets one change in the log. The user's
//! tables are only read.

use std::path::{Path, PathBuf};

use toolforge::spec::SchemaSpec;
use toolforge::sql::{Database, RefreshReport};

use crate::dynamic::{self, LoadError};
use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge db refresh`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The database whose tables the config reads: a SQLite file or a PostgreSQL URL.
    #[arg(long, value_name = "DB")]
    pub db: PathBuf,
}

/// Runs the command.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let refreshed = dynamic::compile(&args.config, &Default::default()).and_then(|compiled| {
        let _ = write!(out.stderr, "{}", compiled.warnings.render());
        if compiled.spec.side_entities().next().is_none() {
            return Err(LoadError::Database {
                db: args.db.clone(),
                message: format!(
                    "nothing to refresh: {} keeps nothing beside the existing tables (an entity \
                     with `table:` and `full_text_index`, `vector_indexes` or change tracking)",
                    args.config.display()
                ),
            });
        }
        refresh(&args.db, &compiled.spec, &args.config, out)
    });
    match refreshed {
        Ok(()) => EXIT_OK,
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            EXIT_INVALID
        }
    }
}

/// Checks the mapped tables of `spec` in `db`, then creates what is missing of its side
/// store and brings every index up to date, saying what it did (`db init` and `db refresh`):
/// the full-text indexes, then the vectors, with the config's embedding provider (without
/// one, a note says how many records have none).
pub(crate) fn refresh(
    db: &Path,
    spec: &SchemaSpec,
    config: &Path,
    out: &mut Output<'_>,
) -> Result<(), LoadError> {
    let database = open_mapped(db, config)?;
    dynamic::check_tables(&database, db, spec, config)?;
    let database_error = |error: &dyn std::fmt::Display| LoadError::SideStore {
        db: db.to_path_buf(),
        message: error.to_string(),
    };
    let report = database
        .refresh_side_store(spec)
        .map_err(|e| database_error(&e))?;
    describe(&report, out);
    if spec.entities.iter().any(|e| e.has_side_vectors()) {
        match crate::embedding::for_spec(spec, config) {
            Some(embedder) => {
                let stats = database
                    .with_embedder(crate::embedding::with_progress(embedder))
                    .embed(spec, false)
                    .map_err(|e| database_error(&e))?;
                super::embed::report(&stats, out);
            }
            None => {
                let _ = writeln!(
                    out.stderr,
                    "note: no embedding provider in {}: the vector indexes stay empty until \
                     `toolforge.embeddings` names one and `toolforge db embed` runs",
                    config.display()
                );
            }
        }
    }
    Ok(())
}

/// Opens the database a mapped config reads, for writing its side store only: a SQLite file
/// read-only (the side file is opened apart), a PostgreSQL server as it is (only the side
/// store's schema is written).
pub(crate) fn open_mapped(db: &Path, config: &Path) -> Result<Database, LoadError> {
    dynamic::not_a_folder(db)?;
    if dynamic::is_server_url(db) {
        Database::open(db)
    } else if db.is_file() {
        Database::open_read_only(db)
    } else {
        return Err(LoadError::MissingDatabase {
            db: db.to_path_buf(),
            config: config.to_path_buf(),
        });
    }
    .map_err(|error| LoadError::Database {
        db: db.to_path_buf(),
        message: error.to_string(),
    })
}

/// What a refresh did, one line per index.
fn describe(report: &RefreshReport, out: &mut Output<'_>) {
    for entity in &report.vectors_created {
        let _ = writeln!(
            out.stdout,
            "vectors of {entity}: table created in {}",
            report.place
        );
    }
    for entity in &report.entities {
        let _ = writeln!(
            out.stdout,
            "full-text index of {} {}in {}: {} added, {} updated, {} removed, {} unchanged",
            entity.entity,
            if entity.created { "created " } else { "" },
            report.place,
            entity.added,
            entity.updated,
            entity.removed,
            entity.unchanged
        );
    }
    for changes in &report.changes {
        if changes.baseline {
            let _ = writeln!(
                out.stdout,
                "changes of {}: baseline of {} records taken in {}; the next refresh records \
                 what changed since",
                changes.entity, changes.unchanged, report.place
            );
        } else {
            let _ = writeln!(
                out.stdout,
                "changes of {}: {} created, {} updated, {} deleted, {} unchanged",
                changes.entity,
                changes.created,
                changes.updated,
                changes.deleted,
                changes.unchanged
            );
        }
    }
}
