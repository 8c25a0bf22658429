//! `toolforge tools list --config FILE [--format mcp|openai|openai-responses|anthropic|gemini]`.
//!
//! Prints a JSON array of the definitions the live tools of `toolforge call` have, in the
//! provider's format; needs no database.

use std::path::PathBuf;

use toolforge::dialect::{Dialect, export};

use crate::dynamic;
use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge tools list`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The provider format of the definitions.
    #[arg(long, value_enum, default_value_t = Format::Mcp)]
    pub format: Format,
}

/// A provider format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// MCP `tools/list` entries (`name`, `title`, `description`, `inputSchema`, `annotations`).
    Mcp,
    /// OpenAI Chat Completions `tools` entries (strict where the schema allows).
    Openai,
    /// OpenAI Responses API `tools` entries.
    OpenaiResponses,
    /// Anthropic Messages API `tools` entries.
    Anthropic,
    /// Gemini (google-genai) function declarations (`name`, `description`, `parameters`).
    Gemini,
}

impl Format {
    /// The runtime dialect.
    pub fn dialect(self) -> Dialect {
        match self {
            Format::Mcp => Dialect::Mcp,
            Format::Openai => Dialect::OpenAiChat,
            Format::OpenaiResponses => Dialect::OpenAiResponses,
            Format::Anthropic => Dialect::Anthropic,
            Format::Gemini => Dialect::Gemini,
        }
    }
}

/// Runs the command.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let definitions = match dynamic::definitions(&args.config, &Default::default()) {
        Ok(definitions) => definitions,
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            return EXIT_INVALID;
        }
    };
    let exported: Vec<_> = definitions
        .iter()
        .map(|definition| export(definition, args.format.dialect()))
        .collect();
    match serde_json::to_string_pretty(&exported) {
        Ok(text) if writeln!(out.stdout, "{text}").is_ok() => EXIT_OK,
        _ => EXIT_INVALID,
    }
}
