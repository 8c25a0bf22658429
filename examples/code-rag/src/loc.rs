//! Lines of code: lines that hold something other than whitespace and comments.
//!
//! Line comments (`//`, `///`, `//!`), block comments (`/* */`, nested, doc or not, over
//! several lines) and blank lines do not count. String and character literals are code, so
//! `"http://x"` or `'/'` do not start a comment; a line inside a multi-line string counts when
//! it is not blank.

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    LineComment,
    BlockComment(u32),
    Str,
    RawStr(usize),
}

/// The number of lines of code in `source`.
///
/// ```
/// let source = "fn f() {\n    // a comment\n\n    let url = \"http://x\"; /* note */\n}\n";
/// assert_eq!(code_rag_example::loc::code_lines(source), 3);
/// ```
pub fn code_lines(source: &str) -> usize {
    let chars: Vec<char> = source.chars().collect();
    let mut state = State::Code;
    let mut count = 0;
    let mut line_has_code = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            count += usize::from(line_has_code);
            line_has_code = false;
            if state == State::LineComment {
                state = State::Code;
            }
            i += 1;
            continue;
        }
        match state {
            State::LineComment => i += 1,
            State::BlockComment(depth) => {
                if c == '/' && next == Some('*') {
                    state = State::BlockComment(depth + 1);
                    i += 2;
                } else if c == '*' && next == Some('/') {
                    state = if depth == 1 {
                        State::Code
                    } else {
                        State::BlockComment(depth - 1)
                    };
                    i += 2;
                } else {
                    i += 1;
                }
            }
            State::Str => {
                line_has_code |= !c.is_whitespace();
                if c == '\\' && next.is_some_and(|n| n != '\n') {
                    i += 2;
                } else {
                    if c == '"' {
                        state = State::Code;
                    }
                    i += 1;
                }
            }
            State::RawStr(hashes) => {
                line_has_code |= !c.is_whitespace();
                if c == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    state = State::Code;
                    i += 1 + hashes;
                } else {
                    i += 1;
                }
            }
            State::Code => {
                if c == '/' && next == Some('/') {
                    state = State::LineComment;
                    i += 2;
                    continue;
                }
                if c == '/' && next == Some('*') {
                    state = State::BlockComment(1);
                    i += 2;
                    continue;
                }
                line_has_code |= !c.is_whitespace();
                if c == '"' {
                    state = State::Str;
                    i += 1;
                } else if let Some(hashes) = raw_string_start(&chars, i) {
                    state = State::RawStr(hashes);
                    i += 2 + hashes;
                } else if c == '\'' {
                    i += char_literal_len(&chars, i);
                } else {
                    i += 1;
                }
            }
        }
    }
    count + usize::from(line_has_code)
}

/// At `r` of `r"`, `r#"`, `br##"`...: the number of `#`.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    if chars[i] != 'r' {
        return None;
    }
    let ident = |k: usize| chars[k].is_alphanumeric() || chars[k] == '_';
    let prefix_ok = match i {
        0 => true,
        _ if !ident(i - 1) => true,
        _ => matches!(chars[i - 1], 'b' | 'c') && (i < 2 || !ident(i - 2)),
    };
    if !prefix_ok {
        return None;
    }
    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
    (chars.get(i + 1 + hashes) == Some(&'"')).then_some(hashes)
}

/// At a `'`: the length of the character literal starting here, or 1 for a lifetime.
fn char_literal_len(chars: &[char], i: usize) -> usize {
    match chars.get(i + 1) {
        Some('\\') => chars[i + 2..]
            .iter()
            .skip(1)
            .position(|&c| c == '\'')
            .map_or(1, |p| p + 4),
        Some(_) if chars.get(i + 2) == Some(&'\'') => 3,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::code_lines;

    #[test]
    fn comments_and_blank_lines_do_not_count() {
        assert_eq!(code_lines(""), 0);
        assert_eq!(code_lines("\n  \n\t\n"), 0);
        assert_eq!(code_lines("/// doc\n//! inner\n// plain\n"), 0);
        assert_eq!(code_lines("/* a\n  b /* nested */\n  c */\n"), 0);
        assert_eq!(code_lines("let a = 1; // trailing\n"), 1);
        assert_eq!(code_lines("/* lead */ let a = 1;\n"), 1);
    }

    #[test]
    fn literals_are_code_and_hide_comment_markers() {
        assert_eq!(code_lines("let s = \"// not a comment\";\n"), 1);
        assert_eq!(code_lines("let s = \"a\n\nb\";\n"), 2);
        assert_eq!(code_lines("let s = r#\"/* \"x\" */\"#;\n// c\n"), 1);
        assert_eq!(code_lines("let c = '\"';\nlet d = '\\'';\n// e\n"), 2);
        assert_eq!(code_lines("fn f<'a>(x: &'a str) {}\n/* x */\n"), 1);
        assert_eq!(code_lines("let s = \"\\\"\"; // q\n/* z */\n"), 1);
    }
}
