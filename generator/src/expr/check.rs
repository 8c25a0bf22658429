//! Name resolution and type checking: turns a parsed [`Expr`] into a typed tree whose names
//! are resolved to columns, inlined computed fields and relationship joins.

use std::fmt;
use std::ops::Range;

use toolforge::spec::{
    EntitySpec, FieldType, ParameterType, RelationshipSpec, SchemaSpec, ValueType,
};

use super::ast::{BinOp, Expr, ExprKind};
use super::error::{ExprError, ExprErrorKind};
use super::field::CompiledField;
use super::functions::{self, AggFunc, Builtin, Function, Scalar};
use crate::report::did_you_mean;

/// The type of a value in the expression language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    String,
    Number,
    Boolean,
    Datetime,
    /// The `null` literal: fits any type.
    Null,
    StringArray,
    NumberArray,
    /// A place: no operator or function takes one.
    Point,
}

impl Ty {
    /// The type of a stored field.
    pub fn of_field(ty: FieldType) -> Ty {
        match ty {
            FieldType::String | FieldType::Enum => Ty::String,
            FieldType::Number | FieldType::Integer => Ty::Number,
            FieldType::Boolean => Ty::Boolean,
            FieldType::Datetime => Ty::Datetime,
            FieldType::StringArray => Ty::StringArray,
            FieldType::NumberArray => Ty::NumberArray,
            FieldType::Point => Ty::Point,
        }
    }

    /// The type of a declared tool's parameter.
    pub fn of_parameter(ty: ParameterType) -> Ty {
        match ty {
            ParameterType::String => Ty::String,
            ParameterType::Number | ParameterType::Integer => Ty::Number,
            ParameterType::Boolean => Ty::Boolean,
            ParameterType::Datetime => Ty::Datetime,
            ParameterType::StringArray => Ty::StringArray,
            ParameterType::NumberArray => Ty::NumberArray,
            ParameterType::Point => Ty::Point,
        }
    }

    /// The type of a computed field's value.
    pub fn of_value(ty: ValueType) -> Ty {
        match ty {
            ValueType::String => Ty::String,
            ValueType::Number => Ty::Number,
            ValueType::Boolean => Ty::Boolean,
            ValueType::Datetime => Ty::Datetime,
        }
    }

    /// The type name as a config writes it.
    pub fn name(self) -> &'static str {
        match self {
            Ty::String => "string",
            Ty::Number => "number",
            Ty::Boolean => "boolean",
            Ty::Datetime => "datetime",
            Ty::Null => "null",
            Ty::StringArray => "array<string>",
            Ty::NumberArray => "array<number>",
            Ty::Point => "point",
        }
    }

    fn is_array(self) -> bool {
        matches!(self, Ty::StringArray | Ty::NumberArray)
    }

    /// True when a value of this type may stand where `wanted` is expected.
    fn fits(self, wanted: Ty) -> bool {
        self == wanted || self == Ty::Null
    }

    /// The common type of two values that are compared or merged (`coalesce`), if any.
    /// Strings and datetimes mix (datetimes are ISO-8601 text).
    fn unify(self, other: Ty) -> Option<Ty> {
        match (self, other) {
            (a, b) if a == b => Some(a),
            (Ty::Null, b) => Some(b),
            (a, Ty::Null) => Some(a),
            (Ty::String, Ty::Datetime) | (Ty::Datetime, Ty::String) => Some(Ty::Datetime),
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    /// The type with an article, for messages: "a string", "an array<string>".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Null => f.write_str("null"),
            Ty::StringArray | Ty::NumberArray => write!(f, "an {}", self.name()),
            _ => write!(f, "a {}", self.name()),
        }
    }
}

/// A type-checked expression node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Typed {
    pub kind: TKind,
    pub ty: Ty,
}

/// The kinds of type-checked nodes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TKind {
    /// A stored field of the row.
    Column(String),
    /// Another computed field, already compiled.
    Inline {
        sql: String,
        row_local: Option<String>,
        /// The PostgreSQL form of `sql`.
        postgres: String,
    },
    Int(i64),
    Real(f64),
    Str(String),
    Bool(bool),
    Null,
    Neg(Box<Typed>),
    Not(Box<Typed>),
    Binary(BinOp, Box<Typed>, Box<Typed>),
    IsNull {
        operand: Box<Typed>,
        negated: bool,
    },
    Call(Builtin, Vec<Typed>),
    Aggregate(Aggregate),
    /// A declared tool's parameter: its position among the tool's parameters (bound as
    /// `?{index + 1}`).
    Param(usize),
    /// A value of the call's context (`:context.NAME`), by name: read from the connection's
    /// context, never written into the SQL text.
    Context(String),
}

/// A relationship aggregate, resolved to edge tables.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Aggregate {
    pub func: AggFunc,
    /// The aggregated field of the related records; `None` for `count(REL)`.
    pub column: Option<String>,
    /// One join per edge table (several when a relationship type leads to several entities).
    pub paths: Vec<EdgePath>,
    /// For `HAS_CHANGE`: the change log rows of this entity's records are aggregated instead
    /// of edges (`paths` is empty); holds the entity name and its unique field.
    pub change_log: Option<(String, String)>,
}

/// The relationship that reads the change log (ragforge's `(n)-[:HAS_CHANGE]->(c:Change)`).
pub(crate) const HAS_CHANGE: &str = "HAS_CHANGE";

/// The fields of a change that `HAS_CHANGE.field` reads: (name as written, column, type).
const CHANGE_FIELDS: [(&str, &str, Ty); 7] = [
    ("timestamp", "timestamp", Ty::Datetime),
    ("change_type", "change_type", Ty::String),
    ("changeType", "change_type", Ty::String),
    ("lines_added", "lines_added", Ty::Number),
    ("linesAdded", "lines_added", Ty::Number),
    ("lines_removed", "lines_removed", Ty::Number),
    ("linesRemoved", "lines_removed", Ty::Number),
];

/// How to reach the related records through one edge table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EdgePath {
    pub edge_table: String,
    pub target_table: String,
    /// The related entity's unique field.
    pub target_key: String,
    /// This entity's unique field.
    pub this_key: String,
    /// True when the edges are followed from target to source (`<-REL`).
    pub incoming: bool,
}

/// Everything name resolution needs.
pub(crate) struct Env<'a> {
    pub schema: &'a SchemaSpec,
    pub entity: &'a EntitySpec,
    /// The computed field being compiled.
    pub field: &'a str,
    /// The body text (for quoting operands in messages).
    pub text: &'a str,
    /// The computed fields of the entity and what is known of each so far.
    pub computed: &'a [(String, Option<Result<CompiledField, ExprError>>)],
    /// True for translated `cypher:` bodies (unknown names become untranslatable-Cypher).
    pub from_cypher: bool,
    /// The parameters `:name` may name (a declared tool's), in order; `None` where parameters
    /// are not allowed (computed fields).
    pub params: Option<&'a [(String, Ty)]>,
    /// Whether `:context.NAME` names a value of the call's context (row rules).
    pub context: bool,
}

type Checked = Result<Typed, ExprError>;

impl Env<'_> {
    fn error(
        &self,
        kind: ExprErrorKind,
        span: &Range<usize>,
        message: String,
        hint: Option<String>,
    ) -> ExprError {
        let kind = if self.from_cypher && kind == ExprErrorKind::UnknownName {
            ExprErrorKind::UntranslatableCypher
        } else {
            kind
        };
        ExprError {
            field: self.field.to_owned(),
            kind,
            message,
            hint,
            span: span.clone(),
        }
    }

    /// The source text of a node, shortened for messages.
    fn snippet(&self, span: &Range<usize>) -> String {
        let text = self.text.get(span.clone()).unwrap_or("").trim();
        if text.chars().count() > 40 {
            let short: String = text.chars().take(37).collect();
            format!("{short}...")
        } else {
            text.to_owned()
        }
    }

    fn computed_entry(&self, name: &str) -> Option<&Option<Result<CompiledField, ExprError>>> {
        self.computed
            .iter()
            .find(|(candidate, _)| candidate == name)
            .map(|(_, state)| state)
    }

    fn relationship_types(&self) -> impl Iterator<Item = &str> {
        self.schema
            .relationships
            .iter()
            .filter(|rel| rel.source == self.entity.name || rel.target == self.entity.name)
            .map(|rel| rel.rel_type.as_str())
    }

    fn is_relationship(&self, name: &str) -> bool {
        self.relationship_types().any(|rel| rel == name)
    }

    /// "Did you mean" over every name an expression may use.
    fn suggest_name(&self, name: &str) -> Option<String> {
        let fields = self.entity.fields.iter().map(|field| field.name.as_str());
        let computed = self
            .computed
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|other| *other != self.field);
        did_you_mean(
            name,
            fields
                .chain(computed)
                .chain(self.relationship_types())
                .chain(Function::names()),
        )
        .map(|found| format!("did you mean `{found}`?"))
    }

    /// Type-checks one node.
    pub fn check(&self, expr: &Expr) -> Checked {
        let typed = |kind, ty| Ok(Typed { kind, ty });
        match &expr.kind {
            ExprKind::Int(value) => typed(TKind::Int(*value), Ty::Number),
            ExprKind::Real(value) => typed(TKind::Real(*value), Ty::Number),
            ExprKind::Str(value) => typed(TKind::Str(value.clone()), Ty::String),
            ExprKind::Bool(value) => typed(TKind::Bool(*value), Ty::Boolean),
            ExprKind::Null => typed(TKind::Null, Ty::Null),
            ExprKind::Name(name) => self.name(name, &expr.span),
            ExprKind::Param(name) => self.param(name, &expr.span),
            ExprKind::Neg(operand) => {
                let inner = self.check(operand)?;
                if !inner.ty.fits(Ty::Number) {
                    return Err(self.error(
                        ExprErrorKind::Type,
                        &operand.span,
                        format!(
                            "`-{}`: the operand is {}, but `-` needs a number",
                            self.snippet(&operand.span),
                            inner.ty
                        ),
                        None,
                    ));
                }
                typed(TKind::Neg(Box::new(inner)), Ty::Number)
            }
            ExprKind::Not(operand) => {
                let inner = self.check(operand)?;
                if !inner.ty.fits(Ty::Boolean) {
                    return Err(self.error(
                        ExprErrorKind::Type,
                        &operand.span,
                        format!(
                            "the operand of NOT, `{}`, is {}, but NOT needs a boolean",
                            self.snippet(&operand.span),
                            inner.ty
                        ),
                        Some("compare it first, for example `x > 0` or `x IS NULL`".to_owned()),
                    ));
                }
                typed(TKind::Not(Box::new(inner)), Ty::Boolean)
            }
            ExprKind::IsNull { operand, negated } => {
                let inner = self.check(operand)?;
                typed(
                    TKind::IsNull {
                        operand: Box::new(inner),
                        negated: *negated,
                    },
                    Ty::Boolean,
                )
            }
            ExprKind::Binary(op, left, right) => self.binary(*op, left, right, &expr.span),
            ExprKind::Call {
                name,
                name_span,
                args,
            } => self.call(name, name_span, args, &expr.span),
            ExprKind::Member {
                object,
                name,
                name_span,
                args,
            } => {
                if let ExprKind::Name(rel) = &object.kind
                    && self.entity.field(rel).is_none()
                    && self.computed_entry(rel).is_none()
                    && self.is_relationship(rel)
                {
                    return Err(self.error(
                        ExprErrorKind::Type,
                        &expr.span,
                        format!(
                            "`{rel}.{name}` reads the related records, so it needs an aggregate"
                        ),
                        Some(format!(
                            "for example `max({rel}.{name})`, `sum({rel}.{name})` or `count({rel})`"
                        )),
                    ));
                }
                // `x.f(args)` is `f(x, args)`; `x.length` is `length(x)`.
                let mut all = vec![(**object).clone()];
                all.extend(args.iter().flatten().cloned());
                self.call(name, name_span, &all, &expr.span)
            }
            ExprKind::Incoming(_) => Err(self.error(
                ExprErrorKind::Syntax,
                &expr.span,
                "`<-` follows a relationship backwards and is only allowed inside an aggregate"
                    .to_owned(),
                Some("for example `count(<-CONSUMES)`".to_owned()),
            )),
        }
    }

    fn param(&self, name: &str, span: &Range<usize>) -> Checked {
        if self.context
            && let Some(value) = name.strip_prefix("context.")
        {
            return Ok(Typed {
                kind: TKind::Context(value.to_owned()),
                ty: Ty::String,
            });
        }
        let Some(params) = self.params else {
            return Err(self.error(
                ExprErrorKind::Syntax,
                span,
                format!("`:{name}` is a parameter, and only declared tools have parameters"),
                Some("use a field, a computed field or a literal value".to_owned()),
            ));
        };
        match params.iter().position(|(candidate, _)| candidate == name) {
            Some(index) => Ok(Typed {
                kind: TKind::Param(index),
                ty: params[index].1,
            }),
            None => {
                let declared: Vec<&str> = params.iter().map(|(name, _)| name.as_str()).collect();
                let hint = match did_you_mean(name, declared.iter().copied()) {
                    Some(found) => format!("did you mean `:{found}`?"),
                    None if declared.is_empty() => {
                        format!(
                            "declare it under `parameters:`, for example `{name}: {{type: string}}`"
                        )
                    }
                    None => format!(
                        "declared parameters: {}; or declare `{name}` under `parameters:`",
                        declared
                            .iter()
                            .map(|name| format!("`:{name}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                Err(self.error(
                    ExprErrorKind::UnknownName,
                    span,
                    format!("parameter `:{name}` is not declared"),
                    Some(hint),
                ))
            }
        }
    }

    fn name(&self, name: &str, span: &Range<usize>) -> Checked {
        if let Some(field) = self.entity.field(name)
            && field.ty == FieldType::Point
        {
            return Err(self.error(
                ExprErrorKind::Type,
                span,
                format!("`{name}` is a point field, which expressions cannot read"),
                Some(
                    "compute from other fields; distances from a place are what the \
                     `find_near` tool answers, and boxes are the `WITHIN` condition"
                        .to_owned(),
                ),
            ));
        }
        if let Some(field) = self.entity.field(name) {
            return Ok(Typed {
                kind: TKind::Column(field.name.clone()),
                ty: Ty::of_field(field.ty),
            });
        }
        if let Some(state) = self.computed_entry(name) {
            return match state {
                Some(Ok(compiled)) => Ok(Typed {
                    kind: TKind::Inline {
                        sql: compiled.sql.clone(),
                        row_local: compiled.row_local_sql.clone(),
                        postgres: compiled
                            .postgres_sql
                            .clone()
                            .unwrap_or_else(|| compiled.sql.clone()),
                    },
                    ty: Ty::of_value(compiled.ty),
                }),
                Some(Err(error)) => Err(self.error(
                    error.kind,
                    span,
                    format!(
                        "computed field `{name}` used here cannot be compiled: {}",
                        error.message
                    ),
                    Some(format!("fix `{name}` first")),
                )),
                None => Err(self.error(
                    ExprErrorKind::Cycle,
                    span,
                    format!("computed field `{name}` used here is not compiled yet"),
                    None,
                )),
            };
        }
        if self.is_relationship(name) {
            return Err(self.error(
                ExprErrorKind::Type,
                span,
                format!("`{name}` is a relationship, not a value"),
                Some(format!("aggregate it, for example `count({name})`")),
            ));
        }
        Err(self.error(
            ExprErrorKind::UnknownName,
            span,
            format!(
                "`{name}` is not a field, computed field or relationship of `{}`",
                self.entity.name
            ),
            self.suggest_name(name),
        ))
    }

    fn binary(&self, op: BinOp, left: &Expr, right: &Expr, span: &Range<usize>) -> Checked {
        let l = self.check(left)?;
        let r = self.check(right)?;
        let symbol = op.symbol();
        let operand_error = |side: &str, expr: &Expr, ty: Ty, needs: &str, hint: Option<String>| {
            self.error(
                ExprErrorKind::Type,
                &expr.span,
                format!(
                    "{side} operand `{}` is {ty}, but `{symbol}` needs {needs}",
                    self.snippet(&expr.span)
                ),
                hint,
            )
        };
        let result = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
                let hint = |ty: Ty| {
                    match (op, ty) {
                    (BinOp::Add, Ty::String) => {
                        Some("to join strings use `concat(a, b)` or `a || b`".to_owned())
                    }
                    (BinOp::Sub, Ty::Datetime) => {
                        Some("use `days_between(a, b)` or `years_between(a, b)` for the time between two datetimes".to_owned())
                    }
                    (_, Ty::Datetime) => Some("datetime arithmetic is not supported; use `days_between(a, b)`".to_owned()),
                    (_, Ty::StringArray | Ty::NumberArray) => Some("use `length(x)` for the number of elements".to_owned()),
                    _ => None,
                }
                };
                for (side, expr, ty) in [("left", left, l.ty), ("right", right, r.ty)] {
                    if !ty.fits(Ty::Number) {
                        return Err(operand_error(side, expr, ty, "numbers", hint(ty)));
                    }
                }
                Ty::Number
            }
            BinOp::Concat => {
                for (side, expr, ty) in [("left", left, l.ty), ("right", right, r.ty)] {
                    if matches!(ty, Ty::Boolean | Ty::StringArray | Ty::NumberArray) {
                        return Err(operand_error(
                            side,
                            expr,
                            ty,
                            "text, numbers or datetimes",
                            None,
                        ));
                    }
                }
                Ty::String
            }
            BinOp::And | BinOp::Or => {
                for (side, expr, ty) in [("left", left, l.ty), ("right", right, r.ty)] {
                    if !ty.fits(Ty::Boolean) {
                        let hint = Some(
                            "compare it first, for example `x > 0` or `x IS NOT NULL`".to_owned(),
                        );
                        return Err(operand_error(side, expr, ty, "booleans", hint));
                    }
                }
                Ty::Boolean
            }
            _ => {
                for expr in [left, right] {
                    if expr.kind == ExprKind::Null {
                        return Err(self.error(
                            ExprErrorKind::Type,
                            span,
                            format!(
                                "`{}` compares with null, which is never true",
                                self.snippet(span)
                            ),
                            Some(format!(
                                "use `IS NULL` or `IS NOT NULL`, for example `{} IS {}NULL`",
                                self.snippet(if std::ptr::eq(expr, left) {
                                    &right.span
                                } else {
                                    &left.span
                                }),
                                if op == BinOp::Eq { "" } else { "NOT " }
                            )),
                        ));
                    }
                }
                for (side, expr, ty) in [("left", left, l.ty), ("right", right, r.ty)] {
                    if ty.is_array() {
                        let hint = Some("use `contains(list, value)` or `length(list)`".to_owned());
                        return Err(operand_error(side, expr, ty, "single values", hint));
                    }
                }
                if l.ty.unify(r.ty).is_none() {
                    return Err(self.error(
                        ExprErrorKind::Type,
                        span,
                        format!(
                            "cannot compare `{}` ({}) with `{}` ({})",
                            self.snippet(&left.span),
                            l.ty,
                            self.snippet(&right.span),
                            r.ty
                        ),
                        Some("both sides of a comparison must have the same type".to_owned()),
                    ));
                }
                Ty::Boolean
            }
        };
        Ok(Typed {
            kind: TKind::Binary(op, Box::new(l), Box::new(r)),
            ty: result,
        })
    }

    fn call(
        &self,
        name: &str,
        name_span: &Range<usize>,
        args: &[Expr],
        span: &Range<usize>,
    ) -> Checked {
        let scalar = match Function::parse(name) {
            Some(Function::Aggregate(func)) => return self.aggregate(func, args, span),
            Some(Function::Scalar(scalar)) => scalar,
            None => return Err(self.unknown_function(name, name_span)),
        };
        let canonical = scalar.name();
        let (min, max) = scalar.arity();
        if args.len() < min || args.len() > max {
            let expected = match (min, max) {
                (min, max) if min == max => format!("{min}"),
                (min, usize::MAX) => format!("at least {min}"),
                (min, max) => format!("{min} or {max}"),
            };
            let plural = if expected == "1" { "" } else { "s" };
            return Err(self.error(
                ExprErrorKind::Type,
                span,
                format!(
                    "`{canonical}` takes {expected} argument{plural}, but {} were given",
                    args.len()
                ),
                None,
            ));
        }
        let typed: Vec<Typed> = args
            .iter()
            .map(|arg| self.check(arg))
            .collect::<Result<_, _>>()?;
        let arg_error = |index: usize, wanted: &str| {
            let arg = &args[index];
            self.error(
                ExprErrorKind::Type,
                &arg.span,
                format!(
                    "argument {} of `{canonical}`, `{}`, is {}, but `{canonical}` needs {wanted}",
                    index + 1,
                    self.snippet(&arg.span),
                    typed[index].ty
                ),
                None,
            )
        };
        let require = |index: usize, wanted: &[Ty], description: &str| -> Result<(), ExprError> {
            let ty = typed[index].ty;
            if ty == Ty::Null || wanted.contains(&ty) {
                Ok(())
            } else {
                Err(arg_error(index, description))
            }
        };
        let unify_all = || -> Result<Ty, ExprError> {
            let mut common = Ty::Null;
            for (index, arg) in typed.iter().enumerate() {
                if arg.ty.is_array() || (arg.ty == Ty::Boolean && scalar != Scalar::Coalesce) {
                    return Err(arg_error(index, "single values"));
                }
                common = common.unify(arg.ty).ok_or_else(|| {
                    self.error(
                        ExprErrorKind::Type,
                        &args[index].span,
                        format!(
                            "the arguments of `{canonical}` must have one type, but `{}` is {} and an earlier one is {}",
                            self.snippet(&args[index].span),
                            arg.ty,
                            common
                        ),
                        None,
                    )
                })?;
            }
            Ok(common)
        };
        const DATES: &[Ty] = &[Ty::Datetime, Ty::String];
        let string_to_string = |builtin: Builtin| -> Result<(Builtin, Ty), ExprError> {
            require(0, &[Ty::String], "a string")?;
            Ok((builtin, Ty::String))
        };
        let between = |builtin: Builtin| -> Result<(Builtin, Ty), ExprError> {
            require(0, DATES, "a datetime")?;
            require(1, DATES, "a datetime")?;
            Ok((builtin, Ty::Number))
        };
        let affix = |builtin: Builtin| -> Result<(Builtin, Ty), ExprError> {
            require(0, &[Ty::String], "a string")?;
            require(1, &[Ty::String], "a string")?;
            Ok((builtin, Ty::Boolean))
        };
        let (builtin, ty) = match scalar {
            Scalar::Length => match typed[0].ty {
                Ty::StringArray | Ty::NumberArray => (Builtin::ArrayLength, Ty::Number),
                Ty::Null | Ty::String | Ty::Number | Ty::Boolean | Ty::Datetime | Ty::Point => {
                    require(0, &[Ty::String], "a string or an array")?;
                    (Builtin::Length, Ty::Number)
                }
            },
            Scalar::Lower => string_to_string(Builtin::Lower)?,
            Scalar::Upper => string_to_string(Builtin::Upper)?,
            Scalar::Trim => string_to_string(Builtin::Trim)?,
            Scalar::Coalesce => (Builtin::Coalesce, unify_all()?),
            Scalar::Least => (Builtin::Least, unify_all()?),
            Scalar::Greatest => (Builtin::Greatest, unify_all()?),
            Scalar::Abs => {
                require(0, &[Ty::Number], "a number")?;
                (Builtin::Abs, Ty::Number)
            }
            Scalar::Round => {
                for index in 0..typed.len() {
                    require(index, &[Ty::Number], "a number")?;
                }
                (Builtin::Round, Ty::Number)
            }
            Scalar::Now => (Builtin::Now, Ty::Datetime),
            Scalar::DaysBetween => between(Builtin::DaysBetween)?,
            Scalar::YearsBetween => between(Builtin::YearsBetween)?,
            Scalar::Concat => {
                for index in 0..typed.len() {
                    require(
                        index,
                        &[Ty::String, Ty::Number, Ty::Datetime],
                        "text, numbers or datetimes",
                    )?;
                }
                (Builtin::Concat, Ty::String)
            }
            Scalar::Contains => match typed[0].ty {
                Ty::StringArray => {
                    require(1, &[Ty::String], "a string (the element to look for)")?;
                    (Builtin::ArrayContains, Ty::Boolean)
                }
                Ty::NumberArray => {
                    require(1, &[Ty::Number], "a number (the element to look for)")?;
                    (Builtin::ArrayContains, Ty::Boolean)
                }
                Ty::Null | Ty::String | Ty::Number | Ty::Boolean | Ty::Datetime | Ty::Point => {
                    require(0, &[Ty::String], "a string or an array")?;
                    require(1, &[Ty::String], "a string")?;
                    (Builtin::Contains, Ty::Boolean)
                }
            },
            Scalar::StartsWith => affix(Builtin::StartsWith)?,
            Scalar::EndsWith => affix(Builtin::EndsWith)?,
        };
        Ok(Typed {
            kind: TKind::Call(builtin, typed),
            ty,
        })
    }

    /// The located error for a call of `name`, which is no function: the function to use for
    /// a familiar alias, a field called like a function, or the nearest function names.
    fn unknown_function(&self, name: &str, name_span: &Range<usize>) -> ExprError {
        let hint = if let Some(alias) = functions::known_alias(name) {
            format!("use `{}`", alias.name())
        } else if self.entity.field(name).is_some() || self.computed_entry(name).is_some() {
            format!("`{name}` is a field, not a function")
        } else if let Some(found) = did_you_mean(name, Function::names()) {
            format!("did you mean `{found}`?")
        } else {
            let list: Vec<&str> = Scalar::ALL.into_iter().map(Scalar::name).collect();
            format!("the functions are: {}", list.join(", "))
        };
        self.error(
            ExprErrorKind::UnknownName,
            name_span,
            format!("unknown function `{name}`"),
            Some(hint),
        )
    }

    fn aggregate(&self, func: AggFunc, args: &[Expr], span: &Range<usize>) -> Checked {
        let agg = func.name();
        let usage = match func {
            AggFunc::Count => "`count(REL)` or `count(REL.field)`".to_owned(),
            AggFunc::Sum | AggFunc::Avg | AggFunc::Min | AggFunc::Max => {
                format!("`{agg}(REL.field)`")
            }
        };
        let scalar_hint = match func {
            AggFunc::Min => format!(
                "{usage} aggregates a relationship; for the smaller of two values use `least(a, b)`"
            ),
            AggFunc::Max => format!(
                "{usage} aggregates a relationship; for the larger of two values use `greatest(a, b)`"
            ),
            AggFunc::Count | AggFunc::Sum | AggFunc::Avg => format!(
                "write {usage}, where REL is a relationship of `{}`",
                self.entity.name
            ),
        };
        let [arg] = args else {
            return Err(self.error(
                ExprErrorKind::Type,
                span,
                format!(
                    "`{agg}` takes one relationship argument, but {} were given",
                    args.len()
                ),
                Some(scalar_hint),
            ));
        };
        let (incoming, path) = match &arg.kind {
            ExprKind::Incoming(inner) => (true, &**inner),
            _ => (false, arg),
        };
        let (rel, rel_span, field) = match &path.kind {
            ExprKind::Name(rel) => (rel, &path.span, None),
            ExprKind::Member {
                object,
                name,
                name_span,
                args: None,
            } => match &object.kind {
                ExprKind::Name(rel) => (rel, &object.span, Some((name, name_span))),
                _ => return Err(self.not_a_relationship(agg, arg, &scalar_hint)),
            },
            _ => return Err(self.not_a_relationship(agg, arg, &scalar_hint)),
        };
        let is_value = self.entity.field(rel).is_some() || self.computed_entry(rel).is_some();
        if is_value
            && !self
                .schema
                .relationships
                .iter()
                .any(|spec| &spec.rel_type == rel)
        {
            return Err(self.not_a_relationship(agg, arg, &scalar_hint));
        }
        if field.is_none() && func != AggFunc::Count {
            return Err(self.error(
                ExprErrorKind::Type,
                &arg.span,
                format!("`{agg}` needs a field of the related records, not just the relationship `{rel}`"),
                Some(format!("for example `{agg}({rel}.field)`")),
            ));
        }
        if rel == HAS_CHANGE && !incoming && !self.is_relationship(rel) {
            return self.change_log_aggregate(func, field, &arg.span);
        }
        let rels = self.resolve_relationship(rel, rel_span, incoming, &scalar_hint)?;
        let mut paths = Vec::new();
        let mut field_ty: Option<Ty> = None;
        for spec in rels {
            let other_name = if incoming { &spec.source } else { &spec.target };
            let Some(other) = self.schema.entity(other_name) else {
                return Err(self.error(
                    ExprErrorKind::UnknownName,
                    rel_span,
                    format!("relationship `{rel}` leads to `{other_name}`, which is not an entity"),
                    None,
                ));
            };
            if let Some((field, field_span)) = field {
                let Some(spec_field) = other.field(field) else {
                    return Err(self.error(
                        ExprErrorKind::UnknownName,
                        field_span,
                        format!(
                            "`{}` (the target of `{rel}`) has no field `{field}`",
                            other.name
                        ),
                        did_you_mean(field, other.fields.iter().map(|f| f.name.as_str()))
                            .map(|found| format!("did you mean `{found}`?")),
                    ));
                };
                let ty = Ty::of_field(spec_field.ty);
                if (ty.is_array() || ty == Ty::Point) && func != AggFunc::Count {
                    return Err(self.error(
                        ExprErrorKind::Type,
                        &arg.span,
                        format!(
                            "`{}.{field}` is {ty}, which `{agg}` cannot aggregate",
                            other.name
                        ),
                        None,
                    ));
                }
                if matches!(func, AggFunc::Sum | AggFunc::Avg) && ty != Ty::Number {
                    return Err(self.error(
                        ExprErrorKind::Type,
                        &arg.span,
                        format!(
                            "`{agg}` needs a number field, but `{}.{field}` is {ty}",
                            other.name
                        ),
                        Some(format!(
                            "use `count({rel})`, `min` or `max` for non-numbers"
                        )),
                    ));
                }
                if let Some(previous) = field_ty
                    && previous != ty
                {
                    return Err(self.error(
                        ExprErrorKind::Type,
                        &arg.span,
                        format!("`{field}` has different types on the entities `{rel}` leads to"),
                        None,
                    ));
                }
                field_ty = Some(ty);
            }
            paths.push(EdgePath {
                edge_table: spec.table.clone(),
                target_table: other.table.clone(),
                target_key: other.unique_field.clone(),
                this_key: self.entity.unique_field.clone(),
                incoming,
            });
        }
        let ty = match func {
            AggFunc::Count | AggFunc::Sum | AggFunc::Avg => Ty::Number,
            AggFunc::Min | AggFunc::Max => field_ty.unwrap_or(Ty::Number),
        };
        let column = field.map(|(name, _)| name.clone());
        Ok(Typed {
            kind: TKind::Aggregate(Aggregate {
                func,
                column,
                paths,
                change_log: None,
            }),
            ty,
        })
    }

    /// `count(HAS_CHANGE)`, `max(HAS_CHANGE.timestamp)`, ...: an aggregate over the change log
    /// rows of the record.
    fn change_log_aggregate(
        &self,
        func: AggFunc,
        field: Option<(&String, &Range<usize>)>,
        span: &Range<usize>,
    ) -> Checked {
        let agg = func.name();
        let (column, field_ty) = match field {
            None => (None, Ty::Number),
            Some((name, name_span)) => {
                let Some((_, column, ty)) = CHANGE_FIELDS.iter().find(|f| f.0 == name.as_str())
                else {
                    return Err(self.error(
                        ExprErrorKind::UnknownName,
                        name_span,
                        format!("a change (`{HAS_CHANGE}`) has no field `{name}`"),
                        Some(
                            "a change has `timestamp`, `change_type`, `lines_added` and \
                             `lines_removed`"
                                .to_owned(),
                        ),
                    ));
                };
                (Some((*column).to_owned()), *ty)
            }
        };
        if matches!(func, AggFunc::Sum | AggFunc::Avg) && field_ty != Ty::Number {
            return Err(self.error(
                ExprErrorKind::Type,
                span,
                format!("`{agg}` needs a number field of a change, such as `lines_added`"),
                None,
            ));
        }
        let ty = match func {
            AggFunc::Count | AggFunc::Sum | AggFunc::Avg => Ty::Number,
            AggFunc::Min | AggFunc::Max => field_ty,
        };
        Ok(Typed {
            kind: TKind::Aggregate(Aggregate {
                func,
                column,
                paths: Vec::new(),
                change_log: Some((self.entity.name.clone(), self.entity.unique_field.clone())),
            }),
            ty,
        })
    }

    fn not_a_relationship(&self, agg: &str, arg: &Expr, hint: &str) -> ExprError {
        self.error(
            ExprErrorKind::Type,
            &arg.span,
            format!(
                "`{agg}` aggregates over a relationship, but `{}` is not one",
                self.snippet(&arg.span)
            ),
            Some(hint.to_owned()),
        )
    }

    /// The edge tables of relationship type `rel` starting (or, `incoming`, ending) at this entity.
    fn resolve_relationship(
        &self,
        rel: &str,
        span: &Range<usize>,
        incoming: bool,
        hint: &str,
    ) -> Result<Vec<&RelationshipSpec>, ExprError> {
        let this = &self.entity.name;
        let of_type = || {
            self.schema
                .relationships
                .iter()
                .filter(|spec| spec.rel_type == rel)
        };
        let forward: Vec<&RelationshipSpec> =
            of_type().filter(|spec| &spec.source == this).collect();
        let backward: Vec<&RelationshipSpec> =
            of_type().filter(|spec| &spec.target == this).collect();
        let wanted = if incoming { backward } else { forward };
        if !wanted.is_empty() {
            return Ok(wanted);
        }
        if !incoming && let Some(spec) = of_type().find(|spec| &spec.target == this) {
            return Err(self.error(
                ExprErrorKind::UnknownName,
                span,
                format!("relationship `{rel}` does not start at `{this}`: it goes from `{}` to `{this}`", spec.source),
                Some(format!("follow it backwards with `<-{rel}`, for example `count(<-{rel})`")),
            ));
        }
        if incoming && let Some(spec) = of_type().find(|spec| &spec.source == this) {
            return Err(self.error(
                ExprErrorKind::UnknownName,
                span,
                format!(
                    "relationship `{rel}` does not end at `{this}`: it goes from `{this}` to `{}`",
                    spec.target
                ),
                Some(format!(
                    "follow it forwards without `<-`, for example `count({rel})`"
                )),
            ));
        }
        if of_type().next().is_some() {
            return Err(self.error(
                ExprErrorKind::UnknownName,
                span,
                format!("relationship `{rel}` does not touch `{this}`"),
                Some(format!("declare it under `relationships:` of `{this}`")),
            ));
        }
        let hint = if self.entity.field(rel).is_some() || self.computed_entry(rel).is_some() {
            format!("`{rel}` is a field; {hint}")
        } else if let Some(found) = did_you_mean(rel, self.relationship_types()) {
            format!("did you mean `{found}`?")
        } else {
            let mut known: Vec<&str> = self.relationship_types().collect();
            known.dedup();
            if known.is_empty() {
                format!("`{this}` has no relationships; declare one under `relationships:`")
            } else {
                format!("the relationships of `{this}` are: {}", known.join(", "))
            }
        };
        let kind = if self.entity.field(rel).is_some() {
            ExprErrorKind::Type
        } else {
            ExprErrorKind::UnknownName
        };
        Err(self.error(
            kind,
            span,
            format!("`{rel}` is not a relationship of `{this}`"),
            Some(hint),
        ))
    }
}
