//! The [`Tool`] trait every generated and custom tool implements, and the types a call uses.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a tool call returns: a JSON value, or a structured [`ToolError`].
pub type ToolResult = Result<Value, ToolError>;

/// The boxed future a [`Tool::call`] returns (the trait stays object-safe).
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>;

/// A tool an LLM agent can call.
///
/// The trait is object-safe: a [`crate::ToolRegistry`] holds `Arc<dyn Tool>`. Most users never
/// implement it by hand: `#[derive(Tool)]` and the generator write the implementations.
pub trait Tool: Send + Sync + 'static {
    /// The tool's name, description, schemas, annotations and search metadata.
    fn definition(&self) -> &ToolDefinition;

    /// Runs the tool. `arguments` has already been validated against the input schema when the
    /// call comes through a registry.
    fn call<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a>;

    /// The arguments this tool takes from the call's [`ContextValues`] (set by the host),
    /// never from the caller: they are absent from the input schema, and a registry refuses a
    /// call that gives one with an error naming it, before the schema check. Empty by default.
    fn context_bound_arguments(&self) -> &[String] {
        &[]
    }
}

/// Everything a consumer needs to know about a tool, independent of any provider's format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// Unique name, matching `^[A-Za-z0-9_-]{1,64}$`.
    pub name: String,
    /// Optional human-readable title (MCP `title`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, written for the model.
    pub description: String,
    /// JSON Schema (draft 2020-12) of the arguments object.
    pub input_schema: Value,
    /// JSON Schema of the result, when the tool's output is typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints (MCP annotations).
    #[serde(default)]
    pub annotations: ToolAnnotations,
    /// Capability tags, used by tool search.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// Keywords, used by tool search.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

impl ToolDefinition {
    /// Whether the annotations say the tool does not modify its environment
    /// (`readOnlyHint: true`). A tool that says nothing may write: it is not read-only. This
    /// is what the read-only profile keeps ([`crate::RegistryBuilder::read_only`]).
    pub fn is_read_only(&self) -> bool {
        self.annotations.read_only == Some(true)
    }
}

/// Behaviour hints a client may show or act on (the MCP tool annotations).
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling the tool twice with the same arguments has no additional effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// A machine-readable error category the model (and the caller) can branch on.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The arguments do not match the input schema or name something that does not exist.
    InvalidArguments,
    /// No tool has the requested name.
    UnknownTool,
    /// The tool ran and failed.
    ExecutionFailed,
    /// The call took longer than its deadline (see [`crate::CallLimits::timeout`]).
    Timeout,
    /// The answer was larger than its cap (see [`crate::CallLimits::max_answer_bytes`]).
    TooLarge,
    /// The requested record does not exist.
    NotFound,
    /// The tool panicked; the panic was contained.
    Panicked,
    /// The registry the call needed is gone, or the call was refused by policy.
    Unavailable,
    /// The caller may not run this tool: its access token lacks the scope the tool needs.
    Forbidden,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub(crate) const ALL: [ErrorCode; 9] = [
        ErrorCode::InvalidArguments,
        ErrorCode::UnknownTool,
        ErrorCode::ExecutionFailed,
        ErrorCode::Timeout,
        ErrorCode::TooLarge,
        ErrorCode::NotFound,
        ErrorCode::Panicked,
        ErrorCode::Unavailable,
        ErrorCode::Forbidden,
    ];

    /// The code as it appears in JSON (`invalid_arguments`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::ExecutionFailed => "execution_failed",
            ErrorCode::Timeout => "timeout",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Panicked => "panicked",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::Forbidden => "forbidden",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a call that gives `argument`, which `tool` takes from the call's context.
pub(crate) fn context_bound_error(tool: &str, argument: &str) -> ToolError {
    ToolError::invalid_arguments(format!(
        "`{argument}` is set by the host for {tool}, not by the caller: leave it out"
    ))
    .with_details(serde_json::json!({"path": argument, "context_bound": true}))
}

/// A structured tool failure: a code, a message written for the model, and optional details.
///
/// ```
/// use toolforge::{ErrorCode, ToolError};
/// let error = ToolError::invalid_arguments("`limit` must be at most 100")
///     .with_details(serde_json::json!({"path": "/limit", "maximum": 100}));
/// assert_eq!(error.code, ErrorCode::InvalidArguments);
/// assert_eq!(error.to_json()["error"], "invalid_arguments");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    /// The category of the failure.
    pub code: ErrorCode,
    /// What went wrong and, where possible, how to fix the call.
    pub message: String,
    /// Machine-readable details (JSON paths, allowed values, candidates...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ToolError {
    /// An error with the given code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// An [`ErrorCode::InvalidArguments`] error.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArguments, message)
    }

    /// An [`ErrorCode::ExecutionFailed`] error.
    pub fn execution_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ExecutionFailed, message)
    }

    /// An [`ErrorCode::NotFound`] error.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// Attaches machine-readable details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// The error as the JSON object a model sees: `{"error": code, "message": ..., "details": ...}`.
    ///
    /// An unknown tool is answered in the flat shape every caller (a direct call, a `batch` item,
    /// the CLI) shares: `{"error": "unknown_tool", "requested": ..., "candidates": [...],
    /// "message": ...}`.
    pub fn to_json(&self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("error".into(), Value::String(self.code.as_str().into()));
        match (&self.details, self.code) {
            (Some(Value::Object(details)), ErrorCode::UnknownTool) => {
                object.extend(
                    details
                        .iter()
                        .map(|(key, value)| (key.clone(), value.clone())),
                );
            }
            (Some(details), _) => {
                object.insert("details".into(), details.clone());
            }
            (None, _) => {}
        }
        object.insert("message".into(), Value::String(self.message.clone()));
        Value::Object(object)
    }
}

/// Shared state handed to every tool call: typed extensions such as a database handle.
///
/// ```
/// use toolforge::ToolContext;
/// struct Greeting(&'static str);
/// let context = ToolContext::new().with_extension(Greeting("hello"));
/// assert_eq!(context.extension::<Greeting>().unwrap().0, "hello");
/// ```
#[derive(Clone, Default)]
pub struct ToolContext {
    extensions: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    values: ContextValues,
}

/// Named text values the host sets for a call (a tenant, a branch, a user id): what row rules
/// (`toolforge.access`, `:context.NAME`) read. The model never sets them. Cheap to clone.
///
/// ```
/// use toolforge::ContextValues;
/// let values = ContextValues::new().with("branch", "north");
/// assert_eq!(values.get("branch"), Some("north"));
/// assert_eq!(values.get("tenant"), None);
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ContextValues(Arc<std::collections::BTreeMap<String, String>>);

impl ContextValues {
    /// No values.
    pub fn new() -> Self {
        Self::default()
    }

    /// The values with `name` set to `value` (replacing a previous value).
    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.0).insert(name.into(), value.into());
        self
    }

    /// The value named `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every value, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// Whether no value is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `self` with every value of `other` added (those of `other` win).
    pub fn merged(&self, other: &ContextValues) -> ContextValues {
        let mut merged = self.clone();
        for (name, value) in other.iter() {
            merged = merged.with(name, value);
        }
        merged
    }
}

impl fmt::Debug for ContextValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names only: values may identify a person.
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl ToolContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the context with `value` added (replacing a previous value of the same type).
    pub fn with_extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        Arc::make_mut(&mut self.extensions).insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// The extension of type `T`, if one was added.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }

    /// Returns the context with the context value `name` set to `value` (see
    /// [`ContextValues`]): what row rules read as `:context.NAME`.
    ///
    /// ```
    /// use toolforge::ToolContext;
    /// let context = ToolContext::new().with_value("tenant", "acme");
    /// assert_eq!(context.values().get("tenant"), Some("acme"));
    /// ```
    pub fn with_value(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.values = self.values.with(name, value);
        self
    }

    /// Returns the context with `values` added to its context values (`values` win).
    pub fn with_values(mut self, values: &ContextValues) -> Self {
        self.values = self.values.merged(values);
        self
    }

    /// The context values.
    pub fn values(&self) -> &ContextValues {
        &self.values
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("extensions", &self.extensions.len())
            .field("values", &self.values)
            .finish()
    }
}
