//! Cutting names and text into lowercase words: `getWeatherData`, `get_weather_data` and
//! `math.factorial` all become their words, which the FTS index, capability extraction and
//! query building share.

use std::borrow::Cow;

/// English words too common to say anything about a tool: removed from queries, and from the
/// indexed (never shown) text of descriptions and parameters, so a record's BM25 length counts
/// only words a query can match.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "do", "does", "for", "from", "get", "give", "had", "has", "have", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "need", "of", "on", "or", "our", "please",
    "should", "so", "some", "tell", "than", "that", "the", "their", "them", "then", "there",
    "these", "this", "those", "to", "tool", "up", "us", "use", "want", "was", "we", "what", "when",
    "where", "which", "who", "will", "with", "would", "you", "your",
];

/// Whether `word` (lowercase) is a stop word.
pub(crate) fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// The lowercase words of `text`: runs of letters and digits, with camelCase humps split
/// (`getHTTPResponse` → `get`, `http`, `response`).
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
        } else if run.is_ascii() {
            ascii_run_words(run, &mut out);
        } else {
            run_words(run, &mut out);
        }
    }
    out
}

/// Where a camelCase hump starts, given the characters before, at and after a position.
fn is_hump(prev: char, cur: char, next_lower: bool) -> bool {
    (prev.is_lowercase() && cur.is_uppercase())
        || (prev.is_ascii_digit() && cur.is_uppercase())
        || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
}

/// [`words`] of one ASCII run, read byte by byte.
fn ascii_run_words(run: &str, out: &mut Vec<String>) {
    let bytes = run.as_bytes();
    let mut start = 0;
    for i in 1..bytes.len() {
        let next_lower = bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        if is_hump(char::from(bytes[i - 1]), char::from(bytes[i]), next_lower) {
            out.push(run[start..i].to_ascii_lowercase());
            start = i;
        }
    }
    out.push(run[start..].to_ascii_lowercase());
}

/// [`words`] of one run with other characters.
fn run_words(run: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = run.chars().collect();
    let mut start = 0;
    for i in 1..chars.len() {
        let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
        if is_hump(chars[i - 1], chars[i], next_lower) {
            out.push(chars[start..i].iter().collect::<String>().to_lowercase());
            start = i;
        }
    }
    out.push(chars[start..].iter().collect::<String>().to_lowercase());
}

/// The words of `text` without stop words, joined by spaces: what the index holds of a
/// description or a parameter's text.
pub(crate) fn index_terms(text: &str) -> String {
    index_terms_of(&words(text))
}

/// [`index_terms`] of a text already cut into [`words`].
pub(crate) fn index_terms_of(words: &[String]) -> String {
    let mut out = String::with_capacity(words.iter().map(|w| w.len() + 1).sum());
    for word in words {
        if is_stop_word(word) {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A light English stem for matching words against the capability vocabulary (`files` →
/// `file`, `queries` → `query`); the FTS index itself uses FTS5's Porter stemmer.
pub(crate) fn stem(word: &str) -> Cow<'_, str> {
    if word.len() > 4 && word.ends_with("ies") {
        return Cow::Owned(format!("{}y", &word[..word.len() - 3]));
    }
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        return Cow::Borrowed(&word[..word.len() - 1]);
    }
    Cow::Borrowed(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn names_are_cut_into_words() {
        assert_eq!(words("getHTTPResponse"), ["get", "http", "response"]);
        assert_eq!(words("get_weather_data"), ["get", "weather", "data"]);
        assert_eq!(words("math.factorial"), ["math", "factorial"]);
        assert_eq!(words("s3Upload v2"), ["s3", "upload", "v2"]);
        assert_eq!(stem("queries"), "query");
        assert!(words("  --  ").is_empty());
        assert_eq!(
            words("Ünïcode_CaféBar x²"),
            ["ünïcode", "café", "bar", "x²"]
        );
        assert_eq!(words("ABCd"), ["ab", "cd"]);
        assert_eq!(
            index_terms("Get the weather of a city, in Celsius."),
            "weather city celsius"
        );
    }
}
