//! Anthropic Messages API `tools` entries.

use serde_json::{Value, json};

use super::normalize::{fit_description, normalize_object_root};
use crate::ToolDefinition;

/// `{name, description, input_schema}`; the schema keeps `$defs`/`$ref`, which Anthropic
/// accepts, with the shared root normalisation.
pub(super) fn export(definition: &ToolDefinition) -> Value {
    json!({
        "name": definition.name,
        "description": fit_description(&definition.description),
        "input_schema": normalize_object_root(&definition.input_schema),
    })
}
