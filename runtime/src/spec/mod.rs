//! The storage specification: the part of the generator's IR the runtime needs to build tables,
//! load data and answer tool calls.
//!
//! The generator compiles a validated config into a [`SchemaSpec`] once (names resolved, table
//! and column names decided, computed-field SQL compiled); the SQL engine and the generated code
//! both consume it, so the run-time and the compiled registries behave identically.
//!
//! SQL fragments in a spec refer to the entity's row through the alias `n`
//! (for example `("n"."endLine" - "n"."startLine" + 1)`).

use serde::{Deserialize, Serialize};

mod drift;
mod offers;
mod tool_table;

pub use drift::{Drift, DriftLevel, DriftPlace};
pub use offers::{
    DocumentSpec, EntityResourceSpec, PromptArgumentSpec, PromptContent, PromptMessageSpec,
    PromptRole, PromptSpec, ResourcesSpec,
};
pub use tool_table::{Prerequisite, ToolFamily};

/// The whole storage model of one config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchemaSpec {
    /// The config's `name`.
    pub name: String,
    /// The config's `description`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Entities, in config order.
    pub entities: Vec<EntitySpec>,
    /// Edge tables, one per (source entity, relationship type, target entity), in config order.
    pub relationships: Vec<RelationshipSpec>,
    /// Tool generation options (from the config's `toolforge:` section).
    pub tools: ToolOptions,
    /// How the tools are served over MCP (the config's `mcp:` section and
    /// `toolforge.toolsets`); empty when the config says nothing.
    #[serde(default, skip_serializing_if = "McpSpec::is_empty")]
    pub mcp: McpSpec,
    /// How embeddings are computed (the config's `embedding:` / `embeddings:` sections and
    /// `toolforge.embeddings`); `None` when the config names no provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<EmbeddingSpec>,
    /// The change log (`toolforge_changes`): present when an entity tracks its changes or a
    /// computed field reads them (`count(HAS_CHANGE)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_log: Option<ChangeLogSpec>,
    /// The config's own parameterised queries (`toolforge.declared_tools`), in config order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declared_tools: Vec<DeclaredToolSpec>,
    /// Row rules (`toolforge.access`): per entity, the condition a record must meet to be
    /// seen by any tool; at most one per entity, sorted by entity name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access: Vec<AccessRuleSpec>,
}

/// A row rule: the records of `entity` a tool call sees are those meeting the condition,
/// evaluated with the call's context values (see [`crate::ToolContext::with_value`]). A call
/// without one of the values it reads sees no record of the entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessRuleSpec {
    /// The entity the rule restricts.
    pub entity: String,
    /// The rule as written in the config, for descriptions and messages.
    pub source: String,
    /// The compiled SQLite condition over the row alias `n`; context values are read with
    /// the connection's `toolforge_context(name)` function.
    pub sql: String,
    /// The compiled PostgreSQL condition; context values are read from the session settings
    /// `toolforge.ctx_<name>`.
    pub postgres_sql: String,
    /// The names of the context values the rule reads, sorted.
    pub context: Vec<String>,
}

/// A tool declared in the config: a parameterised query over one entity, compiled from the
/// expression language (`where:`, `order_by:`) with every parameter a bound value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeclaredToolSpec {
    /// The tool's name, as declared (no prefix is added).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The entity whose records it returns; empty for a tool in the trusted `sql:` form
    /// (see [`DeclaredToolSpec::sql`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub entity: String,
    /// The trusted `sql:` form: the config's own statement per backend, answering rows as
    /// objects (column name → value); `None` for a tool in the expression form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<DeclaredSqlSpec>,
    /// The `where:` source, for descriptions; `None` when the tool returns every record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_where: Option<String>,
    /// The compiled condition over the row alias `n` (SQLite), parameters written `?N`: the
    /// parameter at position `N - 1` of `parameters`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub where_sql: Option<String>,
    /// The same condition for PostgreSQL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres_where_sql: Option<String>,
    /// The compiled `order_by:` items, in order (the unique field always breaks ties).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order_by: Vec<DeclaredOrderSpec>,
    /// The most records one call returns (`limit:`, at most the tools' `max_limit`); a call
    /// may ask for fewer.
    pub limit: u32,
    /// The parameters, in config order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<ParameterSpec>,
}

/// The statements of a declared tool in the trusted `sql:` form, one per backend, with every
/// `:name` parameter written `?N` (the parameter at position `N - 1` of
/// [`DeclaredToolSpec::parameters`]; on PostgreSQL `CAST(?N AS <type>)`). They run read-only:
/// one statement, reading only (SQLite: an authorizer allowing reads alone; PostgreSQL: a
/// `READ ONLY` transaction, rolled back), through the same connections and row rules as every
/// tool. A tool with no statement for the backend it runs on is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredSqlSpec {
    /// The SQLite statement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqlite: Option<String>,
    /// The PostgreSQL statement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres: Option<String>,
}

/// One `order_by:` item of a declared tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeclaredOrderSpec {
    /// The SQLite expression (parameters as in [`DeclaredToolSpec::where_sql`]).
    pub sql: String,
    /// The PostgreSQL expression.
    pub postgres_sql: String,
    /// True for `DESC`.
    #[serde(default)]
    pub descending: bool,
}

/// One parameter of a declared tool: its type and the checks its values pass before any
/// query runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParameterSpec {
    /// The parameter's name (`:name` in the clauses, a key of the arguments).
    pub name: String,
    /// The value type.
    #[serde(rename = "type")]
    pub ty: ParameterType,
    /// What the value means, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether a call must give it (false when it has a default).
    #[serde(default)]
    pub required: bool,
    /// The value used when a call gives none (for datetimes also `now` or a relative date
    /// such as `7 days ago`, resolved when the call runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// The only values allowed, when listed.
    #[serde(default, rename = "enum", skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<serde_json::Value>,
    /// The smallest number allowed (numbers and integers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// The largest number allowed (numbers and integers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// A regular expression (Rust `regex` syntax) the whole string must match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The context value (see [`crate::ContextValues`]) the parameter takes its value from:
    /// set by the host, absent from the input schema, refused when a call gives it, and a
    /// call without that context value is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_context: Option<String>,
}

/// The type of a declared tool's parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParameterType {
    /// Text.
    String,
    /// A number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// An ISO 8601 date or datetime, or a relative date (`now`, `7 days ago`), in UTC.
    Datetime,
    /// `array<string>`: a list of strings, bound as JSON text (`jsonb` on PostgreSQL).
    StringArray,
    /// `array<number>`: a list of numbers, bound as JSON text (`jsonb` on PostgreSQL).
    NumberArray,
    /// `point`: a place `{"latitude", "longitude"}`, bound as JSON text (`jsonb` on PostgreSQL).
    Point,
}

impl ParameterType {
    /// Every type, as a config writes it (fields' spelling; `integer` is parameters' own).
    pub const NAMES: [&'static str; 8] = [
        "string",
        "number",
        "integer",
        "boolean",
        "datetime",
        "array<string>",
        "array<number>",
        "point",
    ];

    /// The type a config names.
    pub fn from_name(name: &str) -> Option<ParameterType> {
        Some(match name {
            "string" => ParameterType::String,
            "number" => ParameterType::Number,
            "integer" => ParameterType::Integer,
            "boolean" => ParameterType::Boolean,
            "datetime" => ParameterType::Datetime,
            "array<string>" => ParameterType::StringArray,
            "array<number>" => ParameterType::NumberArray,
            "point" => ParameterType::Point,
            _ => return None,
        })
    }

    /// The type as a config writes it.
    pub fn config_name(self) -> &'static str {
        match self {
            ParameterType::String => "string",
            ParameterType::Number => "number",
            ParameterType::Integer => "integer",
            ParameterType::Boolean => "boolean",
            ParameterType::Datetime => "datetime",
            ParameterType::StringArray => "array<string>",
            ParameterType::NumberArray => "array<number>",
            ParameterType::Point => "point",
        }
    }

    /// Whether a value is one JSON scalar (not a list or a place): what `enum`, `min`, `max`
    /// and `pattern` restrict.
    pub fn is_scalar(self) -> bool {
        !matches!(
            self,
            ParameterType::StringArray | ParameterType::NumberArray | ParameterType::Point
        )
    }
}

/// The table of the change log: one row per recorded change of a tracked record.
pub const CHANGES_TABLE: &str = "toolforge_changes";

/// The change log every tracked write appends to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeLogSpec {
    /// The most changes kept per record (`toolforge.change_history.max_changes_per_record`);
    /// older ones are removed by the write that adds a newer one. `None` keeps every change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_changes_per_record: Option<u32>,
}

/// How an entity's changes are recorded (`track_changes: true` or `change_tracking:`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeTrackingSpec {
    /// The text field whose unified diff each change records; `None`: the whole record, one
    /// `field: value` line per stored field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_field: Option<String>,
    /// Fields whose values before and after each change are recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metadata_fields: Vec<String>,
}

/// Where embeddings come from: a provider and its settings. Secrets are never part of it:
/// `api_key_env` names the environment variable holding the key.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbeddingSpec {
    /// The provider.
    pub provider: EmbeddingProvider,
    /// The model name (provider default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's base URL (`http://127.0.0.1:11434/v1`); provider default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The environment variable holding the API key (provider default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// The local model's folder (provider `local`), relative to the config's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_path: Option<String>,
    /// Texts per provider request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<u32>,
}

impl EmbeddingSpec {
    /// Settings for `provider` with every other key left to its default.
    pub fn new(provider: EmbeddingProvider) -> Self {
        EmbeddingSpec {
            provider,
            model: None,
            url: None,
            api_key_env: None,
            model_path: None,
            batch_size: None,
        }
    }
}

/// An embedding provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum EmbeddingProvider {
    /// A sentence-transformers model folder run in-process.
    Local,
    /// OpenAI's API (`https://api.openai.com/v1`, key in `OPENAI_API_KEY`).
    #[serde(rename = "openai")]
    OpenAi,
    /// Ollama's OpenAI-compatible API (`http://127.0.0.1:11434/v1`, no key).
    Ollama,
    /// Any other server speaking OpenAI's `/v1/embeddings` (vLLM, LM Studio,
    /// text-embeddings-inference): `url` is required, a key optional.
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    /// Google's Gemini API (key in `GEMINI_API_KEY`).
    Gemini,
}

impl EmbeddingProvider {
    /// Every provider, as written in configs.
    pub const ALL: [(&'static str, EmbeddingProvider); 5] = [
        ("local", EmbeddingProvider::Local),
        ("openai", EmbeddingProvider::OpenAi),
        ("ollama", EmbeddingProvider::Ollama),
        ("openai-compatible", EmbeddingProvider::OpenAiCompatible),
        ("gemini", EmbeddingProvider::Gemini),
    ];

    /// The provider a config names (`openai`, `gemini`, ...).
    pub fn from_name(name: &str) -> Option<EmbeddingProvider> {
        Self::ALL
            .iter()
            .find(|(written, _)| written.eq_ignore_ascii_case(name))
            .map(|(_, provider)| *provider)
    }

    /// The name configs use.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, provider)| *provider == self)
            .map(|(written, _)| *written)
            .unwrap_or("local")
    }
}

/// How a config's tools are served over MCP: the server's identity, which tools are exposed
/// and the named toolsets. Names are checked against the served registry when a server
/// starts, since a Rust registry may add tools of its own.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpSpec {
    /// The server's name (`mcp.server.name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// The server's version (`mcp.server.version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// The tools to expose, when the config lists them (`mcp.tools[]` with `expose` not
    /// `false`); `None` exposes every tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expose: Option<Vec<String>>,
    /// Named subsets of the tools (`toolforge.toolsets`), served at `/mcp/{toolset}`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub toolsets: std::collections::BTreeMap<String, Vec<String>>,
    /// Who may call over HTTP (`toolforge.auth`): access tokens of an OAuth authorization
    /// server, their scopes and the claims that become context values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthSpec>,
    /// The prompts offered (`toolforge.prompts`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PromptSpec>,
    /// How records and documents are served as resources (`toolforge.resources`).
    #[serde(default, skip_serializing_if = "ResourcesSpec::is_default")]
    pub resources: ResourcesSpec,
    /// How `serve --http` bounds its connections and requests (`toolforge.http`).
    #[serde(default, skip_serializing_if = "HttpSpec::is_default")]
    pub http: HttpSpec,
}

/// `toolforge.http`: how `toolforge serve --http` bounds its connections and requests. Each
/// key left out keeps its default; a `serve` flag of the same name overrides it.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpSpec {
    /// Seconds from a request's first byte to the end of its headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_timeout_seconds: Option<u64>,
    /// Seconds from a request's headers to the end of its body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_timeout_seconds: Option<u64>,
    /// Seconds a connection may wait without a request under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout_seconds: Option<u64>,
    /// The most connections open at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connections: Option<u64>,
    /// The largest request body, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_body_bytes: Option<u64>,
}

impl HttpSpec {
    /// The default of [`HttpSpec::header_timeout_seconds`].
    pub const DEFAULT_HEADER_TIMEOUT_SECONDS: u64 = 10;
    /// The default of [`HttpSpec::body_timeout_seconds`].
    pub const DEFAULT_BODY_TIMEOUT_SECONDS: u64 = 30;
    /// The default of [`HttpSpec::idle_timeout_seconds`].
    pub const DEFAULT_IDLE_TIMEOUT_SECONDS: u64 = 60;
    /// The default of [`HttpSpec::max_connections`].
    pub const DEFAULT_MAX_CONNECTIONS: u64 = 512;
    /// The default of [`HttpSpec::max_body_bytes`]: 4 MiB.
    pub const DEFAULT_MAX_BODY_BYTES: u64 = 4 * 1024 * 1024;

    /// Whether every key is left out.
    pub fn is_default(&self) -> bool {
        self == &HttpSpec::default()
    }
}

/// `toolforge.auth`: the server is an OAuth 2.1 resource server (as MCP's authorization spec
/// says). Every HTTP request carries an access token, a JWT signed by `issuer`'s keys, for
/// `audience`; its scopes choose the tools the caller may run, and its claims become the
/// context values that row rules and `from_context` parameters read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthSpec {
    /// The authorization server (its `iss`); its keys are found from its metadata
    /// (`/.well-known/oauth-authorization-server` or `/.well-known/openid-configuration`).
    pub issuer: String,
    /// The resource tokens must be issued for (their `aud`); default the server's own URL,
    /// `http://ADDRESS/mcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// The issuer's key set, when its metadata should not be read for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// The signature algorithms accepted (default RS256, PS256, ES256, EdDSA); `none` never is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub algorithms: Vec<String>,
    /// Seconds of clock difference tolerated on `exp` and `nbf` (default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leeway_seconds: Option<u64>,
    /// Scopes every request needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_scopes: Vec<String>,
    /// A scope per tool, tool family or toolset: a tool needs one of the scopes that name it,
    /// its family or a toolset holding it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub scopes: std::collections::BTreeMap<String, String>,
    /// Context values from token claims: context name to claim path (`sub`, `email`,
    /// `org.tenant` for a nested claim). A token without one of them is refused.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub claims: std::collections::BTreeMap<String, String>,
    /// Opaque tokens checked at the issuer's introspection endpoint (RFC 7662).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection: Option<IntrospectionSpec>,
}

/// `toolforge.auth.introspection`: where opaque tokens are checked, and as which client.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntrospectionSpec {
    /// The issuer's introspection endpoint; absent: the `introspection_endpoint` of the
    /// issuer's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// This server's client id at the issuer.
    pub client_id: String,
    /// The environment variable holding its client secret.
    pub client_secret_env: String,
}

impl McpSpec {
    /// Whether the config said nothing about serving.
    pub fn is_empty(&self) -> bool {
        self == &McpSpec::default()
    }
}

/// One entity: a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntitySpec {
    /// The entity name as written in the config (`ExternalLibrary`).
    pub name: String,
    /// The table name: the entity name in snake_case (`external_library`). For an entity
    /// mapped onto an existing table ([`source`](EntitySpec::source)), the name of the
    /// temporary view that presents that table in this spec's terms on each connection.
    pub table: String,
    /// The existing table or view this entity reads (the config's `table:`), or `None` for a
    /// table toolforge creates and fills itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<TableRef>,
    /// The config's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The field whose value identifies a record (`TEXT NOT NULL UNIQUE`); default `uuid`.
    /// On a mapped table: its single-column primary key or a unique column, of its own type.
    pub unique_field: String,
    /// The field used to name a record in results, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name_field: Option<String>,
    /// The field searched by default, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_field: Option<String>,
    /// The field holding the record's main content, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_field: Option<String>,
    /// Fields shown in examples.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub example_display_fields: Vec<String>,
    /// Stored fields (columns), in config order; includes the unique field.
    pub fields: Vec<FieldSpec>,
    /// Computed fields, in config order (those the validator could compile).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub computed_fields: Vec<ComputedFieldSpec>,
    /// Embedding columns (never returned in results).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vector_indexes: Vec<VectorIndexSpec>,
    /// How children are found when `hierarchical_content` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hierarchy: Option<HierarchySpec>,
    /// The full-text index over some of its text fields (`full_text_index`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_text: Option<FullTextSpec>,
    /// How its changes are recorded, when the entity tracks them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_tracking: Option<ChangeTrackingSpec>,
}

/// An entity's full-text index: which text fields are indexed, with which weight, and how
/// text is cut into terms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FullTextSpec {
    /// The indexed fields, in config order, each with its BM25 weight (default 1).
    pub fields: Vec<FullTextField>,
    /// How text becomes terms.
    #[serde(default)]
    pub analyzer: Analyzer,
}

/// One indexed field of a [`FullTextSpec`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FullTextField {
    /// The stored text field.
    pub name: String,
    /// Its weight in the BM25 score (positive; 1 when the config gives none).
    pub weight: f64,
}

/// How a full-text index cuts text into terms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Analyzer {
    /// Unicode words, case and diacritics folded, then Porter-stemmed (`running` finds `runs`):
    /// SQLite's `porter unicode61`.
    #[default]
    Porter,
    /// Unicode words, case and diacritics folded, no stemming: SQLite's `unicode61`.
    Unicode61,
}

impl Analyzer {
    /// Every analyzer, as a config names it.
    pub const NAMES: [&'static str; 2] = ["porter", "unicode61"];

    /// The analyzer a config names (`porter`, `unicode61`).
    pub fn from_name(name: &str) -> Option<Analyzer> {
        match name {
            "porter" => Some(Analyzer::Porter),
            "unicode61" => Some(Analyzer::Unicode61),
            _ => None,
        }
    }

    /// The name a config uses for it.
    pub fn name(self) -> &'static str {
        match self {
            Analyzer::Porter => "porter",
            Analyzer::Unicode61 => "unicode61",
        }
    }
}

/// A stored field: one column named exactly like the field (or, on a mapped table, the column
/// [`column`](FieldSpec::column) names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldSpec {
    /// The field name as written in the config; also the (quoted) column name.
    pub name: String,
    /// The column of an existing table holding the field, when it is not named like it (the
    /// config's `column:`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// The value type.
    #[serde(rename = "type")]
    pub ty: FieldType,
    /// The config's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `indexed: true` in the config: an index is created.
    #[serde(default)]
    pub indexed: bool,
    /// True for the entity's unique field.
    #[serde(default)]
    pub unique: bool,
    /// Allowed values of an `enum` field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// The value type of a stored field and how it is stored in SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// `string` → TEXT.
    String,
    /// `number` → NUMERIC (integers stay integers, others are REAL).
    Number,
    /// `integer` → INTEGER: whole numbers (`i64`).
    Integer,
    /// `boolean` → INTEGER 0/1 with a CHECK.
    Boolean,
    /// `datetime` → TEXT, UTC ISO-8601 (`2024-05-01T12:00:00Z`).
    Datetime,
    /// `enum` → TEXT with a CHECK on the values.
    Enum,
    /// `array<string>` → JSON text.
    StringArray,
    /// `array<number>` → JSON text.
    NumberArray,
    /// `point` → a place on Earth, `{"latitude": .., "longitude": ..}` in degrees (WGS 84),
    /// stored as that JSON (SQLite text, PostgreSQL `jsonb`) with an index on each coordinate.
    Point,
}

impl FieldType {
    /// The type as written in a config (`array<string>`, ...).
    pub fn config_name(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Number => "number",
            FieldType::Integer => "integer",
            FieldType::Boolean => "boolean",
            FieldType::Datetime => "datetime",
            FieldType::Enum => "enum",
            FieldType::StringArray => "array<string>",
            FieldType::NumberArray => "array<number>",
            FieldType::Point => "point",
        }
    }
}

/// The value type of a computed field's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueType {
    /// Text.
    String,
    /// A number (integer or real).
    Number,
    /// A boolean (SQLite 0/1, returned as JSON `true`/`false`).
    Boolean,
    /// UTC ISO-8601 text.
    Datetime,
}

/// A computed field: an SQL expression over the row (alias `n`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComputedFieldSpec {
    /// The computed field's name.
    pub name: String,
    /// The result type.
    #[serde(rename = "type")]
    pub ty: ValueType,
    /// The config's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The source the field was compiled from, for descriptions (`endLine - startLine + 1`).
    pub source: String,
    /// The compiled SQLite expression, referring to the row as `n`. Computed fields it uses are
    /// already inlined.
    pub sql: String,
    /// For `materialized` fields: the generated column (`cache_property`) holding the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub materialized_column: Option<String>,
    /// The same expression compiled for PostgreSQL, when it differs from `sql`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres_sql: Option<String>,
}

impl ComputedFieldSpec {
    /// The expression PostgreSQL runs: `postgres_sql` (or `sql` when the two are the same),
    /// numbers cast to `DOUBLE PRECISION` as stored numbers are.
    pub fn postgres_expression(&self) -> String {
        let sql = self.postgres_sql.as_deref().unwrap_or(&self.sql);
        match self.ty {
            ValueType::Number => format!("CAST(({sql}) AS DOUBLE PRECISION)"),
            _ => sql.to_owned(),
        }
    }
}

/// An embedding column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorIndexSpec {
    /// The index name.
    pub name: String,
    /// The BLOB column holding little-endian f32 values.
    pub column: String,
    /// The field the embedding is computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_field: Option<String>,
    /// On an entity over an existing table: the table's own pgvector column holding the
    /// vectors, read as it is (presented as [`VectorIndexSpec::column`]); `None`: the vectors
    /// are toolforge's, kept in its own table or, over an existing table, in the side store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_column: Option<String>,
    /// The number of f32 values.
    pub dimension: u32,
    /// How vectors are compared.
    #[serde(default)]
    pub similarity: Similarity,
    /// The model the index's vectors come from, when the config names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl VectorIndexSpec {
    /// The column holding the content hash of the text each stored vector was computed from
    /// (`<column>__hash`): unchanged text is not embedded again.
    pub fn hash_column(&self) -> String {
        format!("{}__hash", self.column)
    }
}

/// How a vector index compares vectors; every score is "higher is closer".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Similarity {
    /// The cosine of the angle, in [-1, 1].
    #[default]
    Cosine,
    /// The dot product.
    Dot,
    /// `1 / (1 + d²)` of the Euclidean distance `d`, in (0, 1].
    Euclidean,
}

impl Similarity {
    /// The name configs use.
    pub fn name(self) -> &'static str {
        match self {
            Similarity::Cosine => "cosine",
            Similarity::Dot => "dot",
            Similarity::Euclidean => "euclidean",
        }
    }
}

/// How `get_entities_by_ids {with_children}` finds a record's children.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HierarchySpec {
    /// The edge table's relationship type (for example `HAS_PARENT`).
    pub relationship: String,
    /// True when the child is the edge's source (`child -[HAS_PARENT]-> parent`), false when the
    /// parent is the source (`parent -[CONTAINS]-> child`).
    pub child_is_source: bool,
    /// The child field returned as content.
    pub content_field: String,
}

/// One edge table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationshipSpec {
    /// The relationship type as written in the config (`DEFINED_IN`).
    #[serde(rename = "type")]
    pub rel_type: String,
    /// The source entity's name.
    pub source: String,
    /// The target entity's name.
    pub target: String,
    /// The edge table's name (`scope__defined_in__file`).
    pub table: String,
    /// The config's description (from either end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Extra edge columns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub properties: Vec<FieldSpec>,
    /// Where the edges of a relationship between mapped tables are read from (a foreign key
    /// or a join table); `None` for an edge table toolforge creates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<EdgeMapping>,
}

/// A table or view of an existing database, as the config's `table:` names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableRef {
    /// The schema (PostgreSQL: `sales` of `sales.orders`); `None`: SQLite's `main`, or
    /// PostgreSQL's current schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The table's name, exactly (any case, spaces and quotes included).
    pub name: String,
}

impl TableRef {
    /// Reads a config's `table:` value: `name` or `schema.name`, where a part may be
    /// double-quoted as in SQL (`sales."Order Lines"`, `"odd.name"`, `"say ""hi"""`). The
    /// error says what is wrong.
    ///
    /// ```
    /// use toolforge::spec::TableRef;
    /// let table = TableRef::parse(r#"sales."Order Lines""#).unwrap();
    /// assert_eq!((table.schema.as_deref(), table.name.as_str()), (Some("sales"), "Order Lines"));
    /// assert_eq!(TableRef::parse("Track").unwrap().schema, None);
    /// assert_eq!(TableRef::parse(r#""odd.name""#).unwrap().name, "odd.name");
    /// assert!(TableRef::parse("a.b.c").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<TableRef, String> {
        let mut parts: Vec<String> = Vec::new();
        let mut chars = text.chars().peekable();
        loop {
            let mut part = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            part.push('"');
                        }
                        Some('"') => break,
                        Some(c) => part.push(c),
                        None => return Err("a double quote is not closed".to_owned()),
                    }
                }
            } else {
                while let Some(&c) = chars.peek() {
                    if c == '.' {
                        break;
                    }
                    if c == '"' {
                        return Err("a double quote inside a name: quote the whole part, \
                                    doubling the quotes inside (`\"say \"\"hi\"\"\"`)"
                            .to_owned());
                    }
                    part.push(c);
                    chars.next();
                }
            }
            if part.trim().is_empty() {
                return Err("an empty name".to_owned());
            }
            parts.push(part);
            match chars.next() {
                None => break,
                Some('.') => continue,
                Some(c) => {
                    return Err(format!(
                        "`{c}` after a quoted name (expected `.` or the end)"
                    ));
                }
            }
        }
        let name = parts.pop().unwrap_or_default();
        match parts.len() {
            0 => Ok(TableRef { schema: None, name }),
            1 => Ok(TableRef {
                schema: parts.pop(),
                name,
            }),
            n => Err(format!(
                "{} dot-separated parts; expected `table` or `schema.table` (quote a name \
                 that contains a dot: `\"odd.name\"`)",
                n + 1
            )),
        }
    }
}

impl std::fmt::Display for TableRef {
    /// The reference as a config writes it: plain parts bare, others double-quoted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let part = |text: &str| {
            if !text.is_empty() && !text.contains(['.', '"']) && text.trim() == text {
                text.to_owned()
            } else {
                format!("\"{}\"", text.replace('"', "\"\""))
            }
        };
        match &self.schema {
            Some(schema) => write!(f, "{}.{}", part(schema), part(&self.name)),
            None => write!(f, "{}", part(&self.name)),
        }
    }
}

/// Where the edges of a relationship between mapped tables come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeMapping {
    /// A column of the source entity's table holding the target's unique field (many-to-one;
    /// followed backwards, one-to-many). Rows where it is null have no edge.
    ForeignKey {
        /// The column's name.
        column: String,
    },
    /// A table with one column referencing each side (many-to-many); its other mapped
    /// columns are the relationship's properties.
    JoinTable {
        /// The join table.
        table: TableRef,
        /// Its column holding the source's unique field.
        source_column: String,
        /// Its column holding the target's unique field.
        target_column: String,
    },
}

/// Which tools to build and their limits (the config's `toolforge:` section, defaults applied).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOptions {
    /// Prefix added to every generated tool name (empty by default).
    #[serde(default)]
    pub name_prefix: String,
    /// The result limit used when a call gives none.
    pub default_limit: u32,
    /// The largest limit a call may ask for.
    pub max_limit: u32,
    /// The tool families to build, in order.
    pub families: Vec<ToolFamily>,
    /// How vector searches run and where vectors are kept.
    #[serde(default, skip_serializing_if = "VectorSearchSettings::is_default")]
    pub vector_search: VectorSearchSettings,
    /// Where toolforge keeps its own objects beside the tables of an existing database.
    #[serde(default, skip_serializing_if = "SideStore::is_default")]
    pub side_store: SideStore,
}

/// Where toolforge keeps the objects a mapped entity needs beside the user's own tables (the
/// full-text index of an entity that reads an existing table): `toolforge.side_store` in the
/// config. The user's tables are never written; these objects are created by `toolforge db
/// init` and filled again by `toolforge db refresh`.
///
/// ```
/// let store = toolforge::spec::SideStore::default();
/// assert_eq!(store.schema, "toolforge");
/// assert_eq!(store.sqlite_file(std::path::Path::new("data/shop.db")),
///            std::path::Path::new("data/shop.toolforge.db"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SideStore {
    /// PostgreSQL: the schema holding the objects (`toolforge` by default).
    pub schema: String,
    /// SQLite: the file holding them, attached to every connection; relative to the
    /// database file's folder. By default the database's name with `.toolforge.db` for its
    /// extension, beside it.
    pub file: Option<String>,
}

impl Default for SideStore {
    fn default() -> Self {
        SideStore {
            schema: "toolforge".to_owned(),
            file: None,
        }
    }
}

impl SideStore {
    /// Whether every setting is the default.
    pub fn is_default(&self) -> bool {
        *self == SideStore::default()
    }

    /// The SQLite file beside the database at `database`.
    pub fn sqlite_file(&self, database: &std::path::Path) -> std::path::PathBuf {
        let folder = database.parent().unwrap_or(std::path::Path::new(""));
        match &self.file {
            Some(file) => folder.join(file),
            None => {
                let stem = database
                    .file_stem()
                    .map_or_else(|| "database".into(), |s| s.to_string_lossy().into_owned());
                folder.join(format!("{stem}.toolforge.db"))
            }
        }
    }
}

/// How vector searches run and where vectors are kept (`toolforge.vector_search` in the
/// config). On PostgreSQL with the pgvector extension the database keeps the vectors and
/// searches them through an HNSW index; elsewhere each process keeps them in memory, up to
/// [`max_vectors_in_memory`](VectorSearchSettings::max_vectors_in_memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct VectorSearchSettings {
    /// pgvector: store vectors as `halfvec` (16-bit floats, half the size) rather than
    /// `vector`.
    pub half_precision: bool,
    /// pgvector's `hnsw.ef_search`, set for each search: how many candidates an HNSW scan
    /// keeps (higher finds more of the exact answer, slower; pgvector's own default is 40).
    pub ef_search: u32,
    /// pgvector's `hnsw.iterative_scan`, set for each search: whether an HNSW scan whose
    /// candidates a filter (`conditions`, a row rule) thins out goes on scanning until it has
    /// `top_k` rows.
    pub iterative_scan: IterativeScan,
    /// The most vectors one process keeps in memory for searches on storage without pgvector
    /// (SQLite, PostgreSQL without the extension), over every index together.
    pub max_vectors_in_memory: u64,
}

impl Default for VectorSearchSettings {
    fn default() -> Self {
        VectorSearchSettings {
            half_precision: false,
            ef_search: 100,
            iterative_scan: IterativeScan::RelaxedOrder,
            max_vectors_in_memory: 2_000_000,
        }
    }
}

impl VectorSearchSettings {
    /// Whether these are the defaults (left out of a serialised spec).
    pub fn is_default(&self) -> bool {
        *self == VectorSearchSettings::default()
    }
}

/// pgvector's iterative index scans (`hnsw.iterative_scan`, pgvector 0.8 and later).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IterativeScan {
    /// One scan of `ef_search` candidates; a selective filter can leave fewer than `top_k`.
    Off,
    /// Scan on until `top_k` rows pass the filter, keeping exact distance order.
    StrictOrder,
    /// Scan on until `top_k` rows pass the filter; the answer is sorted again by distance.
    #[default]
    RelaxedOrder,
}

impl IterativeScan {
    /// The setting's value as pgvector spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            IterativeScan::Off => "off",
            IterativeScan::StrictOrder => "strict_order",
            IterativeScan::RelaxedOrder => "relaxed_order",
        }
    }
}

impl Default for ToolOptions {
    fn default() -> Self {
        ToolOptions {
            name_prefix: String::new(),
            default_limit: 20,
            max_limit: 500,
            families: ToolFamily::DEFAULT.to_vec(),
            vector_search: VectorSearchSettings::default(),
            side_store: SideStore::default(),
        }
    }
}

impl SchemaSpec {
    /// The database tools this spec builds, without the name prefix, in registration order.
    ///
    /// ```
    /// let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
    ///     "name": "notes", "entities": [], "relationships": [],
    ///     "tools": {"default_limit": 20, "max_limit": 100, "families": ["lookup", "relationships"]}
    /// })).unwrap();
    /// assert_eq!(spec.database_tool_names(), ["get_entity_by_id", "get_entities_by_ids"]);
    /// ```
    pub fn database_tool_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for family in &self.tools.families {
            for name in family.tool_names() {
                if self.offers(name) && !names.contains(name) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Whether the spec has what the tool `name` (without prefix) needs: relationships for
    /// `explore_relationships`, `find_path` and `rank_entities`, a datetime field (stored or
    /// computed) for `query_entities_by_date_range`, a number field for
    /// `query_entities_by_number_range`, a full-text index for `full_text_search`, a vector
    /// index for `semantic_search`, an entity with both for `hybrid_search`, a tracked entity for
    /// the change tools, a point field for `find_near`. Every other tool
    /// applies to any spec.
    ///
    /// ```
    /// let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
    ///     "name": "notes", "entities": [{"name": "Note", "table": "note", "unique_field": "id",
    ///     "fields": [{"name": "id", "type": "string", "unique": true},
    ///                {"name": "at", "type": "datetime"}]}], "relationships": [],
    ///     "tools": {"default_limit": 20, "max_limit": 100, "families": ["ranges"]}
    /// })).unwrap();
    /// assert!(spec.offers("query_entities_by_date_range"));
    /// assert!(!spec.offers("query_entities_by_number_range"));
    /// assert_eq!(spec.database_tool_names(), ["query_entities_by_date_range"]);
    /// ```
    pub fn offers(&self, name: &str) -> bool {
        Prerequisite::of(name).is_none_or(|needs| self.meets(needs))
    }

    /// Whether this spec has what a tool with prerequisite `needs` needs.
    pub fn meets(&self, needs: Prerequisite) -> bool {
        let has_field = |stored: FieldType, computed: ValueType| {
            self.entities.iter().any(|entity| {
                entity.fields.iter().any(|f| {
                    (f.ty == stored || (stored.is_numeric() && f.ty.is_numeric()))
                        && f.name != entity.unique_field
                }) || entity.computed_fields.iter().any(|c| c.ty == computed)
            })
        };
        let any_entity = |test: fn(&EntitySpec) -> bool| self.entities.iter().any(test);
        match needs {
            Prerequisite::Nothing => true,
            Prerequisite::Relationships => !self.relationships.is_empty(),
            Prerequisite::SelfRelationship => {
                self.relationships.iter().any(|r| r.source == r.target)
            }
            Prerequisite::RelationshipOrVectorIndex => {
                !self.relationships.is_empty() || any_entity(|e| !e.vector_indexes.is_empty())
            }
            Prerequisite::DatetimeField => has_field(FieldType::Datetime, ValueType::Datetime),
            Prerequisite::NumberField => has_field(FieldType::Number, ValueType::Number),
            Prerequisite::PointField => self.has_points(),
            Prerequisite::FullTextIndex => any_entity(|e| e.full_text.is_some()),
            Prerequisite::VectorIndex => any_entity(|e| !e.vector_indexes.is_empty()),
            Prerequisite::FullTextAndVectorIndex => {
                any_entity(|e| e.full_text.is_some() && !e.vector_indexes.is_empty())
            }
            Prerequisite::TrackedEntity => self.tracked_entities().next().is_some(),
        }
    }

    /// Whether an entity has a `point` field (what `find_near` and `WITHIN` need).
    pub fn has_points(&self) -> bool {
        self.entities
            .iter()
            .any(|entity| entity.fields.iter().any(|f| f.ty == FieldType::Point))
    }

    /// The entities whose changes are recorded, in config order.
    pub fn tracked_entities(&self) -> impl Iterator<Item = &EntitySpec> {
        self.entities
            .iter()
            .filter(|entity| entity.change_tracking.is_some())
    }

    /// The row rule of `entity` (`toolforge.access`), if it has one.
    pub fn access_rule(&self, entity: &str) -> Option<&AccessRuleSpec> {
        self.access.iter().find(|rule| rule.entity == entity)
    }

    /// Whether this spec maps its entities onto an existing database's tables (the config's
    /// `table:`): tools then only read, and toolforge creates none of those tables.
    pub fn is_mapped(&self) -> bool {
        self.entities.iter().any(EntitySpec::is_mapped)
    }

    /// The mapped entities whose objects toolforge keeps in its [`SideStore`] (those with a
    /// full-text index, a vector index or change tracking), in config order.
    pub fn side_entities(&self) -> impl Iterator<Item = &EntitySpec> {
        self.entities.iter().filter(|entity| {
            entity.has_side_index() || entity.has_side_vectors() || entity.has_side_changes()
        })
    }

    /// The entity named exactly `name`.
    pub fn entity(&self, name: &str) -> Option<&EntitySpec> {
        self.entities.iter().find(|entity| entity.name == name)
    }

    /// The same spec with every computed field's `sql` replaced by its PostgreSQL expression
    /// ([`ComputedFieldSpec::postgres_expression`]): what the query builder reads on PostgreSQL.
    pub fn for_postgres(&self) -> SchemaSpec {
        let mut spec = self.clone();
        for rule in &mut spec.access {
            rule.sql = rule.postgres_sql.clone();
        }
        for tool in &mut spec.declared_tools {
            if tool.postgres_where_sql.is_some() {
                tool.where_sql = tool.postgres_where_sql.clone();
            }
            for item in &mut tool.order_by {
                item.sql = item.postgres_sql.clone();
            }
        }
        for entity in &mut spec.entities {
            for computed in &mut entity.computed_fields {
                let expression = computed.postgres_expression();
                computed.sql = expression.clone();
                computed.postgres_sql = Some(expression);
            }
        }
        spec
    }
}

impl EntitySpec {
    /// Whether this entity reads an existing table (the config's `table:`).
    pub fn is_mapped(&self) -> bool {
        self.source.is_some()
    }

    /// Whether this entity's full-text index is kept in the [`SideStore`]: it reads an
    /// existing table and has one.
    pub fn has_side_index(&self) -> bool {
        self.is_mapped() && self.full_text.is_some()
    }

    /// Whether this entity's vectors are kept in the [`SideStore`]: it reads an existing table
    /// and has a vector index that reads no column of it.
    pub fn has_side_vectors(&self) -> bool {
        self.side_vector_indexes().next().is_some()
    }

    /// The vector indexes whose vectors are kept in the [`SideStore`]: those of an entity over
    /// an existing table that read no column of it.
    pub fn side_vector_indexes(&self) -> impl Iterator<Item = &VectorIndexSpec> {
        self.vector_indexes
            .iter()
            .filter(|index| self.is_mapped() && index.existing_column.is_none())
    }

    /// Whether this entity's changes are recorded in the [`SideStore`]: it reads an existing
    /// table and tracks its changes (compared at each `toolforge db refresh`).
    pub fn has_side_changes(&self) -> bool {
        self.is_mapped() && self.change_tracking.is_some()
    }

    /// The stored field with this name.
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|field| field.name == name)
    }

    /// The type of the unique field: `integer` for a table's own integer key, else `string`.
    pub fn key_type(&self) -> FieldType {
        self.field(&self.unique_field)
            .map_or(FieldType::String, |field| field.ty)
    }

    /// The column holding the unique field.
    pub fn key_column(&self) -> &str {
        self.field(&self.unique_field)
            .map_or(self.unique_field.as_str(), FieldSpec::column_name)
    }

    /// The computed field with this name.
    pub fn computed_field(&self, name: &str) -> Option<&ComputedFieldSpec> {
        self.computed_fields.iter().find(|field| field.name == name)
    }
}

impl FieldSpec {
    /// The column holding this field: [`column`](FieldSpec::column), else the field's name.
    pub fn column_name(&self) -> &str {
        self.column.as_deref().unwrap_or(&self.name)
    }
}

impl FieldType {
    /// Whether values of this type are numbers (`number` or `integer`).
    pub fn is_numeric(self) -> bool {
        matches!(self, FieldType::Number | FieldType::Integer)
    }

    /// Whether a field of this type serves where `wanted` is asked: the same type, or both
    /// numeric (an `integer` field is a number field for ranges and aggregates).
    pub fn is_like(self, wanted: FieldType) -> bool {
        self == wanted || (self.is_numeric() && wanted.is_numeric())
    }
}
