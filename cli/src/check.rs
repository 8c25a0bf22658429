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
}

/// Runs `toolforge check`.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let compile = CompileOptions {
        strict: args.strict,
    };
    let options = GenerateOptions::cli_generate(&args.config, &args.out);
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
                match item {
                    Drift::Missing(path) => {
                        let _ = writeln!(out.stdout, "  missing  {}", path.display());
                    }
                    Drift::Changed { path, .. } => {
                        let _ = writeln!(out.stdout, "  changed  {}", path.display());
                    }
                }
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
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            EXIT_INVALID
        }
    }
}
