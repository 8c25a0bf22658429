//! `toolforge tools list --config FILE [--format mcp|openai|openai-responses|anthropic|gemini|summary|markdown]`.
//!
//! Prints a JSON array of the definitions the live tools of `toolforge call` have, in the
//! provider's format, or (`summary`) what was generated: entity, tool, searchable-field and
//! computed-field counts, the tools of each family and the fields of each entity, or
//! (`markdown`) a reference page of the tools: what each answers and a table of its arguments
//! ([`markdown`], which the guide's tool reference also renders, with example calls). Needs no
//! database. `--defer [--core TOOLS]` exports for the provider's deferred loading (Anthropic's
//! tool search tool, OpenAI Responses' `tool_search`): the core tools up front, the others
//! marked `"defer_loading": true`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
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
    /// A Markdown page of the tools: for each, its family, what it answers and a table of its
    /// arguments (name, type, whether required, description).
    Markdown,
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
            Format::Summary | Format::Markdown => None,
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
                "--defer: the {} has no deferred form; use --format anthropic or openai-responses",
                match args.format {
                    Format::Markdown => "Markdown page",
                    _ => "summary",
                }
            );
            return EXIT_INVALID;
        }
        None if args.format == Format::Markdown => {
            let page = markdown(&compiled.spec, &definitions, &BTreeMap::new());
            return match write!(out.stdout, "{page}") {
                Ok(()) => EXIT_OK,
                Err(_) => EXIT_INVALID,
            };
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

/// An example call of a tool, shown in its section of [`markdown`]: the arguments and what
/// the call gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// The arguments object of the call.
    pub arguments: Value,
    /// What the call gave.
    pub answer: ExampleAnswer,
}

/// What an example call gave.
#[derive(Debug, Clone, PartialEq)]
pub enum ExampleAnswer {
    /// The tool's answer (a result, or the structured error it answered with).
    Answer(Value),
    /// The call could not be answered where the page was made (a tool that needs an
    /// embedding model or the network, on a page generated offline): why, in Markdown. No
    /// answer is shown.
    NotAnswered(String),
}

/// A Markdown page of the tools of `spec` (`definitions` as [`toolforge::sql::registry_definitions`]
/// gives them): `# Tools of NAME`, then [`markdown_body`].
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let config = dir.path().join("notes.yaml");
/// std::fs::write(&config, "name: notes\nentities:\n  - name: Note\n    searchable_fields:\n      - name: title\n        type: string\n")?;
/// let spec = toolforge_cli::dynamic::compile(&config, &Default::default())?.spec;
/// let definitions = toolforge::sql::registry_definitions(&spec);
/// let page = toolforge_cli::tools::list::markdown(&spec, &definitions, &Default::default());
/// assert!(page.starts_with("# Tools of `notes`\n"));
/// assert!(page.contains("\n## `query_entities`\n"));
/// assert!(page.contains("| `entity_type` | one of: `Note` | yes | The entity type to query. |"));
/// # Ok(()) }
/// ```
pub fn markdown(
    spec: &SchemaSpec,
    definitions: &[ToolDefinition],
    examples: &BTreeMap<String, Example>,
) -> String {
    format!(
        "# Tools of `{}`\n\n{}",
        spec.name,
        markdown_body(spec, definitions, examples)
    )
}

/// The tools of `spec` in Markdown, without a page title: an index table (tool, family, the
/// first sentence of its description), then one `##` section per tool, in registration order:
/// its title, family and whether it only reads, its description, a table of its arguments
/// (nested keys as `order_by.field`, `conditions[].field`) and, when `examples` has one for
/// the tool, the example call and its answer as JSON.
pub fn markdown_body(
    spec: &SchemaSpec,
    definitions: &[ToolDefinition],
    examples: &BTreeMap<String, Example>,
) -> String {
    use toolforge_generator::__private::config::reference::anchor;

    let prefix = &spec.tools.name_prefix;
    let mut families: BTreeMap<String, String> = BTreeMap::new();
    for family in &spec.tools.families {
        for name in family.tool_names() {
            families.insert(format!("{prefix}{name}"), format!("`{}`", family.name()));
        }
    }
    for tool in &spec.declared_tools {
        families.insert(tool.name.clone(), "declared".to_owned());
    }
    let family_of = |name: &str| {
        families
            .get(name)
            .cloned()
            .unwrap_or_else(|| "built in".to_owned())
    };

    let mut page = String::new();
    let _ = write!(
        page,
        "{} tools. Declared tools come from `toolforge.declared_tools`; built-in ones are \
         always there.\n\n| tool | family | answers |\n| --- | --- | --- |\n",
        definitions.len()
    );
    for definition in definitions {
        let _ = writeln!(
            page,
            "| [`{name}`](#{anchor}) | {family} | {summary} |",
            name = definition.name,
            anchor = anchor(&definition.name),
            family = family_of(&definition.name),
            summary = inline(first_sentence(&definition.description), true),
        );
    }
    for definition in definitions {
        let _ = write!(page, "\n## `{}`\n\n", definition.name);
        let mut facts = Vec::new();
        if let Some(title) = &definition.title {
            facts.push(format!("**{}**", inline(title, false)));
        }
        facts.push(format!("family: {}", family_of(&definition.name)));
        facts.push(
            if definition.is_read_only() {
                "read-only"
            } else {
                "may write"
            }
            .to_owned(),
        );
        let _ = write!(page, "{}\n\n", facts.join(" · "));
        for line in definition.description.lines().map(str::trim) {
            if !line.is_empty() {
                let _ = write!(page, "{}\n\n", inline(line, false));
            }
        }
        let mut rows = Vec::new();
        argument_rows(&definition.input_schema, "", 0, &mut rows);
        if rows.is_empty() {
            page.push_str("Arguments: none.\n");
        } else {
            page.push_str(
                "| argument | type | required | description |\n| --- | --- | --- | --- |\n",
            );
            for row in rows {
                page.push_str(&row);
                page.push('\n');
            }
        }
        if let Some(example) = examples.get(&definition.name) {
            let _ = write!(
                page,
                "\nExample call:\n\n```json\n{}\n```\n",
                pretty(&example.arguments)
            );
            match &example.answer {
                ExampleAnswer::Answer(answer) => {
                    let _ = write!(page, "\nAnswer:\n\n```json\n{}\n```\n", pretty(answer));
                }
                ExampleAnswer::NotAnswered(why) => {
                    let _ = write!(page, "\nNo answer shown: {}\n", why.trim());
                }
            }
        }
    }
    page
}

/// The most levels of nested arguments listed (`a.b[].c`).
const MAX_ARGUMENT_DEPTH: usize = 3;

/// The table rows of the properties of the object schema `schema`, named `{path}{key}`, with
/// the keys of nested objects (and arrays of objects) after their parent's row.
fn argument_rows(schema: &Value, path: &str, depth: usize, rows: &mut Vec<String>) {
    use toolforge_generator::__private::config::reference::type_text;

    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (key, property) in properties {
        let name = format!("{path}{key}");
        let mut description = property
            .get("description")
            .and_then(Value::as_str)
            .map(|text| inline(text, true))
            .unwrap_or_default();
        // the default, unless the description says it already
        if let Some(default) = property.get("default")
            && !description.to_ascii_lowercase().contains("default")
        {
            if !description.is_empty() && !description.ends_with('.') {
                description.push('.');
            }
            let _ = write!(
                description,
                " Default: `{}`.",
                inline_code(&default.to_string())
            );
        }
        rows.push(format!(
            "| `{name}` | {}{} | {} | {} |",
            inline(&type_text(property), true),
            bounds(property),
            if required.contains(&key.as_str()) {
                "yes"
            } else {
                "no"
            },
            description.trim()
        ));
        if depth + 1 < MAX_ARGUMENT_DEPTH {
            argument_rows(property, &format!("{name}."), depth + 1, rows);
            if let Some(items) = property.get("items") {
                argument_rows(items, &format!("{name}[]."), depth + 1, rows);
            }
        }
    }
}

/// The bounds of a value, after its type: ` (1 to 100)`, ` (at least 0)`, ` (1 to 2000
/// characters)`, ` (at most 16 items)`.
fn bounds(schema: &Value) -> String {
    // a whole number as one (`0`, not `0.0`)
    let number = |key: &str| {
        let value = schema.get(key)?;
        match value.as_f64() {
            Some(float) if value.is_f64() && float.fract() == 0.0 && float.abs() < 1e15 => {
                Some(format!("{float:.0}"))
            }
            Some(_) => Some(value.to_string()),
            None => None,
        }
    };
    let range = |low: Option<String>, high: Option<String>, unit: &str| match (low, high) {
        (Some(low), Some(high)) => format!(" ({low} to {high}{unit})"),
        (Some(low), None) => format!(" (at least {low}{unit})"),
        (None, Some(high)) => format!(" (at most {high}{unit})"),
        (None, None) => String::new(),
    };
    let mut text = range(number("minimum"), number("maximum"), "");
    text.push_str(&range(
        number("minLength"),
        number("maxLength"),
        " characters",
    ));
    text.push_str(&range(number("minItems"), number("maxItems"), " items"));
    text
}

/// The first sentence of a description (up to its first `. ` that does not end an
/// abbreviation, or its line end).
fn first_sentence(text: &str) -> &str {
    let line = text.lines().next().unwrap_or("").trim();
    let mut from = 0;
    while let Some(found) = line[from..].find(". ") {
        let end = from + found;
        let before = &line[..end];
        if ["e.g", "i.e", "etc", "vs"]
            .iter()
            .any(|abbreviation| before.ends_with(abbreviation))
        {
            from = end + 2;
            continue;
        }
        return &line[..=end];
    }
    line
}

/// Plain text (a tool's description, written for a model, not in Markdown) as Markdown that
/// shows it as written: outside `code spans` the characters Markdown would read (`*`, `[`,
/// `]`, `<`, `\`, `_` not inside a word, `#` and `>` starting the text) are escaped; with
/// `in_table`, `|` too (everywhere, as tables want). The text becomes one line.
fn inline(text: &str, in_table: bool) -> String {
    let text: Vec<char> = text
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for (i, &c) in text.iter().enumerate() {
        let word = |at: Option<&char>| at.is_some_and(|c| c.is_alphanumeric());
        let escape = !in_code
            && match c {
                '\\' | '*' | '[' | ']' | '<' => true,
                '_' => !(i > 0 && word(text.get(i - 1)) && word(text.get(i + 1))),
                '#' | '>' => i == 0,
                _ => false,
            };
        if c == '`' {
            in_code = !in_code;
        }
        if escape || (c == '|' && in_table) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text inside a code span of a table cell: `|` escaped, and backticks (which would end
/// the span) replaced by `'`.
fn inline_code(text: &str) -> String {
    text.replace('|', "\\|").replace('`', "'")
}

/// A JSON value pretty-printed (two-space indents), as `toolforge call` prints it.
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
