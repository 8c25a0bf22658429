//! `toolforge db refresh --config FILE --db DB`: brings the full-text indexes a config over
//! existing tables keeps in toolforge's side store up to date with the tables' rows. Only
//! records that are new or whose indexed text changed are indexed again; records gone from a
//! table leave its index. The user's tables are only read.

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
                    "nothing to refresh: {} has no full-text index over an existing table (an \
                     entity with both `table:` and `full_text_index`)",
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
/// store and brings every index up to date, saying what it did (`db init` and `db refresh`).
pub(crate) fn refresh(
    db: &Path,
    spec: &SchemaSpec,
    config: &Path,
    out: &mut Output<'_>,
) -> Result<(), LoadError> {
    dynamic::not_a_folder(db)?;
    let database_error = |error: &dyn std::fmt::Display| LoadError::Database {
        db: db.to_path_buf(),
        message: error.to_string(),
    };
    let database = if dynamic::is_server_url(db) {
        // Only the side store's schema is written.
        Database::open(db)
    } else if db.is_file() {
        Database::open_read_only(db)
    } else {
        return Err(LoadError::MissingDatabase {
            db: db.to_path_buf(),
            config: config.to_path_buf(),
        });
    }
    .map_err(|e| database_error(&e))?;
    dynamic::check_tables(&database, db, spec, config)?;
    let report = database
        .refresh_side_store(spec)
        .map_err(|e| database_error(&e))?;
    describe(&report, out);
    Ok(())
}

/// What a refresh did, one line per index.
fn describe(report: &RefreshReport, out: &mut Output<'_>) {
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
}
