//! Collects located diagnostics for one config file (used by parsing, validation and lowering).

use std::cell::OnceCell;
use std::sync::Arc;

use crate::config::spans::{At, SpanIndex};
use crate::diagnostics::{Diagnostic, Related, Severity};

/// Builds diagnostics located through a [`SpanIndex`]. The index is built on the first
/// diagnostic, so a config without any costs no second YAML pass.
pub(crate) struct Reporter<'a> {
    index: OnceCell<SpanIndex>,
    file: &'a str,
    source: Arc<str>,
    pub(crate) out: Vec<Diagnostic>,
}

/// A diagnostic being built; call [`Pending::emit`] to record it.
#[must_use = "call .emit() to record the diagnostic"]
pub(crate) struct Pending<'r, 'a> {
    reporter: &'r mut Reporter<'a>,
    diagnostic: Diagnostic,
}

impl<'a> Reporter<'a> {
    pub(crate) fn new(file: &'a str, source: Arc<str>) -> Self {
        Reporter {
            index: OnceCell::new(),
            file,
            source,
            out: Vec::new(),
        }
    }

    /// The span index of the source (built on first use).
    pub(crate) fn index(&self) -> &SpanIndex {
        self.index.get_or_init(|| SpanIndex::build(&self.source))
    }

    fn build(&self, severity: Severity, path: &str, at: At, message: String) -> Diagnostic {
        let location = self.index().locate(path, at);
        Diagnostic {
            severity,
            message,
            file: self.file.to_owned(),
            line: location.line,
            column: location.column,
            path: path.to_owned(),
            hint: None,
            related: Vec::new(),
            span: location.span,
            source: Some(self.source.clone()),
        }
    }

    /// An error at the value of `path`.
    pub(crate) fn error<'r>(
        &'r mut self,
        path: &str,
        message: impl Into<String>,
    ) -> Pending<'r, 'a> {
        self.at(Severity::Error, path, At::Value, message)
    }

    /// A warning at the value of `path`.
    pub(crate) fn warning<'r>(
        &'r mut self,
        path: &str,
        message: impl Into<String>,
    ) -> Pending<'r, 'a> {
        self.at(Severity::Warning, path, At::Value, message)
    }

    /// A diagnostic at the key or value of `path`.
    pub(crate) fn at<'r>(
        &'r mut self,
        severity: Severity,
        path: &str,
        at: At,
        message: impl Into<String>,
    ) -> Pending<'r, 'a> {
        let diagnostic = self.build(severity, path, at, message.into());
        Pending {
            reporter: self,
            diagnostic,
        }
    }

    /// A diagnostic at an explicit position (already resolved).
    pub(crate) fn at_location<'r>(
        &'r mut self,
        severity: Severity,
        path: &str,
        location: crate::config::spans::Location,
        message: impl Into<String>,
    ) -> Pending<'r, 'a> {
        let mut diagnostic = self.build(severity, path, At::Value, message.into());
        diagnostic.line = location.line;
        diagnostic.column = location.column;
        diagnostic.span = location.span;
        Pending {
            reporter: self,
            diagnostic,
        }
    }

    /// How many errors have been reported so far.
    pub(crate) fn error_count(&self) -> usize {
        self.out
            .iter()
            .filter(|diagnostic| diagnostic.severity == Severity::Error)
            .count()
    }

    /// Where `path` is, as `line:column`.
    pub(crate) fn line_col(&self, path: &str) -> String {
        let location = self.index().locate(path, At::Value);
        format!("{}:{}", location.line, location.column)
    }
}

impl Pending<'_, '_> {
    /// Sets the hint.
    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Self {
        self.diagnostic.hint = Some(hint.into());
        self
    }

    /// Names another place involved (the first declaration of a duplicate, ...).
    pub(crate) fn related(mut self, path: &str, message: impl Into<String>) -> Self {
        let location = self.reporter.index().locate(path, At::Value);
        self.diagnostic.related.push(Related {
            message: message.into(),
            path: path.to_owned(),
            line: location.line,
            column: location.column,
            span: location.span,
        });
        self
    }

    /// [`Pending::related`] at an explicit position (already resolved).
    pub(crate) fn related_at(
        mut self,
        path: &str,
        location: crate::config::spans::Location,
        message: impl Into<String>,
    ) -> Self {
        self.diagnostic.related.push(Related {
            message: message.into(),
            path: path.to_owned(),
            line: location.line,
            column: location.column,
            span: location.span,
        });
        self
    }

    /// Records the diagnostic.
    pub(crate) fn emit(self) {
        self.reporter.out.push(self.diagnostic);
    }
}

/// The closest of `candidates` to `name`, if one is close enough to be a likely typo (the
/// workspace's one did-you-mean routine, [`toolforge_names::closest`]).
pub(crate) fn did_you_mean<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    toolforge_names::closest(name, candidates)
}

/// `did you mean `x`?` or a list of what is allowed.
pub(crate) fn suggestion<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str> + Clone,
    what: &str,
) -> String {
    match did_you_mean(name, candidates.clone()) {
        Some(close) => format!("did you mean `{close}`?"),
        None => {
            let all: Vec<String> = candidates.into_iter().map(|c| format!("`{c}`")).collect();
            if all.is_empty() {
                format!("there are no {what} to refer to")
            } else {
                format!("{what}: {}", all.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggests_close_names_only() {
        let keys = ["searchable_fields", "computed_fields", "relationships"];
        assert_eq!(
            did_you_mean("searchable_feilds", keys),
            Some("searchable_fields")
        );
        assert_eq!(did_you_mean("relationship", keys), Some("relationships"));
        assert_eq!(did_you_mean("zzz", keys), None);
        assert_eq!(did_you_mean("FILE", ["File", "Scope"]), Some("File"));
    }
}
