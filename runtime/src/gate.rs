//! Which tools a caller may run: the scopes each tool needs ([`ScopePolicy`]) and the scopes a
//! caller holds ([`ToolGate`]), checked by the registry on every call, the calls a `batch`
//! makes included.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::{ErrorCode, ToolError};

/// The scopes tools need: `required` by every call, and per tool the scopes of which a caller
/// must hold at least one.
///
/// ```
/// use toolforge::ScopePolicy;
/// let policy = ScopePolicy::new(["mcp"]).with_tool("aggregate_entities", ["tools:reports"]);
/// let granted = ["mcp".to_owned()].into_iter().collect();
/// assert!(policy.missing("get_schema", &granted).is_none());
/// assert_eq!(
///     policy.missing("aggregate_entities", &granted),
///     Some(vec!["mcp".to_owned(), "tools:reports".to_owned()])
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopePolicy {
    required: Vec<String>,
    tools: BTreeMap<String, Vec<String>>,
}

impl ScopePolicy {
    /// A policy requiring `required` of every call.
    pub fn new<S: Into<String>>(required: impl IntoIterator<Item = S>) -> ScopePolicy {
        ScopePolicy {
            required: required.into_iter().map(Into::into).collect(),
            tools: BTreeMap::new(),
        }
    }

    /// This policy with `tool` needing one of `scopes` (added to what it needed already).
    pub fn with_tool<S: Into<String>>(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> ScopePolicy {
        let entry = self.tools.entry(tool.into()).or_default();
        for scope in scopes {
            let scope = scope.into();
            if !entry.contains(&scope) {
                entry.push(scope);
            }
        }
        self
    }

    /// The scopes every call needs.
    pub fn required(&self) -> &[String] {
        &self.required
    }

    /// The scopes of which a call of `tool` needs one (empty: none beyond the required).
    pub fn alternatives(&self, tool: &str) -> &[String] {
        self.tools.get(tool).map_or(&[], Vec::as_slice)
    }

    /// Every scope the policy names, sorted.
    pub fn scopes(&self) -> BTreeSet<&str> {
        self.required
            .iter()
            .chain(self.tools.values().flatten())
            .map(String::as_str)
            .collect()
    }

    /// The scopes every call needs that `granted` lacks, if any.
    pub fn missing_required(&self, granted: &BTreeSet<String>) -> Option<Vec<String>> {
        let missing: Vec<String> = self
            .required
            .iter()
            .filter(|scope| !granted.contains(*scope))
            .cloned()
            .collect();
        (!missing.is_empty()).then_some(missing)
    }

    /// `None` when `granted` allows calling `tool`; otherwise the scopes a token needs to
    /// (the required ones, and the tool's first alternative when it holds none of them).
    pub fn missing(&self, tool: &str, granted: &BTreeSet<String>) -> Option<Vec<String>> {
        let alternatives = self.alternatives(tool);
        let has_required = self.missing_required(granted).is_none();
        let has_alternative =
            alternatives.is_empty() || alternatives.iter().any(|scope| granted.contains(scope));
        if has_required && has_alternative {
            return None;
        }
        let mut needed = self.required.clone();
        if !has_alternative {
            needed.push(alternatives[0].clone());
        }
        Some(needed)
    }
}

/// What one caller may run: the scopes its token grants, under a [`ScopePolicy`]. Given to
/// [`ToolRegistry::call_for`](crate::ToolRegistry::call_for), it is checked before the tool
/// runs, and again for each call a `batch` makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolGate {
    policy: Arc<ScopePolicy>,
    granted: Arc<BTreeSet<String>>,
}

impl ToolGate {
    /// A caller holding `granted` under `policy`.
    pub fn new(policy: Arc<ScopePolicy>, granted: BTreeSet<String>) -> ToolGate {
        ToolGate::shared(policy, Arc::new(granted))
    }

    /// A caller holding `granted` under `policy`, the scopes shared with whoever holds them.
    pub(crate) fn shared(policy: Arc<ScopePolicy>, granted: Arc<BTreeSet<String>>) -> ToolGate {
        ToolGate { policy, granted }
    }

    /// The scopes the caller holds.
    pub fn granted(&self) -> &BTreeSet<String> {
        &self.granted
    }

    /// Whether the caller may call `tool`.
    pub fn allows(&self, tool: &str) -> bool {
        self.policy.missing(tool, &self.granted).is_none()
    }

    /// `Ok` when the caller may call `tool`; otherwise an [`ErrorCode::Forbidden`] error naming
    /// the scopes it lacks.
    pub fn check(&self, tool: &str) -> Result<(), ToolError> {
        let Some(needed) = self.policy.missing(tool, &self.granted) else {
            return Ok(());
        };
        Err(ToolError::new(
            ErrorCode::Forbidden,
            format!(
                "`{tool}` needs the scope{} {} and the caller's access token does not grant it; \
                 ask for a token with {}",
                if needed.len() == 1 { "" } else { "s" },
                needed
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if needed.len() == 1 { "it" } else { "them" }
            ),
        )
        .with_details(serde_json::json!({"tool": tool, "scopes": needed})))
    }
}
