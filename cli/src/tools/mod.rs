//! `toolforge tools list`: the tools a config produces.

pub mod list;

/// The `tools` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ToolsCommand {
    /// Print the tool definitions as JSON for a provider (no database needed).
    List(list::Args),
}

/// Runs a `tools` subcommand.
pub fn run(command: &ToolsCommand, out: &mut super::Output<'_>) -> i32 {
    match command {
        ToolsCommand::List(args) => list::run(args, out),
    }
}
