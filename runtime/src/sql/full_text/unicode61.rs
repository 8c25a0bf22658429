//! Text cut into terms as SQLite's FTS5 `unicode61` tokenizer cuts it with its defaults
//! (`categories 'L* N* Co'`, `remove_diacritics 1`; `fts5UnicodeTokenize` of
//! `ext/fts5/fts5_tokenize.c`), over SQLite's own Unicode tables (`fts5_tables.rs`), so that a
//! backend without FTS5 finds and ranks what SQLite finds and ranks.

use super::fts5_tables::{
    CATEGORY_BLOCKS, CATEGORY_DATA, CATEGORY_MAP, DIACRITIC_CHARS, DIACRITIC_KEYS, FOLD_ENTRIES,
    FOLD_OFFSETS,
};

/// One term of a text: its folded text and the byte range it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// The term, folded to lower case and stripped of diacritics.
    pub text: String,
    /// The byte offset of its first character in the text.
    pub start: usize,
    /// The byte offset just past its last character.
    pub end: usize,
}

/// The Unicode category of `code` as SQLite's table numbers them (0 when unlisted).
fn category(code: u32) -> u8 {
    if code >= 1 << 20 {
        return 0;
    }
    let plane = (code >> 16) as usize;
    let (mut lo, mut hi) = (
        usize::from(CATEGORY_BLOCKS[plane]),
        usize::from(CATEGORY_BLOCKS[plane + 1]),
    );
    let key = (code & 0xFFFF) as u16;
    let mut found = None;
    while hi > lo {
        let test = (hi + lo) / 2;
        if key >= CATEGORY_MAP[test] {
            found = Some(test);
            lo = test + 1;
        } else {
            hi = test;
        }
    }
    let Some(at) = found else { return 0 };
    let data = CATEGORY_DATA[at];
    if u32::from(key) >= u32::from(CATEGORY_MAP[at]) + u32::from(data >> 5) {
        return 0;
    }
    let category = (data & 0x1F) as u8;
    if category != 30 {
        return category;
    }
    // 30: alternating upper and lower case letters.
    if (key - CATEGORY_MAP[at]) & 1 == 1 {
        5
    } else {
        9
    }
}

/// Whether `code` belongs to a token under `L* N* Co` (the categories SQLite numbers 0, the
/// unlisted, and 5–9, 13–15, 30 and 31).
fn is_token_char(code: u32) -> bool {
    matches!(category(code), 0 | 5..=9 | 13..=15 | 30 | 31)
}

/// Whether `code` is a combining diacritic SQLite drops from inside a token.
fn is_diacritic(code: u32) -> bool {
    const MASK_0: u32 = 0x08029FDF;
    const MASK_1: u32 = 0x000361F8;
    if !(768..=817).contains(&code) {
        return false;
    }
    if code < 768 + 32 {
        MASK_0 & (1 << (code - 768)) != 0
    } else {
        MASK_1 & (1 << (code - 768 - 32)) != 0
    }
}

/// `code` without its diacritic (`remove_diacritics 1`): the letter it folds to, 0 for a
/// combining mark, or `code` itself.
fn without_diacritic(code: u32) -> u32 {
    let key = (code << 3) | 0x07;
    let mut found = 0;
    let (mut lo, mut hi) = (0i64, DIACRITIC_KEYS.len() as i64 - 1);
    while hi >= lo {
        let test = ((hi + lo) / 2) as usize;
        if key >= u32::from(DIACRITIC_KEYS[test]) {
            found = test;
            lo = test as i64 + 1;
        } else {
            hi = test as i64 - 1;
        }
    }
    let entry = u32::from(DIACRITIC_KEYS[found]);
    let letter = DIACRITIC_CHARS[found];
    if letter & 0x80 != 0 {
        return code;
    }
    if code > (entry >> 3) + (entry & 0x07) {
        code
    } else {
        u32::from(letter & 0x7F)
    }
}

/// `code` folded to lower case and stripped of its diacritic, as `sqlite3Fts5UnicodeFold`
/// with `remove_diacritics 1` does (0: nothing is written).
fn fold(code: u32) -> u32 {
    if code < 128 {
        return if (65..=90).contains(&code) {
            code + 32
        } else {
            code
        };
    }
    if code < 65536 {
        let mut found = 0;
        let (mut lo, mut hi) = (0i64, FOLD_ENTRIES.len() as i64 - 1);
        while hi >= lo {
            let test = ((hi + lo) / 2) as usize;
            if code >= u32::from(FOLD_ENTRIES[test].0) {
                found = test;
                lo = test as i64 + 1;
            } else {
                hi = test as i64 - 1;
            }
        }
        let (first, flags, range) = FOLD_ENTRIES[found];
        let (first, flags) = (u32::from(first), u32::from(flags));
        let mut folded = code;
        if code < first + u32::from(range) && (0x01 & flags & (first ^ code)) == 0 {
            folded = (code + u32::from(FOLD_OFFSETS[(flags >> 1) as usize])) & 0xFFFF;
        }
        return without_diacritic(folded);
    }
    if (66560..66600).contains(&code) {
        return code + 40;
    }
    code
}

/// The code point SQLite reads for `c` (it reads U+FFFE and U+FFFF as U+FFFD).
fn read(c: char) -> u32 {
    let code = u32::from(c);
    if code & 0xFFFF_FFFE == 0xFFFE {
        0xFFFD
    } else {
        code
    }
}

/// The tokens of `text`, in order (a token's index in the list is its position).
pub(crate) fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, first)) = chars.peek() {
        // Separators: what is not a token character (a diacritic alone is one too).
        let code = read(first);
        let token_char = if first.is_ascii() {
            first.is_ascii_alphanumeric()
        } else {
            is_token_char(code)
        };
        if !token_char {
            chars.next();
            continue;
        }
        let mut folded = String::new();
        let mut end = start;
        while let Some(&(at, c)) = chars.peek() {
            let code = read(c);
            let inside = if c.is_ascii() {
                c.is_ascii_alphanumeric()
            } else {
                is_token_char(code) || is_diacritic(code)
            };
            if !inside {
                break;
            }
            let folded_code = fold(code);
            if folded_code != 0
                && let Some(c) = char::from_u32(folded_code)
            {
                folded.push(c);
            }
            end = at + c.len_utf8();
            chars.next();
        }
        out.push(Token {
            text: folded,
            start,
            end,
        });
    }
    out
}
