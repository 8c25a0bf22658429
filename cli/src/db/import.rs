//! `toolforge db import --config FILE --db DB DATA.jsonl`.
//!
//! Loads records (`{"entity": …, "data": {…}}`, upserted by the unique field) and
//! relationships (`{"relationship": …, "from": {…}, "to": {…}}`) in one transaction. On any
//! error nothing is committed, the error names the line and the field, and the exit code is 1.
//! A line longer than `--max-line-bytes` (default 32 MiB) is such an error.
//! `-` reads the lines from standard input.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use crate::dynamic;
use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge db import`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The database (made by `toolforge db init`): a SQLite file or a PostgreSQL URL
    /// (`postgres://user@host:port/name`).
    #[arg(long, value_name = "DB")]
    pub db: PathBuf,
    /// The JSON-lines file to load (`-` for standard input).
    #[arg(value_name = "DATA.jsonl")]
    pub data: PathBuf,
    /// The longest line accepted, in bytes (a longer line is an error naming it).
    #[arg(long, value_name = "BYTES", default_value_t = toolforge::sql::import::MAX_LINE_BYTES)]
    pub max_line_bytes: usize,
    /// Do not compute embeddings (records keep the vectors they have; `toolforge db embed`
    /// computes the missing ones later).
    #[arg(long)]
    pub no_embed: bool,
}

/// Runs the command.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    match import(args, out) {
        Ok(()) => EXIT_OK,
        Err(message) => {
            let _ = writeln!(out.stderr, "{message}");
            EXIT_INVALID
        }
    }
}

fn import(args: &Args, out: &mut Output<'_>) -> Result<(), String> {
    let compiled =
        dynamic::compile(&args.config, &Default::default()).map_err(|e| e.to_string())?;
    let _ = write!(out.stderr, "{}", compiled.warnings.render());
    let spec = &compiled.spec;
    if spec.is_mapped() {
        return Err(format!(
            "error: {} maps the existing tables of a database, which toolforge only reads: \
             `db import` writes only into toolforge's own tables\n  = hint: write the rows with \
             your own tools, or import into a database made from a config without `table:`",
            args.config.display()
        ));
    }
    // Checked on a read-only connection first: a database the import refuses (an empty file,
    // other tables) is left exactly as it was, with no journal files beside it.
    // (A server's database is checked on the writer itself: opening it writes nothing.)
    dynamic::not_a_folder(&args.db).map_err(|e| e.to_string())?;
    let probed = args.db.is_file();
    if probed {
        let probe = toolforge::sql::Database::open_read_only(&args.db).map_err(|e| {
            dynamic::LoadError::Database {
                db: args.db.clone(),
                message: e.to_string(),
            }
            .to_string()
        })?;
        dynamic::check_ready(&probe, &args.db, spec, &args.config).map_err(|e| e.to_string())?;
    }
    let mut db = super::open_writable(&args.db, &args.config, false).map_err(|e| e.to_string())?;
    if !probed {
        dynamic::check_ready(&db, &args.db, spec, &args.config).map_err(|e| e.to_string())?;
    }
    if !args.no_embed
        && let Some(embedder) = crate::embedding::for_spec(spec, &args.config)
    {
        db = db.with_embedder(crate::embedding::with_progress(embedder));
    }
    let data_name = args.data.display().to_string();
    let result = if args.data.as_os_str() == "-" {
        db.import_jsonl_with_max_line(spec, std::io::stdin().lock(), args.max_line_bytes)
    } else {
        let file = File::open(&args.data)
            .map_err(|e| format!("error: cannot read the data file {data_name}: {e}"))?;
        db.import_jsonl_with_max_line(spec, BufReader::new(file), args.max_line_bytes)
    };
    let stats = result.map_err(|error| format!("error: {data_name}: {error}"))?;
    // A key given again (in this file or an earlier import) updates its record: say how many
    // records are new, so that two lines of one key do not read as two records.
    let updates = stats.entities.saturating_sub(stats.new_records);
    let _ = writeln!(
        out.stdout,
        "imported {} {}{} and {} {} from {data_name} into {}",
        stats.entities,
        if stats.entities == 1 {
            "record"
        } else {
            "records"
        },
        if updates > 0 {
            format!(
                " ({} new, {updates} {} of a record already there)",
                stats.entities - updates,
                if updates == 1 { "update" } else { "updates" }
            )
        } else {
            String::new()
        },
        stats.relationships,
        if stats.relationships == 1 {
            "relationship"
        } else {
            "relationships"
        },
        args.db.display()
    );
    super::embed::report(&stats.embeddings, out);
    Ok(())
}
