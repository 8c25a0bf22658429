//! The answer to a call of a tool that does not exist.
//!
//! Models misspell tool names. Instead of failing opaquely, the registry answers
//!
//! ```json
//! {"error": "unknown_tool", "requested": "query_entites",
//!  "candidates": ["query_entities"], "message": "..."}
//! ```
//!
//! so the model can retry with a real name. A candidate is **never** run in place of the
//! requested name: only an exact name executes.
//!
//! Candidates: the registered names nearest to the requested one by the workspace's one
//! did-you-mean routine ([`toolforge_names::did_you_mean`]: normalised Damerau–Levenshtein
//! distance over lowercased names, at most one edit in three characters), nearest first, ties
//! broken by name, at most [`MAX_CANDIDATES`]. The answer depends only on the set of names,
//! never on registration order or timing.

use serde_json::{Value, json};

use crate::{ErrorCode, ToolError};

/// The most candidates an unknown-tool answer lists.
pub const MAX_CANDIDATES: usize = toolforge_names::MAX_SUGGESTIONS;

/// Answers calls of unknown tool names with the nearest registered names.
///
/// ```
/// use toolforge::InvalidTool;
/// let invalid = InvalidTool::new(["query_entities", "get_schema", "glob_search"]);
/// assert_eq!(invalid.candidates("query_entites"), vec!["query_entities"]);
/// assert_eq!(invalid.candidates("delete_everything"), Vec::<String>::new());
/// let payload = invalid.payload("get_shema");
/// assert_eq!(payload["error"], "unknown_tool");
/// assert_eq!(payload["candidates"][0], "get_schema");
/// ```
#[derive(Debug, Clone, Default)]
pub struct InvalidTool {
    /// Registered names, sorted and deduplicated.
    names: Vec<String>,
}

impl InvalidTool {
    /// An answerer over the given registered names.
    pub fn new<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut names: Vec<String> = names.into_iter().map(Into::into).collect();
        names.sort();
        names.dedup();
        InvalidTool { names }
    }

    /// At most [`MAX_CANDIDATES`] registered names close to `requested`, nearest first, ties
    /// broken by name.
    pub fn candidates(&self, requested: &str) -> Vec<String> {
        toolforge_names::did_you_mean(requested, self.names.iter().map(String::as_str))
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// The message a model reads.
    fn message(requested: &str, candidates: &[String]) -> String {
        match candidates {
            [] => format!(
                "there is no tool named `{requested}`; call one of the listed tools by its exact name"
            ),
            [only] => format!("there is no tool named `{requested}`; did you mean `{only}`?"),
            many => format!(
                "there is no tool named `{requested}`; did you mean one of {}?",
                many.iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// `{"error":"unknown_tool","requested":…,"candidates":[…],"message":…}`.
    pub fn payload(&self, requested: &str) -> Value {
        let candidates = self.candidates(requested);
        json!({
            "error": ErrorCode::UnknownTool.as_str(),
            "requested": requested,
            "candidates": candidates,
            "message": Self::message(requested, &candidates),
        })
    }

    /// The same answer as a [`ToolError`] with code [`ErrorCode::UnknownTool`] and details
    /// `{"requested": …, "candidates": […]}`.
    pub fn error(&self, requested: &str) -> ToolError {
        let candidates = self.candidates(requested);
        ToolError::new(
            ErrorCode::UnknownTool,
            Self::message(requested, &candidates),
        )
        .with_details(json!({ "requested": requested, "candidates": candidates }))
    }
}
