#![doc = include_str!("../README.md")]
//!
//! ## The library
//!
//! The same commands are a library: [`run`] takes the arguments and writes to an [`Output`],
//! and the [`dynamic`] module builds the live tools of a config (validated, compiled, its
//! database opened and checked) for the `db`, `tools`, `call` and `serve` commands.
//!
//! This crate links the SQLite engine; `toolforge-generator`, which build scripts and the
//! config macro depend on, does not.
//!
//! Adding a subcommand: write `src/<name>.rs` with an `Args` struct (clap derive) and a
//! `run(args, &mut Output) -> ExitCode`-style function, then add a variant to [`Command`] and
//! an arm to [`run`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Live tools straight from a config over SQLite: what `db`, `tools` and `call` run on.
pub mod dynamic;
// The embedder a config names, for imports and semantic search.
pub mod embedding;

// `--tools FAMILY,...`, shared by the commands that compile a config.
pub mod families;

// `--defer-tools` / `--defer`: the core tools shown up front.
pub mod defer;

// `--token-env VAR`: a bearer token from the environment.
pub mod token_env;

// `serve --http` with `toolforge.auth`: OAuth access tokens, scopes, claims.
pub mod oauth;

// `serve`'s logs, traces and metrics.
pub mod telemetry;

// One module per subcommand.
pub mod check;
pub mod generate;
pub mod init;
pub mod schema;
pub mod validate;

// Databases and live tools straight from a config.
pub mod call;
pub mod catalog;
pub mod db;
pub mod model;
pub mod serve;
pub mod tools;

use std::io::Write;

use clap::{Parser, Subcommand};

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: the config (or another input) is invalid.
pub const EXIT_INVALID: i32 = 1;
/// Exit code: the command line itself is wrong (clap's code for usage errors).
pub const EXIT_USAGE: i32 = 2;

/// Turn ragforge configs into LLM tools.
#[derive(Debug, Parser)]
#[command(name = "toolforge", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a config and report every problem with file, line and column.
    Validate(validate::Args),
    /// Print the JSON Schema (draft 2020-12) of the config format or its reference in
    /// Markdown, or a config's entity–relationship diagram (Mermaid, DOT, SVG).
    Schema(schema::Args),
    /// Create a database from a config, or load data into it.
    #[command(subcommand)]
    Db(db::DbCommand),
    /// List the tools a config produces.
    #[command(subcommand)]
    Tools(tools::ToolsCommand),
    /// Run one tool over a database and print its result as JSON.
    Call(call::Args),
    /// Serve the tools over MCP (stdio, or Streamable HTTP with --http).
    Serve(Box<serve::Args>),
    /// Index tools from many sources into a searchable catalog, and search it.
    #[command(subcommand)]
    Catalog(catalog::CatalogCommand),
    /// Fetch the local embedding model.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// Write a client folder (mod.rs, schema.sql, custom_tools.rs once) from a config.
    Generate(generate::Args),
    /// Exit 1 with a summary and diffs when a generated client folder is stale.
    Check(check::Args),
    /// Scaffold a config and its client folder, or write the config of an existing database
    /// (`--from-db`).
    Init(init::Args),
}

/// Where a command writes.
pub struct Output<'a> {
    /// Results.
    pub stdout: &'a mut dyn Write,
    /// Diagnostics and progress.
    pub stderr: &'a mut dyn Write,
}

/// Parses `args` (including the program name) and runs the command; returns the exit code.
/// Usage errors exit with 2, `--help` / `--version` with 0.
pub fn run_with<I, T>(args: I, out: &mut Output<'_>) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match Cli::try_parse_from(args) {
        Ok(cli) => run(cli, out),
        Err(error) => {
            let text = error.render().to_string();
            let stream: &mut dyn Write = if error.use_stderr() {
                &mut *out.stderr
            } else {
                &mut *out.stdout
            };
            let _ = write!(stream, "{text}");
            error.exit_code()
        }
    }
}

/// Runs a parsed command line; returns the exit code.
pub fn run(cli: Cli, out: &mut Output<'_>) -> i32 {
    match cli.command {
        Command::Validate(args) => validate::run(&args, out),
        Command::Schema(args) => schema::run(&args, out),
        Command::Db(command) => db::run(&command, out),
        Command::Tools(command) => tools::run(&command, out),
        Command::Call(args) => call::run(&args, out),
        Command::Serve(args) => serve::run(&args, out),
        Command::Catalog(command) => catalog::run(&command, out),
        Command::Model(command) => model::run(&command, out),
        Command::Generate(args) => generate::run(&args, out),
        Command::Check(args) => check::run(&args, out),
        Command::Init(args) => init::run(&args, out),
    }
}
