//! What a server offers besides tools: the prompts a config declares (`toolforge.prompts`) and
//! how its records and documents are served as resources (`toolforge.resources`).

use serde::{Deserialize, Serialize};

/// A prompt the data owner offers (`toolforge.prompts[]`): a named conversation start with
/// arguments, rendered from templates when a client gets it.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptSpec {
    /// The prompt's name, as `prompts/get` asks for it.
    pub name: String,
    /// A human title (what a client's menu shows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: String,
    /// Its arguments, in the order a client asks for them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgumentSpec>,
    /// The messages, each rendered from its template with the arguments.
    pub messages: Vec<PromptMessageSpec>,
}

impl PromptSpec {
    /// A prompt named `name`, for `description`, with `messages`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        messages: Vec<PromptMessageSpec>,
    ) -> PromptSpec {
        PromptSpec {
            name: name.into(),
            title: None,
            description: description.into(),
            arguments: Vec::new(),
            messages,
        }
    }
}

/// One argument of a prompt. Prompt arguments are text, as MCP passes them.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptArgumentSpec {
    /// The name the templates read.
    pub name: String,
    /// What to give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must give it.
    pub required: bool,
    /// The only values allowed (offered as completions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// An entity whose unique values the argument takes (completed by prefix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
}

impl PromptArgumentSpec {
    /// An argument named `name`.
    pub fn new(name: impl Into<String>, required: bool) -> PromptArgumentSpec {
        PromptArgumentSpec {
            name: name.into(),
            required,
            ..PromptArgumentSpec::default()
        }
    }
}

/// One message of a prompt: who says it and a template of what is said.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptMessageSpec {
    /// Who says it.
    pub role: PromptRole,
    /// The template (minijinja syntax, the arguments as variables).
    pub template: String,
    /// What the rendered template is: the text itself, or the URI of a resource of this server
    /// that is read and embedded.
    pub kind: PromptContent,
}

impl PromptMessageSpec {
    /// A message of `role` whose content is `kind` rendered from `template`.
    pub fn new(role: PromptRole, kind: PromptContent, template: impl Into<String>) -> Self {
        PromptMessageSpec {
            role,
            template: template.into(),
            kind,
        }
    }
}

/// Who says a prompt message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptRole {
    /// The user (the default).
    #[default]
    User,
    /// The assistant.
    Assistant,
}

/// What a prompt message's rendered template is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptContent {
    /// Text.
    Text,
    /// The URI of a resource, embedded with its content.
    Resource,
}

/// How records and documents are served as MCP resources (`toolforge.resources`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourcesSpec {
    /// Records listed per entity by `resources/list` (0: none; every record stays readable
    /// through its entity's template).
    pub listed: u32,
    /// Per entity: its URI template and listing order, when not the defaults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<EntityResourceSpec>,
    /// Fixed documents (a guide to the data, a glossary).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Vec<DocumentSpec>,
}

impl ResourcesSpec {
    /// Records listed per entity when the config does not say.
    pub const DEFAULT_LISTED: u32 = 10;
    /// The most records listed per entity.
    pub const MAX_LISTED: u32 = 100;

    /// The defaults: [`ResourcesSpec::DEFAULT_LISTED`] records per entity, default URIs.
    pub fn is_default(&self) -> bool {
        *self == ResourcesSpec::default()
    }
}

impl Default for ResourcesSpec {
    fn default() -> Self {
        ResourcesSpec {
            listed: ResourcesSpec::DEFAULT_LISTED,
            entities: Vec::new(),
            documents: Vec::new(),
        }
    }
}

/// How one entity's records are served as resources.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityResourceSpec {
    /// The entity.
    pub entity: String,
    /// Its URI template, with one `{id}` (default `toolforge://{entity}/{id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// The field `resources/list` orders its records by, and whether descending (default: the
    /// unique field, ascending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<(String, bool)>,
    /// Records listed for this entity, when not [`ResourcesSpec::listed`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<u32>,
}

impl EntityResourceSpec {
    /// The settings of `entity`, all defaults.
    pub fn new(entity: impl Into<String>) -> EntityResourceSpec {
        EntityResourceSpec {
            entity: entity.into(),
            ..EntityResourceSpec::default()
        }
    }
}

/// A fixed document served as a resource.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentSpec {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its media type (default `text/plain`).
    pub mime_type: String,
    /// Its text.
    pub text: String,
}

impl DocumentSpec {
    /// A `text/plain` document.
    pub fn new(uri: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        DocumentSpec {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: "text/plain".to_owned(),
            text: text.into(),
        }
    }
}
