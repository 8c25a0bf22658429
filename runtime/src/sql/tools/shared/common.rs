//! What every database tool shares: the spec, the database, argument parsing and errors.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{ToolAnnotations, ToolDefinition, ToolError, ToolFuture};

use crate::CallBudget;
use crate::limits::{object_len, serialized_len};
use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::database::{DbError, ReadFuture};
pub(crate) use crate::sql::handler_error::{HandlerError, stopped_error};
use crate::sql::query::{EntityQuery, Page, exec_error};
use crate::sql::text::names::{shorten, unknown_name_message};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::{
    Answer, EntityHead, EntityPage, ListPage, PageEnd, TruncatedBy,
};
use crate::sql::tools::shared::arg_schema::{input_schema, limit_bounds};
pub use crate::sql::tools::shared::source::Shared;
pub(crate) use crate::sql::tools::shared::source::context_database;

/// Reads a call's JSON arguments as `A` and runs the tool (see [`run`]).
pub(crate) fn run_json<A: EngineTool>(
    shared: &Arc<Shared>,
    arguments: Value,
    values: &crate::ContextValues,
) -> ToolFuture<'static> {
    match parse::<A>(A::KIND.name(), arguments) {
        Ok(arguments) => run(shared.clone(), arguments, values.clone()),
        Err(error) => Box::pin(async move { Err(error) }),
    }
}

/// Runs a tool with its parsed arguments on a read-only connection.
pub(crate) fn run<A: EngineTool>(
    shared: Arc<Shared>,
    arguments: A,
    values: crate::ContextValues,
) -> ToolFuture<'static> {
    run_with(shared, values, move |spec, conn, db| {
        Box::pin(async move { answer_json(arguments.execute_in(spec, conn, db).await?) })
    })
}

/// Runs `handler` on a read-only connection ([`Database::read_any_with`], the one read path),
/// within the call's budget, with the spec as the database's backend reads it, seeing only
/// what the spec's row rules let a call with `values` see: what every database tool's call
/// does.
pub(crate) fn run_with(
    shared: Arc<Shared>,
    values: crate::ContextValues,
    handler: impl for<'r> FnOnce(
        &'r SchemaSpec,
        &'r dyn Reader,
        &'r Database,
    ) -> ReadFuture<'r, Result<Value, HandlerError>>
    + Send
    + 'static,
) -> ToolFuture<'static> {
    Box::pin(async move {
        let spec = shared.db.spec_for(&shared.spec);
        // On SQLite the handler runs on a blocking thread: it sees the call's budget there too.
        let budget = CallBudget::current();
        let db = shared.db.clone();
        let access_values = values.clone();
        let outcome = shared
            .db
            .read_any_with(values, move |conn| {
                Box::pin(async move {
                    let work = async {
                        crate::sql::access::enter(conn, &spec, &access_values).await?;
                        handler(&spec, conn, &db).await
                    };
                    match budget {
                        Some(budget) => budget.scope(work).await,
                        None => work.await,
                    }
                })
            })
            .await;
        answer(outcome)
    })
}

/// A tool's typed answer as the JSON a call returns.
pub(crate) fn answer_json(answer: impl Answer) -> Result<Value, HandlerError> {
    answer.into_json().map_err(|error| {
        HandlerError::Tool(ToolError::execution_failed(format!(
            "The answer could not be written as JSON: {error}"
        )))
    })
}

/// What a call of a database tool answers, from what its read gave.
fn answer(outcome: Result<Result<Value, HandlerError>, DbError>) -> Result<Value, ToolError> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(HandlerError::Tool(error))) => Err(error),
        Ok(Err(HandlerError::Exec(error))) if error.is_stop() => Err(stopped_error()),
        Ok(Err(HandlerError::Exec(error))) => Err(exec_error(&error)),
        Err(DbError::Timeout) => Err(stopped_error()),
        Err(_) => Err(ToolError::execution_failed(
            "The database call stopped unexpectedly; nothing was changed.",
        )),
    }
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
    limit_named(spec, requested, "limit")
}

/// [`limit`] for an argument with another name (`top_k`), named in the error.
pub(crate) fn limit_named(
    spec: &SchemaSpec,
    requested: Option<i64>,
    name: &str,
) -> Result<u32, ToolError> {
    let (max, default) = limit_bounds(spec);
    match requested {
        None => Ok(default),
        Some(n) if n >= 1 && n <= i64::from(max) => Ok(n as u32),
        Some(n) => Err(ToolError::invalid_arguments(format!(
            "`{name}` must be between 1 and {max}, got {n}"
        ))
        .with_details(json!({"path": name, "minimum": 1, "maximum": max}))),
    }
}

/// How one page of a list answer is bounded: the most records (and which limit set that
/// number), and the most bytes of the whole answer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageLimits {
    /// The most records.
    pub rows: u32,
    /// `"limit"` (the call's `limit` or the default) or `"max_rows"` (the registry's cap).
    pub rows_limit: &'static str,
    /// The most bytes of compact JSON of the answer, if capped.
    pub max_bytes: Option<usize>,
}

impl PageLimits {
    /// The limits of a call asking for `requested` records: the call's limit (or the
    /// default), lowered by the current call's `max_rows`, and its `max_answer_bytes`.
    pub fn of(spec: &SchemaSpec, requested: Option<i64>) -> Result<PageLimits, ToolError> {
        Ok(Self::capped(limit(spec, requested)?))
    }

    /// `rows` lowered by the current call's limits.
    pub fn capped(rows: u32) -> PageLimits {
        let limits = CallBudget::current().map(|budget| budget.limits());
        let max_rows = limits.and_then(|limits| limits.max_rows);
        let (rows, rows_limit) = match max_rows {
            Some(max) if max < rows => (max, "max_rows"),
            _ => (rows, "limit"),
        };
        PageLimits {
            rows,
            rows_limit,
            max_bytes: limits.and_then(|limits| limits.max_answer_bytes),
        }
    }
}

/// The bytes a list answer may need beyond its head and its records: the paging keys and
/// their largest numbers.
const PAGING_BYTES: usize = 320;

/// Counts the bytes of the records of a page against the answer's cap.
#[derive(Debug)]
pub(crate) struct Collector {
    budget: Option<usize>,
    used: usize,
    taken: usize,
    /// The page ended because the next record did not fit.
    pub cut: bool,
    /// The first record alone did not fit: its size.
    pub oversized: Option<usize>,
}

impl Collector {
    /// A collector for an answer whose other parts are `head` (the records go in `results`).
    pub fn new(limits: &PageLimits, head: &impl Serialize) -> Collector {
        let head_bytes = match limits.max_bytes {
            Some(_) => serialized_len(head) + PAGING_BYTES,
            None => 0,
        };
        Collector {
            budget: limits.max_bytes.map(|max| max.saturating_sub(head_bytes)),
            used: 0,
            taken: 0,
            cut: false,
            oversized: None,
        }
    }

    /// Whether the record `members` fits after the results taken so far (and takes its place
    /// if so).
    pub fn take_record(&mut self, members: &Map<String, Value>) -> bool {
        self.take_bytes(object_len(members) + 1)
    }

    /// Whether the typed result `item` fits (and takes its place if so).
    pub fn take_item(&mut self, item: &impl Serialize) -> bool {
        let bytes = match self.budget {
            Some(_) => serialized_len(item) + 1,
            None => 1,
        };
        self.take_bytes(bytes)
    }

    /// Whether `bytes` more fit (and takes them if so).
    pub fn take_bytes(&mut self, bytes: usize) -> bool {
        match self.budget {
            Some(budget) if self.used + bytes > budget => {
                if self.taken == 0 {
                    self.oversized = Some(bytes - 1);
                }
                self.cut = true;
                false
            }
            _ => {
                self.used += bytes;
                self.taken += 1;
                true
            }
        }
    }
}

/// A list answer: `head` followed by `offset`, `total`, `total_exact`, `returned`, the page's
/// end ([`page_end`]) and `results`.
///
/// A first record too large for the answer's cap on its own is a `too_large` error.
pub(crate) fn list_answer<H, T>(
    head: H,
    page: Page<T>,
    limits: &PageLimits,
    collector: &Collector,
) -> Result<ListPage<H, T>, ToolError> {
    if page.results.is_empty() {
        check_oversized(page.offset, limits, collector)?;
    }
    let next_offset = page.next_offset();
    Ok(ListPage {
        head,
        offset: page.offset,
        total: page.total,
        total_exact: page.total_exact,
        returned: page.results.len() as u64,
        end: page_end(next_offset, next_offset < page.total, limits, collector),
        results: page.results,
    })
}

/// The `too_large` error when the record at `offset` alone did not fit in the answer.
pub(crate) fn check_oversized(
    offset: u64,
    limits: &PageLimits,
    collector: &Collector,
) -> Result<(), ToolError> {
    let (Some(bytes), Some(max)) = (collector.oversized, limits.max_bytes) else {
        return Ok(());
    };
    let tool = CallBudget::current()
        .map(|budget| budget.tool().to_owned())
        .unwrap_or_default();
    Err(ToolError::new(
        crate::ErrorCode::TooLarge,
        format!(
            "the record at offset {offset} has {bytes} bytes, more than an answer may have \
             ({max} bytes, max_answer_bytes); fetch it with get_entities_by_ids and fewer \
             `fields`, or skip it with `offset`: {}",
            offset + 1
        ),
    )
    .with_details(json!({
        "tool": tool,
        "limit": "max_answer_bytes",
        "max_answer_bytes": max,
        "bytes": bytes,
        "offset": offset,
    })))
}

/// How a page ending before `next_offset` ends, when it is known whether more follow
/// (`has_more`): `truncated_by` says which limit ended it (only when more follow), and
/// `next_offset` is null when nothing follows.
pub(crate) fn page_end(
    next_offset: u64,
    has_more: bool,
    limits: &PageLimits,
    collector: &Collector,
) -> PageEnd {
    let truncated_by = has_more.then(|| match (collector.cut, limits.max_bytes) {
        (true, Some(max)) => TruncatedBy {
            limit: "max_answer_bytes",
            value: max as u64,
        },
        _ => TruncatedBy {
            limit: limits.rows_limit,
            value: u64::from(limits.rows),
        },
    });
    PageEnd {
        truncated: has_more,
        truncated_by,
        has_more,
        next_offset: has_more.then_some(next_offset),
    }
}

/// The largest offset a call may ask for: 2^62, past any table's rows, and far enough below
/// `i64::MAX` that the offset plus a page (and the capped count after it) is still a 64-bit
/// integer to both backends.
pub(crate) const MAX_OFFSET: i64 = 1 << 62;

/// The offset of a call: 0 when absent, an error when negative or above [`MAX_OFFSET`].
pub(crate) fn offset(requested: Option<i64>) -> Result<u64, ToolError> {
    match requested {
        None => Ok(0),
        Some(n) if (0..=MAX_OFFSET).contains(&n) => Ok(n as u64),
        Some(n) if n > MAX_OFFSET => Err(ToolError::invalid_arguments(format!(
            "`offset` must be at most {MAX_OFFSET} (past any table's rows), got {n}"
        ))
        .with_details(json!({"path": "offset", "maximum": MAX_OFFSET}))),
        Some(n) => Err(ToolError::invalid_arguments(format!(
            "`offset` must be 0 or more, got {n}"
        ))
        .with_details(json!({"path": "offset", "minimum": 0}))),
    }
}

/// Runs `query` for a list tool: the page its [`PageLimits`] allow from `offset`, as a
/// [`list_answer`] with `head`.
pub(crate) async fn list_page(
    conn: &dyn Reader,
    query: EntityQuery<'_>,
    entity_type: &str,
    limits: &PageLimits,
) -> Result<EntityPage, HandlerError> {
    let head = EntityHead {
        entity_type: entity_type.to_owned(),
    };
    let mut collector = Collector::new(limits, &head);
    let page = query
        .run_taking(conn, |record| collector.take_record(record))
        .await?;
    Ok(list_answer(head, page, limits, &collector)?)
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
        output_schema: Some(crate::sql::tools::shared::answers::output_schema::<A::Answer>(spec)),
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
pub(crate) fn optional_integer<'de, D: serde::Deserializer<'de>>(
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

/// Checks relationship type names against the spec (`path` names the argument).
pub(crate) fn check_relationship_types(
    spec: &SchemaSpec,
    names: &[String],
    path: &str,
) -> Result<(), ToolError> {
    let mut types: Vec<&str> = spec
        .relationships
        .iter()
        .map(|r| r.rel_type.as_str())
        .collect();
    types.sort_unstable();
    types.dedup();
    for (i, name) in names.iter().enumerate() {
        if !types.contains(&name.as_str()) {
            let at = if path.ends_with(']') || names.len() == 1 && !path.ends_with('s') {
                path.to_owned()
            } else {
                format!("{path}[{i}]")
            };
            return Err(ToolError::invalid_arguments(format!(
                "`{at}`: {}",
                crate::sql::text::names::unknown_name_message(
                    "relationship",
                    name,
                    "",
                    types.clone()
                )
            ))
            .with_details(json!({"path": at, "valid": types})));
        }
    }
    Ok(())
}

#[cfg(test)]
mod examples {
    #[derive(serde::Deserialize)]
    struct Page {
        #[serde(default, deserialize_with = "super::optional_integer")]
        limit: Option<i64>,
    }

    #[test]
    fn optional_integer_reads_whole_numbers_and_null() {
        let page: Page = serde_json::from_value(serde_json::json!({"limit": 2.0})).unwrap();
        assert_eq!(page.limit, Some(2));
        let page: Page = serde_json::from_value(serde_json::json!({"limit": null})).unwrap();
        assert_eq!(page.limit, None);
        assert!(serde_json::from_value::<Page>(serde_json::json!({"limit": 2.5})).is_err());
    }
}
