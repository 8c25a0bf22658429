//! `toolforge db embed --config FILE --db DB [--force]`: computes the embeddings missing from
//! the vector indexes (records whose source text has no vector yet, or changed since), with the
//! provider the config names, in one transaction: a provider failure changes nothing.

use std::path::PathBuf;

use toolforge::sql::EmbedStats;

use crate::dynamic;
use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge db embed`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The database: a SQLite file or a PostgreSQL URL.
    #[arg(long, value_name = "DB")]
    pub db: PathBuf,
    /// Recompute every embedding, even those up to date (after changing models).
    #[arg(long)]
    pub force: bool,
}

/// Runs the command.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    match embed(args, out) {
        Ok(()) => EXIT_OK,
        Err(message) => {
            let _ = writeln!(out.stderr, "{message}");
            EXIT_INVALID
        }
    }
}

fn embed(args: &Args, out: &mut Output<'_>) -> Result<(), String> {
    let compiled =
        dynamic::compile(&args.config, &Default::default()).map_err(|e| e.to_string())?;
    let _ = write!(out.stderr, "{}", compiled.warnings.render());
    let spec = &compiled.spec;
    if spec.entities.iter().all(|e| e.vector_indexes.is_empty()) {
        return Err(format!(
            "error: {} declares no vector index; add `vector_indexes` to an entity (or an `embeddings` pipeline)",
            args.config.display()
        ));
    }
    let Some(embedder) = crate::embedding::for_spec(spec, &args.config) else {
        return Err(format!(
            "error: {} names no embedding provider; set `toolforge.embeddings.provider` (local, openai, ollama, openai-compatible or gemini)",
            args.config.display()
        ));
    };
    let db = if spec.is_mapped() {
        // Over existing tables: the vectors are kept in the side store, the tables only read.
        let db = super::refresh::open_mapped(&args.db, &args.config).map_err(|e| e.to_string())?;
        dynamic::check_tables(&db, &args.db, spec, &args.config).map_err(|e| e.to_string())?;
        db
    } else {
        let db = super::open_writable(&args.db, &args.config, false).map_err(|e| e.to_string())?;
        dynamic::check_ready(&db, &args.db, spec, &args.config).map_err(|e| e.to_string())?;
        db
    };
    let db = db.with_embedder(crate::embedding::with_progress(embedder));
    let stats = db
        .embed(spec, args.force)
        .map_err(|error| format!("error: {error}"))?;
    report(&stats, out);
    Ok(())
}

/// Says what an embedding pass did (nothing when it had nothing to do).
pub(crate) fn report(stats: &EmbedStats, out: &mut Output<'_>) {
    if stats.embedded > 0 || stats.unchanged > 0 || stats.cleared > 0 {
        let _ = writeln!(
            out.stdout,
            "embeddings: {} computed, {} already up to date{}",
            stats.embedded,
            stats.unchanged,
            if stats.cleared > 0 {
                format!(", {} removed", stats.cleared)
            } else {
                String::new()
            }
        );
    }
    if stats.missing > 0 {
        let _ = writeln!(
            out.stderr,
            "note: {} {} no embedding yet; run `toolforge db embed` once an embedding provider is set",
            stats.missing,
            if stats.missing == 1 {
                "record has"
            } else {
                "records have"
            }
        );
    }
}
