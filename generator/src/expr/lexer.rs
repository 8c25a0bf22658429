//! Turns the text of an `expression:` into tokens with byte spans.

use std::ops::Range;

/// One token and where it is in the body text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub span: Range<usize>,
}

/// The kinds of tokens of the expression language.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TokenKind {
    /// An integer literal that fits in an `i64`.
    Int(i64),
    /// Any other number literal (fraction, exponent or too large for an `i64`).
    Real(f64),
    /// A quoted string (quotes removed, escapes resolved).
    Str(String),
    /// A name: a field, computed field, relationship or function (plain or `backtick`-quoted).
    Ident(String),
    /// A parameter of a declared tool, `:name` (or `:context.name`), without the colon.
    Param(String),
    /// `AND` (any case).
    And,
    /// `OR` (any case).
    Or,
    /// `NOT` (any case).
    Not,
    /// `IS` (any case).
    Is,
    /// `NULL` (any case).
    Null,
    /// `TRUE` (any case).
    True,
    /// `FALSE` (any case).
    False,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Concat,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    LParen,
    RParen,
    Comma,
    Dot,
}

impl TokenKind {
    /// How the token is shown in messages.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Int(value) => format!("number `{value}`"),
            TokenKind::Real(value) => format!("number `{value}`"),
            TokenKind::Str(_) => "a string".to_owned(),
            TokenKind::Ident(name) => format!("`{name}`"),
            TokenKind::Param(name) => format!("parameter `:{name}`"),
            TokenKind::And => "`AND`".to_owned(),
            TokenKind::Or => "`OR`".to_owned(),
            TokenKind::Not => "`NOT`".to_owned(),
            TokenKind::Is => "`IS`".to_owned(),
            TokenKind::Null => "`null`".to_owned(),
            TokenKind::True => "`true`".to_owned(),
            TokenKind::False => "`false`".to_owned(),
            TokenKind::Plus => "`+`".to_owned(),
            TokenKind::Minus => "`-`".to_owned(),
            TokenKind::Star => "`*`".to_owned(),
            TokenKind::Slash => "`/`".to_owned(),
            TokenKind::Percent => "`%`".to_owned(),
            TokenKind::Concat => "`||`".to_owned(),
            TokenKind::Eq => "`=`".to_owned(),
            TokenKind::NotEq => "`!=`".to_owned(),
            TokenKind::Lt => "`<`".to_owned(),
            TokenKind::LtEq => "`<=`".to_owned(),
            TokenKind::Gt => "`>`".to_owned(),
            TokenKind::GtEq => "`>=`".to_owned(),
            TokenKind::LParen => "`(`".to_owned(),
            TokenKind::RParen => "`)`".to_owned(),
            TokenKind::Comma => "`,`".to_owned(),
            TokenKind::Dot => "`.`".to_owned(),
        }
    }
}

/// A lexical error: a message, an optional hint and the span it is about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LexError {
    pub message: String,
    pub hint: Option<String>,
    pub span: Range<usize>,
}

/// Splits `text` into tokens. Whitespace separates tokens and is otherwise ignored.
pub(crate) fn lex(text: &str) -> Result<Vec<Token>, LexError> {
    let mut lexer = Lexer {
        text,
        pos: 0,
        tokens: Vec::new(),
    };
    lexer.run()?;
    Ok(lexer.tokens)
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    tokens: Vec<Token>,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.text
            .get(self.pos + offset..)
            .and_then(|rest| rest.chars().next())
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: start..self.pos,
        });
    }

    fn run(&mut self) -> Result<(), LexError> {
        while let Some(c) = self.peek() {
            let start = self.pos;
            if c.is_whitespace() {
                self.pos += c.len_utf8();
                continue;
            }
            if c.is_ascii_digit()
                || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit()))
            {
                self.number(start)?;
                continue;
            }
            if c == '_' || c.is_alphabetic() {
                self.word(start);
                continue;
            }
            let two = |lexer: &Self, second: char| lexer.peek_at(1) == Some(second);
            let (kind, len) = match c {
                '\'' | '"' => {
                    self.string(c, start)?;
                    continue;
                }
                '`' => {
                    self.quoted_ident(start)?;
                    continue;
                }
                ':' => {
                    self.param(start)?;
                    continue;
                }
                '+' => (TokenKind::Plus, 1),
                '-' => (TokenKind::Minus, 1),
                '*' => (TokenKind::Star, 1),
                '/' => (TokenKind::Slash, 1),
                '%' => (TokenKind::Percent, 1),
                '(' => (TokenKind::LParen, 1),
                ')' => (TokenKind::RParen, 1),
                ',' => (TokenKind::Comma, 1),
                '.' => (TokenKind::Dot, 1),
                '|' if two(self, '|') => (TokenKind::Concat, 2),
                '=' if two(self, '=') => (TokenKind::Eq, 2),
                '=' => (TokenKind::Eq, 1),
                '!' if two(self, '=') => (TokenKind::NotEq, 2),
                '<' if two(self, '>') => (TokenKind::NotEq, 2),
                '<' if two(self, '=') => (TokenKind::LtEq, 2),
                '<' => (TokenKind::Lt, 1),
                '>' if two(self, '=') => (TokenKind::GtEq, 2),
                '>' => (TokenKind::Gt, 1),
                '&' if two(self, '&') => {
                    return Err(self.error(
                        start,
                        2,
                        "`&&` is not an operator here",
                        "write `AND`",
                    ));
                }
                '|' => {
                    return Err(self.error(
                        start,
                        1,
                        "`|` is not an operator here",
                        "write `OR` for a condition, or `||` to join strings",
                    ));
                }
                '!' => {
                    return Err(self.error(start, 1, "`!` is not an operator here", "write `NOT`"));
                }
                other => {
                    return Err(LexError {
                        message: format!("unexpected character `{}`", other.escape_debug()),
                        hint: None,
                        span: start..start + other.len_utf8(),
                    });
                }
            };
            self.pos += len;
            self.push(kind, start);
        }
        Ok(())
    }

    fn error(&self, start: usize, len: usize, message: &str, hint: &str) -> LexError {
        LexError {
            message: message.to_owned(),
            hint: Some(hint.to_owned()),
            span: start..start + len,
        }
    }

    fn eat_digits(&mut self) -> usize {
        let begin = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
            self.pos += 1;
        }
        self.pos - begin
    }

    fn number(&mut self, start: usize) -> Result<(), LexError> {
        self.eat_digits();
        let mut is_real = false;
        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            is_real = true;
            self.pos += 1;
            self.eat_digits();
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let sign = usize::from(matches!(self.peek_at(1), Some('+' | '-')));
            if self.peek_at(1 + sign).is_some_and(|c| c.is_ascii_digit()) {
                is_real = true;
                self.pos += 1 + sign;
                self.eat_digits();
            }
        }
        // A number glued to a name (`12abc`) is a typo, not two tokens.
        if self.peek().is_some_and(|c| c == '_' || c.is_alphanumeric()) {
            while self.peek().is_some_and(|c| c == '_' || c.is_alphanumeric()) {
                self.pos += self.peek().map_or(1, char::len_utf8);
            }
            return Err(LexError {
                message: format!(
                    "`{}` is not a number or a name",
                    &self.text[start..self.pos]
                ),
                hint: Some(
                    "names start with a letter or `_`; quote odd names with backticks".to_owned(),
                ),
                span: start..self.pos,
            });
        }
        let digits: String = self.text[start..self.pos]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        let kind = match (is_real, digits.parse::<i64>()) {
            (false, Ok(value)) => TokenKind::Int(value),
            _ => match digits.parse::<f64>() {
                Ok(value) if value.is_finite() => TokenKind::Real(value),
                _ => {
                    return Err(LexError {
                        message: format!(
                            "number `{}` is out of range",
                            &self.text[start..self.pos]
                        ),
                        hint: Some("numbers must fit in a 64-bit float".to_owned()),
                        span: start..self.pos,
                    });
                }
            },
        };
        self.push(kind, start);
        Ok(())
    }

    fn word(&mut self, start: usize) {
        while self.peek().is_some_and(|c| c == '_' || c.is_alphanumeric()) {
            self.pos += self.peek().map_or(1, char::len_utf8);
        }
        let word = &self.text[start..self.pos];
        let kind = match word.to_ascii_lowercase().as_str() {
            "and" => TokenKind::And,
            "or" => TokenKind::Or,
            "not" => TokenKind::Not,
            "is" => TokenKind::Is,
            "null" => TokenKind::Null,
            "true" => TokenKind::True,
            "false" => TokenKind::False,
            _ => TokenKind::Ident(word.to_owned()),
        };
        self.push(kind, start);
    }

    fn string(&mut self, quote: char, start: usize) -> Result<(), LexError> {
        self.pos += 1;
        let mut value = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(LexError {
                    message: "unterminated string".to_owned(),
                    hint: Some(format!("close the string with {quote}")),
                    span: start..self.pos,
                });
            };
            let at = self.pos;
            self.pos += c.len_utf8();
            if c == quote {
                // A doubled quote stands for one quote character, as in SQL.
                if self.peek() == Some(quote) {
                    self.pos += 1;
                    value.push(quote);
                    continue;
                }
                break;
            }
            if c == '\0' {
                return Err(LexError {
                    message: "strings cannot contain a NUL character".to_owned(),
                    hint: None,
                    span: at..self.pos,
                });
            }
            if c == '\\' {
                let escaped = self.peek();
                let resolved = match escaped {
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('r') => '\r',
                    Some(other @ ('\\' | '\'' | '"')) => other,
                    _ => {
                        let end = self.pos + escaped.map_or(0, char::len_utf8);
                        return Err(LexError {
                            message: "unknown escape in string".to_owned(),
                            hint: Some(
                                "use \\\\, \\', \\\", \\n, \\t or \\r, or double the quote character"
                                    .to_owned(),
                            ),
                            span: at..end,
                        });
                    }
                };
                self.pos += 1;
                value.push(resolved);
                continue;
            }
            value.push(c);
        }
        self.push(TokenKind::Str(value), start);
        Ok(())
    }

    /// `:name` or `:context.name`: a parameter of a declared tool.
    fn param(&mut self, start: usize) -> Result<(), LexError> {
        self.pos += 1;
        let word = |lexer: &mut Self| {
            let begin = lexer.pos;
            if lexer
                .peek()
                .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
            {
                while lexer
                    .peek()
                    .is_some_and(|c| c == '_' || c.is_ascii_alphanumeric())
                {
                    lexer.pos += 1;
                }
            }
            lexer.pos > begin
        };
        if !word(self) {
            return Err(self.error(
                start,
                1,
                "`:` must be followed by a parameter name",
                "write `:name` with a declared parameter, for example `member_id = :member`",
            ));
        }
        if self.text[start + 1..self.pos] == *"context" && self.peek() == Some('.') {
            self.pos += 1;
            if !word(self) {
                return Err(self.error(
                    start,
                    self.pos - start,
                    "`:context.` must be followed by a context value's name",
                    "for example `:context.tenant`",
                ));
            }
        }
        let name = self.text[start + 1..self.pos].to_owned();
        self.push(TokenKind::Param(name), start);
        Ok(())
    }

    fn quoted_ident(&mut self, start: usize) -> Result<(), LexError> {
        self.pos += 1;
        let Some(len) = self.text[self.pos..].find('`') else {
            self.pos = self.text.len();
            return Err(LexError {
                message: "unterminated backtick-quoted name".to_owned(),
                hint: Some("close the name with `".to_owned()),
                span: start..self.pos,
            });
        };
        let name = self.text[self.pos..self.pos + len].to_owned();
        self.pos += len + 1;
        if name.is_empty() || name.contains('\0') {
            return Err(LexError {
                message: "empty or invalid backtick-quoted name".to_owned(),
                hint: None,
                span: start..self.pos,
            });
        }
        self.push(TokenKind::Ident(name), start);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        lex(text)
            .unwrap()
            .into_iter()
            .map(|token| token.kind)
            .collect()
    }

    #[test]
    fn operators_keywords_and_literals() {
        assert_eq!(
            kinds("a<>b != 1.5 AND not x || 'it''s' <= \"q\\\"\""),
            vec![
                TokenKind::Ident("a".into()),
                TokenKind::NotEq,
                TokenKind::Ident("b".into()),
                TokenKind::NotEq,
                TokenKind::Real(1.5),
                TokenKind::And,
                TokenKind::Not,
                TokenKind::Ident("x".into()),
                TokenKind::Concat,
                TokenKind::Str("it's".into()),
                TokenKind::LtEq,
                TokenKind::Str("q\"".into()),
            ]
        );
    }

    #[test]
    fn spans_are_bytes_even_after_unicode() {
        let tokens = lex("'é' + `odd name`").unwrap();
        assert_eq!(tokens[0].span, 0..4);
        assert_eq!(tokens[1].span, 5..6);
        assert_eq!(tokens[2].kind, TokenKind::Ident("odd name".into()));
        assert_eq!(tokens[2].span, 7..17);
    }

    #[test]
    fn large_integers_become_reals_and_infinite_ones_are_errors() {
        assert_eq!(kinds("99999999999999999999"), vec![TokenKind::Real(1e20)]);
        let error = lex("1 + 1e999").unwrap_err();
        assert_eq!(error.span, 4..9);
        assert!(error.message.contains("out of range"));
    }

    #[test]
    fn unterminated_string_spans_to_the_end() {
        let error = lex("name = 'abc").unwrap_err();
        assert_eq!(error.message, "unterminated string");
        assert_eq!(error.span, 7..11);
    }

    #[test]
    fn stray_characters_are_located() {
        let error = lex("a # b").unwrap_err();
        assert_eq!(error.span, 2..3);
        let error = lex("a && b").unwrap_err();
        assert_eq!(error.hint.as_deref(), Some("write `AND`"));
    }
}
