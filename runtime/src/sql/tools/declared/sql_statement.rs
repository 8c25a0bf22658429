//! Declared tools in the trusted `sql:` form: the config's own statement for the backend the
//! call runs on, its parameters bound, run read-only ([`crate::sql::trusted`]) on the call's
//! read connection (so row rules apply), answering a page of rows as objects.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Number, Value, json};

use crate::spec::{DeclaredSqlSpec, DeclaredToolSpec, SchemaSpec};
use crate::{ErrorCode, RegistryError, ToolError};

use crate::sql::Database;
use crate::sql::backend::{ExecError, Reader, SqlDialect};
use crate::sql::query::exec_error;
use crate::sql::tools::shared::answers::{self, Answer, PageEnd, Record};
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, answer_json, check_oversized, page_end,
};
use crate::sql::value::SqlValue;

/// The statement of `sql` for `dialect`, or the error of a call on a backend it has none for.
fn statement(
    tool: &DeclaredToolSpec,
    sql: &DeclaredSqlSpec,
    dialect: SqlDialect,
) -> Result<String, ToolError> {
    let statement = match dialect {
        SqlDialect::Sqlite => &sql.sqlite,
        SqlDialect::Postgres => &sql.postgres,
    };
    let key = dialect.config_key();
    statement.clone().ok_or_else(|| {
        ToolError::new(
            ErrorCode::Unavailable,
            format!(
                "{} cannot run on {}: its `sql:` has no `{key}` statement",
                tool.name,
                dialect.name()
            ),
        )
        .with_details(json!({"backend": key}))
    })
}

/// Runs the tool's statement with `values` bound: the rows after `offset`, at most
/// `requested` (lowered by the call's `max_rows`) and within the answer's byte cap.
pub(crate) async fn run(
    tool: &DeclaredToolSpec,
    sql: &DeclaredSqlSpec,
    conn: &dyn Reader,
    values: Vec<SqlValue>,
    requested: u32,
    offset: u64,
) -> Result<Value, HandlerError> {
    let statement = statement(tool, sql, conn.dialect())?;
    let limits = PageLimits::capped(requested);
    let take = u64::from(limits.rows) + 1;
    let named = match conn.trusted_rows(&statement, &values, offset, take).await {
        Ok(Ok(named)) => named,
        Ok(Err(refusal)) => return Err(refused(tool, &refusal.0).into()),
        Err(error) if writes_refused(&error) => {
            return Err(refused(
                tool,
                "the statement writes, and a `sql:` tool runs in a read-only transaction",
            )
            .into());
        }
        Err(error) => return Err(error.into()),
    };
    // The key before the page's, measured against the answer's cap.
    #[derive(Serialize)]
    struct Head<'a> {
        columns: &'a [String],
    }
    let mut collector = Collector::new(
        &limits,
        &Head {
            columns: &named.columns,
        },
    );
    let mut rows = Vec::new();
    let fetched = named.rows.len();
    for row in named.rows.into_iter().take(limits.rows as usize) {
        let object: Record = named
            .columns
            .iter()
            .cloned()
            .zip(row.into_iter().map(json_of))
            .collect();
        if !collector.take_record(&object) {
            break;
        }
        rows.push(object);
    }
    if rows.is_empty() {
        check_oversized(offset, &limits, &collector)?;
    }
    let returned = rows.len() as u64;
    let has_more = collector.cut || fetched > limits.rows as usize;
    answer_json(RowsPage {
        columns: named.columns,
        offset,
        returned,
        end: page_end(offset + returned, has_more, &limits, &collector),
        rows,
    })
}

/// A page of a `sql:` tool's rows.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RowsPage {
    /// The statement's column names, in order.
    columns: Vec<String>,
    /// The offset of the first row.
    offset: u64,
    /// How many rows this page holds.
    returned: u64,
    #[serde(flatten)]
    end: PageEnd,
    /// One object per row: column name to value.
    rows: Vec<Record>,
}

impl Answer for RowsPage {}

/// The error of a call whose statement was refused.
fn refused(tool: &DeclaredToolSpec, why: &str) -> ToolError {
    ToolError::execution_failed(format!("{} was refused: {why}", tool.name))
}

/// Whether PostgreSQL stopped a write in the read-only transaction.
fn writes_refused(error: &ExecError) -> bool {
    matches!(error, ExecError::Backend(error) if error.refuses_write())
}

/// A column value as JSON: numbers, text, null (a blob, which JSON cannot hold, is null).
fn json_of(value: SqlValue) -> Value {
    match value {
        SqlValue::Null | SqlValue::Blob(_) => Value::Null,
        SqlValue::Integer(n) => json!(n),
        SqlValue::Real(x) => Number::from_f64(x).map_or(Value::Null, Value::Number),
        SqlValue::Text(text) => Value::String(text),
    }
}

/// The answer's schema: the column names, and a page of rows as objects.
pub(crate) fn output_schema(spec: &SchemaSpec) -> Value {
    answers::output_schema::<RowsPage>(spec)
}

/// Prepares every `sql:` statement for the database's backend on one of its read connections
/// (no row is read): a statement that does not prepare, or is refused, is an error naming its
/// tool. Tools without a statement for the backend are left to refuse their calls.
pub(crate) fn check_statements(spec: &SchemaSpec, db: &Database) -> Result<(), RegistryError> {
    let postgres = db.dialect() == SqlDialect::Postgres;
    let statements: Vec<(String, Option<String>, usize)> = spec
        .declared_tools
        .iter()
        .filter_map(|tool| {
            let sql = tool.sql.as_ref()?;
            let statement = if postgres { &sql.postgres } else { &sql.sqlite };
            Some((tool.name.clone(), statement.clone(), tool.parameters.len()))
        })
        .collect();
    if statements.is_empty() {
        return Ok(());
    }
    let outcome = db.read_any_blocking(move |conn| {
        Box::pin(async move {
            for (name, statement, width) in &statements {
                let Some(statement) = statement else { continue };
                let nulls = vec![SqlValue::Null; *width];
                let message = match conn.trusted_rows(statement, &nulls, 0, 0).await {
                    Ok(Ok(_)) => continue,
                    Ok(Err(refusal)) => refusal.0,
                    Err(error) => exec_error(&error).message,
                };
                return Err((name.clone(), message));
            }
            Ok(())
        })
    });
    let failed = match outcome {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(failed)) => failed,
        Err(error) => (
            String::from("declared tools"),
            format!("the database could not be read: {error}"),
        ),
    };
    Err(RegistryError::ToolCheck {
        name: failed.0,
        message: format!(
            "its `sql.{}` statement does not run on this database: {}",
            db.dialect().config_key(),
            failed.1
        ),
    })
}
