//! SQL emission from the typed tree, for SQLite and for PostgreSQL.
//!
//! The semantics it implements are listed in the documentation of the `expr` module.

use super::ast::{ATOM_PRECEDENCE, BinOp, IS_NULL_PRECEDENCE, NEG_PRECEDENCE, NOT_PRECEDENCE};
use super::check::{Aggregate, EdgePath, TKind, Ty, Typed};
use super::functions::{AggFunc, Builtin};

/// How columns of the row are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `"n"."column"`: for queries over the row alias `n`.
    Row,
    /// `"column"`: for a generated column; only row-local expressions can be written so.
    Bare,
}

/// The SQL dialect an expression is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// SQLite (what `sql` fields hold).
    Sqlite,
    /// PostgreSQL (what `postgres_sql` fields hold).
    Postgres,
}

/// Quotes an SQL identifier.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Quotes an SQL string literal.
pub(crate) fn quote_str(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// The SQL of `typed` as a self-contained expression (parenthesised unless atomic), or `None`
/// in [`Mode::Bare`] when the expression is not row-local.
pub(crate) fn to_sql(typed: &Typed, mode: Mode) -> Option<String> {
    to_sql_in(typed, mode, Dialect::Sqlite)
}

/// [`to_sql`] in `dialect`.
pub(crate) fn to_sql_in(typed: &Typed, mode: Mode, dialect: Dialect) -> Option<String> {
    let (text, prec) = emit(typed, mode, dialect)?;
    Some(if prec < ATOM_PRECEDENCE {
        format!("({text})")
    } else {
        text
    })
}

/// A fragment and its precedence.
type Frag = (String, u8);

fn wrap((text, _): Frag, needs_parens: bool) -> String {
    if needs_parens {
        format!("({text})")
    } else {
        text
    }
}

/// The operand's text, in parentheses when it binds more loosely than `min` allows.
fn operand(typed: &Typed, mode: Mode, min: u8, dialect: Dialect) -> Option<String> {
    let frag = emit(typed, mode, dialect)?;
    let needs = frag.1 < min;
    Some(wrap(frag, needs))
}

fn emit(typed: &Typed, mode: Mode, dialect: Dialect) -> Option<Frag> {
    let atom = |text: String| Some((text, ATOM_PRECEDENCE));
    match &typed.kind {
        TKind::Column(name) => atom(match mode {
            Mode::Row => format!("\"n\".{}", quote_ident(name)),
            Mode::Bare => quote_ident(name),
        }),
        TKind::Inline {
            sql,
            row_local,
            postgres,
        } => match (mode, dialect) {
            (Mode::Row, Dialect::Sqlite) => atom(sql.clone()),
            (Mode::Row, Dialect::Postgres) => atom(postgres.clone()),
            (Mode::Bare, Dialect::Sqlite) => atom(row_local.clone()?),
            (Mode::Bare, Dialect::Postgres) => None,
        },
        TKind::Int(value) => atom(value.to_string()),
        TKind::Real(value) => atom(format!("{value:?}")),
        TKind::Str(value) => atom(quote_str(value)),
        TKind::Bool(value) => atom(
            match (dialect, *value) {
                (Dialect::Sqlite, true) => "1",
                (Dialect::Sqlite, false) => "0",
                (Dialect::Postgres, true) => "TRUE",
                (Dialect::Postgres, false) => "FALSE",
            }
            .to_owned(),
        ),
        TKind::Null => atom("NULL".to_owned()),
        TKind::Neg(inner) => {
            let frag = emit(inner, mode, dialect)?;
            // `--` would start an SQL comment.
            let needs = frag.1 < NEG_PRECEDENCE || frag.0.starts_with('-');
            Some((format!("-{}", wrap(frag, needs)), NEG_PRECEDENCE))
        }
        TKind::Not(inner) => Some((
            format!("NOT {}", operand(inner, mode, NOT_PRECEDENCE, dialect)?),
            NOT_PRECEDENCE,
        )),
        TKind::IsNull {
            operand: inner,
            negated,
        } => {
            let text = operand(inner, mode, IS_NULL_PRECEDENCE + 1, dialect)?;
            let not = if *negated { "NOT " } else { "" };
            Some((format!("{text} IS {not}NULL"), IS_NULL_PRECEDENCE))
        }
        TKind::Binary(op, left, right) => {
            let prec = op.precedence();
            // Comparisons do not chain; the right side of every operator needs parentheses at
            // equal precedence (`a - (b - c)`).
            let left_min = if op.is_comparison() { prec + 1 } else { prec };
            let right_text = operand(right, mode, prec + 1, dialect)?;
            let text = match (op, dialect) {
                (BinOp::Div, Dialect::Sqlite) => {
                    let left_text = emit(left, mode, dialect)?.0;
                    format!("CAST({left_text} AS REAL) / {right_text}")
                }
                // SQLite's x / 0 and x % 0 are NULL; PostgreSQL's are errors.
                (BinOp::Div, Dialect::Postgres) => {
                    let left_text = emit(left, mode, dialect)?.0;
                    let right_text = emit(right, mode, dialect)?.0;
                    format!("CAST({left_text} AS DOUBLE PRECISION) / NULLIF({right_text}, 0)")
                }
                // SQLite's % works on the integer parts; PostgreSQL has no % for reals.
                (BinOp::Rem, Dialect::Postgres) => {
                    let left_text = emit(left, mode, dialect)?.0;
                    let right_text = emit(right, mode, dialect)?.0;
                    return Some((
                        format!(
                            "mod(CAST(trunc({left_text}) AS BIGINT), NULLIF(CAST(trunc({right_text}) AS BIGINT), 0))"
                        ),
                        ATOM_PRECEDENCE,
                    ));
                }
                _ => format!(
                    "{} {} {right_text}",
                    operand(left, mode, left_min, dialect)?,
                    op.symbol()
                ),
            };
            Some((text, prec))
        }
        TKind::Call(builtin, args) => call(*builtin, args, mode, dialect),
        TKind::Aggregate(aggregate) => match mode {
            Mode::Row => atom(aggregate_sql(aggregate)),
            Mode::Bare => None,
        },
        // PostgreSQL infers a parameter's type from where it stands, which fails or guesses
        // wrong in expressions such as `:a + 1`: the type is said.
        TKind::Param(index) => atom(match dialect {
            Dialect::Sqlite => format!("?{}", index + 1),
            Dialect::Postgres => {
                let ty = match typed.ty {
                    Ty::Number => "DOUBLE PRECISION",
                    Ty::Boolean => "BOOLEAN",
                    // Lists and places travel as JSON, as their columns are stored.
                    Ty::StringArray | Ty::NumberArray | Ty::Point => "JSONB",
                    _ => "TEXT",
                };
                format!("CAST(?{} AS {ty})", index + 1)
            }
        }),
        TKind::Context(name) => atom(context_value_sql(name, dialect)),
    }
}

fn call(builtin: Builtin, args: &[Typed], mode: Mode, dialect: Dialect) -> Option<Frag> {
    let texts: Vec<String> = args
        .iter()
        .map(|arg| emit(arg, mode, dialect).map(|frag| frag.0))
        .collect::<Option<_>>()?;
    if dialect == Dialect::Postgres {
        return postgres_call(builtin, &texts, mode);
    }
    let list = texts.join(", ");
    let atom = |text: String| Some((text, ATOM_PRECEDENCE));
    let comparison = |text: String| Some((text, 4));
    match builtin {
        Builtin::Length => atom(format!("length({list})")),
        Builtin::ArrayLength => atom(format!("json_array_length({list})")),
        Builtin::Lower => atom(format!("lower({list})")),
        Builtin::Upper => atom(format!("upper({list})")),
        Builtin::Trim => atom(format!("trim({list})")),
        Builtin::Coalesce => atom(format!("coalesce({list})")),
        Builtin::Abs => atom(format!("abs({list})")),
        Builtin::Round => atom(format!("round({list})")),
        Builtin::Least => atom(format!("min({list})")),
        Builtin::Greatest => atom(format!("max({list})")),
        Builtin::Now => match mode {
            Mode::Row => atom("strftime('%Y-%m-%dT%H:%M:%SZ', 'now')".to_owned()),
            Mode::Bare => None,
        },
        Builtin::DaysBetween => {
            let (a, b) = (&texts[0], &texts[1]);
            atom(format!("CAST(julianday({b}) - julianday({a}) AS INTEGER)"))
        }
        Builtin::YearsBetween => {
            let (a, b) = (&texts[0], &texts[1]);
            let year = |x: &str| format!("CAST(strftime('%Y', {x}) AS INTEGER)");
            let rest = |x: &str| format!("strftime('%m-%d %H:%M:%f', {x})");
            atom(format!(
                "CASE WHEN julianday({b}) >= julianday({a}) THEN {yb} - {ya} - ({rb} < {ra}) ELSE -({ya} - {yb} - ({ra} < {rb})) END",
                ya = year(a),
                yb = year(b),
                ra = rest(a),
                rb = rest(b),
            ))
        }
        Builtin::Concat => concat(&texts),
        Builtin::Contains => comparison(format!("instr({}, {}) > 0", texts[0], texts[1])),
        Builtin::ArrayContains => match mode {
            Mode::Row => atom(format!(
                "EXISTS (SELECT 1 FROM json_each({}) AS j WHERE j.\"value\" = {})",
                texts[0], texts[1]
            )),
            Mode::Bare => None,
        },
        Builtin::StartsWith => {
            let (s, p) = (&texts[0], &texts[1]);
            comparison(format!("substr({s}, 1, length({p})) = {p}"))
        }
        Builtin::EndsWith => {
            let (s, p) = (&texts[0], &texts[1]);
            comparison(format!("substr({s}, length({s}) - length({p}) + 1) = {p}"))
        }
    }
}

/// The correlated subquery of a relationship aggregate over the row alias `n`.
/// A function call in PostgreSQL's spelling, with SQLite's meaning.
/// `concat(a, b, ...)`: the texts joined, a missing one counting as empty (the same SQL in
/// both dialects).
fn concat(texts: &[String]) -> Option<Frag> {
    let parts: Vec<String> = texts
        .iter()
        .map(|text| format!("coalesce({text}, '')"))
        .collect();
    if parts.len() == 1 {
        Some((parts.join(""), ATOM_PRECEDENCE))
    } else {
        Some((parts.join(" || "), BinOp::Concat.precedence()))
    }
}

fn postgres_call(builtin: Builtin, texts: &[String], mode: Mode) -> Option<Frag> {
    let list = texts.join(", ");
    let atom = |text: String| Some((text, ATOM_PRECEDENCE));
    let comparison = |text: String| Some((text, 4));
    let time = |x: &str| format!("(CAST({x} AS TIMESTAMPTZ) AT TIME ZONE 'UTC')");
    match builtin {
        Builtin::Length => atom(format!("length({list})")),
        Builtin::ArrayLength => atom(format!("jsonb_array_length({list})")),
        Builtin::Lower => atom(format!("lower({list})")),
        Builtin::Upper => atom(format!("upper({list})")),
        Builtin::Trim => atom(format!("trim({list})")),
        Builtin::Coalesce => atom(format!("coalesce({list})")),
        Builtin::Abs => atom(format!("abs({list})")),
        Builtin::Round => match texts {
            [x] => atom(format!("round(CAST({x} AS NUMERIC))")),
            [x, digits] => atom(format!(
                "round(CAST({x} AS NUMERIC), CAST({digits} AS INTEGER))"
            )),
            _ => None,
        },
        Builtin::Least => atom(format!("LEAST({list})")),
        Builtin::Greatest => atom(format!("GREATEST({list})")),
        Builtin::Now => match mode {
            Mode::Row => atom(
                "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')".to_owned(),
            ),
            Mode::Bare => None,
        },
        Builtin::DaysBetween => {
            let (a, b) = (&texts[0], &texts[1]);
            atom(format!(
                "CAST(trunc(EXTRACT(EPOCH FROM ({} - {})) / 86400) AS BIGINT)",
                time(b),
                time(a)
            ))
        }
        Builtin::YearsBetween => {
            let (a, b) = (&texts[0], &texts[1]);
            atom(format!(
                "CAST(EXTRACT(YEAR FROM age({}, {})) AS BIGINT)",
                time(b),
                time(a)
            ))
        }
        Builtin::Concat => concat(texts),
        Builtin::Contains => comparison(format!("strpos({}, {}) > 0", texts[0], texts[1])),
        Builtin::ArrayContains => match mode {
            Mode::Row => atom(format!("({} @> jsonb_build_array({}))", texts[0], texts[1])),
            Mode::Bare => None,
        },
        Builtin::StartsWith => {
            let (s, p) = (&texts[0], &texts[1]);
            comparison(format!("left({s}, length({p})) = {p}"))
        }
        Builtin::EndsWith => {
            let (s, p) = (&texts[0], &texts[1]);
            comparison(format!("right({s}, length({p})) = {p}"))
        }
    }
}

fn aggregate_sql(aggregate: &Aggregate) -> String {
    let value = |table_alias: &str| match &aggregate.column {
        Some(column) => format!("{table_alias}.{}", quote_ident(column)),
        None => "*".to_owned(),
    };
    let function = |value: String| match aggregate.func {
        AggFunc::Sum => format!("coalesce(sum({value}), 0)"),
        AggFunc::Count | AggFunc::Avg | AggFunc::Min | AggFunc::Max => {
            format!("{}({value})", aggregate.func.name())
        }
    };
    if let Some((entity, unique_field)) = &aggregate.change_log {
        return format!(
            "(SELECT {} FROM {} AS c WHERE c.\"entity\" = {} AND c.\"record_id\" = \"n\".{})",
            function(value("c")),
            quote_ident(toolforge::spec::CHANGES_TABLE),
            string_literal(entity),
            quote_ident(unique_field)
        );
    }
    match aggregate.paths.as_slice() {
        [path] => format!("(SELECT {} FROM {})", function(value("t")), join(path)),
        paths => {
            let selected = match &aggregate.column {
                Some(_) => format!("{} AS v", value("t")),
                None => "1 AS v".to_owned(),
            };
            let branches: Vec<String> = paths
                .iter()
                .map(|path| format!("SELECT {selected} FROM {}", join(path)))
                .collect();
            let outer = match &aggregate.column {
                Some(_) => function("u.v".to_owned()),
                None => function("*".to_owned()),
            };
            format!(
                "(SELECT {outer} FROM ({}) AS u)",
                branches.join(" UNION ALL ")
            )
        }
    }
}

/// `edge AS e JOIN target AS t ON ... WHERE ...` for one edge table.
fn join(path: &EdgePath) -> String {
    let (near, far) = if path.incoming {
        ("target_id", "source_id")
    } else {
        ("source_id", "target_id")
    };
    format!(
        "{} AS e JOIN {} AS t ON t.{} = e.{} WHERE e.{} = \"n\".{}",
        quote_ident(&path.edge_table),
        quote_ident(&path.target_table),
        quote_ident(&path.target_key),
        quote_ident(far),
        quote_ident(near),
        quote_ident(&path.this_key),
    )
}

/// `'text'` with quotes doubled.
fn string_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// How a row rule reads the call's context value `name`: on SQLite the connection's
/// `toolforge_context(name)` function, on PostgreSQL the session setting
/// `toolforge.ctx_<name>` (an empty setting is a missing value). Both are NULL when the call
/// has no such value.
pub(crate) fn context_value_sql(name: &str, dialect: Dialect) -> String {
    let literal = name.replace('\'', "''");
    match dialect {
        Dialect::Sqlite => format!("toolforge_context('{literal}')"),
        Dialect::Postgres => format!(
            "NULLIF(current_setting('toolforge.ctx_{}', true), '')",
            literal.to_ascii_lowercase()
        ),
    }
}
