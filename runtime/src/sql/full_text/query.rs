//! A model's search text, read as words and `"quoted phrases"` and always quoted into the
//! engine's query syntax: nothing of the input is ever read as an operator (`OR`, `NOT`,
//! `NEAR(...)`, `-x`), a column filter (`title:x`), a prefix mark (`*`) or a grouping.

use std::fmt;

/// The longest search text, in characters.
const MAX_QUERY_CHARS: usize = 1_000;

/// The most words and phrases in one search.
const MAX_QUERY_ITEMS: usize = 32;

/// One part of a search: every item must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryItem {
    /// A run of text without spaces (`parser`, `foo-bar`, `title:x`): its words, in order.
    Word(String),
    /// The text between two double quotes: its words, next to each other, in order.
    Phrase(String),
}

impl QueryItem {
    /// The item's text.
    pub fn text(&self) -> &str {
        match self {
            QueryItem::Word(text) | QueryItem::Phrase(text) => text,
        }
    }
}

/// Why a search text cannot be searched.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum QueryError {
    /// The text has no letter or digit to search for.
    NoWords,
    /// The text is longer than `MAX_QUERY_CHARS` (1,000) characters.
    TooLong(usize),
    /// The text has more than `MAX_QUERY_ITEMS` (32) words and phrases.
    TooManyItems(usize),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::NoWords => write!(
                f,
                "the query has no letter or digit to search for; give words, or a \"quoted \
                 phrase\""
            ),
            QueryError::TooLong(n) => write!(
                f,
                "the query has {n} characters, more than {MAX_QUERY_CHARS}; search for the few \
                 words that matter"
            ),
            QueryError::TooManyItems(n) => write!(
                f,
                "the query has {n} words and phrases, more than {MAX_QUERY_ITEMS}; every one \
                 must match, so search for the few that matter"
            ),
        }
    }
}

impl std::error::Error for QueryError {}

/// A parsed search: words and phrases, every one of which must match.
///
/// ```
/// use toolforge::sql::full_text::{FullTextQuery, QueryItem};
/// let query = FullTextQuery::parse(r#"title:parser "syntax tree" NEAR( -x"#).unwrap();
/// assert_eq!(query.items(), [
///     QueryItem::Word("title:parser".into()),
///     QueryItem::Phrase("syntax tree".into()),
///     QueryItem::Word("NEAR(".into()),
///     QueryItem::Word("-x".into()),
/// ]);
/// assert_eq!(
///     query.fts5(None, false),
///     r#""title:parser" AND "syntax tree" AND "NEAR(" AND "-x""#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullTextQuery {
    items: Vec<QueryItem>,
}

/// True for the characters the tokenizer keeps in words (letters, digits; everything else
/// separates words).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

impl FullTextQuery {
    /// Reads a search text: runs of text between double quotes are phrases (an unclosed quote
    /// runs to the end), other runs separated by spaces are words. Items without a letter or
    /// digit (`*`, `-`, `""`) are dropped; control characters count as spaces.
    pub fn parse(text: &str) -> Result<FullTextQuery, QueryError> {
        let chars = text.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(QueryError::TooLong(chars));
        }
        let mut items = Vec::new();
        let mut push = |item: QueryItem| {
            if item.text().chars().any(is_word_char) {
                items.push(item);
            }
        };
        let mut current = String::new();
        let mut in_phrase = false;
        for c in text.chars() {
            let c = if c.is_control() { ' ' } else { c };
            match (c, in_phrase) {
                ('"', true) => {
                    push(QueryItem::Phrase(std::mem::take(&mut current)));
                    in_phrase = false;
                }
                ('"', false) => {
                    push(QueryItem::Word(std::mem::take(&mut current)));
                    in_phrase = true;
                }
                (c, false) if c.is_whitespace() => {
                    push(QueryItem::Word(std::mem::take(&mut current)));
                }
                (c, _) => current.push(c),
            }
        }
        push(if in_phrase {
            QueryItem::Phrase(current)
        } else {
            QueryItem::Word(current)
        });
        if items.is_empty() {
            return Err(QueryError::NoWords);
        }
        if items.len() > MAX_QUERY_ITEMS {
            return Err(QueryError::TooManyItems(items.len()));
        }
        Ok(FullTextQuery { items })
    }

    /// The words and phrases, in order.
    pub fn items(&self) -> &[QueryItem] {
        &self.items
    }

    /// The FTS5 query: every item an FTS5 string (its quotes doubled), joined by `AND`;
    /// with `prefix`, words match any term they start (`"pars" *`); with `columns`, the
    /// whole query is limited to those columns (`{"title" "body"} : (...)`).
    pub fn fts5(&self, columns: Option<&[&str]>, prefix: bool) -> String {
        let items: Vec<String> = self
            .items
            .iter()
            .map(|item| {
                let quoted = format!("\"{}\"", item.text().replace('"', "\"\""));
                match item {
                    QueryItem::Word(_) if prefix => format!("{quoted} *"),
                    _ => quoted,
                }
            })
            .collect();
        let expression = items.join(" AND ");
        match columns {
            Some(columns) => {
                let names: Vec<String> = columns
                    .iter()
                    .map(|c| format!("\"{}\"", c.replace('"', "\"\"")))
                    .collect();
                format!("{{{}}} : ({expression})", names.join(" "))
            }
            None => expression,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_input_stays_text() {
        let query = FullTextQuery::parse("a\" OR b * -c {x} : ^d").unwrap();
        assert_eq!(
            query.fts5(Some(&["t\"x"]), true),
            r#"{"t""x"} : ("a" * AND " OR b * -c {x} : ^d")"#
        );
    }

    #[test]
    fn items_without_words_are_dropped() {
        assert_eq!(FullTextQuery::parse("\"").unwrap_err(), QueryError::NoWords);
        assert_eq!(
            FullTextQuery::parse("* - \"\" ()").unwrap_err(),
            QueryError::NoWords
        );
        let query = FullTextQuery::parse("x\u{0}y *").unwrap();
        assert_eq!(
            query.items(),
            [QueryItem::Word("x".into()), QueryItem::Word("y".into())]
        );
    }

    #[test]
    fn limits() {
        let long = "a".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(
            FullTextQuery::parse(&long).unwrap_err(),
            QueryError::TooLong(MAX_QUERY_CHARS + 1)
        );
        let many = vec!["w"; MAX_QUERY_ITEMS + 1].join(" ");
        assert_eq!(
            FullTextQuery::parse(&many).unwrap_err(),
            QueryError::TooManyItems(MAX_QUERY_ITEMS + 1)
        );
    }
}
