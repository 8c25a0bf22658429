//! `toolforge validate --config FILE [--db DATABASE] [--strict] [--format text|json]`.
//!
//! Exit 0 when the config is valid (warnings on stderr, a summary on stdout), 1 when it is
//! not (every problem on stderr, or the JSON report on stdout with `--format json`). With
//! `--db`, a config that maps existing tables is also compared with that database, read only:
//! a mapped table or column that is gone or retyped is an error at its line, what the database
//! has that the config does not map yet a note.

use std::path::PathBuf;

use serde_json::json;
use toolforge_generator::{CompileOptions, Compiled, Diagnostics, compile_file};

use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// Also compare the tables the config maps (`table:`) with this database, read only: a
    /// SQLite file or a `postgres://` URL.
    #[arg(long, value_name = "DATABASE")]
    pub db: Option<String>,
    /// Treat warnings as errors (notes stay notes).
    #[arg(long)]
    pub strict: bool,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Code frames with carets, for people.
    Text,
    /// One JSON object: `valid`, `summary`, `diagnostics` (severity, message, file, line,
    /// column, path, hint).
    Json,
}

/// What a valid config contains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Number of entities.
    pub entities: usize,
    /// Number of stored fields (including added unique fields).
    pub fields: usize,
    /// Number of edge tables.
    pub relationships: usize,
    /// Number of compiled computed fields.
    pub computed_fields: usize,
    /// Number of vector indexes.
    pub vector_indexes: usize,
}

impl Summary {
    /// Counts what `compiled` holds.
    pub fn of(compiled: &Compiled) -> Summary {
        let spec = &compiled.spec;
        Summary {
            entities: spec.entities.len(),
            fields: spec.entities.iter().map(|e| e.fields.len()).sum(),
            relationships: spec.relationships.len(),
            computed_fields: spec.entities.iter().map(|e| e.computed_fields.len()).sum(),
            vector_indexes: spec.entities.iter().map(|e| e.vector_indexes.len()).sum(),
        }
    }
}

/// `, 2 notes` (nothing without notes, which only `--db` finds).
fn notes(diagnostics: &Diagnostics) -> String {
    match diagnostics.note_count() {
        0 => String::new(),
        n => format!(", {}", plural(n, "note")),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Runs the command.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let mut options =
        crate::dynamic::with_sqlite_check(CompileOptions::default().strict(args.strict));
    if let Some(db) = &args.db {
        options = crate::dynamic::with_database_check(options, db);
    }
    let file = args.config.display().to_string();
    let result = compile_file(&args.config, &options);
    let written = match (&result, args.format) {
        (Ok(compiled), Format::Text) => {
            let summary = Summary::of(compiled);
            let names: Vec<&str> = compiled
                .spec
                .entities
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            let warnings = &compiled.warnings;
            write!(out.stderr, "{}", warnings.render()).and_then(|()| {
                let notes = notes(warnings);
                writeln!(
                    out.stdout,
                    "ok: {file} is valid: {} ({}), {}, {}, {}, {}; {}{notes}",
                    plural(summary.entities, "entity").replace("entitys", "entities"),
                    names.join(", "),
                    plural(summary.fields, "field"),
                    plural(summary.relationships, "relationship"),
                    plural(summary.computed_fields, "computed field"),
                    plural(summary.vector_indexes, "vector index").replace("indexs", "indexes"),
                    plural(warnings.warning_count(), "warning"),
                )
            })
        }
        (Err(diagnostics), Format::Text) => write!(out.stderr, "{}", diagnostics.render())
            .and_then(|()| {
                writeln!(
                    out.stderr,
                    "error: {file} is invalid: {}, {}{}",
                    plural(diagnostics.error_count(), "error"),
                    plural(diagnostics.warning_count(), "warning"),
                    notes(diagnostics)
                )
            }),
        (Ok(compiled), Format::Json) => {
            json_report(out, true, Some(Summary::of(compiled)), &compiled.warnings)
        }
        (Err(diagnostics), Format::Json) => json_report(out, false, None, diagnostics),
    };
    match (written, result.is_ok()) {
        (Ok(()), true) => EXIT_OK,
        _ => EXIT_INVALID,
    }
}

fn json_report(
    out: &mut Output<'_>,
    valid: bool,
    summary: Option<Summary>,
    diagnostics: &Diagnostics,
) -> std::io::Result<()> {
    let report = json!({
        "valid": valid,
        "summary": summary,
        "diagnostics": diagnostics.to_json(),
    });
    writeln!(
        out.stdout,
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    )
}
