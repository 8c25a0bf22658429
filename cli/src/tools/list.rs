//! `toolforge tools list --config FILE [--format mcp|openai|openai-responses|anthropic|gemini|summary]`.
//!
//! Prints a JSON array of the definitions the live tools of `toolforge call` have, in the
//! provider's format, or (`summary`) what was generated: entity, tool, searchable-field and
//! computed-field counts, the tools of each family and the fields of each entity. Needs no
//! database. `--defer [--core TOOLS]` exports for the provider's deferred loading (Anthropic's
//! tool search tool, OpenAI Responses' `tool_search`): the core tools up front, the others
//! marked `"defer_loading": true`.

use std::path::PathBuf;

use serde_json::{Value, json};
use toolforge::ToolDefinition;
use toolforge::spec::SchemaSpec;

use toolforge::dialect::{Dialect, export_all, export_deferred};

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
    /// The tool families to build, comma-separated, replacing the config's `toolforge.tools`
    /// (schema, query, lookup, relationships, ranges, patterns, aggregates, graph).
    #[arg(long, value_name = "FAMILIES", value_delimiter = ',', value_parser = crate::families::parse_family)]
    pub tools: Option<Vec<toolforge::spec::ToolFamily>>,
    /// Deferred loading (`anthropic`, `openai-responses`): the provider's tool search tool
    /// first, the core tools (`--core`) as usual and every other tool with
    /// `"defer_loading": true`.
    #[arg(long)]
    pub defer: bool,
    /// With `--defer`: the tools loaded up front, comma-separated (default: `get_schema` and
    /// `describe_entity`).
    #[arg(long, value_name = "TOOLS", value_delimiter = ',', requires = "defer")]
    pub core: Option<Vec<String>>,
    /// `mcp`: each tool's `outputSchema` too, as `serve --output-schemas` lists them (for
    /// clients that validate results or generate types; a model is not shown them).
    #[arg(long)]
    pub output_schemas: bool,
}

/// A provider format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// MCP `tools/list` entries (`name`, `title`, `description`, `inputSchema`, `annotations`;
    /// `outputSchema` with `--output-schemas`), as `serve` lists them.
    Mcp,
    /// OpenAI Chat Completions `tools` entries (strict where the schema allows).
    Openai,
    /// OpenAI Responses API `tools` entries.
    OpenaiResponses,
    /// Anthropic Messages API `tools` entries.
    Anthropic,
    /// Gemini (google-genai) function declarations (`name`, `description`, `parameters`).
    Gemini,
    /// What was generated: `entity_count`, `tool_count`, `searchable_fields_count`,
    /// `computed_fields_count`, the tools of each family and each entity's fields.
    Summary,
}

impl Format {
    /// The runtime dialect (`None` for the summary).
    pub fn dialect(self) -> Option<Dialect> {
        match self {
            Format::Mcp => Some(Dialect::Mcp),
            Format::Openai => Some(Dialect::OpenAiChat),
            Format::OpenaiResponses => Some(Dialect::OpenAiResponses),
            Format::Anthropic => Some(Dialect::Anthropic),
            Format::Gemini => Some(Dialect::Gemini),
            Format::Summary => None,
        }
    }
}

/// Runs the command.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let options = crate::families::with_tools(Default::default(), &args.tools);
    let compiled = match dynamic::compile(&args.config, &options) {
        Ok(compiled) => compiled,
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            return EXIT_INVALID;
        }
    };
    let definitions = toolforge::sql::registry_definitions(&compiled.spec);
    let exported = match args.format.dialect() {
        Some(dialect) if args.defer => {
            let core = args.core.clone().unwrap_or_else(|| {
                crate::defer::default_core(
                    &compiled.spec.tools.name_prefix,
                    definitions
                        .iter()
                        .map(|definition| definition.name.as_str()),
                )
            });
            match export_deferred(&definitions, dialect, &core) {
                Ok(tools) => Value::Array(tools),
                Err(error) => {
                    let _ = writeln!(out.stderr, "--defer: {error}");
                    return EXIT_INVALID;
                }
            }
        }
        Some(dialect) => Value::Array(
            export_all(&definitions, dialect)
                .into_iter()
                .map(|mut tool| {
                    if dialect == Dialect::Mcp
                        && !args.output_schemas
                        && let Some(tool) = tool.as_object_mut()
                    {
                        tool.remove("outputSchema");
                    }
                    tool
                })
                .collect(),
        ),
        None if args.defer => {
            let _ = writeln!(
                out.stderr,
                "--defer: the summary has no deferred form; use --format anthropic or openai-responses"
            );
            return EXIT_INVALID;
        }
        None => summary(&compiled.spec, &definitions),
    };
    match serde_json::to_string_pretty(&exported) {
        Ok(text) if writeln!(out.stdout, "{text}").is_ok() => EXIT_OK,
        _ => EXIT_INVALID,
    }
}

/// The summary of what a spec generates.
fn summary(spec: &SchemaSpec, definitions: &[ToolDefinition]) -> Value {
    let prefix = &spec.tools.name_prefix;
    let built = spec.database_tool_names();
    let families: Vec<Value> = spec
        .tools
        .families
        .iter()
        .map(|family| {
            let tools: Vec<String> = family
                .tool_names()
                .iter()
                .filter(|name| built.contains(name))
                .map(|name| format!("{prefix}{name}"))
                .collect();
            json!({"family": family.name(), "tools": tools})
        })
        .collect();
    let entities: Vec<Value> = spec
        .entities
        .iter()
        .map(|entity| {
            let fields: Vec<&str> = entity.fields.iter().map(|f| f.name.as_str()).collect();
            let computed: Vec<&str> = entity
                .computed_fields
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            json!({"name": entity.name, "searchable_fields": fields, "computed_fields": computed})
        })
        .collect();
    json!({
        "name": spec.name,
        "entity_count": spec.entities.len(),
        "tool_count": definitions.len(),
        "searchable_fields_count": spec.entities.iter().map(|e| e.fields.len()).sum::<usize>(),
        "computed_fields_count": spec.entities.iter().map(|e| e.computed_fields.len()).sum::<usize>(),
        "families": families,
        "entities": entities,
        "tools": definitions.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(),
    })
}
