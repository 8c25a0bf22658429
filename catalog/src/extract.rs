//! Capability tags and keywords extracted from a tool's name, description and annotations,
//! with Loom's capability vocabulary.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use toolforge::ToolDefinition;

use crate::words::{stem, words};

/// The capability vocabulary: each tag with the (stemmed, lowercase) words that signal it.
pub const CAPABILITIES: &[(&str, &[&str])] = &[
    (
        "file_io",
        &[
            "file",
            "filesystem",
            "directory",
            "folder",
            "path",
            "disk",
            "upload",
            "download",
        ],
    ),
    (
        "http",
        &[
            "http", "https", "api", "rest", "request", "url", "endpoint", "webhook",
        ],
    ),
    (
        "database",
        &[
            "database",
            "sql",
            "sqlite",
            "postgres",
            "postgresql",
            "mysql",
            "table",
            "record",
            "entity",
            "db",
        ],
    ),
    (
        "notification",
        &[
            "notify",
            "notification",
            "alert",
            "slack",
            "email",
            "sms",
            "message",
            "pager",
        ],
    ),
    (
        "shell",
        &[
            "shell", "bash", "command", "exec", "execute", "terminal", "script",
        ],
    ),
    (
        "search",
        &[
            "search", "find", "lookup", "locate", "retrieve", "query", "glob",
        ],
    ),
    (
        "transform",
        &[
            "transform",
            "convert",
            "format",
            "parse",
            "translate",
            "encode",
            "decode",
            "map",
        ],
    ),
    (
        "validate",
        &["validate", "validation", "lint", "verify", "check"],
    ),
    (
        "generate",
        &["generate", "create", "produce", "compose", "render"],
    ),
    (
        "analyze",
        &[
            "analyze",
            "analyse",
            "analysi",
            "review",
            "inspect",
            "statistic",
            "aggregate",
            "rank",
        ],
    ),
    (
        "web_search",
        &["google", "bing", "tavily", "duckduckgo", "web", "internet"],
    ),
    (
        "code",
        &[
            "code",
            "source",
            "function",
            "compile",
            "program",
            "repository",
            "snippet",
        ],
    ),
    (
        "git",
        &[
            "git", "commit", "branch", "merge", "github", "gitlab", "diff",
        ],
    ),
    (
        "kubernetes",
        &["kubernete", "k8", "kubectl", "pod", "helm", "namespace"],
    ),
    (
        "aws",
        &[
            "aws",
            "s3",
            "ec2",
            "lambda",
            "dynamodb",
            "amazon",
            "cloudwatch",
        ],
    ),
    (
        "visualization",
        &[
            "chart",
            "graph",
            "plot",
            "visualize",
            "visualization",
            "diagram",
            "dashboard",
        ],
    ),
];

/// Words in a tool's name that make it need a person's approval before it runs (Loom: bash,
/// exec and write tools), unless its annotations say it is read-only.
const APPROVAL_WORDS: &[&str] = &["bash", "exec", "shell", "write", "delete", "drop", "remove"];

/// The capability tags of a tool: those it declares, plus those its name and description
/// signal, sorted and without duplicates.
pub fn capabilities(definition: &ToolDefinition) -> Vec<String> {
    capabilities_of(
        definition,
        &words(&definition.name),
        &words(&definition.description),
    )
}

/// [`capabilities`] of a tool whose name and description are already cut into words.
pub(crate) fn capabilities_of(
    definition: &ToolDefinition,
    name_words: &[String],
    description_words: &[String],
) -> Vec<String> {
    let mut tags: BTreeSet<String> = definition
        .capabilities
        .iter()
        .map(|tag| tag.trim().to_lowercase())
        .filter(|tag| !tag.is_empty())
        .collect();
    let signals = signal_tags();
    let mut signalled = 0u32;
    for word in name_words.iter().chain(description_words) {
        if let Some(bits) = signals.get(stem(word).as_ref()) {
            signalled |= bits;
        }
    }
    for (index, (tag, _)) in CAPABILITIES.iter().enumerate() {
        if signalled & (1 << index) != 0 {
            tags.insert((*tag).to_owned());
        }
    }
    if definition.annotations.open_world == Some(true) && tags.is_empty() {
        tags.insert("http".to_owned());
    }
    tags.into_iter().collect()
}

/// Each signal word of [`CAPABILITIES`] with the tags it signals, one bit a tag (by index).
fn signal_tags() -> &'static HashMap<&'static str, u32> {
    static SIGNALS: OnceLock<HashMap<&'static str, u32>> = OnceLock::new();
    const _: () = assert!(CAPABILITIES.len() <= 32);
    SIGNALS.get_or_init(|| {
        let mut signals: HashMap<&'static str, u32> = HashMap::new();
        for (index, (_, words)) in CAPABILITIES.iter().enumerate() {
            for word in *words {
                *signals.entry(word).or_default() |= 1 << index;
            }
        }
        signals
    })
}

/// The keywords a tool declares, trimmed, lowercase, without duplicates, in their order. The
/// words of its name and of its parameters' names are not repeated here: they are indexed in
/// their own columns, and counting them twice would weigh them twice.
pub fn keywords(definition: &ToolDefinition) -> Vec<String> {
    let mut seen = BTreeSet::new();
    definition
        .keywords
        .iter()
        .map(|keyword| keyword.trim().to_lowercase())
        .filter(|word| !word.is_empty() && seen.insert(word.clone()))
        .collect()
}

/// Whether the tool needs a person's approval: its annotations say it is destructive, or its
/// name says it writes or executes and it is not marked read-only.
pub fn requires_approval(definition: &ToolDefinition) -> bool {
    requires_approval_of(definition, &words(&definition.name))
}

/// [`requires_approval`] of a tool whose name is already cut into words.
pub(crate) fn requires_approval_of(definition: &ToolDefinition, name_words: &[String]) -> bool {
    let annotations = &definition.annotations;
    if annotations.destructive == Some(true) {
        return true;
    }
    if annotations.read_only == Some(true) {
        return false;
    }
    name_words
        .iter()
        .any(|word| APPROVAL_WORDS.contains(&word.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn definition(name: &str, description: &str) -> ToolDefinition {
        serde_json::from_value(json!({
            "name": name, "description": description,
            "input_schema": {"type": "object", "properties": {"channelId": {"type": "string"}}},
        }))
        .unwrap()
    }

    #[test]
    fn capabilities_come_from_words_and_declarations() {
        let mut slack = definition("slack_send", "Send messages to Slack channels");
        slack.capabilities = vec!["Chat".into()];
        assert_eq!(capabilities(&slack), ["chat", "notification"]);
        let files = definition("readFiles", "Reads files from a directory");
        assert_eq!(capabilities(&files), ["file_io"]);
        assert!(capabilities(&definition("noop", "Does nothing")).is_empty());
    }

    #[test]
    fn keywords_are_the_declared_ones() {
        let mut slack = definition("slack_send", "x");
        assert!(keywords(&slack).is_empty());
        slack.keywords = vec![" Chat ".into(), "chat".into(), "team".into()];
        assert_eq!(keywords(&slack), ["chat", "team"]);
    }

    #[test]
    fn approval_follows_annotations_then_name() {
        assert!(requires_approval(&definition(
            "bash_exec",
            "Runs a command"
        )));
        assert!(!requires_approval(&definition("read_file", "Reads a file")));
        let mut write = definition("write_file", "Writes a file");
        write.annotations.read_only = Some(true);
        assert!(!requires_approval(&write));
    }
}
