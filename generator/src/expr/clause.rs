//! Declared tools' clauses: a `where:` condition and an `order_by:` list in the expression
//! language, with `:name` parameters bound as `?N` (the parameter's position plus one).

use std::ops::Range;

use toolforge::spec::{ParameterType, SchemaSpec};

use super::ast::{Expr, ExprKind};
use super::check::{Env, Ty};
use super::error::{ExprError, ExprErrorKind};
use super::field::{CompiledField, MAX_SQL_LEN};
use super::lexer::{TokenKind, lex};
use super::{parser, sql};

/// A parameter a declared tool's clauses may name (`:name`).
#[derive(Debug, Clone, Copy)]
pub struct ParamSource<'a> {
    /// The parameter's name, without the colon.
    pub name: &'a str,
    /// Its declared type.
    pub ty: ParameterType,
}

/// One compiled clause: the SQL for each dialect over the row alias `n`, parameters written
/// `?N` (the parameter's position in the tool's list plus one).
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledClause {
    /// The SQLite expression.
    pub sql: String,
    /// The PostgreSQL expression (parameters cast to their declared type).
    pub postgres_sql: String,
    /// The positions of the parameters the clause uses, ascending, without repeats.
    pub params_used: Vec<usize>,
}

/// One `order_by:` item: its compiled expression and direction.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledOrderItem {
    /// The expression.
    pub clause: CompiledClause,
    /// True for `DESC`.
    pub descending: bool,
}

/// Compiles a declared tool's `where:` text over `entity`: it must give a boolean.
pub fn compile_condition(
    schema: &SchemaSpec,
    entity: &str,
    tool: &str,
    text: &str,
    params: &[ParamSource<'_>],
) -> Result<CompiledClause, ExprError> {
    let expr = parser::parse(text).map_err(|error| ExprError {
        field: tool.to_owned(),
        kind: ExprErrorKind::Syntax,
        message: error.message,
        hint: error.hint,
        span: error.span,
    })?;
    let start = text.len() - text.trim_start().len();
    let whole = start..text.trim_end().len().max(start);
    compile_expr(
        schema, entity, tool, text, &expr, params, whole, true, false,
    )
}

/// A row rule (`toolforge.access`), compiled: a condition over the row alias `n` that is
/// false (or NULL) whenever a context value it reads is missing.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledRule {
    /// The SQLite condition.
    pub sql: String,
    /// The PostgreSQL condition.
    pub postgres_sql: String,
    /// The context values it reads (`:context.NAME`), sorted, without repeats.
    pub context: Vec<String>,
}

/// Compiles a row rule over `entity`: a condition on the row's own values (stored fields,
/// row-local computed fields, functions, literals) and `:context.NAME` values. Relationship
/// aggregates and other tables are refused: the rule is the entity's view of its own table.
pub fn compile_rule(
    schema: &SchemaSpec,
    entity: &str,
    text: &str,
) -> Result<CompiledRule, ExprError> {
    let expr = parser::parse(text).map_err(|error| ExprError {
        field: entity.to_owned(),
        kind: ExprErrorKind::Syntax,
        message: error.message,
        hint: error.hint,
        span: error.span,
    })?;
    let start = text.len() - text.trim_start().len();
    let whole = start..text.trim_end().len().max(start);
    let compiled = compile_expr(
        schema,
        entity,
        entity,
        text,
        &expr,
        &[],
        whole.clone(),
        true,
        true,
    )?;
    let mut names = Vec::new();
    param_names(&expr, &mut names);
    let mut context: Vec<String> = names
        .iter()
        .filter_map(|name| name.strip_prefix("context.").map(str::to_owned))
        .collect();
    context.sort();
    context.dedup();
    if context.is_empty() {
        return Err(ExprError {
            field: entity.to_owned(),
            kind: ExprErrorKind::Type,
            message: "a row rule must read a context value (`:context.NAME`)".to_owned(),
            hint: Some("for example `branch = :context.branch`".to_owned()),
            span: whole,
        });
    }
    let guard = |dialect: sql::Dialect, condition: &str| {
        let mut parts: Vec<String> = context
            .iter()
            .map(|name| format!("{} IS NOT NULL", sql::context_value_sql(name, dialect)))
            .collect();
        parts.push(condition.to_owned());
        format!("({})", parts.join(" AND "))
    };
    Ok(CompiledRule {
        sql: guard(sql::Dialect::Sqlite, &compiled.sql),
        postgres_sql: guard(sql::Dialect::Postgres, &compiled.postgres_sql),
        context,
    })
}

/// Compiles a declared tool's `order_by:` text (`expr [ASC|DESC], ...`) over `entity`.
pub fn compile_order(
    schema: &SchemaSpec,
    entity: &str,
    tool: &str,
    text: &str,
    params: &[ParamSource<'_>],
) -> Result<Vec<CompiledOrderItem>, ExprError> {
    let syntax = |message: String, hint: &str, span: Range<usize>| ExprError {
        field: tool.to_owned(),
        kind: ExprErrorKind::Syntax,
        message,
        hint: Some(hint.to_owned()),
        span,
    };
    let tokens = lex(text).map_err(|error| ExprError {
        field: tool.to_owned(),
        kind: ExprErrorKind::Syntax,
        message: error.message,
        hint: error.hint,
        span: error.span,
    })?;
    // Split at the commas outside parentheses; a trailing `ASC` / `DESC` is the direction.
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut first = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        match token.kind {
            TokenKind::LParen => depth += 1,
            TokenKind::RParen => depth = depth.saturating_sub(1),
            TokenKind::Comma if depth == 0 => {
                items.push((first, i));
                first = i + 1;
            }
            _ => {}
        }
    }
    items.push((first, tokens.len()));
    let mut compiled = Vec::with_capacity(items.len());
    for (from, to) in items {
        let mut end = to;
        let mut descending = false;
        if end > from
            && let TokenKind::Ident(word) = &tokens[end - 1].kind
            && (word.eq_ignore_ascii_case("asc") || word.eq_ignore_ascii_case("desc"))
        {
            descending = word.eq_ignore_ascii_case("desc");
            end -= 1;
        }
        if end == from {
            let at = tokens
                .get(from)
                .or(tokens.get(from.saturating_sub(1)))
                .map_or(0..text.len(), |token| token.span.clone());
            return Err(syntax(
                "an `order_by` item has no expression".to_owned(),
                "write `field [ASC|DESC]`, items separated by commas, for example `due_at ASC, title`",
                at,
            ));
        }
        let span = tokens[from].span.start..tokens[end - 1].span.end;
        let part = &text[span.clone()];
        let expr = parser::parse(part).map_err(|error| ExprError {
            field: tool.to_owned(),
            kind: ExprErrorKind::Syntax,
            message: error.message,
            hint: error.hint,
            span: error.span.start + span.start..error.span.end + span.start,
        })?;
        let expr = shift(expr, span.start);
        let clause = compile_expr(
            schema, entity, tool, text, &expr, params, span, false, false,
        )?;
        compiled.push(CompiledOrderItem { clause, descending });
    }
    Ok(compiled)
}

/// Moves every span of `expr` by `by` bytes (an item parsed out of a longer text).
fn shift(mut expr: Expr, by: usize) -> Expr {
    fn walk(expr: &mut Expr, by: usize) {
        expr.span = expr.span.start + by..expr.span.end + by;
        match &mut expr.kind {
            ExprKind::Neg(inner) | ExprKind::Not(inner) | ExprKind::Incoming(inner) => {
                walk(inner, by)
            }
            ExprKind::IsNull { operand, .. } => walk(operand, by),
            ExprKind::Binary(_, left, right) => {
                walk(left, by);
                walk(right, by);
            }
            ExprKind::Call {
                name_span, args, ..
            } => {
                *name_span = name_span.start + by..name_span.end + by;
                for arg in args {
                    walk(arg, by);
                }
            }
            ExprKind::Member {
                object,
                name_span,
                args,
                ..
            } => {
                *name_span = name_span.start + by..name_span.end + by;
                walk(object, by);
                for arg in args.iter_mut().flatten() {
                    walk(arg, by);
                }
            }
            _ => {}
        }
    }
    walk(&mut expr, by);
    expr
}

/// The names of the parameters `expr` uses.
fn param_names(expr: &Expr, found: &mut Vec<String>) {
    match &expr.kind {
        ExprKind::Param(name) => found.push(name.clone()),
        ExprKind::Neg(inner) | ExprKind::Not(inner) | ExprKind::Incoming(inner) => {
            param_names(inner, found)
        }
        ExprKind::IsNull { operand, .. } => param_names(operand, found),
        ExprKind::Binary(_, left, right) => {
            param_names(left, found);
            param_names(right, found);
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|arg| param_names(arg, found)),
        ExprKind::Member { object, args, .. } => {
            param_names(object, found);
            args.iter()
                .flatten()
                .for_each(|arg| param_names(arg, found));
        }
        _ => {}
    }
}

#[allow(clippy::too_many_arguments)]
fn compile_expr(
    schema: &SchemaSpec,
    entity_name: &str,
    tool: &str,
    text: &str,
    expr: &Expr,
    params: &[ParamSource<'_>],
    whole: Range<usize>,
    condition: bool,
    rule: bool,
) -> Result<CompiledClause, ExprError> {
    let error = |kind, message: String, hint: Option<String>, span: Range<usize>| ExprError {
        field: tool.to_owned(),
        kind,
        message,
        hint,
        span,
    };
    let Some(entity) = schema.entity(entity_name) else {
        return Err(error(
            ExprErrorKind::UnknownName,
            format!("entity `{entity_name}` is not in the schema"),
            None,
            0..0,
        ));
    };
    let computed: Vec<(String, Option<Result<CompiledField, ExprError>>)> = entity
        .computed_fields
        .iter()
        .map(|field| {
            (
                field.name.clone(),
                Some(Ok(CompiledField {
                    name: field.name.clone(),
                    ty: field.ty,
                    sql: field.sql.clone(),
                    row_local_sql: None,
                    postgres_sql: field.postgres_sql.clone(),
                    source: field.source.clone(),
                })),
            )
        })
        .collect();
    let typed_params: Vec<(String, Ty)> = params
        .iter()
        .map(|param| (param.name.to_owned(), Ty::of_parameter(param.ty)))
        .collect();
    let env = Env {
        schema,
        entity,
        field: tool,
        text,
        computed: &computed,
        from_cypher: false,
        params: (!rule).then_some(&typed_params[..]),
        context: rule,
    };
    let typed = env.check(expr)?;
    if rule && sql::to_sql(&typed, sql::Mode::Bare).is_none() {
        return Err(error(
            ExprErrorKind::Type,
            "a row rule reads only the row's stored fields: no computed fields, \
             relationship aggregates or `now()`"
                .to_owned(),
            Some(
                "compare stored fields with context values, for example `branch = :context.branch`"
                    .to_owned(),
            ),
            whole,
        ));
    }
    if condition && !matches!(typed.ty, Ty::Boolean | Ty::Null) {
        return Err(error(
            ExprErrorKind::Type,
            format!("`where` must be a condition, but it gives {}", typed.ty),
            Some("compare the value, for example `status = 'open'` or `count > :min`".to_owned()),
            whole,
        ));
    }
    if !condition && matches!(typed.ty, Ty::StringArray | Ty::NumberArray) {
        return Err(error(
            ExprErrorKind::Type,
            format!("an `order_by` item gives {}, which has no order", typed.ty),
            Some("sort by a single value, for example `length(tags)`".to_owned()),
            whole,
        ));
    }
    let no_sql = || {
        error(
            ExprErrorKind::Type,
            "the expression has no SQL form".to_owned(),
            None,
            whole.clone(),
        )
    };
    let sqlite = sql::to_sql(&typed, sql::Mode::Row).ok_or_else(no_sql)?;
    let postgres =
        sql::to_sql_in(&typed, sql::Mode::Row, sql::Dialect::Postgres).ok_or_else(no_sql)?;
    if sqlite.len().max(postgres.len()) > MAX_SQL_LEN {
        return Err(error(
            ExprErrorKind::Syntax,
            format!("the compiled SQL is too large (the limit is {MAX_SQL_LEN} bytes)"),
            Some("simplify the expression".to_owned()),
            whole,
        ));
    }
    let mut names = Vec::new();
    param_names(expr, &mut names);
    let mut params_used: Vec<usize> = names
        .iter()
        .filter_map(|name| params.iter().position(|param| param.name == name))
        .collect();
    params_used.sort_unstable();
    params_used.dedup();
    Ok(CompiledClause {
        sql: sqlite,
        postgres_sql: postgres,
        params_used,
    })
}
