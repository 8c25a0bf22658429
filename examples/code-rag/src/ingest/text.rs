//! A source file's text addressed by line and column, as proc-macro2 spans report them.

use proc_macro2::LineColumn;

/// The text of one file with the byte offset of every line start.
#[derive(Debug)]
pub struct SourceText<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> SourceText<'a> {
    /// Indexes `text` by line.
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceText { text, line_starts }
    }

    /// The number of lines (a trailing newline does not start a new line).
    pub fn line_count(&self) -> usize {
        if self.text.is_empty() {
            0
        } else if self.text.ends_with('\n') {
            self.line_starts.len() - 1
        } else {
            self.line_starts.len()
        }
    }

    /// Lines `first..=last` (1-based), joined with `\n`, without a trailing newline.
    pub fn lines(&self, first: usize, last: usize) -> &'a str {
        let start = self.line_start(first);
        let end = self
            .line_starts
            .get(last)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end.max(start)].trim_end_matches(['\n', '\r'])
    }

    /// The text between two span positions (line 1-based, column in characters).
    pub fn slice(&self, start: LineColumn, end: LineColumn) -> &'a str {
        let from = self.offset(start);
        let to = self.offset(end).max(from);
        &self.text[from..to]
    }

    fn line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(self.text.len())
    }

    fn offset(&self, position: LineColumn) -> usize {
        let start = self.line_start(position.line);
        let rest = &self.text[start..];
        rest.char_indices()
            .nth(position.column)
            .map_or(self.text.len(), |(i, _)| start + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_by_line_and_character_column() {
        let text = SourceText::new("fn a() {}\nfn é(x: u8) {\n}\n");
        assert_eq!(text.line_count(), 3);
        assert_eq!(text.lines(2, 3), "fn é(x: u8) {\n}");
        let start = LineColumn { line: 2, column: 3 };
        let end = LineColumn {
            line: 2,
            column: 10,
        };
        assert_eq!(text.slice(start, end), "é(x: u8");
    }
}
