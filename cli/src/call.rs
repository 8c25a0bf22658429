//! `toolforge call --config FILE --db DB TOOL ['JSON']`.
//!
//! Runs one tool of the config over the database. Success: the result as JSON on stdout,
//! exit 0. A tool error (invalid arguments, not found, unknown tool with the nearest names,
//! arguments that are not JSON, a call that overran `--timeout` or an answer over
//! `--max-answer-bytes`): the structured error JSON on stdout, exit 1. A config or database
//! that cannot be used: the message on stderr, exit 1.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use toolforge::{CallLimits, ToolError};

use crate::dynamic;
use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge call`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The database (made by `toolforge db init`): a SQLite file or a PostgreSQL URL
    /// (`postgres://user@host:port/name`).
    #[arg(long, value_name = "DB")]
    pub db: PathBuf,
    /// The tool to call (see `toolforge tools list`).
    #[arg(value_name = "TOOL")]
    pub tool: String,
    /// The arguments, as one JSON object.
    #[arg(value_name = "JSON", default_value = "{}")]
    pub arguments: String,
    /// The call's deadline in seconds (decimals allowed); an overrun is a `timeout` error.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub timeout: Duration,
    /// The largest answer, in bytes of compact JSON; list tools stop adding records before
    /// it (and say so), a larger answer is a `too_large` error.
    #[arg(long, value_name = "BYTES", default_value_t = toolforge::limits::DEFAULT_MAX_ANSWER_BYTES)]
    pub max_answer_bytes: usize,
    /// The most memory a call may take for the data it loads (the graph tools' graphs and
    /// visited records), in bytes; passing it is a `too_large` error.
    #[arg(long, value_name = "BYTES", default_value_t = toolforge::limits::DEFAULT_MAX_MEMORY_BYTES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_memory_bytes: usize,
    /// The tool families to build, comma-separated, replacing the config's `toolforge.tools`
    /// (schema, query, lookup, relationships, ranges, patterns, aggregates, graph).
    #[arg(long, value_name = "FAMILIES", value_delimiter = ',', value_parser = crate::families::parse_family)]
    pub tools: Option<Vec<toolforge::spec::ToolFamily>>,
    /// A context value of the call, `NAME=VALUE` (repeatable): what the config's row rules
    /// (`toolforge.access`) read as `:context.NAME`.
    #[arg(long = "context", value_name = "NAME=VALUE", value_parser = parse_context_pair)]
    pub context: Vec<(String, String)>,
}

/// `NAME=VALUE` as a pair (the name a context value's: letters, digits and `_`).
pub(crate) fn parse_context_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value))
            if !name.is_empty() && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) =>
        {
            Ok((name.to_owned(), value.to_owned()))
        }
        _ => Err(format!(
            "expected NAME=VALUE with a name of letters, digits and `_`, got `{text}`"
        )),
    }
}

/// A call's deadline in seconds, from [`MIN_TIMEOUT_SECONDS`] to [`MAX_TIMEOUT_SECONDS`].
pub(crate) fn parse_seconds(text: &str) -> Result<Duration, String> {
    let range = format!(
        "a number of seconds from {MIN_TIMEOUT_SECONDS} to {MAX_TIMEOUT_SECONDS} (like 30 or 0.5)"
    );
    match text.trim().parse::<f64>() {
        Ok(seconds) if (MIN_TIMEOUT_SECONDS..=MAX_TIMEOUT_SECONDS).contains(&seconds) => {
            Ok(Duration::from_secs_f64(seconds))
        }
        Ok(seconds) if seconds.is_finite() => Err(format!("expected {range}, got {seconds}")),
        _ => Err(format!("expected {range}, got `{text}`")),
    }
}

/// The shortest deadline a call may have: shorter ones could not run even a lookup.
pub(crate) const MIN_TIMEOUT_SECONDS: f64 = 0.001;

/// The longest deadline a call may have (one day).
pub(crate) const MAX_TIMEOUT_SECONDS: f64 = 86_400.0;

/// Runs the command.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let arguments: Value = match serde_json::from_str(&args.arguments) {
        Ok(value) => value,
        Err(error) => {
            let error = ToolError::invalid_arguments(format!(
                "the arguments are not valid JSON ({error}); pass one JSON object, e.g. '{{\"entity_type\": \"...\"}}'"
            ));
            return print(out, Err(error));
        }
    };
    let limits = CallLimits::default()
        .timeout(Some(args.timeout))
        .max_answer_bytes(Some(args.max_answer_bytes))
        .max_memory_bytes(Some(args.max_memory_bytes));
    let values = args
        .context
        .iter()
        .fold(toolforge::ContextValues::new(), |values, (name, value)| {
            values.with(name, value)
        });
    let live = match dynamic::load_with_context(
        &args.config,
        &args.db,
        &crate::families::with_tools(Default::default(), &args.tools),
        limits,
        &values,
    ) {
        Ok(live) => live,
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            return EXIT_INVALID;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(out.stderr, "error: cannot start the async runtime: {error}");
            return EXIT_INVALID;
        }
    };
    let result = runtime.block_on(live.registry.call(&args.tool, arguments));
    print(out, result)
}

fn print(out: &mut Output<'_>, result: Result<Value, ToolError>) -> i32 {
    let (value, code) = match result {
        Ok(value) => (value, EXIT_OK),
        Err(error) => (error.to_json(), EXIT_INVALID),
    };
    match serde_json::to_string_pretty(&value) {
        Ok(text) if writeln!(out.stdout, "{text}").is_ok() => code,
        _ => EXIT_INVALID,
    }
}
