//! `toolforge.prompts` and `toolforge.resources`: what `toolforge serve` offers MCP clients
//! besides tools.
//!
//! ```yaml
//! toolforge:
//!   prompts:
//!     - name: review_member
//!       description: Review one member's open loans
//!       arguments:
//!         - {name: member, description: "The member's id", entity: Member}
//!         - {name: tone, values: [brief, detailed], required: false}
//!         - {name: sort, field_of: Member, required: false}     # a field name of Member
//!         - {name: status, values_of: Member.status, required: false}   # an enum's values
//!       messages:
//!         - resource: "toolforge://Member/{{ member }}"
//!         - text: "Review the open loans of member {{ member }}{% if tone %}, {{ tone }}{% endif %}."
//!   resources:
//!     listed: 10                      # records per entity in resources/list (0 to 100)
//!     entities:
//!       Member: {uri: "library://members/{id}", order_by: joined_at DESC, listed: 5}
//!     documents:
//!       - uri: library://guide
//!         name: guide
//!         description: How the library's data fits together
//!         mime_type: text/markdown
//!         text: "# The library\n..."
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One prompt: a named conversation start the data owner offers, with arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
name: review_member
description: Review one member's open loans
arguments:
  - {name: member, description: The member's id, entity: Member}
  - {name: tone, values: [brief, detailed], required: false}
messages:
  - resource: toolforge://Member/{{ member }}
  - text: Review the open loans of member {{ member }}.
"))]
pub struct PromptOptions {
    /// The prompt's name (letters, digits, `_` and `-`).
    pub name: String,
    /// A human title for a client's menu.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments, in the order a client asks for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgumentOptions>>,
    /// The messages: each a `text` or a `resource` URI (read and embedded), written as a
    /// minijinja template over the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<PromptMessageOptions>>,
    /// A shorthand for one user message: `template: "..."` is `messages: [{text: "..."}]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
}

/// One argument of a prompt (text, as MCP passes prompt arguments).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PromptArgumentOptions {
    /// The name the templates read (letters, digits and `_`, not starting with a digit).
    pub name: String,
    /// What to give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether a client must give it (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::yes")]
    pub required: Option<bool>,
    /// The only values allowed, offered as completions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// An entity whose unique values the argument takes, completed by prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// An entity whose field names (fields and computed fields) the argument takes, completed
    /// and checked like `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_of: Option<String>,
    /// `Entity.field`: an enum field whose values the argument takes, completed and checked
    /// like `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_of: Option<String>,
}

/// One message of a prompt: `text` or `resource`, said by `role`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PromptMessageOptions {
    /// `user` (default) or `assistant`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::role")]
    pub role: Option<String>,
    /// The text, a template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The URI of a resource of this server, a template; the resource is read (under the
    /// caller's rules) and embedded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
}

/// `toolforge.resources`: how records and documents are served as MCP resources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example(r##"
listed: 10
entities:
  Member: {uri: "library://members/{id}", order_by: joined_at DESC, listed: 5}
documents:
  - uri: library://guide
    name: guide
    description: How the library's data fits together
    mime_type: text/markdown
    text: "# The library\n..."
"##))]
pub struct ResourcesOptions {
    /// Records listed per entity by `resources/list` (default 10, at most 100; 0 lists none).
    /// Every record stays readable through its entity's URI template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::listed")]
    pub listed: Option<u32>,
    /// Per entity: its URI template, listing order and count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entities: Option<std::collections::BTreeMap<String, EntityResourceOptions>>,
    /// Fixed documents served as resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documents: Option<Vec<DocumentOptions>>,
}

/// How one entity's records are served.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntityResourceOptions {
    /// The URI template, with one `{id}` standing for the unique value (default
    /// `toolforge://ENTITY/{id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// `field [ASC|DESC]`: the order of the records `resources/list` shows (default the
    /// unique field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<String>,
    /// Records listed for this entity (default `resources.listed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<u32>,
}

/// A fixed document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DocumentOptions {
    /// Its URI (`scheme:...`).
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its media type (default `text/plain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::mime_type")]
    pub mime_type: Option<String>,
    /// Its text.
    pub text: String,
}
