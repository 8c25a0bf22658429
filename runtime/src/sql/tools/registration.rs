//! The database tools of a spec as registered tools: which ones a spec builds, each bound to
//! its database (its own, or each call's), and the dispatch from a [`DatabaseTool`] to its
//! argument struct.

use std::marker::PhantomData;
use std::sync::Arc;

use serde_json::Value;

use crate::spec::SchemaSpec;
use crate::sql::Database;
use crate::sql::arg_name::NamedType;
use crate::sql::tools::declared;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::kind::DatabaseTool;
use crate::sql::tools::shared::common::{self, run_json};
use crate::sql::tools::shared::source::{DatabaseSource, Shared};
use crate::{RegistryBuilder, RegistryError, Tool, ToolContext, ToolDefinition, ToolFuture};

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
/// in a stable order: `get_schema`, `describe_entity`, `query_entities`, `get_entity_by_id`,
/// `get_entities_by_ids`, `explore_relationships` (only when the spec has relationships),
/// `full_text_search` (only when an entity has a full-text index), ...; then
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
/// assert_eq!(names, ["get_schema", "describe_entity", "query_entities",
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
                declared::tool::DeclaredTool::new(DatabaseSource::Bound(shared.clone()), index)
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
                declared::tool::DeclaredTool::new(DatabaseSource::Context(spec.clone()), index)
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
/// assert_eq!(names, ["get_schema", "describe_entity", "query_entities"]);
/// # Ok(()) }
/// ```
pub fn database_tool_definitions(spec: &SchemaSpec) -> Vec<ToolDefinition> {
    let mut definitions: Vec<ToolDefinition> = plan(spec)
        .into_iter()
        .map(|tool| tool.definition(spec))
        .collect();
    definitions.extend(declared::tool::definitions(spec));
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
    declared::sql_statement::check_statements(&spec, &db)?;
    for tool in database_tools(spec, db) {
        builder.add(tool)?;
    }
    Ok(builder)
}

impl DatabaseTool {
    /// The tool's definition for `spec` (identical to the one [`database_tools`] registers).
    pub fn definition(self, spec: &SchemaSpec) -> ToolDefinition {
        self.with_args(Definition(spec))
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
        self.with_args(Call {
            shared,
            arguments,
            values,
        })
    }

    /// The runtime's types the tool's arguments name: its argument struct first, then every
    /// type inside it (`Condition`, `TraversalDirection`...), each once, with the name
    /// parameters it takes. What a generated `tool_args` module re-exports (all of them are
    /// under `toolforge::sql::tools`).
    ///
    /// ```
    /// use toolforge::sql::tools::DatabaseTool;
    /// let names: Vec<&str> = DatabaseTool::FindSimilar.argument_types().iter().map(|t| t.name).collect();
    /// assert_eq!(names[0], "FindSimilarArgs");
    /// assert!(names.contains(&"SimilarityKind") && names.contains(&"Condition"));
    /// ```
    pub fn argument_types(self) -> Vec<NamedType> {
        self.with_args(ArgumentTypes)
    }

    /// The engine's tool of this kind.
    fn engine_tool(self, source: DatabaseSource) -> Arc<dyn Tool> {
        self.with_args(source)
    }
}

/// Something done with a tool's argument struct: how a [`DatabaseTool`] reaches its type.
trait WithArgs {
    /// What it gives.
    type Output;

    /// Does it with the argument struct `A`.
    fn apply<A: EngineTool>(self) -> Self::Output;
}

/// The map from each tool to its argument struct, from the one table of tools.
macro_rules! with_args {
    ($($variant:ident: $name:literal, $family:ident, $($module:ident)::+, $args:ident<$($param:ident),+>, $needs:ident;)*) => {
        impl DatabaseTool {
            /// Applies `action` to the tool's argument struct.
            fn with_args<W: WithArgs>(self, action: W) -> W::Output {
                match self {
                    $(DatabaseTool::$variant => action.apply::<crate::sql::tools::$args>(),)*
                }
            }
        }
    };
}
crate::__database_tool_table!(with_args);

/// The tool's definition for a spec.
struct Definition<'s>(&'s SchemaSpec);

impl WithArgs for Definition<'_> {
    type Output = ToolDefinition;

    fn apply<A: EngineTool>(self) -> ToolDefinition {
        A::definition(self.0)
    }
}

/// A call of the tool with JSON arguments.
struct Call<'v> {
    shared: Arc<Shared>,
    arguments: Value,
    values: &'v crate::ContextValues,
}

impl WithArgs for Call<'_> {
    type Output = ToolFuture<'static>;

    fn apply<A: EngineTool>(self) -> ToolFuture<'static> {
        run_json::<A>(&self.shared, self.arguments, self.values)
    }
}

/// The argument types a tool's arguments name.
struct ArgumentTypes;

impl WithArgs for ArgumentTypes {
    type Output = Vec<NamedType>;

    fn apply<A: EngineTool>(self) -> Vec<NamedType> {
        let mut out = Vec::new();
        A::named_types(&mut out);
        out
    }
}

/// The engine's registered tool, answering from its database source.
impl WithArgs for DatabaseSource {
    type Output = Arc<dyn Tool>;

    fn apply<A: EngineTool>(self) -> Arc<dyn Tool> {
        Arc::new(Engine::<A>::new(self))
    }
}

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
