//! The matcher behind SQLite's `REGEXP`: a match that stops when its call's deadline passes.
//!
//! A regex crate match cannot be interrupted, and a large pattern (`(?:a|b){1,5000}c`) over a
//! large value can take a minute. So the pattern is compiled to a lazy DFA
//! (`regex_automata::hybrid`) that this module walks itself, a byte at a time, asking whether
//! to stop every [`STEP_BYTES`] bytes: the work between two questions is bounded by the
//! pattern's size, whatever the value.
//!
//! The lazy DFA cannot decide a Unicode word boundary (`\b`, `\B`) next to a non-ASCII byte;
//! there it hands over to the regex crate, whose match cannot stop, so it runs only when the
//! value is small enough for the pattern ([`FALLBACK_BUDGET`]); otherwise the call fails with
//! [`TooCostly`], which names the limit and how to stay under it.

use std::sync::{Mutex, OnceLock};

use regex_automata::Input;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;

use crate::sql::sqlite::watch::lock;

/// How many bytes are matched between two questions whether to stop.
pub(crate) const STEP_BYTES: usize = 1024;

/// The most work (pattern states × value bytes) a match that cannot stop may take.
pub(crate) const FALLBACK_BUDGET: usize = 50_000_000;

/// The most memory the compiled pattern and its lazy DFA may take.
const SIZE_LIMIT: usize = 1 << 20;
const CACHE_CAPACITY: usize = 4 << 20;

/// Marks the message of [`TooCostly`] in SQLite's error text, so that the error a model sees
/// is this message rather than a database failure (see `sqlite/error.rs`).
pub(crate) const TOO_COSTLY_MARK: &str = "toolforge REGEX limit: ";

/// A compiled `REGEX` pattern whose matches can stop.
#[derive(Debug)]
pub(crate) struct StoppableRegex {
    dfa: DFA,
    cache: Mutex<Cache>,
    /// The pattern, for the fallback.
    pattern: String,
    /// The regex crate's matcher, for what the lazy DFA cannot decide: compiled when first
    /// needed (`None` when it cannot be), which most patterns never are.
    fallback: OnceLock<Option<regex::Regex>>,
    /// The compiled pattern's NFA states: a match's work per byte, at most.
    states: usize,
}

/// Why a match did not answer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unanswered {
    /// The caller asked to stop (the deadline passed, the caller went away).
    Stopped,
    /// The match would take more than [`FALLBACK_BUDGET`] without a way to stop.
    TooCostly(TooCostly),
}

/// A match refused because it could not stop and would take too long.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{TOO_COSTLY_MARK}the REGEX pattern needs Unicode word boundaries (\\b, \\B) next to \
     non-ASCII text in a value of {bytes} bytes: with {states} pattern states that is more \
     work ({states} × {bytes}) than one match may take ({FALLBACK_BUDGET}); use ASCII \
     boundaries ((?-u:\\b)), a shorter pattern, or conditions that leave fewer large values"
)]
pub(crate) struct TooCostly {
    states: usize,
    bytes: usize,
}

impl StoppableRegex {
    /// Compiles `pattern` (the regex crate's syntax), or says what is wrong with it.
    pub(crate) fn new(pattern: &str) -> Result<StoppableRegex, String> {
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .cache_capacity(CACHE_CAPACITY)
                    .skip_cache_capacity_check(true)
                    .minimum_cache_clear_count(None)
                    .unicode_word_boundary(true),
            )
            .thompson(thompson::Config::new().nfa_size_limit(Some(SIZE_LIMIT)))
            .build(pattern)
            .map_err(|e| format!("invalid REGEX pattern: {e}"))?;
        let states = dfa.get_nfa().states().len().max(1);
        let cache = Mutex::new(dfa.create_cache());
        Ok(StoppableRegex {
            dfa,
            cache,
            pattern: pattern.to_owned(),
            fallback: OnceLock::new(),
            states,
        })
    }

    /// Whether `text` holds a match, asking `should_stop` every [`STEP_BYTES`] bytes.
    pub(crate) fn is_match_until(
        &self,
        text: &str,
        mut should_stop: impl FnMut() -> bool,
    ) -> Result<bool, Unanswered> {
        let bytes = text.as_bytes();
        let mut cache = lock(&self.cache);
        let Ok(mut state) = self
            .dfa
            .start_state_forward(&mut cache, &Input::new(bytes).earliest(true))
        else {
            return self.fallback(text);
        };
        for (step, chunk) in bytes.chunks(STEP_BYTES).enumerate() {
            if step > 0 && should_stop() {
                return Err(Unanswered::Stopped);
            }
            for &byte in chunk {
                // Never fails: without a minimum clear count the cache is cleared, not given up.
                let Ok(next) = self.dfa.next_state(&mut cache, state, byte) else {
                    return self.fallback(text);
                };
                state = next;
                if state.is_tagged() {
                    if state.is_match() {
                        return Ok(true);
                    }
                    if state.is_dead() {
                        return Ok(false);
                    }
                    if state.is_quit() {
                        return self.fallback(text);
                    }
                }
            }
        }
        match self.dfa.next_eoi_state(&mut cache, state) {
            Ok(end) => Ok(end.is_match()),
            Err(_) => self.fallback(text),
        }
    }

    /// The regex crate's answer, when its work is within [`FALLBACK_BUDGET`].
    fn fallback(&self, text: &str) -> Result<bool, Unanswered> {
        let bytes = text.len();
        let too_costly = || {
            Unanswered::TooCostly(TooCostly {
                states: self.states,
                bytes,
            })
        };
        if self.states.saturating_mul(bytes) > FALLBACK_BUDGET {
            return Err(too_costly());
        }
        let fallback = self.fallback.get_or_init(|| {
            regex::RegexBuilder::new(&self.pattern)
                .size_limit(SIZE_LIMIT)
                .build()
                .ok()
        });
        // The lazy DFA compiled the pattern, so only the regex crate's size limit can refuse it.
        fallback
            .as_ref()
            .map(|regex| regex.is_match(text))
            .ok_or_else(too_costly)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        StoppableRegex::new(pattern)
            .unwrap()
            .is_match_until(text, || false)
            .unwrap()
    }

    #[test]
    fn answers_as_the_regex_crate_does() {
        let cases = [
            ("Service$", "UserService", true),
            ("Service$", "ServiceUser", false),
            ("^(?i)user", "USERS", true),
            (r"\d{3}-\d{4}", "call 555-1234 now", true),
            (r"\bcat\b", "concat", false),
            (r"\bcat\b", "a cat sat", true),
            (r"\bcafé\b", "un café noir", true),
            (r"\bcafé\b", "uncafénoir", false),
            ("(?m)^b$", "a\nb\nc", true),
            ("", "", true),
            ("x", "", false),
            ("é+", "caféé", true),
        ];
        for (pattern, text, expected) in cases {
            let crate_answer = regex::Regex::new(pattern).unwrap().is_match(text);
            assert_eq!(crate_answer, expected, "{pattern} on {text}");
            assert_eq!(matches(pattern, text), expected, "{pattern} on {text}");
        }
    }

    #[test]
    fn a_large_pattern_over_a_large_value_stops_when_asked() {
        let regex = StoppableRegex::new("(?:a|b){1,5000}c").unwrap();
        let text = "ab".repeat(500_000);
        let mut asked = 0;
        let answer = regex.is_match_until(&text, || {
            asked += 1;
            asked > 3
        });
        assert_eq!(answer, Err(Unanswered::Stopped));
        assert_eq!(asked, 4);
    }

    #[test]
    fn a_unicode_boundary_over_a_large_non_ascii_value_is_refused_with_the_limit() {
        let regex = StoppableRegex::new(r"\b(?:a|b){1,500}\b").unwrap();
        let text = "é".repeat(500_000);
        let Err(Unanswered::TooCostly(refusal)) = regex.is_match_until(&text, || false) else {
            panic!("expected a refusal");
        };
        let message = refusal.to_string();
        assert!(message.contains("(?-u:\\b)"), "{message}");
        assert!(message.contains(&FALLBACK_BUDGET.to_string()), "{message}");
        // ASCII boundaries stay on the lazy DFA, whatever the value.
        let ascii = StoppableRegex::new(r"(?-u:\b)(?:a|b){1,500}(?-u:\b)").unwrap();
        assert_eq!(ascii.is_match_until(&text, || false), Ok(false));
    }
}
