//! # toolforge-names
//!
//! The two name rules every toolforge crate shares, in one place so that the runtime, the
//! generator and the proc-macros agree on them:
//!
//! - the **tool-name rule** every provider (MCP, OpenAI, Anthropic) accepts,
//!   `^[A-Za-z0-9_-]{1,64}$`: [`validate_tool_name`], [`MAX_TOOL_NAME_LEN`] and the
//!   [`InvalidToolName`] error, which says what is wrong and suggests a valid name;
//! - the **did-you-mean routine** that answers an unknown name with the nearest known ones:
//!   [`did_you_mean`] and [`closest`].
//!
//! ```
//! use toolforge_names::{did_you_mean, validate_tool_name};
//!
//! assert!(validate_tool_name("query_entities").is_ok());
//! assert_eq!(did_you_mean("query_entites", ["query_entities", "get_schema"]), ["query_entities"]);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::cmp::Ordering;

/// The longest tool name every provider accepts.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// The most names [`did_you_mean`] returns.
pub const MAX_SUGGESTIONS: usize = 3;

/// Whether `c` may appear in a tool name: an ASCII letter or digit, `_` or `-`.
///
/// ```
/// assert!(toolforge_names::is_tool_name_char('-'));
/// assert!(!toolforge_names::is_tool_name_char('é'));
/// ```
pub fn is_tool_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Why a name is not a valid tool name. `Display` says what is wrong and how to fix it,
/// naming a valid name to use where there is one ([`InvalidToolName::suggestion`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidToolName {
    /// The name is empty.
    #[error(
        "the tool name is empty; use 1 to {MAX_TOOL_NAME_LEN} characters from `A-Z`, `a-z`, \
         `0-9`, `_` and `-`"
    )]
    Empty,
    /// The name holds a character outside `[A-Za-z0-9_-]`.
    #[error(
        "the tool name `{name}` contains {character:?} at character {position}; only `A-Z`, \
         `a-z`, `0-9`, `_` and `-` are accepted by every provider (for example `{suggestion}`)"
    )]
    InvalidCharacter {
        /// The refused name.
        name: String,
        /// The first character that is not accepted.
        character: char,
        /// Its 1-based position, in characters.
        position: usize,
        /// A valid name close to the refused one.
        suggestion: String,
    },
    /// The name is longer than [`MAX_TOOL_NAME_LEN`].
    #[error(
        "the tool name `{name}` is {length} characters long; providers accept at most \
         {MAX_TOOL_NAME_LEN} (for example `{suggestion}`)"
    )]
    TooLong {
        /// The refused name.
        name: String,
        /// Its length in characters.
        length: usize,
        /// A valid name close to the refused one.
        suggestion: String,
    },
}

impl InvalidToolName {
    /// A valid tool name close to the refused one, when there is one to suggest.
    ///
    /// ```
    /// let error = toolforge_names::validate_tool_name("search code").unwrap_err();
    /// assert_eq!(error.suggestion(), Some("search_code"));
    /// ```
    pub fn suggestion(&self) -> Option<&str> {
        match self {
            InvalidToolName::Empty => None,
            InvalidToolName::InvalidCharacter { suggestion, .. }
            | InvalidToolName::TooLong { suggestion, .. } => Some(suggestion),
        }
    }
}

/// Checks `name` against `^[A-Za-z0-9_-]{1,64}$`, the tool-name rule every provider accepts.
///
/// ```
/// use toolforge_names::{InvalidToolName, validate_tool_name};
///
/// assert!(validate_tool_name("get-entity_2").is_ok());
/// assert_eq!(validate_tool_name(""), Err(InvalidToolName::Empty));
/// let error = validate_tool_name("search code").unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "the tool name `search code` contains ' ' at character 7; only `A-Z`, `a-z`, `0-9`, `_` \
///      and `-` are accepted by every provider (for example `search_code`)"
/// );
/// assert!(matches!(validate_tool_name(&"x".repeat(65)), Err(InvalidToolName::TooLong { length: 65, .. })));
/// ```
pub fn validate_tool_name(name: &str) -> Result<(), InvalidToolName> {
    if name.is_empty() {
        return Err(InvalidToolName::Empty);
    }
    if let Some((index, character)) = name
        .chars()
        .enumerate()
        .find(|&(_, c)| !is_tool_name_char(c))
    {
        return Err(InvalidToolName::InvalidCharacter {
            name: name.to_owned(),
            character,
            position: index + 1,
            suggestion: sanitize(name),
        });
    }
    // Every character is ASCII here, so bytes and characters agree.
    if name.len() > MAX_TOOL_NAME_LEN {
        return Err(InvalidToolName::TooLong {
            name: name.to_owned(),
            length: name.len(),
            suggestion: sanitize(name),
        });
    }
    Ok(())
}

/// `name` with every refused character replaced by `_`, cut to [`MAX_TOOL_NAME_LEN`], without
/// the `_` and `-` this leaves at the end (unless nothing else is left).
fn sanitize(name: &str) -> String {
    let replaced: String = name
        .chars()
        .map(|c| if is_tool_name_char(c) { c } else { '_' })
        .take(MAX_TOOL_NAME_LEN)
        .collect();
    match replaced.trim_end_matches(['_', '-']) {
        "" => replaced,
        trimmed => trimmed.to_owned(),
    }
}

/// The known names nearest to `name`, nearest first, at most [`MAX_SUGGESTIONS`]: the answer
/// to "did you mean …?".
///
/// The one metric: the Damerau–Levenshtein distance between the lowercased names (an edit is
/// an insertion, a deletion, a substitution or a swap of two neighbouring characters),
/// normalised by the longer name's length in characters. A candidate is close enough when at
/// most one edit in three characters is needed (`distance × 3 ≤ length`), so a case-only
/// difference, a swapped pair or a missing letter are suggested, and an unrelated word is
/// not. Candidates equal to `name` are skipped (they are not a correction), repeated
/// candidates count once, and equally near candidates are ordered by name: the answer depends
/// only on the set of candidates, never on their order.
///
/// ```
/// use toolforge_names::did_you_mean;
///
/// let tools = ["query_entities", "get_schema", "glob_search", "get_entity_by_id"];
/// assert_eq!(did_you_mean("query_entites", tools), ["query_entities"]);
/// assert_eq!(did_you_mean("GET_SCHEMA", tools), ["get_schema"]);
/// assert!(did_you_mean("delete_everything", tools).is_empty());
/// assert_eq!(did_you_mean("nmae", ["name", "same", "file"]), ["name"]);
/// ```
pub fn did_you_mean<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Vec<&'c str> {
    let wanted = name.to_lowercase();
    let wanted_len = wanted.chars().count();
    let mut near: Vec<(Distance, &'c str)> = candidates
        .into_iter()
        .filter(|candidate| *candidate != name)
        .filter_map(|candidate| {
            let lower = candidate.to_lowercase();
            let length = wanted_len.max(lower.chars().count());
            let edits = strsim::damerau_levenshtein(&wanted, &lower);
            (edits * 3 <= length).then_some((Distance { edits, length }, candidate))
        })
        .collect();
    near.sort_by(|(a, a_name), (b, b_name)| a.cmp(b).then_with(|| a_name.cmp(b_name)));
    near.dedup_by(|(_, a), (_, b)| a == b);
    near.into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, candidate)| candidate)
        .collect()
}

/// The one known name nearest to `name`, if any is close enough: the first of
/// [`did_you_mean`].
///
/// ```
/// use toolforge_names::closest;
///
/// let keys = ["searchable_fields", "computed_fields", "relationships"];
/// assert_eq!(closest("searchable_feilds", keys), Some("searchable_fields"));
/// assert_eq!(closest("zzz", keys), None);
/// ```
pub fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    did_you_mean(name, candidates).into_iter().next()
}

/// A normalised distance `edits / length`, compared exactly (no floating point).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Distance {
    edits: usize,
    length: usize,
}

impl Ord for Distance {
    fn cmp(&self, other: &Self) -> Ordering {
        // a/b < c/d  ⟺  a·d < c·b for positive denominators; an empty pair (0/0) is an exact
        // match.
        let length = |d: &Distance| d.length.max(1);
        (self.edits * length(other)).cmp(&(other.edits * length(self)))
    }
}

impl PartialOrd for Distance {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_names_pass() {
        for name in ["a", "search_code", "get-entity", "Tool2", &"x".repeat(64)] {
            assert_eq!(validate_tool_name(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn invalid_names_say_why_and_suggest_a_valid_name() {
        let accented = validate_tool_name("recherché").unwrap_err();
        assert!(
            accented.to_string().contains("'é' at character 9"),
            "{accented}"
        );
        assert_eq!(accented.suggestion(), Some("recherch"));
        let marks = validate_tool_name("!!").unwrap_err();
        assert_eq!(marks.suggestion(), Some("__"));
        let long = validate_tool_name(&"x".repeat(65)).unwrap_err();
        assert_eq!(long.suggestion(), Some("x".repeat(64).as_str()));
        assert!(long.to_string().contains("65 characters long"), "{long}");
        assert_eq!(validate_tool_name("").unwrap_err().suggestion(), None);
        for error in [accented, long, marks] {
            let suggestion = error.suggestion().unwrap();
            assert_eq!(validate_tool_name(suggestion), Ok(()), "{suggestion}");
        }
    }

    #[test]
    fn long_names_with_bad_characters_suggest_a_short_valid_name() {
        let name = format!("{} tool", "x".repeat(70));
        let error = validate_tool_name(&name).unwrap_err();
        assert!(matches!(
            error,
            InvalidToolName::InvalidCharacter { position: 71, .. }
        ));
        assert_eq!(validate_tool_name(error.suggestion().unwrap()), Ok(()));
    }

    #[test]
    fn near_names_are_suggested_and_unrelated_ones_are_not() {
        let keys = ["searchable_fields", "computed_fields", "relationships"];
        assert_eq!(
            did_you_mean("searchable_feilds", keys),
            ["searchable_fields"]
        );
        assert_eq!(did_you_mean("relationship", keys), ["relationships"]);
        assert!(did_you_mean("zzz", keys).is_empty());
        assert_eq!(did_you_mean("FILE", ["File", "Scope"]), ["File"]);
        assert_eq!(
            did_you_mean("readOnly", ["read_only", "title"]),
            ["read_only"]
        );
        assert_eq!(
            did_you_mean("capability", ["capabilities"]),
            ["capabilities"]
        );
        assert!(did_you_mean("frobnicate", ["name", "description", "keywords"]).is_empty());
        assert!(did_you_mean("a", ["b"]).is_empty());
    }

    #[test]
    fn ranking_is_by_normalised_distance_then_name() {
        // one edit in 4 characters beats one edit in 3, whatever the candidates' order
        let ranked = did_you_mean("nme", ["nm", "nmea", "name"]);
        assert_eq!(ranked, ["name", "nmea", "nm"]);
        let reversed = did_you_mean("nme", ["nmea", "nm", "name"]);
        assert_eq!(ranked, reversed);
        assert_eq!(
            did_you_mean("scope", ["Scope", "scopes"]),
            ["Scope", "scopes"]
        );
    }

    #[test]
    fn results_are_capped_deduplicated_and_skip_the_name_itself() {
        let many = ["aaaa", "aaab", "aaac", "aaad", "aaab"];
        assert_eq!(did_you_mean("aaaa", many), ["aaab", "aaac", "aaad"]);
        assert_eq!(did_you_mean("aaaa", ["aaaa"]), Vec::<&str>::new());
        assert_eq!(closest("", [""]), None);
        assert_eq!(closest("", ["x"]), None);
    }
}
