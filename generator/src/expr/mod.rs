//! The computed-field expression language: parse, type-check and compile to SQLite SQL.
//!
//! A computed field's body is one of an `expression:` in the small typed language of
//! DESIGN.md, a `cypher:` single-hop aggregate pattern (translated), or a trusted raw `sql:`
//! fragment. [`compile_computed_fields`] compiles all computed fields of one entity at once, so
//! references between computed fields are resolved (inlined) and cycles reported.
//!
//! The language (all keywords and function names case-insensitive):
//! - literals: numbers, `'single'` or `"double"` quoted strings (`''` or `\'` for a quote),
//!   `true`, `false`, `null`;
//! - names: stored fields and other computed fields of the entity (inlined, in parentheses);
//!   odd names in backticks (`` `my field` ``);
//! - `+ - * / %` on numbers (`/` is real division), unary `-`, `||` joins text;
//!   comparisons `= == != <> < <= > >=`, `AND`, `OR`, `NOT`, `IS [NOT] NULL`, parentheses;
//! - functions: `length`, `lower`, `upper`, `trim`, `coalesce`, `abs`, `round(x [, digits])`,
//!   `least`, `greatest`, `now()`, `days_between(a, b)`, `years_between(a, b)`, `concat(...)`,
//!   `contains(s, part)` (also on arrays), `starts_with`, `ends_with`; `x.f(args)` is
//!   `f(x, args)` and `x.length` is `length(x)` (`json_array_length` on arrays);
//! - relationship aggregates: `count(REL)`, `count(REL.field)`, `sum|avg|min|max(REL.field)`
//!   over the relationships starting at the entity, `<-REL` to follow one backwards.
//!
//! SQL semantics, where SQL and the language could differ:
//! - `/` is real division (`CAST(a AS REAL) / b`): `7 / 2` is `3.5`; division by zero is null.
//!   `%` is SQLite's remainder (on the integer parts of its operands).
//! - Booleans are `1`/`0`; comparisons, `AND`, `OR` and `NOT` yield `1`/`0` (or null).
//!   Comparing with the `null` literal is a type error (use `IS NULL`).
//! - `concat(a, ...)` treats null as empty text; `a || b` is null when either side is null.
//! - `days_between(a, b)` is the whole days from `a` to `b`, `years_between(a, b)` the whole
//!   calendar years, both truncated toward zero and negative when `b` is earlier.
//! - `count(REL)` counts the edges whose other end exists (as Cypher's `count(x)` over
//!   `OPTIONAL MATCH (n)-[:REL]->(x)` does); `sum(...)` of no related records is `0`,
//!   `avg`/`min`/`max` of none are null. A relationship type leading to several entities is
//!   aggregated over all of them.
//! - `least`/`greatest` are SQLite's scalar `min`/`max`: null when any argument is null.
//!
//! `row_local_sql` is `None` for expressions using aggregates, `now()`, `contains` on arrays
//! (a subquery), `sql:` bodies, or computed fields that are not row-local themselves.

use std::ops::Range;

use toolforge::spec::{EntitySpec, SchemaSpec, ValueType};

mod ast;
mod check;
mod clause;
mod cypher;
mod deps;
mod error;
mod field;
mod functions;
mod lexer;
mod parser;
mod sql;

use ast::Expr;
use check::{Env, Ty};

pub use clause::{
    CompiledClause, CompiledOrderItem, CompiledRule, ParamSource,
    compile_condition as compile_declared_condition, compile_order as compile_declared_order,
    compile_rule,
};
pub use error::{ExprError, ExprErrorKind};
pub use field::{CompiledField, ComputedBody, ComputedSource, MAX_SQL_LEN};
pub use parser::MAX_DEPTH;

/// Compiles every computed field of `entity` (an entity of `schema`, whose stored fields and
/// relationships are filled in) in declaration order. One result per input, same order.
///
/// ```
/// use toolforge::spec::{EntitySpec, FieldSpec, FieldType, SchemaSpec, ToolOptions, ValueType};
/// use toolforge_generator::__private::expr::{ComputedBody, ComputedSource, compile_computed_fields};
///
/// let field = |name: &str, ty| FieldSpec {
///     column: None,
///     name: name.into(), ty, description: None, indexed: false, unique: name == "uuid", values: vec![],
/// };
/// let scope = EntitySpec {
///     source: None,
///     name: "Scope".into(), table: "scope".into(), description: None, unique_field: "uuid".into(),
///     display_name_field: None, query_field: None, content_field: None,
///     example_display_fields: vec![], computed_fields: vec![], vector_indexes: vec![], hierarchy: None, full_text: None, change_tracking: None,
///     fields: vec![field("uuid", FieldType::String), field("startLine", FieldType::Number),
///                  field("endLine", FieldType::Number)],
/// };
/// let schema = SchemaSpec {
///     name: "demo".into(), description: None, entities: vec![scope], relationships: vec![],
///     tools: ToolOptions::default(), mcp: Default::default(), embedding: None, change_log: None, declared_tools: vec![], access: vec![],
/// };
/// let fields = [
///     ComputedSource { name: "line_count", declared_type: "number",
///                      body: ComputedBody::Expression("endLine - startLine + 1") },
///     ComputedSource { name: "is_large", declared_type: "boolean",
///                      body: ComputedBody::Expression("line_count > 100") },
/// ];
/// let results = compile_computed_fields(&schema, "Scope", &fields);
/// let is_large = results[1].as_ref().unwrap();
/// assert_eq!(is_large.ty, ValueType::Boolean);
/// assert_eq!(is_large.sql, r#"(("n"."endLine" - "n"."startLine" + 1) > 100)"#);
/// assert_eq!(is_large.row_local_sql.as_deref(), Some(r#"(("endLine" - "startLine" + 1) > 100)"#));
/// ```
pub fn compile_computed_fields(
    schema: &SchemaSpec,
    entity: &str,
    fields: &[ComputedSource<'_>],
) -> Vec<Result<CompiledField, ExprError>> {
    let Some(spec) = schema.entity(entity) else {
        return fields
            .iter()
            .map(|field| {
                Err(ExprError {
                    field: field.name.to_owned(),
                    kind: ExprErrorKind::UnknownName,
                    message: format!("entity `{entity}` is not in the schema"),
                    hint: None,
                    span: 0..0,
                })
            })
            .collect();
    };
    let prepared: Vec<Prepared> = fields
        .iter()
        .map(|field| prepare(schema, spec, field))
        .collect();
    let lookup = |name: &str| {
        if spec.field(name).is_some() {
            None
        } else {
            fields.iter().position(|field| field.name == name)
        }
    };
    let uses: Vec<Vec<(usize, Range<usize>)>> = prepared
        .iter()
        .map(|prepared| match prepared {
            Prepared::Expr { expr, .. } => deps::references(expr, &lookup),
            _ => Vec::new(),
        })
        .collect();
    let plain_uses: Vec<Vec<usize>> = uses
        .iter()
        .map(|used| used.iter().map(|(index, _)| *index).collect())
        .collect();
    let order = deps::order(&plain_uses);

    let mut results: Vec<(String, Option<Result<CompiledField, ExprError>>)> = fields
        .iter()
        .map(|field| (field.name.to_owned(), None))
        .collect();
    let span_of_use = |user: usize, used: usize| {
        uses[user]
            .iter()
            .find(|(index, _)| *index == used)
            .map_or(0..0, |(_, span)| span.clone())
    };
    for (index, cycle) in &order.cycles {
        let names: Vec<&str> = cycle.iter().map(|&at| fields[at].name).collect();
        let first_use = cycle.get(1).copied().unwrap_or(*index);
        results[*index].1 = Some(Err(ExprError {
            field: fields[*index].name.to_owned(),
            kind: ExprErrorKind::Cycle,
            message: format!(
                "computed fields refer to each other in a cycle: {}",
                names.join(" -> ")
            ),
            hint: Some(
                "break the cycle: one of these fields must be computed from stored fields only"
                    .to_owned(),
            ),
            span: span_of_use(*index, first_use),
        }));
    }
    for (index, used) in &order.blocked {
        results[*index].1 = Some(Err(ExprError {
            field: fields[*index].name.to_owned(),
            kind: ExprErrorKind::Cycle,
            message: format!(
                "computed field `{}` used here depends on a cycle of computed fields",
                fields[*used].name
            ),
            hint: Some(format!(
                "break the cycle that `{}` is part of",
                fields[*used].name
            )),
            span: span_of_use(*index, *used),
        }));
    }
    for &index in &order.order {
        let result = compile_one(schema, spec, &fields[index], &prepared[index], &results);
        results[index].1 = Some(result);
    }
    results
        .into_iter()
        .zip(fields)
        .map(|((_, result), field)| {
            result.unwrap_or_else(|| {
                Err(ExprError {
                    field: field.name.to_owned(),
                    kind: ExprErrorKind::Cycle,
                    message: "the field could not be ordered among the computed fields".to_owned(),
                    hint: None,
                    span: 0..0,
                })
            })
        })
        .collect()
}

/// A body after parsing (or translation), before name resolution.
enum Prepared<'a> {
    Expr {
        expr: Expr,
        text: &'a str,
        source: String,
        from_cypher: bool,
    },
    Sql(String),
    Failed(ExprError),
}

fn prepare<'a>(
    schema: &SchemaSpec,
    entity: &EntitySpec,
    field: &ComputedSource<'a>,
) -> Prepared<'a> {
    match field.body {
        ComputedBody::Expression(text) => match parser::parse(text) {
            Ok(expr) => Prepared::Expr {
                expr,
                text,
                source: text.trim().to_owned(),
                from_cypher: false,
            },
            Err(error) => Prepared::Failed(ExprError {
                field: field.name.to_owned(),
                kind: ExprErrorKind::Syntax,
                message: error.message,
                hint: error.hint,
                span: error.span,
            }),
        },
        ComputedBody::Cypher(text) => match cypher::translate(text, schema, entity, field.name) {
            Ok(expr) => {
                let source = expr.to_string();
                Prepared::Expr {
                    expr,
                    text,
                    source,
                    from_cypher: true,
                }
            }
            Err(error) => Prepared::Failed(error),
        },
        ComputedBody::Sql(text) => {
            if text.trim().is_empty() {
                Prepared::Failed(ExprError {
                    field: field.name.to_owned(),
                    kind: ExprErrorKind::Syntax,
                    message: "the `sql:` body is empty".to_owned(),
                    hint: Some("write an SQLite expression over the row alias `n`".to_owned()),
                    span: 0..0,
                })
            } else {
                Prepared::Sql(text.trim().to_owned())
            }
        }
    }
}

/// The declared type, when it is one of the four value types.
fn declared_type(declared: &str) -> Option<ValueType> {
    Some(match declared.trim().to_ascii_lowercase().as_str() {
        "string" => ValueType::String,
        "number" => ValueType::Number,
        "boolean" => ValueType::Boolean,
        "datetime" => ValueType::Datetime,
        _ => return None,
    })
}

fn compile_one(
    schema: &SchemaSpec,
    entity: &EntitySpec,
    field: &ComputedSource<'_>,
    prepared: &Prepared<'_>,
    computed: &[(String, Option<Result<CompiledField, ExprError>>)],
) -> Result<CompiledField, ExprError> {
    let declared = declared_type(field.declared_type);
    let (expr, text, source, from_cypher) = match prepared {
        Prepared::Failed(error) => return Err(error.clone()),
        Prepared::Sql(sql) => {
            return Ok(CompiledField {
                name: field.name.to_owned(),
                ty: declared.unwrap_or(ValueType::String),
                sql: format!("({sql})"),
                row_local_sql: None,
                postgres_sql: None,
                source: sql.clone(),
            });
        }
        Prepared::Expr {
            expr,
            text,
            source,
            from_cypher,
        } => (expr, *text, source, *from_cypher),
    };
    let env = Env {
        schema,
        entity,
        field: field.name,
        text,
        computed,
        from_cypher,
        params: None,
        context: false,
    };
    let error = |kind, message: String, hint: Option<String>, span: Range<usize>| ExprError {
        field: field.name.to_owned(),
        kind,
        message,
        hint,
        span,
    };
    let typed = env.check(expr).map_err(|mut error| {
        if from_cypher && error.kind == ExprErrorKind::UntranslatableCypher {
            error.message = format!(
                "the Cypher of computed field `{}` cannot be translated to SQL: {}",
                field.name, error.message
            );
        }
        error
    })?;
    let whole = if from_cypher {
        expr.span.clone()
    } else {
        let start = text.len() - text.trim_start().len();
        start..text.trim_end().len().max(start)
    };
    let ty = match (typed.ty, declared) {
        (Ty::StringArray | Ty::NumberArray | Ty::Point, _) => {
            return Err(error(
                ExprErrorKind::Type,
                format!(
                    "the expression gives {}, but a computed field must be a single value",
                    typed.ty
                ),
                Some("use `length(x)` or `contains(x, value)`".to_owned()),
                whole,
            ));
        }
        (Ty::Null, declared) => declared.unwrap_or(ValueType::String),
        (Ty::String, _) => ValueType::String,
        (Ty::Number, _) => ValueType::Number,
        (Ty::Boolean, _) => ValueType::Boolean,
        (Ty::Datetime, _) => ValueType::Datetime,
    };
    if let Some(declared) = declared
        && declared != ty
    {
        let inferred = Ty::of_value(ty);
        let mut hint = format!("declare `type: {}`", inferred.name());
        if declared == ValueType::Boolean && ty == ValueType::Number {
            hint.push_str(", or compare the value, for example `... > 0`");
        }
        return Err(error(
            ExprErrorKind::Type,
            format!(
                "`{}` is declared `{}`, but its expression gives {inferred}",
                field.name,
                Ty::of_value(declared).name()
            ),
            Some(hint),
            whole,
        ));
    }
    let sql = sql::to_sql(&typed, sql::Mode::Row).ok_or_else(|| {
        error(
            ExprErrorKind::Type,
            "the expression has no SQL form".to_owned(),
            None,
            whole.clone(),
        )
    })?;
    if sql.len() > MAX_SQL_LEN {
        return Err(error(
            ExprErrorKind::Syntax,
            format!(
                "the compiled SQL is too large ({} bytes, the limit is {MAX_SQL_LEN}): computed fields inline each other too often",
                sql.len()
            ),
            Some(
                "compute the repeated part once in a simpler way, or write a `sql:` body"
                    .to_owned(),
            ),
            whole,
        ));
    }
    let row_local_sql = sql::to_sql(&typed, sql::Mode::Bare);
    let postgres_sql = sql::to_sql_in(&typed, sql::Mode::Row, sql::Dialect::Postgres)
        .filter(|postgres| *postgres != sql);
    Ok(CompiledField {
        name: field.name.to_owned(),
        ty,
        sql,
        row_local_sql,
        postgres_sql,
        source: source.clone(),
    })
}
