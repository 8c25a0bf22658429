//! The Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it (`fts5PorterCb`
//! of `ext/fts5/fts5_tokenize.c`): over the token's bytes, tokens of 3 to 64 bytes only, with
//! SQLite's own conditions (its `*v*` counts a `y` after the first letter as a vowel). The
//! rules of steps 1b to 4 are SQLite's tables (`fts5_tables.rs`).

use super::fts5_tables::{Condition, STEP_1B, STEP_1B2, STEP_2, STEP_3, STEP_4};

/// Tokens longer than this, in bytes, are not stemmed (`FTS5_PORTER_MAX_TOKEN`).
const MAX_TOKEN: usize = 64;

impl Condition {
    fn holds(self, stem: &[u8]) -> bool {
        match self {
            Condition::Always => true,
            Condition::MeasureAbove0 => measure_above_0(stem),
            Condition::MeasureAbove1 => measure_above_1(stem),
            Condition::MeasureAbove1AfterSOrT => {
                matches!(stem.last(), Some(b's' | b't')) && measure_above_1(stem)
            }
            Condition::HasVowel => has_vowel(stem),
        }
    }
}

fn is_vowel(c: u8, y_is_vowel: bool) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u') || (y_is_vowel && c == b'y')
}

/// Past the first vowel-consonant sequence of `stem` (`fts5PorterGobbleVC`): the length
/// consumed, or 0 when there is none.
fn gobble_vc(stem: &[u8], previous_consonant: bool) -> usize {
    let mut consonant = previous_consonant;
    let mut i = 0;
    while i < stem.len() {
        consonant = !is_vowel(stem[i], consonant);
        if !consonant {
            break;
        }
        i += 1;
    }
    i += 1;
    while i < stem.len() {
        consonant = !is_vowel(stem[i], consonant);
        if consonant {
            return i + 1;
        }
        i += 1;
    }
    0
}

fn measure_above_0(stem: &[u8]) -> bool {
    gobble_vc(stem, false) != 0
}

fn measure_above_1(stem: &[u8]) -> bool {
    let n = gobble_vc(stem, false);
    n != 0 && gobble_vc(&stem[n..], true) != 0
}

fn measure_is_1(stem: &[u8]) -> bool {
    let n = gobble_vc(stem, false);
    n != 0 && gobble_vc(&stem[n..], true) == 0
}

/// `*o`: the stem ends consonant-vowel-consonant, the last not `w`, `x` or `y`.
fn ends_cvc(stem: &[u8]) -> bool {
    if matches!(stem.last(), Some(b'w' | b'x' | b'y')) {
        return false;
    }
    let mut mask = 0u8;
    let mut consonant = false;
    for &c in stem {
        consonant = !is_vowel(c, consonant);
        mask = ((mask << 1) + u8::from(consonant)) & 0x07;
    }
    mask == 0x05
}

fn has_vowel(stem: &[u8]) -> bool {
    stem.iter().enumerate().any(|(i, &c)| is_vowel(c, i > 0))
}

/// Applies the first rule of `rules` whose suffix ends `word` (with a stem before it) if its
/// condition holds: whether that rule reports a change.
fn apply(word: &mut Vec<u8>, rules: &[(&[u8], Condition, &[u8], bool)]) -> bool {
    for &(suffix, condition, replacement, reports) in rules {
        if word.len() > suffix.len() && word.ends_with(suffix) {
            let stem = word.len() - suffix.len();
            if condition.holds(&word[..stem]) {
                word.truncate(stem);
                word.extend_from_slice(replacement);
                return reports;
            }
            return false;
        }
    }
    false
}

fn step_1a(word: &mut Vec<u8>) {
    let n = word.len();
    if word[n - 1] == b's' {
        if word[n - 2] == b'e' {
            if (n > 4 && word[n - 4] == b's' && word[n - 3] == b's')
                || (n > 3 && word[n - 3] == b'i')
            {
                word.truncate(n - 2);
            } else {
                word.truncate(n - 1);
            }
        } else if word[n - 2] != b's' {
            word.truncate(n - 1);
        }
    }
}

/// The stem of `token` as FTS5's `porter` gives it (unchanged below 3 or above 64 bytes).
pub(crate) fn stem(token: &str) -> String {
    if token.len() > MAX_TOKEN || token.len() < 3 {
        return token.to_owned();
    }
    let mut word = token.as_bytes().to_vec();
    step_1a(&mut word);
    if apply(&mut word, STEP_1B) && !apply(&mut word, STEP_1B2) {
        let n = word.len();
        let c = word[n - 1];
        if !is_vowel(c, false) && c != b'l' && c != b's' && c != b'z' && n >= 2 && c == word[n - 2]
        {
            word.truncate(n - 1);
        } else if measure_is_1(&word) && ends_cvc(&word) {
            word.push(b'e');
        }
    }
    let n = word.len();
    if word[n - 1] == b'y' && has_vowel(&word[..n - 1]) {
        word[n - 1] = b'i';
    }
    apply(&mut word, STEP_2);
    apply(&mut word, STEP_3);
    apply(&mut word, STEP_4);
    let n = word.len();
    if word[n - 1] == b'e' {
        let stem = &word[..n - 1];
        if measure_above_1(stem) || (measure_is_1(stem) && !ends_cvc(stem)) {
            word.truncate(n - 1);
        }
    }
    let n = word.len();
    if n > 1 && word[n - 1] == b'l' && word[n - 2] == b'l' && measure_above_1(&word[..n - 1]) {
        word.truncate(n - 1);
    }
    // Every suffix is ASCII, so a cut falls between characters and the stem stays UTF-8.
    String::from_utf8(word)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}
