//! `toolforge generate --config FILE --out DIR [--force]`.
//!
//! Writes the client folder (`mod.rs`, `schema.sql`, and `custom_tools.rs` once), overwriting
//! only files that carry the generated header (others are refused unless `--force`), writing
//! atomically and printing what changed. Exit 0 on success, 1 on a config or write error
//! (nothing is written then).

use std::path::PathBuf;

use toolforge_generator::__private::codegen::GenerateOptions;
use toolforge_generator::__private::generate_folder;
use toolforge_generator::__private::output::FileAction;
use toolforge_generator::CompileOptions;

use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge generate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The client folder to write (a Rust module folder, e.g. `src/tools`).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: PathBuf,
    /// Overwrite files at generated paths even when they lack the generated header.
    #[arg(long)]
    pub force: bool,
    /// Treat config warnings as errors.
    #[arg(long)]
    pub strict: bool,
    /// How the crate names the runtime when it renames or re-exports the `toolforge`
    /// dependency (e.g. `::tf` or `crate::deps::toolforge`; default `::toolforge`).
    #[arg(long, value_name = "PATH")]
    pub crate_path: Option<String>,
    /// The tool families to build, comma-separated, replacing the config's `toolforge.tools`
    /// (schema, query, lookup, relationships, ranges, patterns, aggregates, graph).
    #[arg(long, value_name = "FAMILIES", value_delimiter = ',', value_parser = crate::families::parse_family)]
    pub tools: Option<Vec<toolforge::spec::ToolFamily>>,
}

/// Runs `toolforge generate`.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let compile = crate::dynamic::with_sqlite_check(crate::families::with_tools(
        CompileOptions::default().strict(args.strict),
        &args.tools,
    ));
    let mut options = GenerateOptions::cli_generate(&args.config, &args.out);
    if let Some(path) = &args.crate_path {
        options = options.with_cli_crate_path(path);
    }
    match generate_folder(&args.config, &args.out, &compile, &options, args.force) {
        Ok((report, warnings)) => {
            if !warnings.is_empty() {
                let _ = write!(out.stderr, "{}", warnings.render());
            }
            let actions: Vec<String> = report.files.iter().map(|(_, a)| a.to_string()).collect();
            let width = actions.iter().map(String::len).max().unwrap_or(0);
            for ((path, _), action) in report.files.iter().zip(&actions) {
                let _ = writeln!(
                    out.stdout,
                    "{action:>width$}  {}",
                    args.out.join(path).display()
                );
            }
            let changed = report
                .files
                .iter()
                .filter(|(_, action)| matches!(action, FileAction::Created | FileAction::Updated))
                .count();
            let _ = if changed == 0 {
                writeln!(out.stdout, "up to date: nothing rewritten")
            } else {
                writeln!(
                    out.stdout,
                    "{changed} file(s) written to {}",
                    args.out.display()
                )
            };
            EXIT_OK
        }
        Err(toolforge_generator::GenerateError::Config(diagnostics)) => {
            let _ = writeln!(out.stderr, "{}", diagnostics.render());
            EXIT_INVALID
        }
        Err(error) => {
            let _ = write!(out.stderr, "error: {error}");
            let mut cause = std::error::Error::source(&error);
            while let Some(inner) = cause {
                let _ = write!(out.stderr, ": {inner}");
                cause = inner.source();
            }
            let _ = writeln!(out.stderr);
            EXIT_INVALID
        }
    }
}
