//! Located problems found in a config: errors and warnings with file, line, column, config path
//! and a hint, rendered as code frames (via `annotate-snippets`) or as JSON.
//!
//! ```
//! let source = "entities: []\n";
//! let err = toolforge_generator::compile_str(source, "empty.yaml", &Default::default())
//!     .unwrap_err();
//! assert!(err.has_errors());
//! let first = &err.items()[0];
//! assert_eq!((first.line, first.column), (1, 11));
//! assert!(err.render().contains("empty.yaml:1:11"));
//! ```

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use serde::Serialize;

/// How serious a [`Diagnostic`] is.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Blocks the config: nothing is generated.
    Error,
    /// Reported, never blocks (an error in strict mode).
    Warning,
    /// Information, never blocks, not even in strict mode (a table of the database that the
    /// config does not map yet).
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// A second place a diagnostic refers to (the other half of a duplicate, for example).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    /// What is at that place.
    pub message: String,
    /// The config path of that place.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// Byte range in the source, for the code frame.
    #[serde(skip)]
    pub span: Range<usize>,
}

/// One problem in a config, located.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, naming the offending value.
    pub message: String,
    /// The config file as given by the caller.
    pub file: String,
    /// 1-based line (0 when the file could not be read at all).
    pub line: usize,
    /// 1-based column in characters (0 when the file could not be read at all).
    pub column: usize,
    /// The config path, for example `entities[0].computed_fields[1].expression`
    /// (empty for the whole file).
    pub path: String,
    /// How to fix it.
    pub hint: Option<String>,
    /// Other places the problem involves.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    /// Byte range in the source, for the code frame.
    #[serde(skip)]
    pub span: Range<usize>,
    /// The source text, for the code frame (shared by all diagnostics of one file).
    #[serde(skip)]
    pub source: Option<Arc<str>>,
}

impl Diagnostic {
    /// A diagnostic about a file as a whole (for example one that cannot be read).
    pub fn whole_file(severity: Severity, file: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            message: message.into(),
            file: file.to_owned(),
            line: 0,
            column: 0,
            path: String::new(),
            hint: None,
            related: Vec::new(),
            span: 0..0,
            source: None,
        }
    }

    /// Sets the hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:column`.
    pub fn location(&self) -> String {
        if self.line == 0 {
            self.file.clone()
        } else {
            format!("{}:{}:{}", self.file, self.line, self.column)
        }
    }

    /// The diagnostic as a code frame with a caret under the offending text.
    pub fn render(&self) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Note => Level::NOTE,
        };
        let title = if self.path.is_empty() {
            self.message.clone()
        } else {
            format!("{} (at `{}`)", self.message, self.path)
        };
        let mut group = Group::with_title(level.primary_title(title));
        match &self.source {
            Some(source) if self.line > 0 && self.span.end <= source.len() => {
                let mut snippet = Snippet::source(&**source)
                    .path(self.file.as_str())
                    .fold(true)
                    .annotation(AnnotationKind::Primary.span(self.span.clone()));
                for related in &self.related {
                    if related.span.end <= source.len() {
                        snippet = snippet.annotation(
                            AnnotationKind::Context
                                .span(related.span.clone())
                                .label(related.message.as_str()),
                        );
                    }
                }
                group = group.element(snippet);
            }
            _ => {
                group = group.element(Level::NOTE.message(format!("in {}", self.location())));
            }
        }
        for related in &self.related {
            group = group.element(Level::NOTE.message(format!(
                "{} at {}:{}:{} (`{}`)",
                related.message, self.file, related.line, related.column, related.path
            )));
        }
        if let Some(hint) = &self.hint {
            group = group.element(Level::HELP.message(hint.as_str()));
        }
        let report: [Group<'_>; 1] = [group];
        Renderer::plain().render(&report).to_string()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.location(),
            self.severity,
            self.message
        )?;
        if !self.path.is_empty() {
            write!(f, " (at `{}`)", self.path)?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "; help: {hint}")?;
        }
        Ok(())
    }
}

/// The diagnostics of one compilation, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// The diagnostics as a slice.
    pub fn items(&self) -> &[Diagnostic] {
        &self.0
    }

    /// True when at least one diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }

    /// Number of warnings.
    pub fn warning_count(&self) -> usize {
        self.count(Severity::Warning)
    }

    /// Number of notes.
    pub fn note_count(&self) -> usize {
        self.count(Severity::Note)
    }

    fn count(&self, severity: Severity) -> usize {
        self.0.iter().filter(|d| d.severity == severity).count()
    }

    /// True when there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every diagnostic as a code frame, separated by blank lines.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for diagnostic in &self.0 {
            out.push_str(&diagnostic.render());
            out.push_str("\n\n");
        }
        out
    }

    /// The diagnostics as a JSON array of objects with `severity`, `message`, `file`, `line`,
    /// `column`, `path`, `hint` (and `related` when there are other places).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.0).unwrap_or(serde_json::Value::Null)
    }

    /// Sorts by position (stable: equal positions keep their order).
    pub(crate) fn sort(&mut self) {
        self.0.sort_by_key(|d| (d.line, d.column));
    }

    /// Turns every warning into an error (strict mode); notes stay notes.
    pub(crate) fn promote_warnings(&mut self) {
        for diagnostic in &mut self.0 {
            if diagnostic.severity == Severity::Warning {
                diagnostic.severity = Severity::Error;
            }
        }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for diagnostic in &self.0 {
            writeln!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
