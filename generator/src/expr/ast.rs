//! The syntax tree of the expression language, as parsed (names not yet resolved).

use std::fmt;
use std::ops::Range;

/// A parsed expression node and the byte range of the body text it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the node is.
    pub kind: ExprKind,
    /// Where it is in the body text.
    pub span: Range<usize>,
}

/// The kinds of expression nodes.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A non-integer number literal.
    Real(f64),
    /// A string literal (quotes removed).
    Str(String),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// A name: a stored field, a computed field or (inside an aggregate) a relationship type.
    Name(String),
    /// `:name`: a parameter of a declared tool (`context.name` for a context value).
    Param(String),
    /// `-operand`.
    Neg(Box<Expr>),
    /// `NOT operand`.
    Not(Box<Expr>),
    /// `left op right`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `operand IS NULL` / `operand IS NOT NULL`.
    IsNull {
        /// The tested value.
        operand: Box<Expr>,
        /// True for `IS NOT NULL`.
        negated: bool,
    },
    /// `name(args)`: a function or a relationship aggregate.
    Call {
        /// The function name as written.
        name: String,
        /// Where the name is.
        name_span: Range<usize>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `object.name` or `object.name(args)`: method sugar (`source.length` is `length(source)`)
    /// or, inside an aggregate, a relationship's target field (`HAS_CHANGE.timestamp`).
    Member {
        /// The value (or relationship) before the dot.
        object: Box<Expr>,
        /// The name after the dot.
        name: String,
        /// Where that name is.
        name_span: Range<usize>,
        /// The arguments of a method call; `None` without parentheses.
        args: Option<Vec<Expr>>,
    },
    /// `<-REL` / `<-REL.field`: a relationship followed backwards (inside an aggregate).
    Incoming(Box<Expr>),
}

/// Binary operators.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `OR`
    Or,
    /// `AND`
    And,
    /// `=` / `==`
    Eq,
    /// `!=` / `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (real division)
    Div,
    /// `%`
    Rem,
    /// `||` (string concatenation)
    Concat,
}

impl BinOp {
    /// The operator as written in the language (and in SQL).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "OR",
            BinOp::And => "AND",
            BinOp::Eq => "=",
            BinOp::NotEq => "!=",
            BinOp::Lt => "<",
            BinOp::LtEq => "<=",
            BinOp::Gt => ">",
            BinOp::GtEq => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Concat => "||",
        }
    }

    /// Binding strength: higher binds tighter. The levels follow SQLite's, so emitted SQL
    /// needs parentheses exactly where the source had them.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::LtEq | BinOp::Gt | BinOp::GtEq => 4,
            BinOp::Add | BinOp::Sub => 6,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 7,
            BinOp::Concat => 8,
        }
    }

    /// True for the comparison operators.
    pub fn is_comparison(self) -> bool {
        self.precedence() == 4
    }
}

/// Precedence of `NOT` (between `AND` and the comparisons).
pub const NOT_PRECEDENCE: u8 = 3;
/// Precedence of `IS [NOT] NULL` (the comparison level).
pub const IS_NULL_PRECEDENCE: u8 = 4;
/// Precedence of unary minus.
pub const NEG_PRECEDENCE: u8 = 9;
/// Precedence of an atom (literal, name, call, parenthesised expression).
pub const ATOM_PRECEDENCE: u8 = 10;

impl fmt::Display for Expr {
    /// Prints the expression in canonical form (fully parenthesised binary operations).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Int(value) => write!(f, "{value}"),
            ExprKind::Real(value) => write!(f, "{value:?}"),
            ExprKind::Str(value) => write!(f, "'{}'", value.replace('\'', "''")),
            ExprKind::Bool(value) => write!(f, "{value}"),
            ExprKind::Null => f.write_str("null"),
            ExprKind::Name(name) => write_name(f, name),
            ExprKind::Neg(operand) => write!(f, "-{operand}"),
            ExprKind::Not(operand) => write!(f, "NOT {operand}"),
            ExprKind::Binary(op, left, right) => write!(f, "({left} {} {right})", op.symbol()),
            ExprKind::IsNull { operand, negated } => {
                write!(f, "{operand} IS {}NULL", if *negated { "NOT " } else { "" })
            }
            ExprKind::Call { name, args, .. } => {
                f.write_str(name)?;
                write_args(f, args)
            }
            ExprKind::Member {
                object, name, args, ..
            } => {
                write!(f, "{object}.")?;
                write_name(f, name)?;
                match args {
                    Some(args) => write_args(f, args),
                    None => Ok(()),
                }
            }
            ExprKind::Incoming(inner) => write!(f, "<-{inner}"),
            ExprKind::Param(name) => write!(f, ":{name}"),
        }
    }
}

fn write_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_alphabetic())
        && name.chars().all(|c| c == '_' || c.is_alphanumeric());
    if plain {
        f.write_str(name)
    } else {
        write!(f, "`{name}`")
    }
}

fn write_args(f: &mut fmt::Formatter<'_>, args: &[Expr]) -> fmt::Result {
    f.write_str("(")?;
    for (index, arg) in args.iter().enumerate() {
        if index > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{arg}")?;
    }
    f.write_str(")")
}
