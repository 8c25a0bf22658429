//! The terms of a text as an index's analyzer cuts them: SQLite FTS5's `unicode61`, then, for
//! `porter`, its Porter stemmer, both ported (`unicode61.rs`, `porter.rs`), so that a backend
//! without FTS5 indexes and searches the terms SQLite's index holds.

use crate::spec::Analyzer;

use super::porter::stem;
use super::unicode61::tokens;

/// The term a token's folded text stands for: itself, or its stem for `porter`.
pub(crate) fn term(analyzer: Analyzer, folded: String) -> String {
    match analyzer {
        Analyzer::Porter => stem(&folded),
        Analyzer::Unicode61 => folded,
    }
}

/// The terms of `text`, in order (a term's index in the list is its position).
pub(crate) fn terms(analyzer: Analyzer, text: &str) -> Vec<String> {
    tokens(text)
        .into_iter()
        .map(|token| term(analyzer, token.text))
        .collect()
}

/// One phrase of a query as terms; with `prefix`, its last term matches any term it starts.
#[derive(Debug, Clone)]
pub(crate) struct Phrase {
    /// The phrase's terms, as the analyzer cut the query.
    pub terms: Vec<String>,
    /// Whether its last term matches as a prefix.
    pub prefix: bool,
}

impl Phrase {
    /// Whether `term` matches the phrase's term `j`.
    pub(crate) fn matches(&self, j: usize, term: &str) -> bool {
        if self.prefix && j + 1 == self.terms.len() {
            term.starts_with(self.terms[j].as_str())
        } else {
            term == self.terms[j]
        }
    }

    /// Whether the phrase starts at position `at` of `terms`.
    pub(crate) fn matches_at(&self, terms: &[String], at: usize) -> bool {
        (0..self.terms.len()).all(|j| {
            terms
                .get(at + j)
                .is_some_and(|found| self.matches(j, found))
        })
    }
}
