//! A span index: where every node of a YAML document is, by config path.
//!
//! serde does not report positions of values, so the same text is read a second time with
//! `saphyr-parser`, whose events carry marks. The index maps config paths in the form used by
//! diagnostics (`entities[0].computed_fields[1].expression`) to the byte ranges of the key and
//! the value, and converts byte offsets to 1-based line / column.
//!
//! ```
//! use toolforge_generator::__private::config::spans::{At, SpanIndex};
//! let index = SpanIndex::build("entities:\n  - name: Scope\n");
//! let loc = index.locate("entities[0].name", At::Value);
//! assert_eq!((loc.line, loc.column), (2, 11));
//! let key = index.locate("entities[0].name", At::Key);
//! assert_eq!((key.line, key.column), (2, 5));
//! ```

use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle};

/// How a node is written.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeStyle {
    /// A plain scalar.
    Plain,
    /// `'single quoted'`.
    SingleQuoted,
    /// `"double quoted"`.
    DoubleQuoted,
    /// A `|` block.
    Literal,
    /// A `>` block.
    Folded,
    /// A mapping.
    Mapping,
    /// A sequence.
    Sequence,
    /// An alias (`*name`).
    Alias,
}

/// Where one node is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpan {
    /// The key's byte range when the node is a mapping value.
    pub key: Option<Range<usize>>,
    /// The value's byte range.
    pub value: Range<usize>,
    /// How the value is written.
    pub style: NodeStyle,
}

/// Which part of a `key: value` pair a location points at.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// The key (for unknown keys).
    Key,
    /// The value.
    Value,
}

/// A resolved position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// Byte range in the source.
    pub span: Range<usize>,
}

/// Config path → position of every node of a YAML document.
#[derive(Debug, Clone, Default)]
pub struct SpanIndex {
    nodes: HashMap<String, NodeSpan>,
    line_starts: Vec<usize>,
    /// Byte offset of each character index; `None` when the text is ASCII (identity).
    char_bytes: Option<Vec<usize>>,
    len: usize,
    source: String,
    duplicates: Vec<DuplicateKey>,
    too_deep: Option<Range<usize>>,
    syntax_error: Option<usize>,
}

/// The deepest nesting of mappings and sequences a config may have. Real configs nest about
/// six levels; reading stops at the first node deeper than this, so that a hostile file costs
/// no more than its first few hundred bytes (nesting is otherwise quadratic to index).
pub const MAX_DEPTH: usize = 64;

/// A key written a second time in one mapping (YAML requires keys to be unique; serde would
/// report the mapping, or keep one of the two values without a word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The config path of the key (`entities[0].name`).
    pub path: String,
    /// The key.
    pub key: String,
    /// The byte range of its first occurrence.
    pub first: Range<usize>,
    /// The byte range of the repeated occurrence.
    pub second: Range<usize>,
}

enum Frame {
    Mapping {
        path: String,
        key: Option<(String, Range<usize>)>,
        /// Complex keys (mappings / sequences as keys) are skipped: depth of nesting inside one.
        skipping: usize,
        /// The scalar keys seen so far, where they are.
        keys: HashMap<String, Range<usize>>,
    },
    Sequence {
        path: String,
        index: usize,
    },
}

impl SpanIndex {
    /// Reads `source` and indexes every node it can reach. Syntax errors stop the index where
    /// they occur (serde reports them); what was read before stays usable.
    pub fn build(source: &str) -> SpanIndex {
        let mut line_starts = vec![0];
        line_starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        let char_bytes = (!source.is_ascii()).then(|| {
            let mut offsets: Vec<usize> = source.char_indices().map(|(i, _)| i).collect();
            offsets.push(source.len());
            offsets
        });
        let mut index = SpanIndex {
            nodes: HashMap::new(),
            line_starts,
            char_bytes,
            len: source.len(),
            source: source.to_owned(),
            duplicates: Vec::new(),
            too_deep: None,
            syntax_error: None,
        };
        index.walk(source);
        index
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.char_bytes {
            None => char_index.min(self.len),
            Some(offsets) => offsets
                .get(char_index)
                .copied()
                .unwrap_or(self.len)
                .min(self.len),
        }
    }

    fn walk(&mut self, source: &str) {
        let mut stack: Vec<Frame> = Vec::new();
        // Nesting of every mapping and sequence, complex keys included.
        let mut depth = 0usize;
        let mut parser = Parser::new_from_str(source);
        loop {
            let (event, span) = match parser.next_event() {
                Some(Ok(next)) => next,
                Some(Err(error)) => {
                    let at = self.byte(error.marker().index());
                    // The parser's own nesting limit (flow collections are scanned ahead, so
                    // it can be reached before the events that would pass MAX_DEPTH).
                    if error.info().contains("recursion limit") {
                        self.too_deep = Some(at..(at + 1).min(self.len));
                    } else {
                        self.syntax_error = Some(at);
                    }
                    break;
                }
                None => break,
            };
            let range = self.byte(span.start.index())..self.byte(span.end.index());
            match &event {
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        self.too_deep = Some(range);
                        break;
                    }
                }
                Event::MappingEnd | Event::SequenceEnd => depth = depth.saturating_sub(1),
                _ => {}
            }
            let (style, opens) = match &event {
                Event::Scalar(_, style, _, _) => (
                    match style {
                        ScalarStyle::Plain => NodeStyle::Plain,
                        ScalarStyle::SingleQuoted => NodeStyle::SingleQuoted,
                        ScalarStyle::DoubleQuoted => NodeStyle::DoubleQuoted,
                        ScalarStyle::Literal => NodeStyle::Literal,
                        ScalarStyle::Folded => NodeStyle::Folded,
                    },
                    false,
                ),
                Event::Alias(_) => (NodeStyle::Alias, false),
                Event::MappingStart(..) => (NodeStyle::Mapping, true),
                Event::SequenceStart(..) => (NodeStyle::Sequence, true),
                Event::MappingEnd | Event::SequenceEnd => {
                    if let Some(Frame::Mapping { skipping, key, .. }) = stack.last_mut()
                        && *skipping > 0
                    {
                        *skipping -= 1;
                        if *skipping == 0 {
                            *key = Some(("?".to_owned(), range));
                        }
                        continue;
                    }
                    let closed = stack.pop();
                    if let Some(Frame::Mapping { path, .. } | Frame::Sequence { path, .. }) = closed
                        && let Some(node) = self.nodes.get_mut(&path)
                        && range.end > node.value.start
                    {
                        node.value.end = node.value.end.max(range.end);
                    }
                    continue;
                }
                _ => continue,
            };

            // Inside a complex key: track nesting only.
            if let Some(Frame::Mapping { skipping, .. }) = stack.last_mut()
                && *skipping > 0
            {
                if opens {
                    *skipping += 1;
                }
                continue;
            }

            let (path, key) = match stack.last_mut() {
                None => (String::new(), None),
                Some(Frame::Sequence { path, index }) => {
                    let child = format!("{path}[{index}]");
                    *index += 1;
                    (child, None)
                }
                Some(Frame::Mapping {
                    path,
                    key,
                    skipping,
                    keys,
                }) => match key.take() {
                    None => {
                        if let Event::Scalar(text, ..) = &event {
                            let name = text.to_string();
                            match keys.get(&name) {
                                Some(first) => self.duplicates.push(DuplicateKey {
                                    path: if path.is_empty() {
                                        name.clone()
                                    } else {
                                        format!("{path}.{name}")
                                    },
                                    key: name.clone(),
                                    first: first.clone(),
                                    second: range.clone(),
                                }),
                                None => {
                                    keys.insert(name.clone(), range.clone());
                                }
                            }
                            *key = Some((name, range));
                        } else if opens {
                            *skipping = 1;
                        } else {
                            *key = Some((String::new(), range));
                        }
                        continue;
                    }
                    Some((name, key_range)) => {
                        let child = if path.is_empty() {
                            name
                        } else {
                            format!("{path}.{name}")
                        };
                        (child, Some(key_range))
                    }
                },
            };
            self.nodes.entry(path.clone()).or_insert(NodeSpan {
                key,
                value: range,
                style,
            });
            if opens {
                stack.push(match style {
                    NodeStyle::Mapping => Frame::Mapping {
                        path,
                        key: None,
                        skipping: 0,
                        keys: HashMap::new(),
                    },
                    _ => Frame::Sequence { path, index: 0 },
                });
            }
        }
    }

    /// The node at `path`, if the document has one there.
    pub fn get(&self, path: &str) -> Option<&NodeSpan> {
        self.nodes.get(path)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, byte: usize) -> (usize, usize) {
        let byte = byte.min(self.len);
        let line = self.line_starts.partition_point(|&start| start <= byte);
        let start = self.line_starts[line.saturating_sub(1)];
        let column = self
            .source
            .get(start..byte)
            .map_or(byte - start, |text| text.chars().count());
        (line.max(1), column + 1)
    }

    /// The location of a byte range.
    pub fn location(&self, span: Range<usize>) -> Location {
        let (line, column) = self.line_col(span.start);
        Location { line, column, span }
    }

    /// Keys written twice in one mapping, in document order.
    pub fn duplicates(&self) -> &[DuplicateKey] {
        &self.duplicates
    }

    /// Where the first node nested deeper than [`MAX_DEPTH`] starts, if any (the index stops
    /// there).
    pub fn too_deep(&self) -> Option<Range<usize>> {
        self.too_deep.clone()
    }

    /// The byte offset where the YAML stopped parsing, if it has a syntax error (the index
    /// stops there).
    pub fn syntax_error(&self) -> Option<usize> {
        self.syntax_error
    }

    /// Where `path` is: its key or value, or (when the document has no such node, for example
    /// a default that was not written) the nearest ancestor that exists, or the file start.
    pub fn locate(&self, path: &str, at: At) -> Location {
        let mut current = path;
        loop {
            if let Some(node) = self.nodes.get(current) {
                let span = match (at, &node.key) {
                    (At::Key, Some(key)) => key.clone(),
                    // A missing child points at its parent's key when there is one.
                    _ if current != path => node.key.clone().unwrap_or(node.value.clone()),
                    _ => node.value.clone(),
                };
                return self.location(trim_span(&self.source, span));
            }
            match parent_path(current) {
                Some(parent) => current = parent,
                None => return self.location(0..0),
            }
        }
    }

    /// Where byte `offset..end` of the text of the scalar at `path` is. Exact for single-line
    /// plain and quoted scalars (without escapes) and for `|` blocks; other multi-line scalars
    /// point at their first line. Falls back to [`SpanIndex::locate`].
    pub fn locate_in_scalar(&self, path: &str, text: &str, inner: Range<usize>) -> Location {
        let Some(node) = self.nodes.get(path) else {
            return self.locate(path, At::Value);
        };
        let offset = inner.start.min(text.len());
        let prefix = text.get(..offset).unwrap_or("");
        let len = text
            .get(offset..inner.end.clamp(offset, text.len()))
            .map_or(0, str::len)
            .max(1);
        match node.style {
            NodeStyle::Plain | NodeStyle::SingleQuoted | NodeStyle::DoubleQuoted => {
                let start = node.value.start;
                let same_line = !self.source[node.value.clone()].contains('\n');
                if !same_line || prefix.contains('\n') {
                    return self.location(trim_span(&self.source, node.value.clone()));
                }
                let quote = usize::from(node.style != NodeStyle::Plain);
                let begin = (start + quote + offset).min(self.len);
                let end = (begin + len).min(self.len);
                self.location(begin..end)
            }
            NodeStyle::Literal | NodeStyle::Folded => {
                // The node starts at its first content character (after the indentation).
                let (first_line, _) = self.line_col(node.value.start);
                let first = first_line - 1;
                let indent = node.value.start - self.line_starts[first];
                let (line_in_body, column_in_line) = if node.style == NodeStyle::Literal {
                    let line = prefix.matches('\n').count();
                    let last = prefix.rsplit('\n').next().unwrap_or("");
                    (line, last.len())
                } else {
                    (0, 0)
                };
                let Some(&line_start) = self.line_starts.get(first + line_in_body) else {
                    return self.locate(path, At::Value);
                };
                let begin = (line_start + indent + column_in_line).min(self.len);
                let end = (begin + len).min(self.len);
                self.location(begin..end)
            }
            NodeStyle::Mapping | NodeStyle::Sequence | NodeStyle::Alias => {
                self.locate(path, At::Value)
            }
        }
    }

    /// Number of nodes indexed.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when nothing was indexed.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// Limits a span to its first line, without trailing blanks (keeps code frames short).
fn trim_span(source: &str, span: Range<usize>) -> Range<usize> {
    let Some(text) = source.get(span.clone()) else {
        return span;
    };
    let first = text.split('\n').next().unwrap_or("").trim_end();
    span.start..span.start + first.len().max(usize::from(span.start < span.end))
}

/// `entities[0].name` → `entities[0]` → `entities` → `` → none.
pub fn parent_path(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    if path.ends_with(']')
        && let Some(open) = path.rfind('[')
    {
        return Some(&path[..open]);
    }
    match path.rfind(['.', '[']) {
        Some(cut) => Some(&path[..cut]),
        None => Some(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "name: demo\nentities:\n  - name: Scope\n    computed_fields:\n      - name: a\n        expression: endLine - startLine\n      - name: b\n        expression: \"x + y\"\n      - name: c\n        cypher: |\n          OPTIONAL MATCH (n)\n          RETURN count(x)\n";

    #[test]
    fn indexes_keys_and_values_of_nested_nodes() {
        let index = SpanIndex::build(SOURCE);
        let at = |p, a| {
            let l = index.locate(p, a);
            (l.line, l.column)
        };
        assert_eq!(at("name", At::Value), (1, 7));
        assert_eq!(at("entities[0].name", At::Value), (3, 11));
        assert_eq!(at("entities[0].computed_fields[1].name", At::Key), (7, 9));
        assert_eq!(
            at("entities[0].computed_fields[0].expression", At::Value),
            (6, 21)
        );
    }

    #[test]
    fn missing_paths_fall_back_to_the_nearest_ancestor() {
        let index = SpanIndex::build(SOURCE);
        let loc = index.locate("entities[0].unique_field", At::Value);
        assert_eq!((loc.line, loc.column), (3, 5));
        let loc = index.locate("nothing.here", At::Value);
        assert_eq!((loc.line, loc.column), (1, 1));
    }

    #[test]
    fn locates_offsets_inside_plain_quoted_and_block_scalars() {
        let index = SpanIndex::build(SOURCE);
        let plain = index.locate_in_scalar(
            "entities[0].computed_fields[0].expression",
            "endLine - startLine",
            10..19,
        );
        assert_eq!((plain.line, plain.column), (6, 31));
        let quoted =
            index.locate_in_scalar("entities[0].computed_fields[1].expression", "x + y", 4..5);
        assert_eq!((quoted.line, quoted.column), (8, 26));
        let body = "OPTIONAL MATCH (n)\nRETURN count(x)\n";
        let block = index.locate_in_scalar("entities[0].computed_fields[2].cypher", body, 26..34);
        assert_eq!((block.line, block.column), (12, 18));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let index = SpanIndex::build("description: héhé\nname: x\n");
        let loc = index.locate("name", At::Value);
        assert_eq!((loc.line, loc.column), (2, 7));
        assert_eq!(&"description: héhé\nname: x\n"[loc.span], "x");
    }

    #[test]
    fn duplicate_keys_are_found_with_both_positions() {
        let source = "a: 1\nb:\n  - {x: 1, y: 2, x: 3}\na: 2\n";
        let index = SpanIndex::build(source);
        let found: Vec<(&str, &str, &str)> = index
            .duplicates()
            .iter()
            .map(|d| {
                (
                    d.path.as_str(),
                    &source[d.first.clone()],
                    &source[d.second.clone()],
                )
            })
            .collect();
        assert_eq!(found, [("b[0].x", "x", "x"), ("a", "a", "a")]);
        assert_eq!(index.line_col(index.duplicates()[1].second.start), (4, 1));
        assert!(index.too_deep().is_none() && index.syntax_error().is_none());
    }

    #[test]
    fn reading_stops_past_the_depth_limit() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let index = SpanIndex::build(&deep);
        assert_eq!(index.too_deep().map(|span| span.start), Some(MAX_DEPTH));
        let fine = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(SpanIndex::build(&fine).too_deep().is_none());
        assert!(SpanIndex::build("a: [b\n").syntax_error().is_some());
    }

    #[test]
    fn parent_paths() {
        assert_eq!(parent_path("a[0].b"), Some("a[0]"));
        assert_eq!(parent_path("a[0]"), Some("a"));
        assert_eq!(parent_path("a"), Some(""));
        assert_eq!(parent_path(""), None);
    }
}
