//! The catalog's vocabulary: where tools come from ([`Source`]), what is indexed per tool
//! ([`CatalogEntry`]), and what `sources` answers ([`SourceInfo`]).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolforge::ToolDefinition;

/// The kind of place a tool comes from; the first part of its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A tool built into a program (`builtin:NAME`), such as a `ToolRegistry`'s.
    Builtin,
    /// A tool of an MCP server (`mcp:SERVER:NAME`).
    Mcp,
    /// A tool defined in a custom YAML or JSON file (`custom:NAME`).
    Custom,
    /// A tool generated from a toolforge config (`config:NAME`).
    Config,
}

impl SourceKind {
    /// The kind as stored and shown (`builtin`, `mcp`, `custom`, `config`).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Builtin => "builtin",
            SourceKind::Mcp => "mcp",
            SourceKind::Custom => "custom",
            SourceKind::Config => "config",
        }
    }

    /// The kind named by `text`, if any.
    pub fn parse(text: &str) -> Option<SourceKind> {
        match text {
            "builtin" => Some(SourceKind::Builtin),
            "mcp" => Some(SourceKind::Mcp),
            "custom" => Some(SourceKind::Custom),
            "config" => Some(SourceKind::Config),
            _ => None,
        }
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One place tools are indexed from: re-indexing a source replaces exactly its tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The source's unique name (an MCP server's name is its tools' `SERVER` id part).
    pub name: String,
    /// What kind of source it is.
    pub kind: SourceKind,
    /// Where it was read from (a file, a command, a URL), for `sources`.
    pub location: Option<String>,
}

impl Source {
    /// A source of the given kind and name.
    pub fn new(kind: SourceKind, name: impl Into<String>) -> Source {
        Source {
            name: name.into(),
            kind,
            location: None,
        }
    }

    /// The source with where it was read from.
    pub fn with_location(mut self, location: impl Into<String>) -> Source {
        self.location = Some(location.into());
        self
    }

    /// The catalog id of this source's tool `tool_name`.
    pub fn tool_id(&self, tool_name: &str) -> String {
        match self.kind {
            SourceKind::Mcp => format!("mcp:{}:{tool_name}", self.name),
            kind => format!("{}:{tool_name}", kind.as_str()),
        }
    }
}

/// One tool to index: its definition, plus what only catalogs keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogEntry {
    /// Name, description, schemas, annotations, declared capabilities and keywords.
    #[serde(flatten)]
    pub definition: ToolDefinition,
    /// Example calls or uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    /// The tool's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl From<ToolDefinition> for CatalogEntry {
    fn from(definition: ToolDefinition) -> Self {
        CatalogEntry {
            definition,
            examples: Vec::new(),
            version: None,
        }
    }
}

/// A source as `sources` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceInfo {
    /// The source's name.
    pub name: String,
    /// Its kind.
    pub kind: SourceKind,
    /// Where it was read from.
    pub location: Option<String>,
    /// How many of its tools are indexed.
    pub tool_count: u64,
    /// When its last complete listing was indexed (RFC 3339), if ever.
    pub last_indexed: Option<String>,
    /// Whether its last listing succeeded.
    pub available: bool,
    /// Why it is unavailable, or what the last indexing did.
    pub status: Option<String>,
}

/// What indexing one source did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexReport {
    /// The source.
    pub source: String,
    /// Tools in the listing.
    pub indexed: usize,
    /// Tools of the source that were not in the listing and were removed.
    pub pruned: usize,
}
