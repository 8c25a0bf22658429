//! The `toolforge:` section: toolforge's own generation options (ragforge ignores it).
//!
//! ```yaml
//! toolforge:
//!   name_prefix: code_     # every tool name starts with this
//!   default_limit: 20      # results when a call gives no limit
//!   max_limit: 200         # the largest limit a call may ask for
//!   tools: [schema, query, lookup, relationships, search, patterns, graph, changes]
//!   strict: false          # true: warnings are errors
//!   toolsets:              # named subsets, served at /mcp/{toolset}
//!     lookup: [get_schema, get_entity_by_id, get_entities_by_ids]
//! ```

pub use super::offers::{
    DocumentOptions, EntityResourceOptions, PromptArgumentOptions, PromptMessageOptions,
    PromptOptions, ResourcesOptions,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolforge::spec::{IterativeScan, ToolFamily, ToolOptions, VectorSearchSettings};

/// toolforge's generation options. Every key is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
name_prefix: code_
default_limit: 20
max_limit: 200
tools: [schema, query, lookup, relationships, search, patterns, graph, changes]
strict: false
toolsets:
  lookup: [get_schema, get_entity_by_id, get_entities_by_ids]
"))]
pub struct ToolforgeOptions {
    /// A prefix added to every generated tool name (`code_` gives `code_query_entities`).
    /// Letters, digits, `_` and `-` only; default none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"code_")]
    pub name_prefix: Option<String>,
    /// The number of results a tool returns when a call gives no `limit` (default 20, at
    /// least 1, at most `max_limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::default_limit")]
    pub default_limit: Option<u32>,
    /// The largest `limit` a call may ask for; larger ones are refused (default 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::max_limit")]
    pub max_limit: Option<u32>,
    /// The tool families to generate, in order (default: `schema`, `query`, `lookup`,
    /// `relationships`, `search`, `graph`, `changes`, `places`). `schema`: `get_schema`,
    /// `describe_entity`; `query`: `query_entities`; `lookup`: `get_entity_by_id`,
    /// `get_entities_by_ids`; `relationships`: `explore_relationships`, `join_entities`;
    /// `search`: `full_text_search` (for configs with a `full_text_index`), `semantic_search`
    /// (for configs with vector indexes), `hybrid_search` (for an entity with both),
    /// `find_similar`; `graph`: `find_path`, `rank_entities`, `find_clusters` (for configs with
    /// relationships); `changes`: the change-tracking tools (for configs with an entity that
    /// has `track_changes` / `change_tracking`); `places`: `find_near` (for a `point` field).
    /// Off unless listed, as their tools say again what `query_entities`' conditions say:
    /// `ranges`: `query_entities_by_date_range` (for datetime fields),
    /// `query_entities_by_number_range` (for number fields); `patterns`: `glob_search`,
    /// `query_entities_by_pattern` (its fuzzy match is the one thing conditions lack). Also off
    /// unless listed: `aggregates`: `aggregate_entities`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::tool_families")]
    pub tools: Option<Vec<ToolFamilyName>>,
    /// Treat every warning (unknown keys, untranslatable `cypher:` fields, ...) as an error,
    /// like `toolforge validate --strict` (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::no")]
    pub strict: Option<bool>,
    /// Named subsets of the tools, each served on its own endpoint by `toolforge serve`
    /// (`/mcp/{toolset}` over HTTP, `--toolset NAME` on stdio). Toolset names use letters,
    /// digits, `_` and `-`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolsets: Option<std::collections::BTreeMap<String, Vec<String>>>,
    /// How embeddings are computed: toolforge's own keys next to ragforge's `embedding:` /
    /// `embeddings:` sections (which name the provider and model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings: Option<EmbeddingOptions>,
    /// How much change history is kept for entities that track their changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_history: Option<ChangeHistoryOptions>,
    /// The config's own tools: parameterised queries over one entity, written in the
    /// computed-field expression language with `:name` parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_tools: Option<Vec<DeclaredTool>>,
    /// Row rules: per entity, a condition in the expression language over the entity's
    /// stored fields and the call's context values (`:context.NAME`). Every tool sees only the
    /// records that meet it; a call without a value the rule reads sees none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = super::schema::yaml_example("Loan: branch = :context.branch"))]
    pub access: Option<std::collections::BTreeMap<String, String>>,
    /// How vector searches run and where vectors are kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_search: Option<VectorSearchOptions>,
    /// Who may call `toolforge serve --http`: OAuth access tokens, their scopes, and the
    /// claims that become context values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthOptions>,
    /// Prompts offered to MCP clients: conversation starts with arguments, rendered from
    /// templates (see [`PromptOptions`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<PromptOptions>>,
    /// How records and documents are served as MCP resources (see [`ResourcesOptions`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesOptions>,
    /// How `toolforge serve --http` bounds its connections and requests (see
    /// [`HttpServeOptions`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpServeOptions>,
    /// Where toolforge keeps its own objects beside the tables of an existing database (see
    /// [`SideStoreOptions`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_store: Option<SideStoreOptions>,
}

/// `toolforge.side_store`: where the full-text indexes of entities that read existing tables
/// (`table:`) are kept, apart from the user's tables, which toolforge never writes.
/// `toolforge db init` creates them there and `toolforge db refresh` brings them up to date.
///
/// ```yaml
/// toolforge:
///   side_store:
///     schema: toolforge           # PostgreSQL: a schema of toolforge's own
///     file: shop.toolforge.db     # SQLite: a file beside the database, attached to it
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SideStoreOptions {
    /// PostgreSQL: the schema holding the indexes (default `toolforge`; created when
    /// missing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// SQLite: the file holding them, relative to the database file's folder (default: the
    /// database's name with `.toolforge.db`, beside it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// `toolforge.http`: the deadlines and limits of `toolforge serve --http`, against slow and
/// idle clients. Each key left out keeps its default; a `serve` flag of the same name
/// (`--header-timeout`, `--body-timeout`, `--idle-timeout`, `--max-connections`,
/// `--max-body-bytes`) overrides it.
///
/// ```yaml
/// toolforge:
///   http:
///     header_timeout_seconds: 10   # a request's first byte to the end of its headers
///     body_timeout_seconds: 30     # its headers to the end of its body (408 after)
///     idle_timeout_seconds: 60     # a connection without a request under way
///     max_connections: 512         # open at once; beyond, the longest-waiting idle one is closed
///     max_body_bytes: 4194304      # larger bodies are refused with 413
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HttpServeOptions {
    /// Seconds from a request's first byte to the end of its headers; a connection that
    /// takes longer is closed (default 10, at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::header_timeout_seconds")]
    pub header_timeout_seconds: Option<u64>,
    /// Seconds from a request's headers to the end of its body; a body that takes longer is
    /// answered `408` (default 30, at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::body_timeout_seconds")]
    pub body_timeout_seconds: Option<u64>,
    /// Seconds a connection may wait without a request under way (a keep-alive connection
    /// between requests, or one that sends nothing) before it is closed (default 60, at
    /// least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::idle_timeout_seconds")]
    pub idle_timeout_seconds: Option<u64>,
    /// The most connections open at once (default 512, at least 1). A new connection beyond
    /// it closes the one that has waited longest without a request under way; when every
    /// open connection is answering, the new one is answered `503` (`/healthz` `200`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::max_connections")]
    pub max_connections: Option<u64>,
    /// The largest request body, in bytes; larger ones are refused with `413` (default
    /// 4194304, 4 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::max_body_bytes")]
    pub max_body_bytes: Option<u64>,
}

impl HttpServeOptions {
    /// The serving settings.
    pub fn to_spec(&self) -> toolforge::spec::HttpSpec {
        let mut spec = toolforge::spec::HttpSpec::default();
        spec.header_timeout_seconds = self.header_timeout_seconds;
        spec.body_timeout_seconds = self.body_timeout_seconds;
        spec.idle_timeout_seconds = self.idle_timeout_seconds;
        spec.max_connections = self.max_connections;
        spec.max_body_bytes = self.max_body_bytes;
        spec
    }
}

/// `toolforge.auth`: `toolforge serve --http` as an OAuth 2.1 resource server. Every request
/// carries an access token (a JWT) from `issuer`, for `audience`; its scopes choose the tools
/// the caller may run, and its claims become context values for row rules.
///
/// ```yaml
/// toolforge:
///   auth:
///     issuer: https://id.example.com          # the authorization server
///     audience: https://tools.example.com/mcp # default: http://ADDRESS/mcp
///     required_scopes: [mcp]                  # every request
///     scopes:                                 # a tool, a family or a toolset: its scope
///       aggregates: tools:reports
///       delete_everything: admin
///     claims:                                 # context value: token claim (dots for nested)
///       member: sub
///       branch: org.branch
///     leeway_seconds: 30                      # clock difference tolerated on exp and nbf
///     algorithms: [RS256, ES256]              # default RS256, PS256, ES256, EdDSA
///     introspection:                          # opaque tokens (RFC 7662)
///       endpoint: https://id.example.com/token/introspect   # default: the issuer's metadata
///       client_id: toolforge
///       client_secret_env: TOOLFORGE_CLIENT_SECRET
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AuthOptions {
    /// The authorization server's issuer URL (the tokens' `iss`); its keys are read from its
    /// metadata.
    pub issuer: String,
    /// The resource the tokens are issued for (their `aud`, the `resource` of RFC 8707);
    /// default the server's own URL, `http://ADDRESS/mcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// The issuer's JWK Set URL, when it should not be read from the issuer's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// The signature algorithms accepted (default RS256, PS256, ES256, EdDSA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::algorithms")]
    pub algorithms: Option<Vec<String>>,
    /// Seconds of clock difference tolerated on `exp` and `nbf` (default 30, at most 300).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::leeway_seconds")]
    pub leeway_seconds: Option<u64>,
    /// Scopes every request needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_scopes: Option<Vec<String>>,
    /// A scope per tool, tool family or toolset name: a tool needs one of the scopes naming
    /// it, its family or a toolset holding it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<std::collections::BTreeMap<String, String>>,
    /// Context values taken from the token: context name to claim (`sub`, `email`,
    /// `org.branch` for a nested claim). A token lacking one is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims: Option<std::collections::BTreeMap<String, String>>,
    /// Opaque (non-JWT) tokens checked at the issuer's introspection endpoint (RFC 7662), this
    /// server authenticating as a client of the issuer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection: Option<IntrospectionOptions>,
}

/// `toolforge.auth.introspection`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IntrospectionOptions {
    /// The issuer's introspection endpoint; default: its metadata's `introspection_endpoint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// This server's client id at the issuer.
    pub client_id: String,
    /// The environment variable holding the client's secret (read when serving starts).
    pub client_secret_env: String,
}

/// The algorithms `toolforge serve` accepts when `toolforge.auth.algorithms` is absent.
pub const DEFAULT_TOKEN_ALGORITHMS: [&str; 4] = ["RS256", "PS256", "ES256", "EdDSA"];

/// The algorithms `toolforge.auth.algorithms` may name.
pub const TOKEN_ALGORITHMS: [&str; 9] = [
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
];

impl AuthOptions {
    /// The serving settings.
    pub fn to_spec(&self) -> toolforge::spec::AuthSpec {
        toolforge::spec::AuthSpec {
            issuer: self.issuer.clone(),
            audience: self.audience.clone(),
            jwks_uri: self.jwks_uri.clone(),
            algorithms: self.algorithms.clone().unwrap_or_default(),
            leeway_seconds: self.leeway_seconds,
            required_scopes: self.required_scopes.clone().unwrap_or_default(),
            scopes: self.scopes.clone().unwrap_or_default(),
            claims: self.claims.clone().unwrap_or_default(),
            introspection: self.introspection.as_ref().map(|introspection| {
                toolforge::spec::IntrospectionSpec {
                    endpoint: introspection.endpoint.clone(),
                    client_id: introspection.client_id.clone(),
                    client_secret_env: introspection.client_secret_env.clone(),
                }
            }),
        }
    }
}

/// `toolforge.vector_search`: where vectors are kept and how searches over them run.
///
/// ```yaml
/// toolforge:
///   vector_search:
///     precision: half                 # pgvector: halfvec columns (default full: vector)
///     ef_search: 100                  # pgvector: HNSW candidates per search (default 100)
///     iterative_scan: relaxed_order   # pgvector: off | strict_order | relaxed_order
///     max_vectors_in_memory: 2000000  # without pgvector: the most vectors a process holds
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VectorSearchOptions {
    /// How PostgreSQL with pgvector stores each value: `full` (`vector`, 32-bit floats; the
    /// default) or `half` (`halfvec`, 16-bit floats, half the size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::precision")]
    pub precision: Option<VectorPrecision>,
    /// pgvector's `hnsw.ef_search` for each search: how many candidates the HNSW scan keeps
    /// (1 to 1000, default 100; higher finds more of the exact answer, slower).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::ef_search")]
    pub ef_search: Option<u32>,
    /// pgvector's iterative index scans, so that a selective filter still returns `top_k`
    /// rows: `off`, `strict_order` or `relaxed_order` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::iterative_scan")]
    pub iterative_scan: Option<IterativeScanName>,
    /// Without pgvector (SQLite, or PostgreSQL without the extension) each server process
    /// keeps the vectors in memory: the most it keeps, over every index (default 2,000,000;
    /// at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::max_vectors_in_memory")]
    pub max_vectors_in_memory: Option<u64>,
}

/// `toolforge.vector_search.precision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VectorPrecision {
    /// `vector`: 32-bit floats.
    Full,
    /// `halfvec`: 16-bit floats.
    Half,
}

/// `toolforge.vector_search.iterative_scan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IterativeScanName {
    /// One scan of `ef_search` candidates.
    Off,
    /// Scan on until `top_k` rows pass the filter, in exact distance order.
    StrictOrder,
    /// Scan on until `top_k` rows pass the filter, sorted again by distance.
    RelaxedOrder,
}

impl VectorSearchOptions {
    /// The settings with defaults applied.
    pub fn to_settings(&self) -> VectorSearchSettings {
        let defaults = VectorSearchSettings::default();
        VectorSearchSettings {
            half_precision: self.precision == Some(VectorPrecision::Half),
            ef_search: self.ef_search.unwrap_or(defaults.ef_search),
            iterative_scan: match self.iterative_scan {
                None => defaults.iterative_scan,
                Some(IterativeScanName::Off) => IterativeScan::Off,
                Some(IterativeScanName::StrictOrder) => IterativeScan::StrictOrder,
                Some(IterativeScanName::RelaxedOrder) => IterativeScan::RelaxedOrder,
            },
            max_vectors_in_memory: self
                .max_vectors_in_memory
                .unwrap_or(defaults.max_vectors_in_memory),
        }
    }
}

/// One entry of `toolforge.declared_tools`: a parameterised query as a tool.
///
/// ```yaml
/// toolforge:
///   declared_tools:
///     - name: open_loans_of_member
///       description: Open loans of one member, most overdue first
///       entity: Loan
///       where: "status = 'open' AND member_id = :member AND due_at < :before"
///       order_by: due_at ASC
///       limit: 50
///       parameters:
///         member: {type: string, description: "Member id", pattern: "^m[0-9]+$"}
///         before: {type: datetime, description: "Cut-off", default: "now"}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeclaredTool {
    /// The tool's name (letters, digits, `_` and `-`; no prefix is added).
    pub name: String,
    /// What the tool does, for the model (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The entity whose records it returns (absent with `sql:`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub entity: String,
    /// The trusted form: the tool's own statement per backend, with `:name` parameters, run
    /// read-only (excludes `entity`, `where` and `order_by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<DeclaredSql>,
    /// The condition records must meet: an expression over the entity's fields, computed
    /// fields and relationship aggregates, with `:name` parameters. Absent: every record.
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub where_clause: Option<String>,
    /// The order: `expression [ASC|DESC]`, items separated by commas (ties: the unique field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<String>,
    /// The most records one call returns (default `toolforge.default_limit`, at most
    /// `max_limit`); a call may ask for fewer and page with `offset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// The parameters, by name: each a value the model gives (checked before any query runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<std::collections::BTreeMap<String, DeclaredParameter>>,
}

/// The `sql:` of a declared tool: one read-only statement per backend.
///
/// ```yaml
///     sql:
///       sqlite: "SELECT branch, count(*) AS loans FROM loan WHERE due_at < :before GROUP BY branch"
///       postgres: "SELECT branch, count(*) AS loans FROM loan WHERE due_at < :before GROUP BY branch"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeclaredSql {
    /// The statement run on SQLite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqlite: Option<String>,
    /// The statement run on PostgreSQL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres: Option<String>,
}

/// One parameter of a declared tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
type: string
description: Member id
pattern: ^m[0-9]+$
"))]
#[schemars(example = super::schema::yaml_example("\
type: datetime
description: Cut-off
default: 7 days ago
"))]
pub struct DeclaredParameter {
    /// `string`, `number`, `integer`, `boolean`, `datetime`, or `enum` (with `values`, as a
    /// field spells it).
    #[serde(rename = "type")]
    pub ty: String,
    /// The values of `type: enum` (the field spelling of a `string` with `enum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<serde_json::Value>>,
    /// What the value means, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether a call must give it (default: true unless it has a `default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// The value used when a call gives none (datetimes: also `now` or `7 days ago`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// The only values allowed.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<serde_json::Value>>,
    /// The smallest number allowed (`number`, `integer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// The largest number allowed (`number`, `integer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// A regular expression a `string` value must match (Rust `regex` syntax; anchor it with
    /// `^...$` to match the whole value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The name of the call's context value this parameter takes its value from, set by the
    /// host (`ToolContext::with_value`, `toolforge serve --context`), never by the model: the
    /// parameter is left out of the input schema, a call that gives it is refused, and a call
    /// without the context value is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_context: Option<String>,
}

/// `toolforge.change_history`: the retention of the change log.
///
/// ```yaml
/// toolforge:
///   change_history:
///     max_changes_per_record: 100   # older changes of a record are removed
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChangeHistoryOptions {
    /// The most changes kept per record (at least 1); absent: every change is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_changes_per_record: Option<u32>,
}

/// `toolforge.embeddings`: where the provider is and how to reach it. Secrets are never
/// written here: `api_key_env` names the environment variable holding the key.
///
/// ```yaml
/// toolforge:
///   embeddings:
///     provider: local                 # local | openai | ollama | openai-compatible | gemini
///     model_path: models/all-MiniLM-L6-v2
///     batch_size: 64
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddingOptions {
    /// The provider (overrides ragforge's `embedding.provider` / `embeddings.provider`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The model name (overrides ragforge's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's base URL (`http://127.0.0.1:8080/v1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The environment variable holding the API key (default `OPENAI_API_KEY` or
    /// `GEMINI_API_KEY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// The local model's folder (provider `local`), relative to the config file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_path: Option<String>,
    /// Texts per provider request (at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<u32>,
}

/// A family of generated tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolFamilyName {
    /// `get_schema`, `describe_entity`.
    Schema,
    /// `query_entities`.
    Query,
    /// `get_entity_by_id`, `get_entities_by_ids`.
    Lookup,
    /// `explore_relationships`, `join_entities`.
    Relationships,
    /// `full_text_search`, `semantic_search`, `hybrid_search`, `find_similar`.
    Search,
    /// `query_entities_by_date_range`, `query_entities_by_number_range`.
    Ranges,
    /// `glob_search`, `query_entities_by_pattern`.
    Patterns,
    /// `aggregate_entities`.
    Aggregates,
    /// `find_path`, `rank_entities`, `find_clusters`.
    Graph,
    /// `get_entity_change_history`, `find_recently_modified_entities`,
    /// `get_most_modified_entities`, `get_change_statistics`, `compare_entity_versions`,
    /// `analyze_churn`.
    Changes,
    /// `find_near`.
    Places,
}

impl From<ToolFamilyName> for ToolFamily {
    fn from(name: ToolFamilyName) -> Self {
        match name {
            ToolFamilyName::Schema => ToolFamily::Schema,
            ToolFamilyName::Query => ToolFamily::Query,
            ToolFamilyName::Lookup => ToolFamily::Lookup,
            ToolFamilyName::Relationships => ToolFamily::Relationships,
            ToolFamilyName::Search => ToolFamily::Search,
            ToolFamilyName::Ranges => ToolFamily::Ranges,
            ToolFamilyName::Patterns => ToolFamily::Patterns,
            ToolFamilyName::Aggregates => ToolFamily::Aggregates,
            ToolFamilyName::Graph => ToolFamily::Graph,
            ToolFamilyName::Changes => ToolFamily::Changes,
            ToolFamilyName::Places => ToolFamily::Places,
        }
    }
}

/// The longest tool name a family generates (used to check `name_prefix` against the 64
/// character limit of tool names).
pub const LONGEST_TOOL_NAME: &str = "find_recently_modified_entities";

impl ToolforgeOptions {
    /// The options with defaults applied (duplicate families dropped, order kept).
    pub fn to_tool_options(&self) -> ToolOptions {
        let defaults = ToolOptions::default();
        let families = match &self.tools {
            None => defaults.families,
            Some(names) => {
                let mut families: Vec<ToolFamily> = Vec::new();
                for name in names {
                    let family = ToolFamily::from(*name);
                    if !families.contains(&family) {
                        families.push(family);
                    }
                }
                families
            }
        };
        let mut options = ToolOptions::default();
        options.name_prefix = self.name_prefix.clone().unwrap_or_default();
        options.default_limit = self.default_limit.unwrap_or(defaults.default_limit);
        options.max_limit = self.max_limit.unwrap_or(defaults.max_limit);
        options.families = families;
        if let Some(vector_search) = &self.vector_search {
            options.vector_search = vector_search.to_settings();
        }
        if let Some(store) = &self.side_store {
            if let Some(schema) = &store.schema {
                options.side_store.schema = schema.clone();
            }
            options.side_store.file = store.file.clone();
        }
        options
    }
}
