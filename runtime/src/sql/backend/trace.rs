//! A span per SQL statement, as OpenTelemetry's database conventions name it: `db.system.name`
//! and `db.operation.name` (the statement's first keyword), `otel.kind = client`; the text only
//! when the host opts in ([`record_statement_text`]), never the bound values. Spans are at
//! `DEBUG` level: with no subscriber interested (no trace exporter) the statement pays one
//! disabled-callsite check.

use std::sync::atomic::{AtomicBool, Ordering};

static STATEMENT_TEXT: AtomicBool = AtomicBool::new(false);

/// Whether statement spans carry the SQL text (`db.query.text`); off by default, since the text
/// may show the shape of the data. Values bound to parameters are never recorded.
pub fn record_statement_text(on: bool) {
    STATEMENT_TEXT.store(on, Ordering::Relaxed);
}

/// The span of one statement of `system` (`sqlite`, `postgresql`).
pub(crate) fn statement_span(system: &'static str, sql: &str) -> tracing::Span {
    let operation = operation(sql);
    let span = tracing::debug_span!(
        target: "toolforge::sql",
        "db.statement",
        otel.name = operation,
        otel.kind = "client",
        db.system.name = system,
        db.operation.name = operation,
        db.query.text = tracing::field::Empty,
    );
    if STATEMENT_TEXT.load(Ordering::Relaxed) && !span.is_disabled() {
        span.record("db.query.text", sql);
    }
    span
}

/// The statement's first keyword, upper-cased (`SELECT`, `WITH`, `INSERT`, ...).
fn operation(sql: &str) -> &'static str {
    let word: String = sql
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_uppercase();
    match word.as_str() {
        "SELECT" => "SELECT",
        "WITH" => "WITH",
        "INSERT" => "INSERT",
        "UPDATE" => "UPDATE",
        "DELETE" => "DELETE",
        "CREATE" => "CREATE",
        "DROP" => "DROP",
        "SET" => "SET",
        "BEGIN" => "BEGIN",
        "COMMIT" => "COMMIT",
        "PRAGMA" => "PRAGMA",
        _ => "OTHER",
    }
}

#[cfg(test)]
mod tests {
    use super::operation;

    #[test]
    fn the_operation_is_the_first_keyword() {
        assert_eq!(operation("  select * from t"), "SELECT");
        assert_eq!(operation("WITH x AS (SELECT 1) SELECT * FROM x"), "WITH");
        assert_eq!(operation("VACUUM"), "OTHER");
    }
}
