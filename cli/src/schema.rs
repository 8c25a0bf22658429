//! `toolforge schema`: print the JSON Schema of the config format (or, `--format markdown`,
//! its reference page: every key with its type, default and description), or, with `--config
//! FILE`, the entity–relationship diagram of a config (`--format mermaid|dot|svg`).

use std::path::PathBuf;

use toolforge_generator::__private::diagram::{self, Diagram};

use crate::{EXIT_INVALID, EXIT_OK, EXIT_USAGE, Output};

/// Arguments of `toolforge schema`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A config whose entity–relationship diagram to print (with `--format mermaid`, `dot` or
    /// `svg`; mermaid when no format is given).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// What to print: the config format's JSON Schema (the default without `--config`) or its
    /// reference page in Markdown, or a config's diagram as Mermaid (for Markdown), Graphviz
    /// DOT or SVG.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
}

/// What `toolforge schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The JSON Schema (draft 2020-12) of the config format.
    JsonSchema,
    /// The config format's reference in Markdown: a section per object of the schema, each
    /// key with its type, default and description, and YAML examples.
    Markdown,
    /// A config's diagram as a Mermaid `erDiagram`.
    Mermaid,
    /// A config's diagram in Graphviz's DOT language.
    Dot,
    /// A config's diagram as an SVG image, laid out without Graphviz.
    Svg,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::JsonSchema => "json-schema",
            Format::Markdown => "markdown",
            Format::Mermaid => "mermaid",
            Format::Dot => "dot",
            Format::Svg => "svg",
        }
    }
}

/// Prints the schema (pretty JSON) or the diagram on stdout.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let format = args.format.unwrap_or(if args.config.is_some() {
        Format::Mermaid
    } else {
        Format::JsonSchema
    });
    let text = match (format, &args.config) {
        (Format::JsonSchema, None) => {
            let schema = toolforge_generator::__private::config::json_schema();
            let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
            text.push('\n');
            text
        }
        (Format::Markdown, None) => {
            let schema = toolforge_generator::__private::config::json_schema();
            toolforge_generator::__private::config::config_reference(&schema)
        }
        (format @ (Format::JsonSchema | Format::Markdown), Some(config)) => {
            let what = match format {
                Format::Markdown => "the reference of the config format itself",
                _ => "the schema of the config format itself",
            };
            let _ = writeln!(
                out.stderr,
                "--format {} prints {what}, the same for every config: drop --config {}, or \
                 draw the config with --format mermaid, dot or svg (its tools in Markdown: \
                 toolforge tools list --config {} --format markdown)",
                format.name(),
                config.display(),
                config.display()
            );
            return EXIT_USAGE;
        }
        (format, None) => {
            let _ = writeln!(
                out.stderr,
                "--format {} draws a config's entities and relationships: name the config with \
                 --config FILE (ragforge.config.yaml)",
                format.name()
            );
            return EXIT_USAGE;
        }
        (format, Some(config)) => {
            let compiled = match crate::dynamic::compile(config, &Default::default()) {
                Ok(compiled) => compiled,
                Err(error) => {
                    let _ = writeln!(out.stderr, "{error}");
                    return EXIT_INVALID;
                }
            };
            if !compiled.warnings.is_empty() {
                let _ = write!(out.stderr, "{}", compiled.warnings.render());
            }
            let drawn = Diagram::from_spec(&compiled.spec);
            match format {
                Format::Mermaid => diagram::to_mermaid(&drawn),
                Format::Dot => diagram::to_dot(&drawn),
                // json-schema and markdown were answered above
                Format::Svg | Format::JsonSchema | Format::Markdown => diagram::to_svg(&drawn),
            }
        }
    };
    match write!(out.stdout, "{text}") {
        Ok(()) => EXIT_OK,
        Err(_) => EXIT_INVALID,
    }
}
