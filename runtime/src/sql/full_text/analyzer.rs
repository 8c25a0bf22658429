//! The terms of a text as an index's analyzer cuts them: SQLite FTS5's `unicode61`, then, for
//! `porter`, its Porter stemmer, both ported (`unicode61.rs`, `porter.rs`), so that a backend
//! without FTS5 indexes and searches the terms SQLite's index holds.

use crate::spec::Analyzer;

use super::porter::stem;
use super::unicode61::tokens;

/// The terms of `text`, in order (a term's index in the list is its position).
pub(crate) fn terms(analyzer: Analyzer, text: &str) -> Vec<String> {
    tokens(text)
        .into_iter()
        .map(|token| match analyzer {
            Analyzer::Porter => stem(&token.text),
            Analyzer::Unicode61 => token.text,
        })
        .collect()
}
