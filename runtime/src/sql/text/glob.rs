//! SQLite's `GLOB` semantics with a matcher that never recurses and can be stopped.
//!
//! SQLite's own matcher (`patternCompare`) recurses once per `*` of the pattern, so a pattern
//! of some 19,000 `*a` groups (well under the 50,000-byte pattern cap) against a long row
//! overflows the stack of whatever thread runs the query and aborts the process; and one
//! call of it can run for minutes on one row without ever reaching SQLite's interrupt
//! checks. The database tools therefore compile `GLOB` to the `toolforge_glob(pattern, text)`
//! function registered on every connection of a [`Database`](crate::sql::Database), backed by
//! [`GlobPattern`]: the same language, matched with constant stack depth, and stopped by the
//! call's deadline between any two steps.
//!
//! The language (as SQLite's GLOB, case-sensitive): `*` matches any text, `?` one character,
//! `[abc]` one listed character, `[a-z]` a range, `[^...]` any character not listed; `]` right
//! after `[` or `[^` is a listed character, `-` first or last is a listed character, and a set
//! with no closing `]` matches nothing. A NUL character ends the pattern and the text, as in
//! SQLite.

/// How many matching steps run between two checks of the stop condition.
const STEPS_BETWEEN_CHECKS: u32 = 1 << 14;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// `*` (consecutive stars are one token).
    Star,
    /// `?`
    One,
    /// A literal character.
    Char(char),
    /// `[...]`: inclusive ranges (a single character is a range of one), maybe inverted.
    Set {
        invert: bool,
        ranges: Vec<(char, char)>,
    },
    /// A set with no closing `]`: matches no character.
    Never,
}

impl Token {
    fn matches(&self, c: char) -> bool {
        match self {
            Token::Star => true,
            Token::One => true,
            Token::Char(expected) => *expected == c,
            Token::Set { invert, ranges } => {
                ranges.iter().any(|&(low, high)| low <= c && c <= high) != *invert
            }
            Token::Never => false,
        }
    }
}

/// A compiled GLOB pattern (the language is that of SQLite's `GLOB`: `*`, `?`, `[...]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobPattern {
    tokens: Vec<Token>,
}

/// Why a match stopped before it had an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

impl GlobPattern {
    /// Compiles `pattern` (every text is a pattern; nothing is an error).
    pub fn new(pattern: &str) -> GlobPattern {
        let pattern = pattern.split('\0').next().unwrap_or("");
        let mut chars = pattern.chars().peekable();
        let mut tokens = Vec::new();
        while let Some(c) = chars.next() {
            match c {
                '*' => {
                    if tokens.last() != Some(&Token::Star) {
                        tokens.push(Token::Star);
                    }
                }
                '?' => tokens.push(Token::One),
                '[' => {
                    let mut invert = false;
                    let mut ranges = Vec::new();
                    let mut next = chars.next();
                    if next == Some('^') {
                        invert = true;
                        next = chars.next();
                    }
                    if next == Some(']') {
                        ranges.push((']', ']'));
                        next = chars.next();
                    }
                    let mut prior: Option<char> = None;
                    let mut closed = false;
                    while let Some(c) = next {
                        if c == ']' {
                            closed = true;
                            break;
                        }
                        match (c, prior, chars.peek()) {
                            ('-', Some(low), Some(&high)) if high != ']' => {
                                chars.next();
                                ranges.push((low, high));
                                prior = None;
                            }
                            _ => {
                                ranges.push((c, c));
                                prior = Some(c);
                            }
                        }
                        next = chars.next();
                    }
                    if closed {
                        tokens.push(Token::Set { invert, ranges });
                    } else {
                        tokens.push(Token::Never);
                    }
                }
                other => tokens.push(Token::Char(other)),
            }
        }
        GlobPattern { tokens }
    }

    /// Whether `text` matches the whole pattern.
    pub fn is_match(&self, text: &str) -> bool {
        self.is_match_until(text, || false).unwrap_or(false)
    }

    /// Whether `text` matches, asking `stop` every few thousand steps whether to give up;
    /// `Err(Stopped)` when it said so. The work is at most proportional to the product of the
    /// pattern's and the text's lengths, and the stack use is constant.
    pub fn is_match_until(
        &self,
        text: &str,
        mut stop: impl FnMut() -> bool,
    ) -> Result<bool, Stopped> {
        let text = text.split('\0').next().unwrap_or("");
        let tokens = &self.tokens;
        // `p` indexes tokens, `t` is a byte offset into `text`. `resume` is the token after
        // the last star seen and the text offset that star's match currently ends at: on a
        // mismatch the star takes one more character and matching resumes after it.
        let (mut p, mut t) = (0usize, 0usize);
        let mut resume: Option<(usize, usize)> = None;
        let mut steps: u32 = 0;
        loop {
            steps += 1;
            if steps == STEPS_BETWEEN_CHECKS {
                steps = 0;
                if stop() {
                    return Err(Stopped);
                }
            }
            if let Some(token) = tokens.get(p) {
                if *token == Token::Star {
                    p += 1;
                    if p == tokens.len() {
                        return Ok(true);
                    }
                    resume = Some((p, t));
                    continue;
                }
                if let Some(c) = text[t..].chars().next()
                    && token.matches(c)
                {
                    p += 1;
                    t += c.len_utf8();
                    continue;
                }
            } else if t == text.len() {
                return Ok(true);
            }
            match resume {
                Some((after_star, end)) => match text[end..].chars().next() {
                    Some(c) => {
                        let end = end + c.len_utf8();
                        resume = Some((after_star, end));
                        p = after_star;
                        t = end;
                    }
                    None => return Ok(false),
                },
                None => return Ok(false),
            }
        }
    }

    /// The same pattern as an anchored POSIX regular expression for PostgreSQL's `~`
    /// operator, or `None` when the pattern can match nothing (a set with no closing `]`).
    ///
    /// Punctuation is escaped with a backslash and every set member is written as a `\U`
    /// escape, so no text of the pattern is read as regex syntax; the regex has no
    /// back-references, so PostgreSQL matches it without backtracking.
    pub fn to_posix_regex(&self) -> Option<String> {
        let mut regex = String::from("^");
        for token in &self.tokens {
            match token {
                Token::Star => regex.push_str(".*"),
                Token::One => regex.push('.'),
                Token::Char(c) if c.is_alphanumeric() || *c == ' ' || !c.is_ascii() => {
                    regex.push(*c)
                }
                Token::Char(c) => {
                    regex.push('\\');
                    regex.push(*c);
                }
                Token::Set { invert, ranges } => {
                    // A range written high to low matches nothing in SQLite; POSIX refuses it.
                    let ranges: Vec<&(char, char)> =
                        ranges.iter().filter(|(low, high)| low <= high).collect();
                    match (ranges.is_empty(), invert) {
                        (true, false) => return None,
                        (true, true) => regex.push('.'),
                        (false, _) => {
                            regex.push('[');
                            if *invert {
                                regex.push('^');
                            }
                            for (low, high) in ranges {
                                regex.push_str(&format!("\\U{:08X}", u32::from(*low)));
                                if low != high {
                                    regex.push_str(&format!("-\\U{:08X}", u32::from(*high)));
                                }
                            }
                            regex.push(']');
                        }
                    }
                }
                Token::Never => return None,
            }
        }
        regex.push('$');
        Some(regex)
    }

    /// The literal text every match starts with (the characters before the first `*`, `?`
    /// or `[`), for a range condition an index can serve; `None` when there is none.
    pub fn literal_prefix(&self) -> Option<String> {
        let prefix: String = self
            .tokens
            .iter()
            .map_while(|token| match token {
                Token::Char(c) => Some(*c),
                _ => None,
            })
            .collect();
        (!prefix.is_empty()).then_some(prefix)
    }
}

/// The smallest text greater than every text that starts with `prefix` (in the byte order of
/// UTF-8, which is code point order), or `None` when there is none.
#[cfg_attr(not(feature = "engine"), allow(dead_code))] // only the engine's queries use it
pub fn prefix_successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = match last as u32 + 1 {
            0xD800 => Some('\u{E000}'),
            n => char::from_u32(n),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_follow_sqlite() {
        let cases = [
            ("[]]", "]", true),
            ("[^]]", "]", false),
            ("[^]]", "a", true),
            ("[a-]", "-", true),
            ("[-a]", "-", true),
            ("[a-c-e]", "-", true),
            ("[a-c-e]", "d", false),
            ("[a-c-e]", "e", true),
            ("[c-a]", "b", false),
            ("[abc", "a", false),
            ("a[", "a", false),
            ("*[b]", "aab", true),
            ("?", "é", true),
            ("a*", "a", true),
            ("*", "", true),
            ("", "", true),
            ("", "a", false),
            ("a\0b", "a", true),
            ("a", "a\0b", true),
        ];
        for (pattern, text, expected) in cases {
            assert_eq!(
                GlobPattern::new(pattern).is_match(text),
                expected,
                "{pattern:?} {text:?}"
            );
        }
    }

    #[test]
    fn a_stop_is_honoured() {
        let pattern = GlobPattern::new(&format!("*{}b*", "a".repeat(5_000)));
        let text = "a".repeat(20_000);
        assert_eq!(pattern.is_match_until(&text, || true), Err(Stopped));
        assert_eq!(pattern.is_match_until("ab", || true), Ok(false));
    }

    #[test]
    fn prefixes() {
        assert_eq!(
            GlobPattern::new("src/*.ts").literal_prefix().as_deref(),
            Some("src/")
        );
        assert_eq!(GlobPattern::new("*.ts").literal_prefix(), None);
        assert_eq!(prefix_successor("a\u{D7FF}").as_deref(), Some("a\u{E000}"));
    }
}

#[cfg(test)]
mod examples {
    #[test]
    fn glob_pattern_as_documented() {
        use super::GlobPattern;
        let pattern = GlobPattern::new("src/*.[jt]s");
        assert!(pattern.is_match("src/main.ts"));
        assert!(!pattern.is_match("src/main.rs"));
        // Twenty thousand stars cost no stack.
        let hostile = GlobPattern::new(&"*a".repeat(20_000));
        assert!(hostile.is_match(&"a".repeat(20_000)));
    }

    #[test]
    fn to_posix_regex_as_documented() {
        use super::GlobPattern;
        assert_eq!(
            GlobPattern::new("a*.r?").to_posix_regex().unwrap(),
            "^a.*\\.r.$"
        );
        assert_eq!(
            GlobPattern::new("[^xy]").to_posix_regex().unwrap(),
            "^[^\\U00000078\\U00000079]$"
        );
        assert_eq!(GlobPattern::new("[ab").to_posix_regex(), None);
    }

    #[test]
    fn prefix_successor_as_documented() {
        use super::prefix_successor;
        assert_eq!(prefix_successor("src/a").as_deref(), Some("src/b"));
        assert_eq!(prefix_successor("a\u{10FFFF}").as_deref(), Some("b"));
        assert_eq!(prefix_successor("\u{10FFFF}"), None);
    }
}
