//! The database tools: each one's arguments are one typed struct (its schema derived from it),
//! its definition is built from the spec, and its handler runs on a read-only connection.
//!
//! Every tool is read-only and idempotent, checks entity and field names against the spec
//! before building SQL, binds every value as a parameter, and runs on the database's pool of
//! read-only connections. Lists (`query_entities`, `glob_search`, `full_text_search`, `explore_relationships`,
//! `get_entities_by_ids`) take an `offset` and are answered as `{"entity_type", "offset",
//! "total", "returned", "truncated", "truncated_by", "has_more", "next_offset", "results":
//! [...]}`: `truncated_by` (only when records follow) names the limit that ended the page —
//! `limit` (the call's or the default), `max_rows` or `max_answer_bytes` (the call's
//! [`CallLimits`](crate::CallLimits)) — and its value; `next_offset` (null at the end) is the
//! `offset` of the next page. A page never makes the answer exceed `max_answer_bytes`; a first
//! record too large on its own is a `too_large` error.
//!
//! The argument structs are generic over the name types ([`ArgName`]): the engine reads them
//! with `String` names; a generated module instantiates them with its name enums, which makes
//! them tools of that module's embedded spec ([`EmbeddedSpec`]).

mod answers;
mod arguments;
mod common;
mod declared;
mod declared_sql;
mod declared_typed;
mod describe_entity;
mod explore_relationships;
mod full_text_search;
mod get_entities_by_ids;
mod get_entity_by_id;
mod get_schema;
mod glob_search;
mod hybrid_search;
mod query_entities;
mod semantic_search;
mod typed;

// The range, pattern, aggregate and graph tools.
mod aggregate;
mod date_range;
mod find_path;
mod graph;
mod number_range;
mod pattern;
mod ranges;
mod rank_entities;

// The change tools.
mod change_history;
mod change_log;
mod change_statistics;
mod compare_versions;
mod most_modified;
mod recently_modified;

use std::marker::PhantomData;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::spec::SchemaSpec;
use crate::{RegistryBuilder, RegistryError, Tool, ToolContext, ToolDefinition, ToolFuture};

use super::Database;

pub use super::query::{Condition, Direction, Operator, OrderBy};
pub use arguments::{ArgName, EmbeddedSpec};
pub use common::{Shared, optional_integer};
pub use declared_typed::{DeclaredArgs, DeclaredPage, DeclaredRows, call_declared, run_declared};
pub use describe_entity::DescribeEntityArgs;
pub use explore_relationships::{ExploreRelationshipsArgs, TraversalDirection};
pub use full_text_search::FullTextSearchArgs;
#[allow(unused_imports)]
pub(crate) use full_text_search::ranked_ids;
pub use get_entities_by_ids::GetEntitiesByIdsArgs;
pub use get_entity_by_id::GetEntityByIdArgs;
pub use get_schema::GetSchemaArgs;
pub use glob_search::GlobSearchArgs;
pub use hybrid_search::HybridSearchArgs;
pub use query_entities::QueryEntitiesArgs;
pub use semantic_search::SemanticSearchArgs;

pub use aggregate::{AggregateEntitiesArgs, AggregateOrder, Aggregation, Along, Bucket};
pub use date_range::QueryEntitiesByDateRangeArgs;
pub use find_path::{FindPathArgs, PathEnd};
pub use number_range::QueryEntitiesByNumberRangeArgs;
pub use pattern::{PatternType, QueryEntitiesByPatternArgs};
pub use rank_entities::{RankAlgorithm, RankEntitiesArgs};

pub use change_history::GetEntityChangeHistoryArgs;
pub use change_statistics::GetChangeStatisticsArgs;
pub use compare_versions::CompareEntityVersionsArgs;
pub use most_modified::GetMostModifiedEntitiesArgs;
pub use recently_modified::{ChangeType, FindRecentlyModifiedEntitiesArgs};

/// One database tool as the engine runs it: its arguments (with `String` names), its
/// definition for a spec, and what a call does.
pub(crate) trait EngineTool: DeserializeOwned + JsonSchema + Send + 'static {
    /// Which tool this is.
    const KIND: DatabaseTool;

    /// The shape of its answers (its `outputSchema`, see `answers.rs`).
    type Answer: JsonSchema;

    /// The definition for `spec`.
    fn definition(spec: &SchemaSpec) -> ToolDefinition;

    /// Answers the call on a read-only connection.
    fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn super::backend::Reader,
    ) -> Result<Value, common::HandlerError>;

    /// Answers the call on a read-only connection of `db`, for tools that need more of the
    /// database than a connection (its embedder, its vectors in memory).
    fn execute_in(
        self,
        spec: &SchemaSpec,
        conn: &dyn super::backend::Reader,
        db: &Database,
    ) -> Result<Value, common::HandlerError> {
        let _ = db;
        self.execute(spec, conn)
    }
}

/// Where an engine tool finds its database.
enum DatabaseSource {
    /// Its own.
    Bound(Arc<Shared>),
    /// The [`Database`] of each call's context, with this spec.
    Context(Arc<SchemaSpec>),
}

/// A database tool of the engine bound to a spec.
struct Engine<A> {
    source: DatabaseSource,
    definition: ToolDefinition,
    arguments: PhantomData<fn() -> A>,
}

impl<A: EngineTool> Engine<A> {
    fn new(source: DatabaseSource) -> Self {
        let definition = match &source {
            DatabaseSource::Bound(shared) => A::definition(&shared.spec),
            DatabaseSource::Context(spec) => A::definition(spec),
        };
        Engine {
            source,
            definition,
            arguments: PhantomData,
        }
    }
}

impl<A: EngineTool> Tool for Engine<A> {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        match &self.source {
            DatabaseSource::Bound(shared) => {
                common::run_json::<A>(shared, arguments, context.values())
            }
            DatabaseSource::Context(spec) => match common::context_database(context) {
                Ok(db) => common::run_json::<A>(
                    &Arc::new(Shared::new(spec.clone(), db)),
                    arguments,
                    context.values(),
                ),
                Err(error) => Box::pin(async move { Err(error) }),
            },
        }
    }
}

/// The tools the spec asks for (`spec.tools.families`, named with `spec.tools.name_prefix`),
/// in a stable order: `get_schema`, `describe_entity`, `query_entities`, `glob_search`,
/// `get_entity_by_id`, `get_entities_by_ids`, `explore_relationships` (only when the spec has
/// relationships), `full_text_search` (only when an entity has a full-text index), ...; then
/// the config's declared tools (`spec.declared_tools`), in config order.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["schema", "query", "lookup", "relationships"]}}))?;
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// let tools = toolforge::sql::tools::database_tools(std::sync::Arc::new(spec), db);
/// let names: Vec<&str> = tools.iter().map(|t| t.definition().name.as_str()).collect();
/// assert_eq!(names, ["get_schema", "describe_entity", "query_entities", "glob_search",
///                    "get_entity_by_id", "get_entities_by_ids"]);
/// # Ok(()) }
/// ```
pub fn database_tools(spec: Arc<SchemaSpec>, db: Database) -> Vec<Arc<dyn Tool>> {
    let shared = Arc::new(Shared::new(spec, db));
    let mut tools: Vec<Arc<dyn Tool>> = plan(&shared.spec)
        .into_iter()
        .map(|kind| kind.engine_tool(DatabaseSource::Bound(shared.clone())))
        .collect();
    tools.extend(
        (0..shared.spec.declared_tools.len())
            .filter_map(|index| {
                declared::DeclaredTool::new(DatabaseSource::Bound(shared.clone()), index)
            })
            .map(|tool| Arc::new(tool) as Arc<dyn Tool>),
    );
    tools
}

/// The same tools as [`database_tools`], answering from the [`Database`] in each call's
/// context (`ToolContext::extension::<Database>()`, set with
/// `RegistryBuilder::with_extension(db)`): the tools a generated module registers. A call
/// without a database in its context is refused with an `unavailable` error saying how to add
/// one.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["lookup"]}}))?;
/// let spec = std::sync::Arc::new(spec);
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// let mut builder = toolforge::ToolRegistry::standard()?.with_extension(db);
/// for tool in toolforge::sql::tools::context_database_tools(spec) {
///     builder.add(tool)?;
/// }
/// let registry = builder.build();
/// let call = registry.call("get_entity_by_id", serde_json::json!({"entity_type": "Book", "id_value": "1"}));
/// let error = tokio::runtime::Runtime::new()?.block_on(call).unwrap_err();
/// assert_eq!(error.code, toolforge::ErrorCode::NotFound);
/// # Ok(()) }
/// ```
pub fn context_database_tools(spec: Arc<SchemaSpec>) -> Vec<Arc<dyn Tool>> {
    let mut tools: Vec<Arc<dyn Tool>> = plan(&spec)
        .into_iter()
        .map(|kind| kind.engine_tool(DatabaseSource::Context(spec.clone())))
        .collect();
    tools.extend(
        (0..spec.declared_tools.len())
            .filter_map(|index| {
                declared::DeclaredTool::new(DatabaseSource::Context(spec.clone()), index)
            })
            .map(|tool| Arc::new(tool) as Arc<dyn Tool>),
    );
    tools
}

/// The definitions of the tools [`database_tools`] builds, in the same order and identical,
/// computed from the spec alone (no database needed): for listing or exporting tools.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["schema", "query"]}}))?;
/// let definitions = toolforge::sql::tools::database_tool_definitions(&spec);
/// let names: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
/// assert_eq!(names, ["get_schema", "describe_entity", "query_entities", "glob_search"]);
/// # Ok(()) }
/// ```
pub fn database_tool_definitions(spec: &SchemaSpec) -> Vec<ToolDefinition> {
    let mut definitions: Vec<ToolDefinition> = plan(spec)
        .into_iter()
        .map(|tool| tool.definition(spec))
        .collect();
    definitions.extend(declared::definitions(spec));
    definitions
}

/// Adds the database tools ([`database_tools`]) to a registry builder; a name clash with a
/// tool already registered is an error.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["schema"]}}))?;
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// let builder = toolforge::ToolRegistry::standard()?;
/// let registry = toolforge::sql::tools::register_database_tools(builder, std::sync::Arc::new(spec), db)?
///     .build();
/// assert_eq!(registry.names().collect::<Vec<_>>(), ["batch", "get_schema", "describe_entity"]);
/// # Ok(()) }
/// ```
pub fn register_database_tools(
    mut builder: RegistryBuilder,
    spec: Arc<SchemaSpec>,
    db: Database,
) -> Result<RegistryBuilder, RegistryError> {
    declared_sql::check_statements(&spec, &db)?;
    for tool in database_tools(spec, db) {
        builder.add(tool)?;
    }
    Ok(builder)
}

/// One database tool of the engine, for code that needs one tool without the others: its
/// name, its definition and its call, the same as the tool [`database_tools`] builds.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
/// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
/// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100,
/// #   "families": ["lookup"]}}))?;
/// use toolforge::sql::tools::{DatabaseTool, database_tool_definitions};
/// let definition = DatabaseTool::GetEntityById.definition(&spec);
/// assert_eq!(definition, database_tool_definitions(&spec)[0]);
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(&spec)?;
/// let call = DatabaseTool::GetEntityById.call(
///     std::sync::Arc::new(spec),
///     db,
///     serde_json::json!({"entity_type": "Book", "id_value": "978-0"}),
/// );
/// let error = tokio::runtime::Runtime::new()?.block_on(call).unwrap_err();
/// assert_eq!(error.code, toolforge::ErrorCode::NotFound);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DatabaseTool {
    /// `get_schema` ([`GetSchemaArgs`]).
    GetSchema,
    /// `describe_entity` ([`DescribeEntityArgs`]).
    DescribeEntity,
    /// `query_entities` ([`QueryEntitiesArgs`]).
    QueryEntities,
    /// `glob_search` ([`GlobSearchArgs`]).
    GlobSearch,
    /// `get_entity_by_id` ([`GetEntityByIdArgs`]).
    GetEntityById,
    /// `get_entities_by_ids` ([`GetEntitiesByIdsArgs`]).
    GetEntitiesByIds,
    /// `explore_relationships` ([`ExploreRelationshipsArgs`]).
    ExploreRelationships,
    /// `semantic_search` ([`SemanticSearchArgs`]).
    SemanticSearch,
    /// `full_text_search` ([`FullTextSearchArgs`]).
    FullTextSearch,
    /// `hybrid_search` ([`HybridSearchArgs`]).
    HybridSearch,
    /// `query_entities_by_date_range` ([`QueryEntitiesByDateRangeArgs`]).
    QueryEntitiesByDateRange,
    /// `query_entities_by_number_range` ([`QueryEntitiesByNumberRangeArgs`]).
    QueryEntitiesByNumberRange,
    /// `query_entities_by_pattern` ([`QueryEntitiesByPatternArgs`]).
    QueryEntitiesByPattern,
    /// `aggregate_entities` ([`AggregateEntitiesArgs`]).
    AggregateEntities,
    /// `find_path` ([`FindPathArgs`]).
    FindPath,
    /// `rank_entities` ([`RankEntitiesArgs`]).
    RankEntities,
    /// `get_entity_change_history` ([`GetEntityChangeHistoryArgs`]).
    GetEntityChangeHistory,
    /// `find_recently_modified_entities` ([`FindRecentlyModifiedEntitiesArgs`]).
    FindRecentlyModifiedEntities,
    /// `get_most_modified_entities` ([`GetMostModifiedEntitiesArgs`]).
    GetMostModifiedEntities,
    /// `get_change_statistics` ([`GetChangeStatisticsArgs`]).
    GetChangeStatistics,
    /// `compare_entity_versions` ([`CompareEntityVersionsArgs`]).
    CompareEntityVersions,
}

/// Calls `$apply::<ArgsType>` for the tool `$kind`: the one place that maps each tool to its
/// argument struct.
macro_rules! with_args {
    ($kind:expr, $apply:ident $(, $arg:expr)*) => {
        match $kind {
            DatabaseTool::GetSchema => $apply::<GetSchemaArgs>($($arg),*),
            DatabaseTool::DescribeEntity => $apply::<DescribeEntityArgs>($($arg),*),
            DatabaseTool::QueryEntities => $apply::<QueryEntitiesArgs>($($arg),*),
            DatabaseTool::GlobSearch => $apply::<GlobSearchArgs>($($arg),*),
            DatabaseTool::GetEntityById => $apply::<GetEntityByIdArgs>($($arg),*),
            DatabaseTool::GetEntitiesByIds => $apply::<GetEntitiesByIdsArgs>($($arg),*),
            DatabaseTool::ExploreRelationships => $apply::<ExploreRelationshipsArgs>($($arg),*),
            DatabaseTool::SemanticSearch => $apply::<SemanticSearchArgs>($($arg),*),
            DatabaseTool::FullTextSearch => $apply::<FullTextSearchArgs>($($arg),*),
            DatabaseTool::HybridSearch => $apply::<HybridSearchArgs>($($arg),*),
            DatabaseTool::QueryEntitiesByDateRange => $apply::<QueryEntitiesByDateRangeArgs>($($arg),*),
            DatabaseTool::QueryEntitiesByNumberRange => $apply::<QueryEntitiesByNumberRangeArgs>($($arg),*),
            DatabaseTool::QueryEntitiesByPattern => $apply::<QueryEntitiesByPatternArgs>($($arg),*),
            DatabaseTool::AggregateEntities => $apply::<AggregateEntitiesArgs>($($arg),*),
            DatabaseTool::FindPath => $apply::<FindPathArgs>($($arg),*),
            DatabaseTool::RankEntities => $apply::<RankEntitiesArgs>($($arg),*),
            DatabaseTool::GetEntityChangeHistory => $apply::<GetEntityChangeHistoryArgs>($($arg),*),
            DatabaseTool::FindRecentlyModifiedEntities => $apply::<FindRecentlyModifiedEntitiesArgs>($($arg),*),
            DatabaseTool::GetMostModifiedEntities => $apply::<GetMostModifiedEntitiesArgs>($($arg),*),
            DatabaseTool::GetChangeStatistics => $apply::<GetChangeStatisticsArgs>($($arg),*),
            DatabaseTool::CompareEntityVersions => $apply::<CompareEntityVersionsArgs>($($arg),*),
        }
    };
}

impl DatabaseTool {
    /// Every database tool, in registration order.
    pub const ALL: [DatabaseTool; 21] = [
        DatabaseTool::GetSchema,
        DatabaseTool::DescribeEntity,
        DatabaseTool::QueryEntities,
        DatabaseTool::GlobSearch,
        DatabaseTool::GetEntityById,
        DatabaseTool::GetEntitiesByIds,
        DatabaseTool::ExploreRelationships,
        DatabaseTool::SemanticSearch,
        DatabaseTool::FullTextSearch,
        DatabaseTool::HybridSearch,
        DatabaseTool::QueryEntitiesByDateRange,
        DatabaseTool::QueryEntitiesByNumberRange,
        DatabaseTool::QueryEntitiesByPattern,
        DatabaseTool::AggregateEntities,
        DatabaseTool::FindPath,
        DatabaseTool::RankEntities,
        DatabaseTool::GetEntityChangeHistory,
        DatabaseTool::FindRecentlyModifiedEntities,
        DatabaseTool::GetMostModifiedEntities,
        DatabaseTool::GetChangeStatistics,
        DatabaseTool::CompareEntityVersions,
    ];

    /// The tool's name without the spec's prefix (`query_entities`).
    pub fn name(self) -> &'static str {
        match self {
            DatabaseTool::GetSchema => "get_schema",
            DatabaseTool::DescribeEntity => "describe_entity",
            DatabaseTool::QueryEntities => "query_entities",
            DatabaseTool::GlobSearch => "glob_search",
            DatabaseTool::GetEntityById => "get_entity_by_id",
            DatabaseTool::GetEntitiesByIds => "get_entities_by_ids",
            DatabaseTool::ExploreRelationships => "explore_relationships",
            DatabaseTool::SemanticSearch => "semantic_search",
            DatabaseTool::FullTextSearch => "full_text_search",
            DatabaseTool::HybridSearch => "hybrid_search",
            DatabaseTool::QueryEntitiesByDateRange => "query_entities_by_date_range",
            DatabaseTool::QueryEntitiesByNumberRange => "query_entities_by_number_range",
            DatabaseTool::QueryEntitiesByPattern => "query_entities_by_pattern",
            DatabaseTool::AggregateEntities => "aggregate_entities",
            DatabaseTool::FindPath => "find_path",
            DatabaseTool::RankEntities => "rank_entities",
            DatabaseTool::GetEntityChangeHistory => "get_entity_change_history",
            DatabaseTool::FindRecentlyModifiedEntities => "find_recently_modified_entities",
            DatabaseTool::GetMostModifiedEntities => "get_most_modified_entities",
            DatabaseTool::GetChangeStatistics => "get_change_statistics",
            DatabaseTool::CompareEntityVersions => "compare_entity_versions",
        }
    }

    /// The tool's definition for `spec` (identical to the one [`database_tools`] registers).
    pub fn definition(self, spec: &SchemaSpec) -> ToolDefinition {
        fn definition_of<A: EngineTool>(spec: &SchemaSpec) -> ToolDefinition {
            A::definition(spec)
        }
        with_args!(self, definition_of, spec)
    }

    /// Runs the tool on `arguments` over `spec` and `db`: the same answer, or the same error,
    /// as a call of the tool [`database_tools`] builds (without context values: row rules
    /// then show nothing of their entities).
    pub fn call(
        self,
        spec: Arc<SchemaSpec>,
        db: Database,
        arguments: Value,
    ) -> ToolFuture<'static> {
        self.call_with(spec, db, arguments, &crate::ContextValues::new())
    }

    /// [`DatabaseTool::call`] with the call's context values (what row rules read).
    pub fn call_with(
        self,
        spec: Arc<SchemaSpec>,
        db: Database,
        arguments: Value,
        values: &crate::ContextValues,
    ) -> ToolFuture<'static> {
        let shared = Arc::new(Shared::new(spec, db));
        with_args!(self, run_json, &shared, arguments, values)
    }

    /// The engine's tool of this kind.
    fn engine_tool(self, source: DatabaseSource) -> Arc<dyn Tool> {
        fn engine<A: EngineTool>(source: DatabaseSource) -> Arc<dyn Tool> {
            Arc::new(Engine::<A>::new(source))
        }
        with_args!(self, engine, source)
    }
}

pub(crate) use common::HandlerError;
use common::run_json;
pub(crate) use common::stopped_error;

/// The tools `spec.tools.families` asks for, in a stable order.
fn plan(spec: &SchemaSpec) -> Vec<DatabaseTool> {
    spec.database_tool_names()
        .into_iter()
        .filter_map(|name| {
            DatabaseTool::ALL
                .into_iter()
                .find(|kind| kind.name() == name)
        })
        .collect()
}
