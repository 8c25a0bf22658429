//! `toolforge catalog index|search|sources`: a searchable catalog of tools (crate
//! `toolforge-catalog`) in an SQLite file.
//!
//! - `index --db CATALOG (--config FILE | --tools FILE | --mcp 'CMD ARGS' | --mcp-url URL)
//!   [--source NAME]`
//!   replaces the tools of one source with its complete listing (stale ones are pruned; a
//!   listing that fails prunes nothing and marks the source unavailable).
//! - `search --db CATALOG "QUERY" [--mode fast|balanced|accurate] [--max-results N]
//!   [--capability C]... [--format json|text]`, or `--queries FILE` for one query a line
//!   (JSON lines out, the model loaded once). With `--mode accurate`, `--expander openai`
//!   and `--reranker openai` ask a chat model (`--llm-url URL --llm-model M
//!   [--llm-api-key-env VAR] [--llm-timeout SECONDS] [--llm-max-answer-bytes BYTES]`); when
//!   it fails the search goes on without it and its metadata says why.
//! - `sources --db CATALOG` lists each source with its tool count, last indexing and
//!   availability.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use toolforge_catalog::{
    Catalog, CatalogEntry, CatalogError, ChatQueryExpander, ChatReranker, ChatSettings, SearchMode,
    SearchRequest, SearchResponse, Source, SourceKind, listing,
};

use crate::{EXIT_INVALID, EXIT_OK, Output};

/// The largest listing file read.
const MAX_LISTING_BYTES: u64 = 64 * 1024 * 1024;

/// The `catalog` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum CatalogCommand {
    /// Index the tools of one source (a config, a JSON or YAML file, an MCP server).
    Index(IndexArgs),
    /// Search the catalog.
    Search(SearchArgs),
    /// List the indexed sources.
    Sources(SourcesArgs),
}

/// Arguments of `toolforge catalog index`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("listing").required(true).args(["config", "tools", "mcp", "mcp_url"])))]
pub struct IndexArgs {
    /// The catalog file (created when missing).
    #[arg(long, value_name = "CATALOG")]
    pub db: PathBuf,
    /// Index the tools a toolforge config generates (`config:NAME`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Index a JSON file (an MCP `tools/list` result or an array of `{name, description,
    /// inputSchema}`) or a YAML file of custom definitions (`.yaml`, `.yml`) (`custom:NAME`).
    #[arg(long, value_name = "FILE")]
    pub tools: Option<PathBuf>,
    /// Index the tools of an MCP server started with this command line, split into words as a
    /// POSIX shell does: quotes and backslashes, no expansion (`mcp:SOURCE:NAME`).
    #[arg(long, value_name = "CMD ARGS")]
    pub mcp: Option<String>,
    /// Index the tools of an MCP server over Streamable HTTP at this `http://` URL
    /// (`mcp:SOURCE:NAME`).
    #[arg(long, value_name = "URL")]
    pub mcp_url: Option<String>,
    /// With `--mcp-url`: send `Authorization: Bearer <token>`, the token read from this
    /// environment variable.
    #[arg(long, value_name = "VAR", requires = "mcp_url")]
    pub token_env: Option<String>,
    /// The source's name (default: the config's name, the file's stem or the command's
    /// program name).
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,
}

/// Arguments of `toolforge catalog search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The catalog file.
    #[arg(long, value_name = "CATALOG")]
    pub db: PathBuf,
    /// What the tool should do.
    #[arg(value_name = "QUERY", required_unless_present = "queries")]
    pub query: Option<String>,
    /// Search every line of this file instead (JSON lines out, one answer per query).
    #[arg(long, value_name = "FILE", conflicts_with = "query")]
    pub queries: Option<PathBuf>,
    /// `fast` (BM25), `balanced` (BM25 re-ranked by the local embedding model) or
    /// `accurate` (query expansion too).
    #[arg(long, value_enum, default_value_t = Mode::Balanced)]
    pub mode: Mode,
    /// How many results (1 to 100).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_results: usize,
    /// Only tools with this capability tag (repeatable).
    #[arg(long = "capability", value_name = "C")]
    pub capabilities: Vec<String>,
    /// Only tools from this kind of source (builtin, mcp, custom, config; repeatable).
    #[arg(long = "source-kind", value_name = "KIND", value_parser = parse_kind)]
    pub source_kinds: Vec<SourceKind>,
    /// The local embedding model folder for `balanced` and `accurate` (made by `toolforge
    /// model fetch`); without one they run BM25 only and say so.
    #[arg(long, value_name = "DIR", default_value = "models/all-MiniLM-L6-v2")]
    pub model: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// With `--mode accurate`: `synonyms` (built in, deterministic) or `openai` (a chat model
    /// behind an OpenAI-compatible API, `--llm-url`; the built-in terms when it fails).
    #[arg(long, value_enum, default_value_t = ExpanderChoice::Synonyms)]
    pub expander: ExpanderChoice,
    /// With `--mode accurate`: `none` or `openai` (the chat model scores the candidates last;
    /// skipped when it fails).
    #[arg(long, value_enum, default_value_t = RerankerChoice::None)]
    pub reranker: RerankerChoice,
    /// The chat model's OpenAI-compatible base URL (`https://api.openai.com/v1`,
    /// `http://127.0.0.1:11434/v1`).
    #[arg(long, value_name = "URL")]
    pub llm_url: Option<String>,
    /// The chat model's name.
    #[arg(long, value_name = "MODEL")]
    pub llm_model: Option<String>,
    /// Send `Authorization: Bearer <key>` to the chat model, the key read from this
    /// environment variable.
    #[arg(long, value_name = "VAR")]
    pub llm_api_key_env: Option<String>,
    /// How long one chat call may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 20.0)]
    pub llm_timeout: f64,
    /// The largest chat answer read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 262_144)]
    pub llm_max_answer_bytes: u64,
}

/// The query expander of `catalog search --mode accurate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExpanderChoice {
    /// The built-in synonym groups and capability vocabulary.
    Synonyms,
    /// A chat model behind an OpenAI-compatible API.
    Openai,
}

/// The re-ranker of `catalog search --mode accurate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RerankerChoice {
    /// No re-ranker.
    None,
    /// A chat model behind an OpenAI-compatible API.
    Openai,
}

/// Arguments of `toolforge catalog sources`.
#[derive(Debug, clap::Args)]
pub struct SourcesArgs {
    /// The catalog file.
    #[arg(long, value_name = "CATALOG")]
    pub db: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

/// A search mode on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// BM25 only.
    Fast,
    /// BM25 re-ranked by the embedding model.
    Balanced,
    /// Query expansion, then `balanced`.
    Accurate,
}

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON.
    Json,
    /// Lines for a person.
    Text,
}

fn parse_kind(text: &str) -> Result<SourceKind, String> {
    SourceKind::parse(text)
        .ok_or_else(|| format!("`{text}` is not a source kind; use builtin, mcp, custom or config"))
}

/// Runs a `catalog` subcommand.
pub fn run(command: &CatalogCommand, out: &mut Output<'_>) -> i32 {
    let outcome = match command {
        CatalogCommand::Index(args) => index(args, out),
        CatalogCommand::Search(args) => search(args, out),
        CatalogCommand::Sources(args) => sources(args, out),
    };
    match outcome {
        Ok(()) => EXIT_OK,
        Err(message) => {
            let _ = writeln!(out.stderr, "error: {message}");
            EXIT_INVALID
        }
    }
}

fn open(db: &Path) -> Result<Catalog, String> {
    Catalog::open(db).map_err(|error| error.to_string())
}

fn index(args: &IndexArgs, out: &mut Output<'_>) -> Result<(), String> {
    let started = std::time::Instant::now();
    let (source, listed) = listing_of(args)?;
    let catalog = open(&args.db)?;
    let entries = match listed {
        Ok(entries) => entries,
        Err(error) => {
            catalog
                .mark_unavailable(&source, &error.to_string())
                .map_err(|e| e.to_string())?;
            return Err(format!(
                "{error} (source `{}` marked unavailable; nothing pruned)",
                source.name
            ));
        }
    };
    let report = catalog
        .index(&source, entries)
        .map_err(|error| error.to_string())?;
    let total = catalog.len().map_err(|error| error.to_string())?;
    let answer = json!({
        "source": report.source,
        "indexed": report.indexed,
        "pruned": report.pruned,
        "total_indexed": total,
        "seconds": started.elapsed().as_secs_f64(),
    });
    let _ = writeln!(out.stdout, "{answer}");
    Ok(())
}

type Listed = Result<Vec<CatalogEntry>, CatalogError>;

/// The source named by the arguments and its listing (an error in the listing itself is
/// kept apart: it marks the source unavailable).
fn listing_of(args: &IndexArgs) -> Result<(Source, Listed), String> {
    if let Some(config) = &args.config {
        let compiled = crate::dynamic::compile(config, &Default::default())
            .map_err(|error| error.to_string())?;
        let name = args
            .source
            .clone()
            .unwrap_or_else(|| compiled.spec.name.clone());
        let source =
            Source::new(SourceKind::Config, name).with_location(config.display().to_string());
        let entries = toolforge::sql::registry_definitions(&compiled.spec)
            .into_iter()
            .map(CatalogEntry::from)
            .collect();
        return Ok((source, Ok(entries)));
    }
    if let Some(file) = &args.tools {
        let name = args.source.clone().unwrap_or_else(|| {
            file.file_stem().map_or_else(
                || "tools".to_owned(),
                |stem| stem.to_string_lossy().into_owned(),
            )
        });
        let source =
            Source::new(SourceKind::Custom, name).with_location(file.display().to_string());
        let origin = file.display().to_string();
        let listed = read_listing(file).and_then(|text| {
            let yaml = matches!(
                file.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            );
            if yaml {
                listing::from_yaml(&text, &origin)
            } else {
                listing::from_json(&text, &origin)
            }
        });
        return Ok((source, listed));
    }
    if let Some(command) = &args.mcp {
        let mut words = split_command(command)?.into_iter();
        let program = words
            .next()
            .ok_or_else(|| "--mcp: the command is empty".to_owned())?;
        let rest: Vec<String> = words.collect();
        let name = args.source.clone().unwrap_or_else(|| {
            Path::new(&program).file_stem().map_or_else(
                || program.clone(),
                |stem| stem.to_string_lossy().into_owned(),
            )
        });
        let source = Source::new(SourceKind::Mcp, name).with_location(command.clone());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("cannot start the async runtime: {error}"))?;
        let listed = runtime.block_on(toolforge_catalog::mcp::list_stdio(&program, &rest));
        return Ok((source, listed));
    }
    if let Some(url) = &args.mcp_url {
        let token = args
            .token_env
            .as_deref()
            .map(crate::token_env::token_from_env)
            .transpose()?;
        let name = args.source.clone().unwrap_or_else(|| host_of(url));
        let source = Source::new(SourceKind::Mcp, name).with_location(url.clone());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("cannot start the async runtime: {error}"))?;
        let listed = runtime.block_on(toolforge_catalog::mcp::list_http(url, token.as_deref()));
        return Ok((source, listed));
    }
    Err("name a listing: --config, --tools, --mcp or --mcp-url".into())
}

/// The host of `url` (`http://tools.local:8080/mcp` → `tools.local`), the default source name
/// of `--mcp-url`.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or(rest);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(bracketed),
        None => host.split(':').next().unwrap_or(host),
    };
    if host.is_empty() {
        "mcp".to_owned()
    } else {
        host.to_owned()
    }
}

/// The words of `--mcp`'s command line, split as a POSIX shell does (quotes and backslashes,
/// no expansion); an unbalanced quote is an error naming its column.
fn split_command(command: &str) -> Result<Vec<String>, String> {
    shlex::split(command).ok_or_else(|| match open_quote(command) {
        Some((column, quote)) => format!(
            "--mcp: the {quote} at column {column} of `{command}` is never closed; close it or escape it with a backslash"
        ),
        None => format!("--mcp: `{command}` ends with a lone backslash"),
    })
}

/// The column (from 1) and character of the quote left open in `command`, if one is.
fn open_quote(command: &str) -> Option<(usize, char)> {
    let mut open: Option<(usize, char)> = None;
    let mut escaped = false;
    for (column, character) in command.chars().enumerate() {
        match (open, character) {
            _ if escaped => escaped = false,
            (Some((_, '\'')), '\'') => open = None,
            (Some((_, '\'')), _) => {}
            (_, '\\') => escaped = true,
            (Some((_, '"')), '"') => open = None,
            (None, '\'' | '"') => open = Some((column + 1, character)),
            _ => {}
        }
    }
    open
}

fn read_listing(file: &Path) -> Result<String, CatalogError> {
    let origin = file.display();
    let size = std::fs::metadata(file)
        .map_err(|error| CatalogError::Listing(format!("{origin}: {error}")))?
        .len();
    if size > MAX_LISTING_BYTES {
        return Err(CatalogError::Listing(format!(
            "{origin}: {size} bytes; listings of at most {MAX_LISTING_BYTES} bytes are read"
        )));
    }
    std::fs::read_to_string(file)
        .map_err(|error| CatalogError::Listing(format!("{origin}: {error}")))
}

fn search(args: &SearchArgs, out: &mut Output<'_>) -> Result<(), String> {
    if !args.db.exists() {
        return Err(format!(
            "{}: no such catalog; make it with `toolforge catalog index --db {}`",
            args.db.display(),
            args.db.display()
        ));
    }
    let mut catalog = open(&args.db)?;
    let mode = match args.mode {
        Mode::Fast => SearchMode::Fast,
        Mode::Balanced => SearchMode::Balanced,
        Mode::Accurate => SearchMode::Accurate,
    };
    if mode != SearchMode::Fast && toolforge::embed::is_model_folder(&args.model) {
        let model = toolforge::embed::LocalModel::load(&args.model)
            .map_err(|error| format!("{}: {error}", args.model.display()))?;
        catalog = catalog.with_embedder(Arc::new(model));
    }
    catalog = with_chat_model(catalog, args, mode)?;
    let request = |query: &str| {
        let mut request = SearchRequest::new(query)
            .with_mode(mode)
            .with_max_results(args.max_results);
        request.capabilities = args.capabilities.clone();
        request.sources = args.source_kinds.clone();
        request
    };
    match (&args.query, &args.queries) {
        (_, Some(file)) => {
            let reader = std::fs::File::open(file)
                .map(std::io::BufReader::new)
                .map_err(|error| format!("{}: {error}", file.display()))?;
            for (number, line) in reader.lines().enumerate() {
                let line =
                    line.map_err(|error| format!("{}:{}: {error}", file.display(), number + 1))?;
                if line.trim().is_empty() {
                    continue;
                }
                let answer = catalog
                    .search(&request(&line))
                    .map_err(|error| format!("{}:{}: {error}", file.display(), number + 1))?;
                print_answer(&answer, Format::Json, out);
            }
            Ok(())
        }
        (Some(query), None) => {
            let answer = catalog
                .search(&request(query))
                .map_err(|error| error.to_string())?;
            print_answer(&answer, args.format, out);
            Ok(())
        }
        (None, None) => Err("give a QUERY or --queries FILE".into()),
    }
}

/// The catalog with the chat model of `--expander openai` / `--reranker openai`, if asked.
fn with_chat_model(
    mut catalog: Catalog,
    args: &SearchArgs,
    mode: SearchMode,
) -> Result<Catalog, String> {
    let expander = args.expander == ExpanderChoice::Openai;
    let reranker = args.reranker == RerankerChoice::Openai;
    if !expander && !reranker {
        if args.llm_url.is_some() || args.llm_model.is_some() || args.llm_api_key_env.is_some() {
            return Err(
                "--llm-url, --llm-model and --llm-api-key-env need --expander openai or --reranker openai"
                    .into(),
            );
        }
        return Ok(catalog);
    }
    if mode != SearchMode::Accurate {
        return Err("--expander openai and --reranker openai need --mode accurate".into());
    }
    let (Some(url), Some(model)) = (&args.llm_url, &args.llm_model) else {
        return Err("a chat model needs --llm-url URL and --llm-model MODEL".into());
    };
    if !url.starts_with("http://") && !url.starts_with("https://") {
        return Err(format!(
            "--llm-url `{url}`: give an http:// or https:// base URL such as https://api.openai.com/v1"
        ));
    }
    let timeout = std::time::Duration::try_from_secs_f64(args.llm_timeout)
        .ok()
        .filter(|timeout| !timeout.is_zero())
        .ok_or_else(|| {
            format!(
                "--llm-timeout {}: give a positive number of seconds",
                args.llm_timeout
            )
        })?;
    if args.llm_max_answer_bytes == 0 {
        return Err("--llm-max-answer-bytes 0: give a positive number of bytes".into());
    }
    let mut settings = ChatSettings::new(url, model)
        .with_timeout(timeout)
        .with_max_answer_bytes(args.llm_max_answer_bytes);
    if let Some(variable) = &args.llm_api_key_env {
        settings = settings
            .with_api_key_from_env(variable)
            .map_err(|error| format!("--llm-api-key-env: {error}"))?;
    }
    if expander {
        catalog = catalog.with_expander(Arc::new(ChatQueryExpander::new(settings.clone())));
    }
    if reranker {
        catalog = catalog.with_reranker(Arc::new(ChatReranker::new(settings)));
    }
    Ok(catalog)
}

fn print_answer(answer: &SearchResponse, format: Format, out: &mut Output<'_>) {
    match format {
        Format::Json => {
            let _ = writeln!(
                out.stdout,
                "{}",
                serde_json::to_string(answer).unwrap_or_default()
            );
        }
        Format::Text => {
            for (rank, result) in answer.results.iter().enumerate() {
                let _ = writeln!(
                    out.stdout,
                    "{}. {} ({:.0}%) {}\n   {}\n   why: {}",
                    rank + 1,
                    result.name,
                    result.confidence * 100.0,
                    result.id,
                    result.description,
                    result.match_reason
                );
            }
            let m = &answer.metadata;
            let _ = writeln!(
                out.stdout,
                "{} results, mode {}, {} tools indexed, {:.2} ms{}",
                answer.results.len(),
                m.mode_used.as_str(),
                m.total_indexed,
                m.total_ms,
                m.note
                    .as_ref()
                    .map_or(String::new(), |note| format!(" ({note})"))
            );
            if let Some(error) = &m.expansion_error {
                let _ = writeln!(
                    out.stdout,
                    "the expander failed, built-in terms used: {error}"
                );
            }
            if let Some(error) = &m.rerank_error {
                let _ = writeln!(out.stdout, "the re-ranker failed, not used: {error}");
            }
        }
    }
}

fn sources(args: &SourcesArgs, out: &mut Output<'_>) -> Result<(), String> {
    let catalog = open(&args.db)?;
    let sources = catalog.sources().map_err(|error| error.to_string())?;
    match args.format {
        Format::Json => {
            let _ = writeln!(
                out.stdout,
                "{}",
                serde_json::to_string(&sources).unwrap_or_default()
            );
        }
        Format::Text => {
            for source in &sources {
                let _ = writeln!(
                    out.stdout,
                    "{} ({}): {} tools, last indexed {}, {}{}",
                    source.name,
                    source.kind,
                    source.tool_count,
                    source.last_indexed.as_deref().unwrap_or("never"),
                    if source.available {
                        "available"
                    } else {
                        "unavailable"
                    },
                    source
                        .status
                        .as_ref()
                        .map_or(String::new(), |s| format!(" — {s}"))
                );
            }
        }
    }
    Ok(())
}
