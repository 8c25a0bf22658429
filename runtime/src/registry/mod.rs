//! [`ToolRegistry`]: the set of tools an agent can call, and the one place calls go through.
//!
//! Construction is two-phase so that the built-in `batch` tool can hold a [`Weak`] reference
//! to the registry without a reference cycle: a [`RegistryBuilder`] collects tools, then
//! [`RegistryBuilder::build`] freezes them into an `Arc<ToolRegistry>`.

pub(crate) mod guard;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::arguments::ArgumentValidator;
use crate::builtin::InvalidTool;
use crate::dialect::{self, Dialect};
use crate::limits::{json_len, too_large};
use crate::{CallBudget, CallLimits, Tool, ToolContext, ToolDefinition, ToolError, ToolResult};

use crate::arguments::SchemaError;
pub use toolforge_names::{InvalidToolName, MAX_TOOL_NAME_LEN, validate_tool_name};

/// Why a tool could not be registered.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// The name does not match `^[A-Za-z0-9_-]{1,64}$`.
    #[error("cannot register tool `{name}`")]
    InvalidName {
        /// The refused name.
        name: String,
        /// What is wrong and how to fix it.
        #[source]
        source: InvalidToolName,
    },
    /// A tool with this name is already registered (it is never overwritten).
    #[error(
        "cannot register tool `{name}`: a tool with this name is already registered (tool \
         #{existing_position} in registration order); rename one of them"
    )]
    DuplicateName {
        /// The name registered twice.
        name: String,
        /// Zero-based position of the tool that holds the name.
        existing_position: usize,
    },
    /// The input schema cannot be compiled or does not describe an object.
    #[error("cannot register tool `{name}`")]
    InvalidSchema {
        /// The tool whose schema was refused.
        name: String,
        /// What is wrong with the schema.
        #[source]
        source: SchemaError,
    },
    /// A tool could not be set up, for example a declared tool whose statement does not
    /// prepare on the database the registry opens.
    #[error("cannot register tool `{name}`: {message}")]
    ToolCheck {
        /// The tool refused.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// Limits were set for a tool that is not registered (register it first).
    #[error(
        "cannot set limits for `{name}`: no tool with this name is registered (yet); \
         register it before setting its limits"
    )]
    NotRegistered {
        /// The name given.
        name: String,
    },
}

struct Entry {
    tool: Arc<dyn Tool>,
    validator: Arc<ArgumentValidator>,
}

/// A tool that calls back into the registry it belongs to, as the built-in `batch` does: the
/// registry binds it when built, and makes a fresh one with the same settings for each
/// registry derived from it ([`ToolRegistry::subset`], [`ToolRegistry::to_builder`]).
pub(crate) trait RegistryBound: Tool {
    /// Binds the tool to its registry, whose tools have `reachable` as definitions (once;
    /// later binds are ignored).
    fn bind(
        &self,
        registry: Weak<ToolRegistry>,
        reachable: &mut dyn Iterator<Item = &ToolDefinition>,
    );

    /// A tool with the same settings, not yet bound to a registry.
    fn unbound(&self) -> Arc<dyn RegistryBound>;
}

/// Collects tools and settings; [`RegistryBuilder::build`] makes the [`ToolRegistry`].
///
/// Get one from [`ToolRegistry::builder`] (empty) or [`ToolRegistry::standard`] (with the
/// built-in `batch` tool).
#[derive(Default)]
pub struct RegistryBuilder {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    context: ToolContext,
    limits: CallLimits,
    tool_limits: HashMap<String, CallLimits>,
    batch: Option<Arc<dyn RegistryBound>>,
    read_only: bool,
}

impl fmt::Debug for RegistryBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegistryBuilder")
            .field("tools", &self.entries.len())
            .field("limits", &self.limits)
            .field("tool_limits", &self.tool_limits)
            .field("read_only", &self.read_only)
            .finish_non_exhaustive()
    }
}

impl RegistryBuilder {
    /// Adds a tool, checking its name and compiling its input schema.
    ///
    /// A duplicate name is an error (the first tool stays); so is a name outside
    /// `^[A-Za-z0-9_-]{1,64}$` or an input schema that does not compile.
    pub fn register(mut self, tool: impl Tool) -> Result<Self, RegistryError> {
        self.add(Arc::new(tool))?;
        Ok(self)
    }

    /// Adds an already shared tool (same checks as [`RegistryBuilder::register`]).
    pub fn register_arc(mut self, tool: Arc<dyn Tool>) -> Result<Self, RegistryError> {
        self.add(tool)?;
        Ok(self)
    }

    /// Adds a tool in place, for loops (same checks as [`RegistryBuilder::register`]).
    pub fn add(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let name = tool.definition().name.clone();
        validate_tool_name(&name).map_err(|source| RegistryError::InvalidName {
            name: name.clone(),
            source,
        })?;
        if let Some(&existing_position) = self.index.get(&name) {
            return Err(RegistryError::DuplicateName {
                name,
                existing_position,
            });
        }
        let validator =
            ArgumentValidator::compile(&tool.definition().input_schema).map_err(|error| {
                RegistryError::InvalidSchema {
                    name: name.clone(),
                    source: error,
                }
            })?;
        self.index.insert(name, self.entries.len());
        self.entries.push(Entry {
            tool,
            validator: Arc::new(validator),
        });
        Ok(())
    }

    /// Adds a tool already checked by another registry.
    fn push(&mut self, tool: Arc<dyn Tool>, validator: Arc<ArgumentValidator>) {
        self.index
            .insert(tool.definition().name.clone(), self.entries.len());
        self.entries.push(Entry { tool, validator });
    }

    /// Adds the tool bound to the registry when it is built (the built-in `batch`), with the
    /// checks of [`RegistryBuilder::register`].
    pub(crate) fn add_bound(&mut self, tool: Arc<dyn RegistryBound>) -> Result<(), RegistryError> {
        self.add(tool.clone())?;
        self.batch = Some(tool);
        Ok(())
    }

    /// The shared state handed to every call (replaces any previous context).
    pub fn with_context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// Adds context values to the shared context (see [`ToolContext::with_values`]): what
    /// row rules read as `:context.NAME`.
    pub fn with_context_values(mut self, values: &crate::ContextValues) -> Self {
        self.context = self.context.clone().with_values(values);
        self
    }

    /// Adds one typed extension to the shared context (see [`ToolContext::with_extension`]).
    pub fn with_extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.context = self.context.with_extension(value);
        self
    }

    /// The deadline of every call (default [`crate::limits::DEFAULT_TIMEOUT`], 30 s); an
    /// overrun becomes [`crate::ErrorCode::Timeout`]. Needs a Tokio runtime with timers when
    /// calls run. Tools with their own limits ([`RegistryBuilder::with_tool_limits`]) keep
    /// them.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.limits.timeout = Some(timeout);
        self
    }

    /// No deadline for calls (tools with their own limits keep them).
    pub fn without_timeout(mut self) -> Self {
        self.limits.timeout = None;
        self
    }

    /// The limits of every call: deadline, answer size and rows (default
    /// [`CallLimits::default`]: 30 s, 1 MiB, no row cap beyond the tools' own). Tools with
    /// their own limits ([`RegistryBuilder::with_tool_limits`]) keep them.
    pub fn with_limits(mut self, limits: CallLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The cap on every answer, in bytes of compact JSON (default 1 MiB).
    pub fn with_max_answer_bytes(mut self, max_answer_bytes: usize) -> Self {
        self.limits.max_answer_bytes = Some(max_answer_bytes);
        self
    }

    /// The most records a list tool returns per call, whatever the call's `limit`.
    pub fn with_max_rows(mut self, max_rows: u32) -> Self {
        self.limits.max_rows = Some(max_rows);
        self
    }

    /// The limits of the calls of one registered tool, instead of the registry's. Calls of
    /// it inside a `batch` also keep within the batch's own limits.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use toolforge::{CallLimits, ToolRegistry};
    /// let registry = ToolRegistry::standard()?
    ///     .with_tool_limits("batch", CallLimits::default().timeout(Some(Duration::from_secs(60))))?
    ///     .build();
    /// assert_eq!(registry.limits_for("batch").timeout, Some(Duration::from_secs(60)));
    /// assert!(ToolRegistry::standard()?.with_tool_limits("nope", CallLimits::default()).is_err());
    /// # Ok(()) }
    /// ```
    pub fn with_tool_limits(
        mut self,
        name: &str,
        limits: CallLimits,
    ) -> Result<Self, RegistryError> {
        if !self.index.contains_key(name) {
            return Err(RegistryError::NotRegistered { name: name.into() });
        }
        self.tool_limits.insert(name.to_owned(), limits);
        Ok(self)
    }

    /// The read-only profile: the registry built keeps only the tools whose annotations say
    /// they do not modify their environment ([`ToolDefinition::is_read_only`]), and `batch`,
    /// which then reaches only those. A dropped tool is not listed, not callable by name, not
    /// reachable inside `batch`, and never suggested for an unknown name. The profile stays
    /// with the registry: tools added later through [`ToolRegistry::to_builder`] are filtered
    /// too.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolforge::ToolRegistry;
    /// let registry = ToolRegistry::standard()?.read_only().build();
    /// assert!(registry.is_read_only());
    /// assert_eq!(registry.names().collect::<Vec<_>>(), ["batch"]);
    /// # Ok(()) }
    /// ```
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// Drops the tools the read-only profile does not allow (every tool but `batch` that is
    /// not annotated read-only), with their limits.
    fn keep_read_only(&mut self) {
        let batch_name = self
            .batch
            .as_ref()
            .map(|batch| batch.definition().name.clone());
        let entries = std::mem::take(&mut self.entries);
        self.index.clear();
        for entry in entries {
            let definition = entry.tool.definition();
            if Some(&definition.name) == batch_name.as_ref() || definition.is_read_only() {
                self.push(entry.tool, entry.validator);
            } else {
                self.tool_limits.remove(&definition.name);
            }
        }
    }

    /// Freezes the tools into a shared registry and binds the built-in tools to it.
    pub fn build(mut self) -> Arc<ToolRegistry> {
        if self.read_only {
            self.keep_read_only();
        }
        let RegistryBuilder {
            entries,
            index,
            context,
            limits,
            tool_limits,
            batch,
            read_only,
        } = self;
        let invalid = InvalidTool::new(
            entries
                .iter()
                .map(|entry| entry.tool.definition().name.clone()),
        );
        Arc::new_cyclic(|weak: &Weak<ToolRegistry>| {
            if let Some(batch) = &batch {
                batch.bind(
                    weak.clone(),
                    &mut entries.iter().map(|entry| entry.tool.definition()),
                );
            }
            ToolRegistry {
                entries,
                index,
                context,
                limits,
                tool_limits,
                invalid,
                batch,
                read_only,
            }
        })
    }
}

/// The tools an agent can call: registration order, O(1) lookup by name, validated and
/// isolated calls, and definitions for every provider.
///
/// ```
/// use serde_json::{json, Value};
/// use toolforge::{Tool, ToolContext, ToolDefinition, ToolFuture, ToolRegistry, ErrorCode};
///
/// struct Echo(ToolDefinition);
/// impl Tool for Echo {
///     fn definition(&self) -> &ToolDefinition { &self.0 }
///     fn call<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
///         Box::pin(async move { Ok(arguments["text"].clone()) })
///     }
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let echo = Echo(ToolDefinition {
///     name: "echo".into(),
///     title: None,
///     description: "Repeat a text.".into(),
///     input_schema: json!({
///         "type": "object",
///         "properties": {"text": {"type": "string"}},
///         "required": ["text"]
///     }),
///     output_schema: None,
///     annotations: Default::default(),
///     capabilities: vec![],
///     keywords: vec![],
/// });
/// let registry = ToolRegistry::standard()?.register(echo)?.build();
///
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// runtime.block_on(async {
///     assert_eq!(registry.call("echo", json!({"text": "hi"})).await.unwrap(), json!("hi"));
///
///     let error = registry.call("echo", json!({"text": 3})).await.unwrap_err();
///     assert_eq!(error.code, ErrorCode::InvalidArguments);
///
///     let error = registry.call("ecko", json!({})).await.unwrap_err();
///     assert_eq!(error.code, ErrorCode::UnknownTool);
///     assert_eq!(error.details.unwrap()["candidates"], json!(["echo"]));
///
///     let batch = registry
///         .call("batch", json!({"calls": [{"tool": "echo", "args": {"text": "a"}}]}))
///         .await
///         .unwrap();
///     assert_eq!(batch["results"][0]["result"], "a");
/// });
/// # Ok(()) }
/// ```
pub struct ToolRegistry {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    context: ToolContext,
    limits: CallLimits,
    tool_limits: HashMap<String, CallLimits>,
    invalid: InvalidTool,
    batch: Option<Arc<dyn RegistryBound>>,
    read_only: bool,
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl ToolRegistry {
    /// A registry of the tools `keep` accepts, in the same order, with the same context and
    /// limits. A `batch` tool, when this registry has one and `keep` accepts it, is rebuilt
    /// with the same settings so that it reaches only the tools kept (and its annotations say
    /// what those tools do).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolforge::ToolRegistry;
    /// let registry = ToolRegistry::standard()?.build();
    /// assert_eq!(registry.subset(|tool| tool.name != "batch").len(), 0);
    /// assert_eq!(registry.subset(|_| true).names().collect::<Vec<_>>(), ["batch"]);
    /// # Ok(()) }
    /// ```
    pub fn subset(&self, keep: impl Fn(&ToolDefinition) -> bool) -> Arc<ToolRegistry> {
        self.rebuild(keep).build()
    }

    /// A builder holding this registry's tools, context and limits, to register more tools
    /// (a `batch` tool is rebuilt and reaches the added tools too).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolforge::ToolRegistry;
    /// let registry = ToolRegistry::standard()?.build();
    /// let again = registry.to_builder().build();
    /// assert_eq!(again.names().collect::<Vec<_>>(), ["batch"]);
    /// # Ok(()) }
    /// ```
    pub fn to_builder(&self) -> RegistryBuilder {
        self.rebuild(|_| true)
    }

    /// This registry in the read-only profile (see [`RegistryBuilder::read_only`]): only its
    /// tools annotated read-only, and `batch` reaching only those.
    pub fn read_only(&self) -> Arc<ToolRegistry> {
        self.rebuild(|_| true).read_only().build()
    }

    /// Whether the registry was built in the read-only profile
    /// ([`RegistryBuilder::read_only`]).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    fn rebuild(&self, keep: impl Fn(&ToolDefinition) -> bool) -> RegistryBuilder {
        let mut builder = ToolRegistry::builder()
            .with_context(self.context.clone())
            .with_limits(self.limits);
        builder.read_only = self.read_only;
        for entry in &self.entries {
            let definition = entry.tool.definition();
            if !keep(definition) {
                continue;
            }
            let batch = self
                .batch
                .as_ref()
                .filter(|batch| batch.definition().name == definition.name);
            if let Some(batch) = batch {
                let batch = batch.unbound();
                builder.batch = Some(batch.clone());
                builder.push(batch, entry.validator.clone());
            } else {
                builder.push(entry.tool.clone(), entry.validator.clone());
            }
            if let Some(limits) = self.tool_limits.get(&definition.name) {
                builder.tool_limits.insert(definition.name.clone(), *limits);
            }
        }
        builder
    }

    /// An empty builder (no built-in tools).
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tool registered under exactly `name` (no fuzzy matching).
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.index
            .get(name)
            .map(|&position| &self.entries[position].tool)
    }

    /// Whether a tool is registered under exactly `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// The tools in registration order.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &Arc<dyn Tool>> {
        self.entries.iter().map(|entry| &entry.tool)
    }

    /// The tool names in registration order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entries
            .iter()
            .map(|entry| entry.tool.definition().name.as_str())
    }

    /// The definitions in registration order.
    pub fn definitions(&self) -> Vec<&ToolDefinition> {
        self.entries
            .iter()
            .map(|entry| entry.tool.definition())
            .collect()
    }

    /// The definitions in registration order, in the given provider's format
    /// (see [`crate::dialect`]).
    pub fn definitions_for(&self, dialect: Dialect) -> Vec<Value> {
        dialect::export_all(
            self.entries.iter().map(|entry| entry.tool.definition()),
            dialect,
        )
    }

    /// The shared context handed to every call.
    pub fn context(&self) -> &ToolContext {
        &self.context
    }

    /// The deadline of calls of tools without their own limits (default 30 s), if any.
    pub fn timeout(&self) -> Option<Duration> {
        self.limits.timeout
    }

    /// The limits of calls of tools without their own limits.
    pub fn limits(&self) -> CallLimits {
        self.limits
    }

    /// The limits of the calls of the tool named `name` (its own, or the registry's).
    pub fn limits_for(&self, name: &str) -> CallLimits {
        self.tool_limits.get(name).copied().unwrap_or(self.limits)
    }

    /// The answerer for unknown names, over this registry's names.
    pub fn invalid_tool(&self) -> &InvalidTool {
        &self.invalid
    }

    /// Calls the tool named exactly `name`.
    ///
    /// `arguments` may be the arguments object, `null` (same as `{}`), or a string holding a
    /// JSON object (as OpenAI sends them). They are validated against the input schema (a
    /// `null` sent for an optional, non-nullable property counts as absent, see
    /// [`ArgumentValidator::prepare`]), then
    /// the handler runs with panic isolation and the tool's [`CallLimits`]: a deadline
    /// (30 s by default) and a cap on the answer's size (1 MiB of compact JSON by default).
    /// Errors: [`crate::ErrorCode::UnknownTool`] (with the nearest names, nothing run),
    /// `InvalidArguments` (with every problem), `Panicked`, `Timeout`, `TooLarge`, or the
    /// tool's own.
    pub async fn call(&self, name: &str, arguments: Value) -> ToolResult {
        self.call_within(name, arguments, None, None).await
    }

    /// [`ToolRegistry::call`] with context values of this call on top of the registry's
    /// context (`values` win): what a host sets per call, such as a value read from a request
    /// header. The calls a `batch` makes get them too.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use toolforge::{ContextValues, ToolRegistry};
    /// let registry = ToolRegistry::standard().unwrap().build();
    /// let values = ContextValues::new().with("tenant", "acme");
    /// let error = registry
    ///     .call_with_values("bacth", serde_json::json!({}), &values)
    ///     .await
    ///     .unwrap_err();
    /// assert_eq!(error.code, toolforge::ErrorCode::UnknownTool);
    /// # });
    /// ```
    pub async fn call_with_values(
        &self,
        name: &str,
        arguments: Value,
        values: &crate::ContextValues,
    ) -> ToolResult {
        self.call_within(name, arguments, None, Some(values)).await
    }

    /// [`ToolRegistry::call_with_values`] for a caller that may run only what `gate` allows
    /// (the scopes of its access token): a tool it may not run, directly or through `batch`,
    /// fails with [`crate::ErrorCode::Forbidden`] without running.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use std::sync::Arc;
    /// use toolforge::{ContextValues, ErrorCode, ScopePolicy, ToolGate, ToolRegistry};
    /// let registry = ToolRegistry::standard().unwrap().build();
    /// let policy = Arc::new(ScopePolicy::new(["mcp"]));
    /// let gate = ToolGate::new(policy, Default::default());
    /// let error = registry
    ///     .call_for("batch", serde_json::json!({"calls": []}), &ContextValues::new(), Some(&gate))
    ///     .await
    ///     .unwrap_err();
    /// assert_eq!(error.code, ErrorCode::Forbidden);
    /// # });
    /// ```
    pub async fn call_for(
        &self,
        name: &str,
        arguments: Value,
        values: &crate::ContextValues,
        gate: Option<&crate::ToolGate>,
    ) -> ToolResult {
        let budget = CallBudget::new(name, self.limits_for(name))
            .with_values(Some(values))
            .with_gate(gate);
        self.call_budgeted(name, arguments, budget).await
    }

    /// [`ToolRegistry::call`] inside an enclosing call whose budget also applies.
    pub(crate) async fn call_within(
        &self,
        name: &str,
        arguments: Value,
        outer: Option<&CallBudget>,
        values: Option<&crate::ContextValues>,
    ) -> ToolResult {
        let budget = CallBudget::new(name, self.limits_for(name))
            .with_values(values)
            .within(outer);
        self.call_budgeted(name, arguments, budget).await
    }

    /// Runs one call under `budget`.
    async fn call_budgeted(&self, name: &str, arguments: Value, budget: CallBudget) -> ToolResult {
        let Some(&position) = self.index.get(name) else {
            return Err(self.invalid.error(name));
        };
        if let Some(gate) = budget.gate() {
            gate.check(name)?;
        }
        let entry = &self.entries[position];
        let arguments = normalize_arguments(arguments);
        refuse_context_bound(entry.tool.as_ref(), &arguments)?;
        let arguments = entry.validator.prepare(arguments)?;
        let own_context;
        let context = match budget.values() {
            Some(values) => {
                own_context = self.context.clone().with_values(values);
                &own_context
            }
            None => &self.context,
        };
        let answer = guard::run_guarded(entry.tool.as_ref(), arguments, context, &budget).await?;
        if let Some(max) = budget.limits().max_answer_bytes {
            let bytes = json_len(&answer);
            if bytes > max {
                return Err(too_large(name, bytes, max));
            }
        }
        Ok(answer)
    }
}

/// Refuses arguments that give a value the tool takes from the call's context values.
fn refuse_context_bound(tool: &dyn Tool, arguments: &Value) -> Result<(), ToolError> {
    let bound = tool.context_bound_arguments();
    let Some(given) = arguments
        .as_object()
        .and_then(|map| map.keys().find(|key| bound.contains(key)))
    else {
        return Ok(());
    };
    Err(crate::tool::context_bound_error(
        &tool.definition().name,
        given,
    ))
}

/// `null` becomes `{}`, a string holding a JSON object becomes that object.
fn normalize_arguments(arguments: Value) -> Value {
    match arguments {
        Value::Null => Value::Object(Map::new()),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ => Value::String(text),
        },
        other => other,
    }
}
