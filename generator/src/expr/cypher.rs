//! Translation of `cypher:` bodies. Only the single-hop aggregate pattern has an SQL meaning:
//!
//! ```text
//! [OPTIONAL] MATCH (n[:This])-[[r]:REL]->(x[:Target]) RETURN count(x) [AS alias]
//! [OPTIONAL] MATCH (n[:This])<-[[r]:REL]-(x[:Source]) RETURN sum(x.field) [AS alias]
//! ```
//!
//! with `count(x)`, `count(*)`, `count(x.field)`, `sum`, `avg`, `min` or `max(x.field)`, any
//! whitespace and case for keywords. It becomes the expression `count(REL)` /
//! `sum(REL.field)` (`<-REL` for the incoming form), checked like any other expression.

use std::ops::Range;

use toolforge::spec::{EntitySpec, SchemaSpec};

use super::ast::{Expr, ExprKind};
use super::error::{ExprError, ExprErrorKind};
use super::functions::{AggFunc, Function};

/// The pattern that is translated, for hints.
pub(crate) const SUPPORTED: &str = "only the single-hop aggregate pattern `OPTIONAL MATCH (n)-[:REL]->(x:Label) RETURN count(x)` (or `sum/avg/min/max(x.field)`, or `(n)<-[:REL]-(x)`) can be translated";

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Punct(char),
}

struct Token {
    tok: Tok,
    span: Range<usize>,
}

fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c == '/' && chars.peek().is_some_and(|(_, next)| *next == '/') {
            // A `//` comment runs to the end of the line.
            for (_, next) in chars.by_ref() {
                if next == '\n' {
                    break;
                }
            }
            continue;
        }
        if c == '_' || c.is_alphanumeric() {
            let mut end = start + c.len_utf8();
            while let Some(&(at, next)) = chars.peek() {
                if next == '_' || next.is_alphanumeric() {
                    end = at + next.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            tokens.push(Token {
                tok: Tok::Word(text[start..end].to_owned()),
                span: start..end,
            });
            continue;
        }
        if c == '`' {
            let rest = &text[start + 1..];
            if let Some(len) = rest.find('`') {
                let end = start + 1 + len + 1;
                tokens.push(Token {
                    tok: Tok::Word(rest[..len].to_owned()),
                    span: start..end,
                });
                while chars.peek().is_some_and(|(at, _)| *at < end) {
                    chars.next();
                }
                continue;
            }
        }
        tokens.push(Token {
            tok: Tok::Punct(c),
            span: start..start + c.len_utf8(),
        });
    }
    tokens
}

/// A name and where it is.
type Spanned = (String, Range<usize>);

struct Matcher<'a> {
    tokens: &'a [Token],
    pos: usize,
    end: usize,
}

/// Where the match failed and what was expected there.
struct Mismatch {
    expected: String,
    span: Range<usize>,
    found: String,
}

impl Matcher<'_> {
    fn here(&self) -> Range<usize> {
        self.tokens
            .get(self.pos)
            .map_or(self.end..self.end, |token| token.span.clone())
    }

    fn mismatch(&self, expected: &str) -> Mismatch {
        let found = match self.tokens.get(self.pos) {
            Some(Token {
                tok: Tok::Word(word),
                ..
            }) => format!("`{word}`"),
            Some(Token {
                tok: Tok::Punct(c), ..
            }) => format!("`{c}`"),
            None => "the end".to_owned(),
        };
        Mismatch {
            expected: expected.to_owned(),
            span: self.here(),
            found,
        }
    }

    fn keyword(&mut self, keyword: &str) -> bool {
        match self.tokens.get(self.pos) {
            Some(Token {
                tok: Tok::Word(word),
                ..
            }) if word.eq_ignore_ascii_case(keyword) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn punct(&mut self, c: char) -> bool {
        if self
            .tokens
            .get(self.pos)
            .is_some_and(|token| token.tok == Tok::Punct(c))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), Mismatch> {
        if self.punct(c) {
            Ok(())
        } else {
            Err(self.mismatch(&format!("`{c}`")))
        }
    }

    fn word(&mut self, what: &str) -> Result<(String, Range<usize>), Mismatch> {
        match self.tokens.get(self.pos) {
            Some(Token {
                tok: Tok::Word(word),
                span,
            }) => {
                self.pos += 1;
                Ok((word.clone(), span.clone()))
            }
            _ => Err(self.mismatch(what)),
        }
    }

    /// `( var [:Label] )`
    fn node(&mut self) -> Result<(String, Option<Spanned>), Mismatch> {
        self.expect('(')?;
        let (var, _) = self.word("a node variable")?;
        let label = if self.punct(':') {
            Some(self.word("a label")?)
        } else {
            None
        };
        self.expect(')')?;
        Ok((var, label))
    }

    /// `[ [var] :REL ]`
    fn rel(&mut self) -> Result<(String, Range<usize>), Mismatch> {
        self.expect('[')?;
        if !self.punct(':') {
            self.word("`:REL`")?;
            self.expect(':')?;
        }
        let rel = self.word("a relationship type")?;
        self.expect(']')?;
        Ok(rel)
    }
}

/// The parts of a recognised pattern.
struct Pattern {
    this_label: Option<(String, Range<usize>)>,
    incoming: bool,
    rel: String,
    rel_span: Range<usize>,
    label: Option<(String, Range<usize>)>,
    func: AggFunc,
    func_span: Range<usize>,
    field: Option<(String, Range<usize>)>,
    end: usize,
}

fn match_pattern(tokens: &[Token], text: &str) -> Result<Pattern, Mismatch> {
    let mut m = Matcher {
        tokens,
        pos: 0,
        end: text.len(),
    };
    m.keyword("OPTIONAL");
    if !m.keyword("MATCH") {
        return Err(m.mismatch("`MATCH`"));
    }
    let (_, this_label) = m.node()?;
    let incoming = m.punct('<');
    m.expect('-')?;
    let (rel, rel_span) = m.rel()?;
    m.expect('-')?;
    if !incoming {
        m.expect('>')?;
    }
    let (var, label) = m.node()?;
    if !m.keyword("RETURN") {
        return Err(m.mismatch("`RETURN`"));
    }
    let (func_name, func_span) = m.word("an aggregate (count, sum, avg, min or max)")?;
    let Some(Function::Aggregate(func)) = Function::parse(&func_name) else {
        return Err(Mismatch {
            expected: "an aggregate (count, sum, avg, min or max)".to_owned(),
            span: func_span.clone(),
            found: format!("`{func_name}`"),
        });
    };
    m.expect('(')?;
    let mut field = None;
    if !(func == AggFunc::Count && m.punct('*')) {
        let at = m.pos;
        let (used, _) = m.word(&format!("`{var}`"))?;
        if used != var {
            m.pos = at;
            return Err(m.mismatch(&format!("`{var}` (the related node)")));
        }
        if m.punct('.') {
            field = Some(m.word("a property name")?);
        }
    }
    let close = m.here();
    m.expect(')')?;
    if m.keyword("AS") {
        m.word("an alias")?;
    }
    m.punct(';');
    if m.pos < tokens.len() {
        return Err(m.mismatch("the end of the query"));
    }
    Ok(Pattern {
        this_label,
        incoming,
        rel,
        rel_span,
        label,
        func,
        func_span,
        field,
        end: close.end,
    })
}

/// A best-effort rewrite of an untranslatable query: the relationship and aggregate it seems
/// to use, as an expression.
fn guess_rewrite(tokens: &[Token]) -> Option<String> {
    let brackets = tokens
        .iter()
        .filter(|token| token.tok == Tok::Punct('['))
        .count();
    if brackets != 1 {
        return None;
    }
    let open = tokens
        .iter()
        .position(|token| token.tok == Tok::Punct('['))?;
    let colon = tokens[open..]
        .iter()
        .position(|token| token.tok == Tok::Punct(':'))?
        + open;
    let Tok::Word(rel) = &tokens.get(colon + 1)?.tok else {
        return None;
    };
    let incoming = open >= 2 && tokens[open - 2].tok == Tok::Punct('<');
    let (agg_at, func) = tokens
        .iter()
        .enumerate()
        .find_map(|(at, token)| match &token.tok {
            Tok::Word(word) => match Function::parse(word) {
                Some(Function::Aggregate(func)) => Some((at, func)),
                Some(Function::Scalar(_)) | None => None,
            },
            Tok::Punct(_) => None,
        })?;
    let field = match (tokens.get(agg_at + 3), tokens.get(agg_at + 4)) {
        (
            Some(Token {
                tok: Tok::Punct('.'),
                ..
            }),
            Some(Token {
                tok: Tok::Word(field),
                ..
            }),
        ) => Some(field),
        _ => None,
    };
    let arrow = if incoming { "<-" } else { "" };
    match (func, field) {
        (_, Some(field)) => Some(format!("{}({arrow}{rel}.{field})", func.name())),
        (AggFunc::Count, None) => Some(format!("count({arrow}{rel})")),
        (AggFunc::Sum | AggFunc::Avg | AggFunc::Min | AggFunc::Max, None) => None,
    }
}

/// Translates a `cypher:` body into the equivalent expression, or explains why it cannot be.
pub(crate) fn translate(
    text: &str,
    schema: &SchemaSpec,
    entity: &EntitySpec,
    field: &str,
) -> Result<Expr, ExprError> {
    let tokens = tokenize(text);
    let untranslatable = |message: String, hint: String, span: Range<usize>| ExprError {
        field: field.to_owned(),
        kind: ExprErrorKind::UntranslatableCypher,
        message: format!(
            "the Cypher of computed field `{field}` cannot be translated to SQL: {message}"
        ),
        hint: Some(hint),
        span,
    };
    let pattern = match_pattern(&tokens, text).map_err(|mismatch| {
        let hint = match guess_rewrite(&tokens) {
            Some(rewrite) => format!("{SUPPORTED}; write `expression: {rewrite}` if that is what it computes"),
            None => format!("{SUPPORTED}; rewrite it as an `expression:` (for example `count(REL)`) or a `sql:` body"),
        };
        untranslatable(format!("expected {}, found {}", mismatch.expected, mismatch.found), hint, mismatch.span)
    })?;
    if let Some((label, span)) = &pattern.this_label
        && label != &entity.name
    {
        return Err(untranslatable(
            format!(
                "the first node is labelled `{label}`, but the field belongs to `{}`",
                entity.name
            ),
            format!("start the pattern at `(n)` or `(n:{})`", entity.name),
            span.clone(),
        ));
    }
    let rel = &pattern.rel;
    let ends: Vec<&str> = schema
        .relationships
        .iter()
        .filter(|spec| &spec.rel_type == rel)
        .filter_map(|spec| {
            let (near, far) = if pattern.incoming {
                (&spec.target, &spec.source)
            } else {
                (&spec.source, &spec.target)
            };
            (near == &entity.name).then_some(far.as_str())
        })
        .collect();
    let reads_changes = rel == super::check::HAS_CHANGE && ends.is_empty() && !pattern.incoming;
    if let Some((label, span)) = &pattern.label
        && reads_changes
        && label != "Change"
    {
        return Err(untranslatable(
            format!("`{rel}` leads to the record's changes, labelled `Change`, not `{label}`"),
            "use the label `Change` or leave it out".to_owned(),
            span.clone(),
        ));
    }
    if let Some((label, span)) = &pattern.label
        && !ends.is_empty()
        && !ends.contains(&label.as_str())
    {
        return Err(untranslatable(
            format!(
                "`{rel}` leads from `{}` to `{}`, not to `{label}`",
                entity.name,
                ends.join("`, `")
            ),
            format!("use the label `{}` or leave it out", ends[0]),
            span.clone(),
        ));
    }
    if let Some((label, _)) = &pattern.label
        && ends.is_empty()
        && !reads_changes
        && schema.entity(label).is_none()
    {
        let declared = if pattern.incoming {
            "incoming"
        } else {
            "outgoing"
        };
        return Err(untranslatable(
            format!(
                "`{}` has no {declared} relationship `{rel}`, and there is no entity `{label}`",
                entity.name
            ),
            format!(
                "declare the entity `{label}` and the relationship `{rel}` on `{}`, or remove this computed field",
                entity.name
            ),
            pattern.rel_span.clone(),
        ));
    }
    if pattern.func != AggFunc::Count && pattern.field.is_none() {
        return Err(untranslatable(
            format!(
                "`{}` needs a property of the related node",
                pattern.func.name()
            ),
            format!("for example `RETURN {}(x.field)`", pattern.func.name()),
            pattern.func_span.clone(),
        ));
    }
    let mut path = Expr {
        kind: ExprKind::Name(rel.clone()),
        span: pattern.rel_span.clone(),
    };
    if let Some((name, name_span)) = pattern.field {
        let span = pattern.rel_span.start..name_span.end;
        path = Expr {
            kind: ExprKind::Member {
                object: Box::new(path),
                name,
                name_span,
                args: None,
            },
            span,
        };
    }
    if pattern.incoming {
        let span = path.span.clone();
        path = Expr {
            kind: ExprKind::Incoming(Box::new(path)),
            span,
        };
    }
    let span = pattern.func_span.start..pattern.end;
    Ok(Expr {
        kind: ExprKind::Call {
            name: pattern.func.name().to_owned(),
            name_span: pattern.func_span,
            args: vec![path],
        },
        span,
    })
}
