//! Independent counts made straight from the file text, without syn: a small lexer blanks
//! comments and literals, a regex finds `fn` items, and braces are matched by hand.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use regex::Regex;

/// A `fn` item found by scanning: its name and its first and last lines (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FnSpan {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

impl FnSpan {
    pub fn lines(&self) -> usize {
        self.end - self.start + 1
    }
}

/// The text with every comment, string and character literal replaced by spaces (newlines
/// kept), so only code is left.
pub fn blank_non_code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep_newline = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let at = |k: usize| chars.get(i + k).copied().unwrap_or('\0');
        if c == '/' && at(1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && at(1) == '*' {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(keep_newline(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (at(1) == '"' || at(1) == '#')
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
        {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let closing: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let body_start = i + 2 + hashes;
            let rest: String = chars[body_start..].iter().collect();
            let body_len = rest
                .find(&closing)
                .map_or(rest.len(), |b| rest[..b].chars().count());
            let end = (body_start + body_len + closing.chars().count()).min(chars.len());
            for &ch in &chars[i..end] {
                out.push(keep_newline(ch));
            }
            i = end;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(keep_newline(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && at(1) == '\\' {
            let close = chars[i + 2..]
                .iter()
                .skip(1)
                .position(|&q| q == '\'')
                .map_or(chars.len(), |p| i + 3 + p);
            for _ in i..=close.min(chars.len() - 1) {
                out.push(' ');
            }
            i = close + 1;
        } else if c == '\'' && at(2) == '\'' {
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Every `fn` item of a file that is not nested inside another function's body.
pub fn fn_items(text: &str) -> Vec<FnSpan> {
    let code = blank_non_code(text);
    let line_of = |offset: usize| code[..offset].matches('\n').count() + 1;
    let pattern = Regex::new(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)").unwrap();
    let bytes = code.as_bytes();
    // `fn` inside a `macro_rules!` body is a token of the macro, not an item.
    let macros: Vec<(usize, usize)> = Regex::new(r"\bmacro_rules!\s*[A-Za-z_][A-Za-z0-9_]*\s*\{")
        .unwrap()
        .find_iter(&code)
        .map(|m| (m.end() - 1, matching_brace(bytes, m.end() - 1)))
        .collect();
    let mut found: Vec<(FnSpan, usize, usize)> = Vec::new();
    for capture in pattern.captures_iter(&code) {
        let whole = capture.get(0).unwrap();
        let at = whole.start();
        if found.iter().any(|(_, from, to)| at > *from && at < *to) {
            continue; // nested in a function body
        }
        if macros.iter().any(|(from, to)| at > *from && at < *to) {
            continue;
        }
        // the body starts at the first `{` or ends at the first `;` outside parentheses
        let mut depth_paren = 0i32;
        let mut j = whole.end();
        let mut body = None;
        while j < bytes.len() {
            match bytes[j] {
                b'(' | b'[' => depth_paren += 1,
                b')' | b']' => depth_paren -= 1,
                b'{' if depth_paren == 0 => {
                    body = Some(j);
                    break;
                }
                b';' if depth_paren == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let (from, to) = match body {
            Some(open) => (open, matching_brace(bytes, open)),
            None => (j, j),
        };
        found.push((
            FnSpan {
                name: capture[1].to_string(),
                start: line_of(at),
                end: line_of(to),
            },
            from,
            to,
        ));
    }
    found.into_iter().map(|(span, _, _)| span).collect()
}

/// Every `.rs` file under `root`, relative, with `/` separators.
pub fn rust_files(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap();
                out.push(
                    relative
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join("/"),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// The fixture tree checked in next to the tests.
pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tree")
}

/// The repository's own runtime crate sources.
pub fn runtime_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime/src")
}

/// A fresh database path in a temporary directory (kept alive by the returned guard).
pub fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("code-rag.db");
    (dir, path)
}

/// The offset of the `}` closing the `{` at `open`.
fn matching_brace(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0;
    let mut k = open;
    loop {
        match bytes[k] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
        k += 1;
    }
}
