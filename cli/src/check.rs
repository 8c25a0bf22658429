//! `toolforge check --config FILE --out DIR`: exit 0 when the client folder is what `generate`
//! would write, 1 with a summary and unified diffs when it is stale (or the config is invalid).

use std::path::PathBuf;

use toolforge_generator::__private::check_generated_folder;
use toolforge_generator::__private::codegen::GenerateOptions;
use toolforge_generator::__private::output::Drift;
use toolforge_generator::CompileOptions;

use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The client folder `generate` wrote.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: PathBuf,
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

/// Runs `toolforge check`.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let compile =
        crate::families::with_tools(CompileOptions::default().strict(args.strict), &args.tools);
    let mut options = GenerateOptions::cli_generate(&args.config, &args.out);
    if let Some(path) = &args.crate_path {
        options = options.with_cli_crate_path(path);
    }
    match check_generated_folder(&args.config, &args.out, &compile, &options) {
        Ok(drift) if drift.is_empty() => {
            let _ = writeln!(out.stdout, "{} is up to date", args.out.display());
            EXIT_OK
        }
        Ok(drift) => {
            let _ = writeln!(
                out.stdout,
                "{} is stale: {} file(s) differ from what {} generates",
                args.out.display(),
                drift.len(),
                args.config.display()
            );
            for item in &drift {
                let what = if matches!(item, Drift::Missing(_)) {
                    "missing"
                } else {
                    "changed"
                };
                let _ = writeln!(out.stdout, "  {what}  {}", item.path().display());
            }
            for item in &drift {
                if let Drift::Changed { diff, .. } = item {
                    let _ = write!(out.stdout, "\n{diff}");
                }
            }
            let _ = writeln!(
                out.stdout,
                "\nrun: toolforge generate --config {} --out {}",
                args.config.display(),
                args.out.display()
            );
            EXIT_INVALID
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
