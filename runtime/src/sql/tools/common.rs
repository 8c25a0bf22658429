//! What every database tool shares: the spec, the database, argument parsing and errors.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{ToolAnnotations, ToolDefinition, ToolError, ToolFuture};

use super::super::Database;
use super::super::names::{shorten, unknown_name_message};
use super::super::query::{Page, execution_error};
use super::EngineTool;
use super::arguments::{input_schema, limit_bounds};

/// The spec and database the tools answer from.
#[derive(Debug)]
pub struct Shared {
    /// The storage spec.
    pub spec: Arc<SchemaSpec>,
    /// The database.
    pub db: Database,
}

impl Shared {
    /// Bundles a spec and a database.
    pub fn new(spec: Arc<SchemaSpec>, db: Database) -> Self {
        Shared { spec, db }
    }
}

/// A handler failure: a tool error, or an SQLite error to be reported without SQL text.
pub(crate) enum HandlerError {
    Tool(ToolError),
    Sqlite(rusqlite::Error),
}

impl From<ToolError> for HandlerError {
    fn from(error: ToolError) -> Self {
        HandlerError::Tool(error)
    }
}

impl From<rusqlite::Error> for HandlerError {
    fn from(error: rusqlite::Error) -> Self {
        HandlerError::Sqlite(error)
    }
}

/// The database of a call's context, or the error that says how to provide one.
pub(crate) fn context_database(context: &crate::ToolContext) -> Result<Database, ToolError> {
    context.extension::<Database>().cloned().ok_or_else(|| {
        ToolError::new(
            crate::ErrorCode::Unavailable,
            "no database in the call context: build the registry with the generated \
             `registry_builder(db)` (or add one with `with_extension(db)`)",
        )
    })
}

/// Reads a call's JSON arguments as `A` and runs the tool (see [`run`]).
pub(crate) fn run_json<A: EngineTool>(
    shared: &Arc<Shared>,
    arguments: Value,
) -> ToolFuture<'static> {
    match parse::<A>(A::KIND.name(), arguments) {
        Ok(arguments) => run(shared.clone(), arguments),
        Err(error) => Box::pin(async move { Err(error) }),
    }
}

/// Runs a tool with its parsed arguments on a read-only connection on the blocking pool.
pub(crate) fn run<A: EngineTool>(shared: Arc<Shared>, arguments: A) -> ToolFuture<'static> {
    Box::pin(async move {
        let spec = shared.spec.clone();
        let outcome = shared
            .db
            .read(move |conn| arguments.execute(&spec, conn))
            .await;
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(HandlerError::Tool(error))) => Err(error),
            Ok(Err(HandlerError::Sqlite(error))) => Err(execution_error(&error)),
            Err(_) => Err(ToolError::execution_failed(
                "The database call stopped unexpectedly; nothing was changed.",
            )),
        }
    })
}

/// Deserialises the arguments object; errors become `invalid_arguments` naming the tool.
pub(crate) fn parse<T: DeserializeOwned>(tool: &str, arguments: Value) -> Result<T, ToolError> {
    let arguments = if arguments.is_null() {
        json!({})
    } else {
        arguments
    };
    serde_json::from_value(arguments).map_err(|error| {
        ToolError::invalid_arguments(format!(
            "Invalid arguments for {tool}: {}",
            shorten_error(&error.to_string())
        ))
    })
}

fn shorten_error(text: &str) -> String {
    if text.chars().count() > 300 {
        format!("{}…", text.chars().take(300).collect::<String>())
    } else {
        text.to_string()
    }
}

/// The entity named `name`, or an `invalid_arguments` error with the nearest names.
pub(crate) fn entity<'s>(
    spec: &'s SchemaSpec,
    name: &str,
    path: &str,
) -> Result<&'s EntitySpec, ToolError> {
    spec.entity(name).ok_or_else(|| {
        ToolError::invalid_arguments(format!(
            "`{path}`: {}",
            unknown_name_message("entity", name, "", entity_names(spec))
        ))
        .with_details(json!({"path": path, "valid": entity_names(spec)}))
    })
}

/// Every entity name, in config order.
pub(crate) fn entity_names(spec: &SchemaSpec) -> Vec<&str> {
    spec.entities.iter().map(|e| e.name.as_str()).collect()
}

/// The limit of a call: the default when absent, an error outside `1..=max_limit`.
pub(crate) fn limit(spec: &SchemaSpec, requested: Option<i64>) -> Result<u32, ToolError> {
    let (max, default) = limit_bounds(spec);
    match requested {
        None => Ok(default),
        Some(n) if n >= 1 && n <= i64::from(max) => Ok(n as u32),
        Some(n) => Err(ToolError::invalid_arguments(format!(
            "`limit` must be between 1 and {max}, got {n}"
        ))
        .with_details(json!({"path": "limit", "minimum": 1, "maximum": max}))),
    }
}

/// A list answer: `{"entity_type", "total", "returned", "truncated", "results"}`.
pub(crate) fn page_json(entity: &str, page: Page) -> Value {
    let truncated = page.truncated();
    json!({
        "entity_type": entity,
        "total": page.total,
        "returned": page.results.len(),
        "truncated": truncated,
        "results": page.results,
    })
}

/// The read-only, idempotent definition of the tool `A` for `spec`: its input schema is
/// derived from `A` and completed from the spec.
pub(crate) fn definition<A: EngineTool>(
    spec: &SchemaSpec,
    title: &str,
    description: String,
    keywords: &[&str],
) -> ToolDefinition {
    ToolDefinition {
        name: format!("{}{}", spec.tools.name_prefix, A::KIND.name()),
        title: Some(title.to_string()),
        description: crate::dialect::fit_description(&description).into_owned(),
        input_schema: input_schema::<A>(spec),
        output_schema: None,
        annotations: ToolAnnotations {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        },
        capabilities: vec!["database".into(), "read".into()],
        keywords: keywords.iter().map(|k| k.to_string()).collect(),
    }
}

/// `"value"` shortened for messages.
pub(crate) fn quoted(text: &str) -> String {
    format!("\"{}\"", shorten(text))
}

/// Reads an optional integer argument (`limit`) as its JSON Schema (`"type": "integer"`)
/// defines one: a number with no fractional part, so `2.0` is `2` (as JSON Schema validators
/// accept it); `null` or absent is `None`. Used by the engine's tools and the generated typed
/// tools alike, so both read every schema-valid value the same way.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Page {
///     #[serde(default, deserialize_with = "toolforge::sql::tools::optional_integer")]
///     limit: Option<i64>,
/// }
/// let page: Page = serde_json::from_value(serde_json::json!({"limit": 2.0})).unwrap();
/// assert_eq!(page.limit, Some(2));
/// let page: Page = serde_json::from_value(serde_json::json!({"limit": null})).unwrap();
/// assert_eq!(page.limit, None);
/// assert!(serde_json::from_value::<Page>(serde_json::json!({"limit": 2.5})).is_err());
/// ```
pub fn optional_integer<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<i64>, D::Error> {
    use serde::de::Error;
    let Some(number) =
        <Option<serde_json::Number> as serde::Deserialize>::deserialize(deserializer)?
    else {
        return Ok(None);
    };
    if let Some(n) = number.as_i64() {
        return Ok(Some(n));
    }
    match number.as_f64() {
        // The exclusive upper bound is 2^63: i64::MAX as f64 rounds up to it.
        Some(x) if x.fract() == 0.0 && x >= i64::MIN as f64 && x < 9_223_372_036_854_775_808.0 => {
            Ok(Some(x as i64))
        }
        _ => Err(D::Error::custom(format!(
            "invalid value: {number}, expected an integer"
        ))),
    }
}
