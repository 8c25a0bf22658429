//! Query expansion for `accurate` search: the [`QueryExpander`] trait and the deterministic
//! built-in [`SynonymExpander`].

use std::collections::BTreeSet;
use std::time::Instant;

use crate::error::CatalogError;
use crate::extract::CAPABILITIES;
use crate::words::{stem, words};

/// Adds search terms to a query (synonyms, related words). Implementations may call an LLM;
/// the catalog's default is the deterministic [`SynonymExpander`].
pub trait QueryExpander: Send + Sync {
    /// Terms to search for besides the query's own words (lowercase words; the catalog
    /// drops duplicates and keeps at most 32).
    fn expand(&self, query: &str, task_context: Option<&str>) -> Result<Vec<String>, CatalogError>;

    /// [`QueryExpander::expand`] giving up at `deadline` (the search's own); the default
    /// ignores it, which suits expanders that answer at once.
    fn expand_before(
        &self,
        query: &str,
        task_context: Option<&str>,
        deadline: Option<Instant>,
    ) -> Result<Vec<String>, CatalogError> {
        let _ = deadline;
        self.expand(query, task_context)
    }
}

/// Groups of words that name the same action or thing in tool descriptions.
const SYNONYMS: &[&[&str]] = &[
    &["send", "post", "notify", "publish", "deliver"],
    &["delete", "remove", "erase", "drop", "purge"],
    &["create", "add", "new", "insert", "make"],
    &["update", "modify", "edit", "change", "set"],
    &["read", "fetch", "load", "retrieve", "get"],
    &["write", "save", "store", "persist"],
    &["list", "enumerate", "show", "browse"],
    &["find", "search", "lookup", "locate", "query"],
    &["calculate", "compute", "evaluate", "determine"],
    &["convert", "transform", "translate", "change"],
    &["run", "execute", "exec", "launch", "invoke"],
    &["message", "notification", "alert", "email", "sms"],
    &["file", "document", "path"],
    &["image", "picture", "photo"],
    &["weather", "forecast", "temperature", "climate"],
    &["price", "cost", "fee", "rate"],
    &["buy", "purchase", "order"],
    &["book", "reserve", "reservation", "schedule"],
    &["distance", "route", "directions", "travel"],
    &["money", "currency", "exchange", "finance"],
    &["stock", "share", "market", "ticker"],
    &["movie", "film", "cinema"],
    &["song", "music", "track"],
    &["restaurant", "food", "dining", "cuisine"],
    &["hotel", "accommodation", "lodging"],
    &["flight", "airline", "airport"],
    &["chart", "graph", "plot", "visualize"],
    &["statistics", "stats", "average", "mean"],
    &["area", "perimeter", "volume", "geometry"],
];

/// Expands a query with the synonym groups above and the capability vocabulary: a word of
/// the query brings the other words of its group, and a capability signal brings the
/// capability's tag. Deterministic, no model, no network.
#[derive(Debug, Clone, Copy, Default)]
pub struct SynonymExpander;

impl QueryExpander for SynonymExpander {
    fn expand(&self, query: &str, task_context: Option<&str>) -> Result<Vec<String>, CatalogError> {
        let mut text = query.to_owned();
        if let Some(context) = task_context {
            text.push(' ');
            text.push_str(context);
        }
        let query_words: BTreeSet<String> =
            words(&text).iter().map(|w| stem(w).into_owned()).collect();
        let mut terms = Vec::new();
        for group in SYNONYMS {
            if group
                .iter()
                .any(|word| query_words.contains(stem(word).as_ref()))
            {
                terms.extend(group.iter().map(|word| (*word).to_owned()));
            }
        }
        for (tag, signals) in CAPABILITIES {
            if signals.iter().any(|signal| query_words.contains(*signal)) {
                terms.extend(tag.split('_').map(str::to_owned));
            }
        }
        let mut seen = BTreeSet::new();
        terms
            .retain(|term| !query_words.contains(stem(term).as_ref()) && seen.insert(term.clone()));
        Ok(terms)
    }
}

/// The capability tags a query's words signal (for the capability-match signal).
pub(crate) fn query_capabilities(query: &str) -> Vec<&'static str> {
    let query_words: BTreeSet<String> = words(query).iter().map(|w| stem(w).into_owned()).collect();
    CAPABILITIES
        .iter()
        .filter(|(_, signals)| signals.iter().any(|s| query_words.contains(*s)))
        .map(|(tag, _)| *tag)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synonyms_and_capabilities_are_added_once() {
        let terms = SynonymExpander
            .expand("send an email to the team", None)
            .unwrap();
        assert!(terms.contains(&"notify".to_owned()), "{terms:?}");
        assert!(terms.contains(&"notification".to_owned()), "{terms:?}");
        assert!(!terms.contains(&"send".to_owned()), "{terms:?}");
        let unique: BTreeSet<_> = terms.iter().collect();
        assert_eq!(unique.len(), terms.len());
        assert!(SynonymExpander.expand("zzz", None).unwrap().is_empty());
    }
}
