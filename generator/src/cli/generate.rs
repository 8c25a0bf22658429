//! `toolforge generate --config FILE --out DIR [--force]`.
//!
//! Writes the client folder (`mod.rs`, `schema.sql`, and `custom_tools.rs` once), overwriting
//! only files that carry the generated header (others are refused unless `--force`), writing
//! atomically and printing what changed. Exit 0 on success, 1 on a config or write error
//! (nothing is written then).

use std::path::PathBuf;

use super::{EXIT_INVALID, EXIT_OK, Output};
use crate::CompileOptions;
use crate::builder::generate_folder;
use crate::codegen::GenerateOptions;

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
}

/// Runs `toolforge generate`.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let compile = CompileOptions {
        strict: args.strict,
    };
    let options = GenerateOptions::cli_generate(&args.config, &args.out);
    match generate_folder(&args.config, &args.out, &compile, &options, args.force) {
        Ok((report, warnings)) => {
            if !warnings.is_empty() {
                let _ = write!(out.stderr, "{}", warnings.render());
            }
            for (path, action) in &report.files {
                let _ = writeln!(
                    out.stdout,
                    "{:>9}  {}",
                    action.to_string(),
                    args.out.join(path).display()
                );
            }
            let _ = writeln!(
                out.stdout,
                "{}",
                if report.changed() {
                    "generated"
                } else {
                    "up to date: nothing rewritten"
                }
            );
            EXIT_OK
        }
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            EXIT_INVALID
        }
    }
}
