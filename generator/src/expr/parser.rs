//! A precedence-climbing parser from tokens to the syntax tree.
//!
//! Precedence, loosest first: `OR`, `AND`, `NOT`, comparisons and `IS [NOT] NULL`
//! (not chainable), `+ -`, `* / %`, `||`, unary `-`, then postfix `.name` / `.name(args)`.
//! The levels are SQLite's, so the SQL keeps the meaning of the source.

use std::ops::Range;

use super::ast::{BinOp, Expr, ExprKind};
use super::lexer::{Token, TokenKind, lex};

/// The deepest nesting of operators, parentheses and calls accepted; deeper input is a syntax
/// error instead of a stack overflow later on.
pub const MAX_DEPTH: usize = 96;

/// A syntax error: a message, an optional hint and the span it is about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParseError {
    pub message: String,
    pub hint: Option<String>,
    pub span: Range<usize>,
}

/// Parses one whole expression.
pub(crate) fn parse(text: &str) -> Result<Expr, ParseError> {
    let tokens = lex(text).map_err(|error| ParseError {
        message: error.message,
        hint: error.hint,
        span: error.span,
    })?;
    if tokens.is_empty() {
        return Err(ParseError {
            message: "the expression is empty".to_owned(),
            hint: Some("write an expression such as `endLine - startLine + 1`".to_owned()),
            span: 0..0,
        });
    }
    let mut parser = Parser {
        tokens: &tokens,
        pos: 0,
        end: text.len(),
    };
    let (expr, _) = parser.expression(0, 0)?;
    if let Some(token) = parser.tokens.get(parser.pos) {
        let hint = match token.kind {
            TokenKind::RParen => "remove it, or add the matching `(` before".to_owned(),
            _ => "is an operator missing between the two?".to_owned(),
        };
        return Err(ParseError {
            message: format!(
                "unexpected {} after the end of the expression",
                token.kind.describe()
            ),
            hint: Some(hint),
            span: token.span.clone(),
        });
    }
    Ok(expr)
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    end: usize,
}

/// An expression and the depth of its tree.
type Parsed = (Expr, usize);

fn infix(kind: &TokenKind) -> Option<BinOp> {
    Some(match kind {
        TokenKind::Or => BinOp::Or,
        TokenKind::And => BinOp::And,
        TokenKind::Eq => BinOp::Eq,
        TokenKind::NotEq => BinOp::NotEq,
        TokenKind::Lt => BinOp::Lt,
        TokenKind::LtEq => BinOp::LtEq,
        TokenKind::Gt => BinOp::Gt,
        TokenKind::GtEq => BinOp::GtEq,
        TokenKind::Plus => BinOp::Add,
        TokenKind::Minus => BinOp::Sub,
        TokenKind::Star => BinOp::Mul,
        TokenKind::Slash => BinOp::Div,
        TokenKind::Percent => BinOp::Rem,
        TokenKind::Concat => BinOp::Concat,
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<&TokenKind> {
        self.tokens.get(self.pos).map(|token| &token.kind)
    }

    fn next_span(&self) -> Range<usize> {
        self.tokens
            .get(self.pos)
            .map_or(self.end..self.end, |token| token.span.clone())
    }

    fn check_depth(&self, depth: usize, span: Range<usize>) -> Result<(), ParseError> {
        if depth > MAX_DEPTH {
            return Err(ParseError {
                message: format!(
                    "the expression is nested too deeply (more than {MAX_DEPTH} levels)"
                ),
                hint: Some("split it into several computed fields".to_owned()),
                span,
            });
        }
        Ok(())
    }

    /// Parses operators binding at least as tightly as `min_prec`.
    fn expression(&mut self, min_prec: u8, depth: usize) -> Result<Parsed, ParseError> {
        self.check_depth(depth, self.next_span())?;
        let (mut left, mut left_depth) = self.prefix(depth)?;
        let mut after_comparison = false;
        while let Some(kind) = self.peek() {
            if *kind == TokenKind::Is {
                if 4 < min_prec {
                    break;
                }
                let is_span = self.next_span();
                if after_comparison {
                    return Err(chained(is_span));
                }
                self.pos += 1;
                let negated = self.peek() == Some(&TokenKind::Not);
                if negated {
                    self.pos += 1;
                }
                if self.peek() != Some(&TokenKind::Null) {
                    return Err(ParseError {
                        message: format!(
                            "expected `NULL` after `IS`, found {}",
                            self.describe_next()
                        ),
                        hint: Some(
                            "only `IS NULL` and `IS NOT NULL` exist; compare values with `=`"
                                .to_owned(),
                        ),
                        span: self.next_span(),
                    });
                }
                let end = self.next_span().end;
                self.pos += 1;
                let span = left.span.start..end;
                left = Expr {
                    kind: ExprKind::IsNull {
                        operand: Box::new(left),
                        negated,
                    },
                    span,
                };
                left_depth += 1;
                self.check_depth(left_depth, left.span.clone())?;
                after_comparison = true;
                continue;
            }
            let Some(op) = infix(kind) else { break };
            let prec = op.precedence();
            if prec < min_prec {
                break;
            }
            let op_span = self.next_span();
            if op.is_comparison() && after_comparison {
                return Err(chained(op_span));
            }
            self.pos += 1;
            if self.peek().is_none() {
                return Err(ParseError {
                    message: format!("expected an operand after `{}`", op.symbol()),
                    hint: None,
                    span: op_span,
                });
            }
            let (right, right_depth) = self.expression(prec + 1, depth + 1)?;
            let span = left.span.start..right.span.end;
            left = Expr {
                kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
                span,
            };
            left_depth = left_depth.max(right_depth) + 1;
            self.check_depth(left_depth, left.span.clone())?;
            after_comparison = op.is_comparison();
        }
        Ok((left, left_depth))
    }

    fn describe_next(&self) -> String {
        self.peek().map_or_else(
            || "the end of the expression".to_owned(),
            TokenKind::describe,
        )
    }

    fn prefix(&mut self, depth: usize) -> Result<Parsed, ParseError> {
        let span = self.next_span();
        match self.peek() {
            Some(TokenKind::Not) => {
                self.pos += 1;
                let (operand, inner) = self.expression(3, depth + 1)?;
                let span = span.start..operand.span.end;
                Ok((
                    Expr {
                        kind: ExprKind::Not(Box::new(operand)),
                        span,
                    },
                    inner + 1,
                ))
            }
            Some(TokenKind::Minus) => {
                self.pos += 1;
                let (operand, inner) = self.expression(9, depth + 1)?;
                let span = span.start..operand.span.end;
                Ok((
                    Expr {
                        kind: ExprKind::Neg(Box::new(operand)),
                        span,
                    },
                    inner + 1,
                ))
            }
            Some(TokenKind::Plus) => Err(ParseError {
                message: "unary `+` is not supported".to_owned(),
                hint: Some("remove the `+`".to_owned()),
                span,
            }),
            _ => self.postfix(depth),
        }
    }

    fn postfix(&mut self, depth: usize) -> Result<Parsed, ParseError> {
        let (mut expr, mut expr_depth) = self.primary(depth)?;
        while self.peek() == Some(&TokenKind::Dot) {
            let dot_span = self.next_span();
            self.pos += 1;
            let Some(Token {
                kind: TokenKind::Ident(name),
                span: name_span,
            }) = self.tokens.get(self.pos)
            else {
                return Err(ParseError {
                    message: format!("expected a name after `.`, found {}", self.describe_next()),
                    hint: Some("for example `source.length`".to_owned()),
                    span: dot_span.start..self.next_span().end,
                });
            };
            let (name, name_span) = (name.clone(), name_span.clone());
            self.pos += 1;
            let (args, end, args_depth) = if self.peek() == Some(&TokenKind::LParen) {
                let (args, end, args_depth) = self.arguments(depth)?;
                (Some(args), end, args_depth)
            } else {
                (None, name_span.end, 0)
            };
            let span = expr.span.start..end;
            expr_depth = expr_depth.max(args_depth) + 1;
            expr = Expr {
                kind: ExprKind::Member {
                    object: Box::new(expr),
                    name,
                    name_span,
                    args,
                },
                span,
            };
            self.check_depth(expr_depth, expr.span.clone())?;
        }
        Ok((expr, expr_depth))
    }

    /// Parses `( expr, ... )` starting at the `(`; returns the arguments, the end offset and the
    /// deepest argument's depth.
    fn arguments(&mut self, depth: usize) -> Result<(Vec<Expr>, usize, usize), ParseError> {
        let open = self.next_span();
        self.pos += 1;
        let mut args = Vec::new();
        let mut deepest = 0;
        if self.peek() == Some(&TokenKind::RParen) {
            let end = self.next_span().end;
            self.pos += 1;
            return Ok((args, end, deepest));
        }
        loop {
            let (arg, arg_depth) = self.expression(0, depth + 1)?;
            args.push(arg);
            deepest = deepest.max(arg_depth);
            match self.peek() {
                Some(TokenKind::Comma) => self.pos += 1,
                Some(TokenKind::RParen) => {
                    let end = self.next_span().end;
                    self.pos += 1;
                    return Ok((args, end, deepest));
                }
                None => return Err(unclosed(open)),
                Some(other) => {
                    return Err(ParseError {
                        message: format!(
                            "expected `,` or `)` in the argument list, found {}",
                            other.describe()
                        ),
                        hint: None,
                        span: self.next_span(),
                    });
                }
            }
        }
    }

    fn primary(&mut self, depth: usize) -> Result<Parsed, ParseError> {
        self.check_depth(depth, self.next_span())?;
        let Some(token) = self.tokens.get(self.pos) else {
            return Err(ParseError {
                message: "expected a value, found the end of the expression".to_owned(),
                hint: None,
                span: self.end..self.end,
            });
        };
        let span = token.span.clone();
        let leaf = |kind| {
            Ok((
                Expr {
                    kind,
                    span: span.clone(),
                },
                1,
            ))
        };
        match &token.kind {
            TokenKind::Int(value) => {
                self.pos += 1;
                leaf(ExprKind::Int(*value))
            }
            TokenKind::Real(value) => {
                self.pos += 1;
                leaf(ExprKind::Real(*value))
            }
            TokenKind::Str(value) => {
                self.pos += 1;
                leaf(ExprKind::Str(value.clone()))
            }
            TokenKind::True | TokenKind::False => {
                self.pos += 1;
                leaf(ExprKind::Bool(token.kind == TokenKind::True))
            }
            TokenKind::Null => {
                self.pos += 1;
                leaf(ExprKind::Null)
            }
            TokenKind::Param(name) => {
                self.pos += 1;
                leaf(ExprKind::Param(name.clone()))
            }
            TokenKind::Ident(name) => {
                self.pos += 1;
                if self.peek() == Some(&TokenKind::LParen) {
                    let (args, end, args_depth) = self.arguments(depth)?;
                    let kind = ExprKind::Call {
                        name: name.clone(),
                        name_span: span.clone(),
                        args,
                    };
                    Ok((
                        Expr {
                            kind,
                            span: span.start..end,
                        },
                        args_depth + 1,
                    ))
                } else {
                    leaf(ExprKind::Name(name.clone()))
                }
            }
            TokenKind::LParen => {
                self.pos += 1;
                let (inner, inner_depth) = self.expression(0, depth + 1)?;
                if self.peek() != Some(&TokenKind::RParen) {
                    if self.peek().is_none() {
                        return Err(unclosed(span));
                    }
                    return Err(ParseError {
                        message: format!("expected `)`, found {}", self.describe_next()),
                        hint: Some("is an operator missing?".to_owned()),
                        span: self.next_span(),
                    });
                }
                self.pos += 1;
                Ok((inner, inner_depth))
            }
            TokenKind::Lt
                if self.tokens.get(self.pos + 1).is_some_and(|next| {
                    next.kind == TokenKind::Minus && next.span.start == span.end
                }) =>
            {
                // `<-REL`: a relationship followed backwards.
                self.pos += 2;
                let (inner, inner_depth) = self.postfix(depth + 1)?;
                let span = span.start..inner.span.end;
                Ok((
                    Expr {
                        kind: ExprKind::Incoming(Box::new(inner)),
                        span,
                    },
                    inner_depth + 1,
                ))
            }
            other => Err(ParseError {
                message: format!("expected a value, found {}", other.describe()),
                hint: None,
                span,
            }),
        }
    }
}

fn unclosed(open: Range<usize>) -> ParseError {
    ParseError {
        message: "this `(` is never closed".to_owned(),
        hint: Some("add the missing `)`".to_owned()),
        span: open,
    }
}

fn chained(span: Range<usize>) -> ParseError {
    ParseError {
        message: "comparisons cannot be chained".to_owned(),
        hint: Some("combine them with AND: `a < b AND b < c`, or add parentheses".to_owned()),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(text: &str) -> String {
        parse(text).unwrap().to_string()
    }

    #[test]
    fn precedence_follows_sql() {
        assert_eq!(
            canonical("endLine - startLine + 1"),
            "((endLine - startLine) + 1)"
        );
        assert_eq!(canonical("a + b * c"), "(a + (b * c))");
        assert_eq!(
            canonical("a OR b AND NOT c = 1"),
            "(a OR (b AND NOT (c = 1)))"
        );
        assert_eq!(canonical("-a.length * 2"), "(-a.length * 2)");
        assert_eq!(canonical("a || b + c"), "((a || b) + c)");
        assert_eq!(
            canonical("x IS NOT NULL AND y is null"),
            "(x IS NOT NULL AND y IS NULL)"
        );
    }

    #[test]
    fn calls_members_and_incoming() {
        assert_eq!(
            canonical("max(HAS_CHANGE.timestamp)"),
            "max(HAS_CHANGE.timestamp)"
        );
        assert_eq!(canonical("count(<-CONSUMES)"), "count(<-CONSUMES)");
        assert_eq!(canonical("name.lower().length"), "name.lower().length");
        assert_eq!(canonical("now()"), "now()");
        assert_eq!(canonical("a < -1"), "(a < -1)");
    }

    #[test]
    fn syntax_errors_are_located() {
        let error = parse("(a + b").unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.span),
            ("this `(` is never closed", 0..1)
        );
        let error = parse("a +").unwrap_err();
        assert_eq!(error.span, 2..3);
        let error = parse("a b").unwrap_err();
        assert_eq!(error.span, 2..3);
        let error = parse("a < b < c").unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.span),
            ("comparisons cannot be chained", 6..7)
        );
        let error = parse("   ").unwrap_err();
        assert_eq!(error.message, "the expression is empty");
        let error = parse("a IS 3").unwrap_err();
        assert_eq!(error.span, 5..6);
        let error = parse("f(a b)").unwrap_err();
        assert_eq!(error.span, 4..5);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(
            parse(&deep)
                .unwrap_err()
                .message
                .contains("nested too deeply")
        );
        let long = vec!["1"; 10_000].join(" + ");
        assert!(
            parse(&long)
                .unwrap_err()
                .message
                .contains("nested too deeply")
        );
        let negs = format!("{}1", "-".repeat(10_000));
        assert!(parse(&negs).is_err());
        let calls = format!("{}1{}", "f(".repeat(10_000), ")".repeat(10_000));
        assert!(
            parse(&calls)
                .unwrap_err()
                .message
                .contains("nested too deeply")
        );
        let incoming = format!("count({}R)", "<-".repeat(10_000));
        assert!(
            parse(&incoming)
                .unwrap_err()
                .message
                .contains("nested too deeply")
        );
        let members = format!("a{}", ".length".repeat(10_000));
        assert!(
            parse(&members)
                .unwrap_err()
                .message
                .contains("nested too deeply")
        );
        let ok = vec!["1"; 50].join(" + ");
        assert!(parse(&ok).is_ok());
    }
}
