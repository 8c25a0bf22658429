//! `toolforge schema`: print the JSON Schema of the config format.

use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge schema`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Prints the schema (pretty JSON) on stdout.
pub fn run(_args: &Args, out: &mut Output<'_>) -> i32 {
    let schema = toolforge_generator::__private::config::json_schema();
    let text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    match writeln!(out.stdout, "{text}") {
        Ok(()) => EXIT_OK,
        Err(_) => EXIT_INVALID,
    }
}
