//! `toolforge db init --config FILE --db DB`.
//!
//! Creates the tables and indexes the config needs. Run again, it changes nothing and says
//! so. For a config over existing tables it creates only the full-text indexes kept in
//! toolforge's side store, and fills them. If the database holds a table or index the config defines differently, it lists every
//! difference, changes nothing and exits 1.

use std::path::PathBuf;

use toolforge::sql::DbError;

use crate::dynamic::{self, LoadError};
use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge db init`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The database: a SQLite file (created if missing) or a PostgreSQL URL
    /// (`postgres://user@host:port/name`).
    #[arg(long, value_name = "DB")]
    pub db: PathBuf,
}

/// Runs the command.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    match init(args, out) {
        Ok(()) => EXIT_OK,
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            EXIT_INVALID
        }
    }
}

fn init(args: &Args, out: &mut Output<'_>) -> Result<(), LoadError> {
    let compiled = dynamic::compile(&args.config, &Default::default())?;
    let _ = write!(out.stderr, "{}", compiled.warnings.render());
    if compiled.spec.side_entities().next().is_some() {
        // The user's tables are read as they are; their full-text indexes are kept apart.
        return super::refresh::refresh(&args.db, &compiled.spec, &args.config, out);
    }
    if compiled.spec.is_mapped() {
        // The user's tables are read as they are: checked, never written.
        dynamic::open_ready(&args.db, &compiled.spec, &args.config)?;
        let _ = writeln!(
            out.stdout,
            "nothing to create: {} reads the existing tables of {} as they are, and they \
             have every table and column it maps",
            args.config.display(),
            args.db.display()
        );
        return Ok(());
    }
    let db = super::open_writable(&args.db, &args.config, true)?;
    let report = db.init(&compiled.spec).map_err(|error| match error {
        DbError::SchemaMismatch(differences) => LoadError::SchemaMismatch {
            db: args.db.clone(),
            config: args.config.clone(),
            differences,
        },
        other => LoadError::Database {
            db: args.db.clone(),
            message: other.to_string(),
        },
    })?;
    let db_name = args.db.display();
    for conversion in &report.converted {
        let _ = writeln!(out.stdout, "converted {conversion}");
    }
    let _ = if report.created.is_empty() {
        writeln!(
            out.stdout,
            "nothing to do: {db_name} already has all {} tables and indexes of {}",
            report.unchanged.len(),
            args.config.display()
        )
    } else {
        writeln!(
            out.stdout,
            "created {} of {} tables and indexes in {db_name}: {}",
            report.created.len(),
            report.created.len() + report.unchanged.len(),
            report.created.join(", ")
        )
    };
    Ok(())
}
