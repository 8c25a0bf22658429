//! The trusted `sql:` form of declared tools: each backend's statement scanned once, its
//! `:name` parameters resolved to the declared ones and written as numbered placeholders
//! (never spliced), and what cannot be a single read refused before any database sees it.
//!
//! The scanner knows only what it must skip: quoted strings (`'...'`), quoted identifiers
//! (`"..."`, `` `...` ``), comments (`-- ...`, `/* ... */`) and PostgreSQL casts (`::type`).
//! Whether the statement reads only, and whether its tables and columns exist, is the
//! database's to say: SQLite prepares it when the config is validated, PostgreSQL when a
//! registry opens a server.

use std::ops::Range;

use toolforge::spec::{ParameterSpec, ParameterType};

/// Which backend a statement is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The config key of the statement (`sql.sqlite`, `sql.postgres`).
    pub(crate) fn key(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

/// A statement with its parameters bound by position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoundSql {
    /// The statement, `:name` written `?N` (PostgreSQL: `CAST(?N AS <type>)`).
    pub sql: String,
    /// The positions of the parameters it uses.
    pub used: Vec<usize>,
}

/// What is wrong with a statement, at a byte range of its text (empty: the whole text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SqlProblem {
    pub span: Range<usize>,
    pub message: String,
    pub hint: String,
}

/// The words a read can start with.
const READ_STARTS: [&str; 3] = ["SELECT", "WITH", "VALUES"];

/// Scans `text`, binding its `:name` parameters to `parameters` (by position), refusing other
/// placeholders, a second statement, a statement that does not start as a read, and names
/// qualified by a schema where `tables` holds the name (row rules apply to the plain names).
pub(crate) fn bind_parameters(
    text: &str,
    parameters: &[ParameterSpec],
    tables: &[String],
    backend: Backend,
) -> Result<BoundSql, SqlProblem> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let mut used = Vec::new();
    let mut first_word: Option<Range<usize>> = None;
    let mut end_of_statement: Option<usize> = None;
    let mut previous_dot = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if let Some(end) = end_of_statement
            && !c.is_ascii_whitespace()
            && c != b';'
            && !(c == b'-' && bytes.get(i + 1) == Some(&b'-'))
            && !(c == b'/' && bytes.get(i + 1) == Some(&b'*'))
        {
            return Err(SqlProblem {
                span: end..end + 1,
                message: "a `sql:` tool runs one statement; a second one follows this `;`".into(),
                hint: "keep one SELECT (use a CTE, `WITH ... SELECT`, to combine steps)".into(),
            });
        }
        if backend == Backend::Postgres
            && let Some(end) = toolforge::__private::postgres_quoted_end(text, i)
        {
            i = end.map_err(|closer| SqlProblem {
                span: start..text.len(),
                message: if c == b'$' {
                    "this dollar-quoted text is never closed".into()
                } else {
                    "this quoted text is never closed".into()
                },
                hint: format!("close it with {closer}"),
            })?;
            out.push_str(&text[start..i]);
            previous_dot = false;
            continue;
        }
        match c {
            b'\'' | b'"' | b'`' => {
                i = skip_quoted(bytes, i, c).ok_or_else(|| SqlProblem {
                    span: start..text.len(),
                    message: "this quoted text is never closed".into(),
                    hint: format!("close it with {}", c as char),
                })?;
                if c != b'\'' {
                    check_qualified(text, start..i, previous_dot, tables)?;
                }
                out.push_str(&text[start..i]);
                previous_dot = false;
                continue;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                i = text[i..].find('\n').map_or(text.len(), |n| i + n);
                out.push_str(&text[start..i]);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map(|n| i + 2 + n + 2)
                    .ok_or_else(|| SqlProblem {
                        span: start..text.len(),
                        message: "this comment is never closed".into(),
                        hint: "close it with */".into(),
                    })?;
                out.push_str(&text[start..i]);
                continue;
            }
            b'[' if backend == Backend::Sqlite => {
                i = text[i..]
                    .find(']')
                    .map(|n| i + n + 1)
                    .ok_or_else(|| SqlProblem {
                        span: start..text.len(),
                        message: "this bracketed name is never closed".into(),
                        hint: "close it with ]".into(),
                    })?;
                check_qualified(text, start..i, previous_dot, tables)?;
                out.push_str(&text[start..i]);
                previous_dot = false;
                continue;
            }
            b':' if bytes.get(i + 1) == Some(&b':') => {
                out.push_str("::");
                i += 2;
                previous_dot = false;
                continue;
            }
            b':' if bytes.get(i + 1).is_some_and(|b| is_ident_start(*b)) => {
                let name_end = ident_end(bytes, i + 1);
                let name = &text[i + 1..name_end];
                let Some(position) = parameters.iter().position(|p| p.name == name) else {
                    let names: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
                    return Err(SqlProblem {
                        span: i..name_end,
                        message: format!("`:{name}` is not a declared parameter"),
                        hint: crate::report::suggestion(name, names.iter().copied(), "parameters"),
                    });
                };
                if !used.contains(&position) {
                    used.push(position);
                }
                out.push_str(&placeholder(position, parameters[position].ty, backend));
                i = name_end;
                previous_dot = false;
                continue;
            }
            b'?' | b'$' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) || c == b'?' => {
                return Err(SqlProblem {
                    span: i..i + 1,
                    message: "positional placeholders are not taken here".into(),
                    hint: "name each value: declare it under `parameters` and write `:name`".into(),
                });
            }
            b';' => {
                end_of_statement.get_or_insert(i);
                i += 1;
                continue;
            }
            _ if is_ident_start(c) => {
                let end = ident_end(bytes, i);
                if first_word.is_none() {
                    first_word = Some(i..end);
                }
                check_qualified(text, i..end, previous_dot, tables)?;
                out.push_str(&text[i..end]);
                i = end;
                previous_dot = false;
                continue;
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            if first_word.is_none() && c != b'(' {
                first_word = Some(i..i + 1);
            }
            previous_dot = c == b'.';
        }
        let width = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + width]);
        i += width;
    }
    let Some(first) = first_word else {
        return Err(SqlProblem {
            span: 0..0,
            message: "the statement is empty".into(),
            hint: "write one SELECT statement".into(),
        });
    };
    let word = text[first.clone()].to_ascii_uppercase();
    if !READ_STARTS.contains(&word.as_str()) {
        return Err(SqlProblem {
            span: first,
            message: format!("a `sql:` tool only reads, and `{word}` does not start a query"),
            hint: "start with SELECT, WITH or VALUES".into(),
        });
    }
    let sql = out.trim_end().trim_end_matches(';').trim_end().to_owned();
    Ok(BoundSql { sql, used })
}

/// A parameter's placeholder: `?N`, on PostgreSQL with its type said (the server cannot
/// infer one in `:a + 1`).
fn placeholder(position: usize, ty: ParameterType, backend: Backend) -> String {
    let n = position + 1;
    match backend {
        Backend::Sqlite => format!("?{n}"),
        Backend::Postgres => {
            let ty = match ty {
                ParameterType::Number => "DOUBLE PRECISION",
                ParameterType::Integer => "BIGINT",
                ParameterType::Boolean => "BOOLEAN",
                ParameterType::String | ParameterType::Datetime => "TEXT",
                ParameterType::StringArray | ParameterType::NumberArray | ParameterType::Point => {
                    "JSONB"
                }
            };
            format!("CAST(?{n} AS {ty})")
        }
    }
}

/// Refuses `schema.table` where `table` (the name at `span`, maybe quoted) is one of the
/// config's tables: row rules are views named like the tables, which a qualified name reads
/// around.
fn check_qualified(
    text: &str,
    span: Range<usize>,
    previous_dot: bool,
    tables: &[String],
) -> Result<(), SqlProblem> {
    if !previous_dot {
        return Ok(());
    }
    let raw = &text[span.clone()];
    let name = raw
        .trim_matches(|c| matches!(c, '"' | '`' | '[' | ']'))
        .to_ascii_lowercase();
    if tables
        .iter()
        .any(|table| table.to_ascii_lowercase() == name)
    {
        return Err(SqlProblem {
            span,
            message: format!("`{raw}` is qualified by a schema"),
            hint: format!("write the table's plain name, `{name}`: row rules apply to it"),
        });
    }
    Ok(())
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn ident_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        i += 1;
    }
    i
}

/// The index just past the quoted text opened at `start` by `quote` (a doubled quote is part
/// of the text), or `None` when it never closes.
fn skip_quoted(bytes: &[u8], start: usize, quote: u8) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, ty: ParameterType) -> ParameterSpec {
        ParameterSpec {
            name: name.into(),
            ty,
            description: None,
            required: true,
            default: None,
            allowed: vec![],
            min: None,
            max: None,
            pattern: None,
            from_context: None,
        }
    }

    fn bind(text: &str, backend: Backend) -> Result<BoundSql, SqlProblem> {
        let params = [
            param("before", ParameterType::Datetime),
            param("n", ParameterType::Integer),
        ];
        bind_parameters(text, &params, &["loan".to_owned()], backend)
    }

    #[test]
    fn parameters_become_numbered_placeholders_outside_quotes_and_comments() {
        let bound = bind(
            "SELECT ':before', \"a:n\", x::text -- :n\n FROM loan WHERE due_at < :before AND k = :n;",
            Backend::Sqlite,
        )
        .unwrap();
        assert_eq!(
            bound.sql,
            "SELECT ':before', \"a:n\", x::text -- :n\n FROM loan WHERE due_at < ?1 AND k = ?2"
        );
        assert_eq!(bound.used, [0, 1]);
        let pg = bind("SELECT :n + 1", Backend::Postgres).unwrap();
        assert_eq!(pg.sql, "SELECT CAST(?2 AS BIGINT) + 1");
        assert_eq!(pg.used, [1]);
    }

    #[test]
    fn what_cannot_be_one_bound_read_is_refused_at_its_place() {
        let cases = [
            ("SELECT :nope", 7..12, "not a declared parameter"),
            ("SELECT 1; DELETE FROM loan", 8..9, "one statement"),
            ("DELETE FROM loan", 0..6, "only reads"),
            ("PRAGMA query_only=0", 0..6, "only reads"),
            ("ATTACH 'x.db' AS x", 0..6, "only reads"),
            ("SELECT * FROM main.loan", 19..23, "qualified"),
            ("SELECT * FROM public.\"loan\"", 21..27, "qualified"),
            ("SELECT ?1", 7..8, "positional"),
            ("SELECT $1", 7..8, "positional"),
            ("SELECT 'open", 7..12, "never closed"),
            ("  -- nothing\n", 0..0, "empty"),
        ];
        for (text, span, words) in cases {
            let problem = bind(text, Backend::Sqlite).unwrap_err();
            assert_eq!(problem.span, span, "{text}: {problem:?}");
            assert!(problem.message.contains(words), "{text}: {problem:?}");
        }
        let sqlite_brackets = [
            (
                "SELECT [a:b] FROM loan WHERE k = :n",
                Ok("SELECT [a:b] FROM loan WHERE k = ?2"),
            ),
            ("SELECT * FROM main.[loan]", Err(19..25)),
            ("SELECT [open FROM loan", Err(7..22)),
        ];
        let postgres_quotes = [
            (
                "SELECT $$a ; :n ?$$, $q$it's$q$ FROM loan WHERE k = :n",
                Ok("SELECT $$a ; :n ?$$, $q$it's$q$ FROM loan WHERE k = CAST(?2 AS BIGINT)"),
            ),
            (
                "SELECT E'it\\'s :n', e'a''b' FROM loan",
                Ok("SELECT E'it\\'s :n', e'a''b' FROM loan"),
            ),
            ("SELECT $tag$ never", Err(7..18)),
            ("SELECT a$b$ FROM loan", Ok("SELECT a$b$ FROM loan")),
            ("SELECT $1", Err(7..8)),
        ];
        for (cases, backend) in [
            (&sqlite_brackets[..], Backend::Sqlite),
            (&postgres_quotes[..], Backend::Postgres),
        ] {
            for (text, expected) in cases {
                match (bind(text, backend), expected) {
                    (Ok(bound), Ok(sql)) => assert_eq!(&bound.sql, sql, "{text}"),
                    (Err(problem), Err(span)) => assert_eq!(&problem.span, span, "{text}"),
                    (got, _) => panic!("{text}: {got:?}, expected {expected:?}"),
                }
            }
        }
        // A trailing `;` (and comments after it) is fine; so is a qualified column.
        assert!(bind("SELECT l.due_at FROM loan l; -- done", Backend::Sqlite).is_ok());
        assert!(bind("WITH x AS (SELECT 1) SELECT * FROM x", Backend::Sqlite).is_ok());
    }
}
