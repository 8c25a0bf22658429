//! The serde structs mirroring the ragforge config format (`ragforge.config.yaml`).
//!
//! Sections toolforge does not use (`neo4j`, `reranking`, `generation`, ...) are accepted and kept as
//! opaque JSON values. Values that are validated with located, did-you-mean diagnostics (field
//! types, names) are plain strings here so that one wrong value never hides the others.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use super::options::ToolforgeOptions;

/// An opaque section: any YAML value, kept as written and not used by toolforge.
pub type Opaque = serde_json::Value;

/// A whole `ragforge.config.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example(CONFIG_EXAMPLE))]
pub struct Config {
    /// The project name; used as the schema name (defaults to the file name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The config version (`1.0.0`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "string_or_number"
    )]
    #[schemars(schema_with = "string_or_number_schema")]
    pub version: Option<String>,
    /// What the project is about; shown in tool descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The entities (node labels / tables). At least one is required.
    #[serde(default)]
    pub entities: Vec<Entity>,
    /// toolforge's own generation options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolforge: Option<ToolforgeOptions>,
    /// ragforge: Neo4j connection (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neo4j: Option<Opaque>,
    /// ragforge: reranking strategies (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reranking: Option<Opaque>,
    /// The MCP server's identity and the tools it exposes (`toolforge serve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpSection>,
    /// ragforge: TypeScript generation settings (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<Opaque>,
    /// ragforge: embedding pipelines: the provider, defaults and, per entity, which field is
    /// embedded into which vector property (each pipeline is a vector index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings: Option<EmbeddingsSection>,
    /// ragforge: summarization strategies (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarization_strategies: Option<Opaque>,
    /// ragforge: summarization LLM (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarization_llm: Option<Opaque>,
    /// ragforge: ingestion source (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Opaque>,
    /// ragforge: file watching (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<Opaque>,
    /// ragforge: LLM provider (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<Opaque>,
    /// ragforge: the embedding provider and model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<EmbeddingSection>,
    /// ragforge: topic extraction (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic_extraction: Option<Opaque>,
    /// ragforge: topic merging (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic_merging: Option<Opaque>,
}

/// The example of [`Config`] in its schema: a small config with one entity of each kind.
pub(super) const CONFIG_EXAMPLE: &str = "\
name: library
version: 1.0.0
description: Books and their authors
entities:
  - name: Author
    unique_field: id
    searchable_fields:
      - {name: id, type: string}
      - {name: name, type: string}
  - name: Book
    unique_field: isbn
    searchable_fields:
      - {name: isbn, type: string}
      - {name: title, type: string}
    relationships:
      - {type: WRITTEN_BY, target: Author}
toolforge:
  default_limit: 20
";

/// ragforge's `embedding:` section: one provider and model.
///
/// ```yaml
/// embedding: {provider: ollama, model: nomic-embed-text}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddingSection {
    /// The provider (`local`, `openai`, `ollama`, `openai-compatible`, `gemini`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The vector size the model gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<i64>,
    /// An API key written into the config: never used (keys come from the environment, see
    /// `toolforge.embeddings.api_key_env`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<Opaque>,
}

/// ragforge's `embeddings:` section: a provider, defaults and per-entity pipelines.
///
/// ```yaml
/// embeddings:
///   provider: gemini
///   defaults: {model: text-embedding-004, dimension: 768, similarity: cosine}
///   entities:
///     - entity: Scope
///       pipelines:
///         - {name: scopeSourceEmbeddings, source: source, target_property: source_embedding}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddingsSection {
    /// The provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Defaults for every pipeline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<EmbeddingDefaults>,
    /// The pipelines of each entity.
    #[serde(default)]
    pub entities: Vec<EntityEmbeddings>,
    /// An API key written into the config: never used (see [`EmbeddingSection::api_key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<Opaque>,
}

/// `embeddings.defaults`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddingDefaults {
    /// The model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The vector size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<i64>,
    /// The similarity function (`cosine`, `euclidean`, `dot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<String>,
}

/// One entry of `embeddings.entities`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntityEmbeddings {
    /// The entity's name.
    pub entity: String,
    /// Its pipelines.
    #[serde(default)]
    pub pipelines: Vec<EmbeddingPipeline>,
}

/// One embedding pipeline: `source` is embedded into the vector property `target_property`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddingPipeline {
    /// The pipeline's name (the vector index's name).
    pub name: String,
    /// The field embedded.
    pub source: String,
    /// The vector property (column) written.
    pub target_property: String,
    /// The model (default: `embeddings.defaults.model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The vector size (default: `embeddings.defaults.dimension`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<i64>,
    /// The similarity (default: `embeddings.defaults.similarity`, else cosine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<String>,
    /// ragforge: text preprocessors (toolforge embeds the field's text as stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preprocessors: Option<Opaque>,
    /// Texts per provider request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<u32>,
    /// ragforge: parallel requests (toolforge sends one at a time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<Opaque>,
    /// ragforge: pause between requests (unused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_ms: Option<Opaque>,
}

/// The `mcp:` section: how `toolforge serve` presents the tools.
///
/// ```yaml
/// mcp:
///   server: {name: code-rag, version: 1.0.0}
///   tools:                      # an allow-list; absent: every tool is served
///     - name: query_entities
///     - name: get_entity_by_id
///       expose: false           # listed but not served
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpSection {
    /// The server's identity, sent to clients when they connect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<McpServerInfo>,
    /// The tools to serve, by name; a tool not listed (or listed with `expose: false`) is not
    /// served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<McpTool>>,
}

/// `mcp.server`: the name and version a server reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpServerInfo {
    /// The server's name (default: the config's `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The server's version (default: the config's `version`, else toolforge's).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "string_or_number"
    )]
    #[schemars(schema_with = "string_or_number_schema")]
    pub version: Option<String>,
}

/// One entry of `mcp.tools`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpTool {
    /// The tool's name, as `toolforge tools list` shows it.
    pub name: String,
    /// ragforge: a description for the tool (toolforge keeps its own, which lists the
    /// config's entities and fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the tool is served (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::yes")]
    pub expose: Option<bool>,
}

/// One entity: a node label in ragforge, a table in toolforge.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
name: Book
description: A book of the catalogue
unique_field: isbn
display_name_field: title
searchable_fields:
  - {name: isbn, type: string}
  - {name: title, type: string, description: The title}
  - {name: genre, type: enum, values: [novel, science, poetry]}
  - {name: pages, type: number, indexed: true}
computed_fields:
  - {name: title_length, type: number, expression: length(title)}
full_text_index: {fields: [title]}
relationships:
  - {type: WRITTEN_BY, target: Author}
"))]
pub struct Entity {
    /// The entity name, an identifier (`Scope`, `ExternalLibrary`); the table is its snake_case.
    pub name: String,
    /// An existing table or view to read instead of a table toolforge creates: `orders`, or
    /// schema-qualified on PostgreSQL (`sales.orders`), a part double-quoted when it holds a
    /// dot or a quote (`sales."Order Lines"`). Tools then only read it. In a config that maps
    /// one entity, every entity names its table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// What a record is; shown in tool descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Stored fields (columns), filterable by tools.
    #[serde(default)]
    pub searchable_fields: Vec<Field>,
    /// Fields computed from the others (an expression, a `cypher:` pattern or raw `sql:`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub computed_fields: Vec<ComputedField>,
    /// Legacy single vector index (combined with `vector_indexes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_index: Option<VectorIndex>,
    /// Vector indexes for semantic search.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub vector_indexes: Vec<VectorIndex>,
    /// A full-text index over some text fields, for `full_text_search` (BM25 ranking).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_text_index: Option<FullTextIndex>,
    /// Relationships starting or ending at this entity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub relationships: Vec<Relationship>,
    /// The field naming a record in results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name_field: Option<String>,
    /// The field identifying a record (default `uuid`; added as a string field if not listed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::unique_field")]
    pub unique_field: Option<String>,
    /// The field searched by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_field: Option<String>,
    /// The field holding a record's main content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_field: Option<String>,
    /// Fields shown in examples of tool descriptions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub example_display_fields: Vec<String>,
    /// How a record's children are found (for `with_children` lookups).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hierarchical_content: Option<HierarchicalContent>,
    /// ragforge: record content changes (legacy switch; see `change_tracking`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_changes: Option<bool>,
    /// ragforge: change tracking settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_tracking: Option<ChangeTracking>,
}

/// The default `unique_field`.
pub const DEFAULT_UNIQUE_FIELD: &str = "uuid";

impl Entity {
    /// The unique field's name (`unique_field`, default `uuid`).
    pub fn unique_field(&self) -> &str {
        self.unique_field.as_deref().unwrap_or(DEFAULT_UNIQUE_FIELD)
    }

    /// The stored field with this name.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.searchable_fields
            .iter()
            .find(|field| field.name == name)
    }

    /// Both vector index lists (legacy `vector_index` first) with their config paths'
    /// last segment (`vector_index` or `vector_indexes[i]`).
    pub fn all_vector_indexes(&self) -> Vec<(String, &VectorIndex)> {
        let mut all = Vec::new();
        if let Some(index) = &self.vector_index {
            all.push(("vector_index".to_owned(), index));
        }
        for (i, index) in self.vector_indexes.iter().enumerate() {
            all.push((format!("vector_indexes[{i}]"), index));
        }
        all
    }
}

/// A stored field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
name: status
type: enum
values: [open, returned]
indexed: true
description: Whether the loan is still open
"))]
pub struct Field {
    /// The field name, an identifier; also the column name.
    pub name: String,
    /// On an entity mapped onto an existing table (`table:`), the column holding the field when
    /// it is not named like it (`"Unit Price"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// The value type.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = FIELD_TYPES))]
    pub ty: String,
    /// Create an index on the column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::no")]
    pub indexed: Option<bool>,
    /// What the field holds; shown in tool descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values of an `enum` field (required for `enum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// ragforge: LLM summarization of long values (unused by toolforge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarization: Option<Summarization>,
}

/// The field types a config may use.
pub const FIELD_TYPES: [&str; 9] = [
    "string",
    "number",
    "integer",
    "boolean",
    "datetime",
    "enum",
    "array<string>",
    "array<number>",
    "point",
];

/// The result types a computed field may declare.
pub const COMPUTED_TYPES: [&str; 4] = ["string", "number", "boolean", "datetime"];

/// ragforge's per-field summarization settings (kept, unused by toolforge).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summarization {
    /// Summarize this field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// The strategy name (`code_analysis`, `text_extraction`, or a custom one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// Only values longer than this many characters are summarized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u64>,
    /// Store summaries for reuse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<bool>,
    /// Summarize lazily, when first needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_demand: Option<bool>,
    /// Summary fields to extract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_fields: Option<Vec<String>>,
    /// How reranking uses the summary (`prefer_summary`, `never`, `always`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerank_use: Option<String>,
    /// A Cypher query fetching graph context for each record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_query: Option<String>,
    /// A Cypher query ordering records into batches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_order_query: Option<String>,
}

/// A computed field: exactly one of `expression`, `cypher` or `sql`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
name: line_count
type: number
description: Lines of the scope
expression: endLine - startLine + 1
materialized: true
cache_property: line_count_cache
"))]
#[schemars(example = super::schema::yaml_example("\
name: caller_count
type: number
cypher: OPTIONAL MATCH (caller:Scope)-[:CALLS]->(n) RETURN count(caller)
"))]
pub struct ComputedField {
    /// The field name, an identifier.
    pub name: String,
    /// The result type.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = COMPUTED_TYPES))]
    pub ty: String,
    /// What the field means; shown in tool descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// An expression over the entity's fields (`endLine - startLine + 1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// A Cypher single-hop aggregate (`OPTIONAL MATCH (n)-[:REL]->(x:Label) RETURN count(x)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cypher: Option<String>,
    /// A trusted raw SQLite expression over the row alias `n`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    /// Store the value in a generated column (needs a row-local expression and
    /// `cache_property`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::no")]
    pub materialized: Option<bool>,
    /// The column holding a materialized value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_property: Option<String>,
}

/// A vector index: an embedding column for semantic search.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
name: book_summaries
field: summary_embedding
source_field: summary
dimension: 384
similarity: cosine
example_query: books about the sea
"))]
pub struct VectorIndex {
    /// The index name.
    pub name: String,
    /// The embedding column (default `embedding`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::vector_column")]
    pub field: Option<String>,
    /// The field the embedding is computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_field: Option<String>,
    /// On an entity over an existing table: the table's own pgvector column (`vector(N)` or
    /// `halfvec(N)`) holding the vectors, searched as it is by PostgreSQL (no `source_field`:
    /// toolforge never writes your table, so your application keeps the vectors current).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// The number of dimensions (positive).
    pub dimension: i64,
    /// The similarity function (`cosine`, `euclidean`, `dot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(default = "super::schema::similarity")]
    pub similarity: Option<String>,
    /// The embedding provider (`openai`, `gemini`, `vertex`, `ollama`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The embedding model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// An example query for tool descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example_query: Option<String>,
}

/// A full-text index: the text fields searched by `full_text_search`, their weights, and how
/// text is cut into terms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
fields: [title, summary]
weights: {title: 3}
analyzer: porter
"))]
pub struct FullTextIndex {
    /// The indexed fields: stored text fields (`string`, `enum`, `datetime`, `array<string>`).
    pub fields: Vec<String>,
    /// The BM25 weight of some indexed fields (positive; 1 for a field not listed), e.g.
    /// `{name: 3, body: 1}` ranks a match in `name` above one in `body`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<std::collections::BTreeMap<String, f64>>,
    /// How text becomes terms: `porter` (default: Unicode words, case and accents folded,
    /// English stemming) or `unicode61` (the same without stemming).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["porter", "unicode61"]), default = "super::schema::analyzer")]
    pub analyzer: Option<String>,
}

/// Which way a relationship points, seen from the entity declaring it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// `(this)-[:TYPE]->(target)`.
    #[default]
    Outgoing,
    /// `(target)-[:TYPE]->(this)`.
    Incoming,
    /// Either way: stored once as `(this)-[:TYPE]->(target)`.
    Both,
}

/// A relationship declared on an entity.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
type: BORROWED
target: Member
direction: outgoing
description: The member who borrowed the book
properties:
  - {name: since, type: datetime}
"))]
pub struct Relationship {
    /// The relationship type, an identifier (`DEFINED_IN`).
    #[serde(rename = "type")]
    pub rel_type: String,
    /// The direction seen from this entity (default `outgoing`).
    #[serde(default)]
    pub direction: Direction,
    /// The entity at the other end.
    pub target: String,
    /// What the relationship means; shown in tool descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Extra edge columns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub properties: Vec<Field>,
    /// ragforge: add the related records to results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enrich: Option<bool>,
    /// ragforge: the result field for enriched records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enrich_field: Option<String>,
    /// ragforge: generated query-builder filters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub filters: Vec<RelationshipFilter>,
    /// An example target for tool descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example_target: Option<String>,
    /// Between mapped tables: the column of the relationship's source table holding the
    /// target's unique field (many-to-one; followed backwards, one-to-many).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_key: Option<String>,
    /// Between mapped tables: a join table with a column referencing each side
    /// (many-to-many); `properties` map its other columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_table: Option<JoinTable>,
}

/// A join table between two mapped entities.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
table: PlaylistTrack
source_column: TrackId
target_column: PlaylistId
"))]
pub struct JoinTable {
    /// The join table, named as `table:` names an entity's.
    pub table: String,
    /// Its column holding the relationship source's unique field.
    pub source_column: String,
    /// Its column holding the relationship target's unique field.
    pub target_column: String,
}

/// ragforge's query-builder filter on a relationship (kept, unused by toolforge).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RelationshipFilter {
    /// The method name (`whereFileName`).
    pub name: String,
    /// What it filters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The parameter name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    /// Which way the relationship is followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
}

/// How a record's children are found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
children_relationship: HAS_PARENT
include_children: true
"))]
pub struct HierarchicalContent {
    /// The relationship children use to point at their parent
    /// (`(child)-[:HAS_PARENT]->(parent)`).
    pub children_relationship: String,
    /// Include children's content in the full content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_children: Option<bool>,
}

/// ragforge's change tracking settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(example = super::schema::yaml_example("\
content_field: source
metadata_fields: [file, name]
"))]
pub struct ChangeTracking {
    /// The field whose changes are tracked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_field: Option<String>,
    /// Fields recorded with each change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub metadata_fields: Vec<String>,
    /// The field holding the content hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash_field: Option<String>,
}

fn string_or_number<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Scalar {
        Text(String),
        Int(i64),
        Float(f64),
    }
    Ok(
        Option::<Scalar>::deserialize(deserializer)?.map(|value| match value {
            Scalar::Text(text) => text,
            Scalar::Int(number) => number.to_string(),
            Scalar::Float(number) => number.to_string(),
        }),
    )
}

fn string_or_number_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["string", "number"] })
}
