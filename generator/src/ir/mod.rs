//! Lowering a validated config into the storage specification ([`SchemaSpec`]): tables,
//! columns, edge tables, vector columns, hierarchies, tool options and compiled computed
//! fields.
//!
//! Lowering is total: parts the validator rejected (unknown types, unknown targets, ...) are
//! left out rather than guessed, so it never panics on a config with errors.

mod access;
mod computed;
mod declared;
pub(crate) use declared::check_sqlite_statements;
pub(crate) mod declared_sql;
mod embeddings;
mod entities;
pub(crate) mod offers;
mod relationships;

use toolforge::spec::SchemaSpec;

use crate::config::Config;
use crate::report::Reporter;

pub use crate::naming::{edge_table_name, mapped_view_name, table_name};

/// The serving settings: `mcp:` and `toolforge.toolsets`.
fn mcp_spec(config: &Config) -> toolforge::spec::McpSpec {
    let mut mcp = toolforge::spec::McpSpec::default();
    if let Some(section) = &config.mcp {
        if let Some(server) = &section.server {
            mcp.server_name = server.name.clone();
            mcp.server_version = server.version.clone();
        }
        mcp.expose = section.tools.as_ref().map(|tools| {
            tools
                .iter()
                .filter(|tool| tool.expose != Some(false))
                .map(|tool| tool.name.clone())
                .collect()
        });
    }
    if let Some(toolsets) = config.toolforge.as_ref().and_then(|t| t.toolsets.as_ref()) {
        mcp.toolsets = toolsets.clone();
    }
    if let Some(auth) = config.toolforge.as_ref().and_then(|t| t.auth.as_ref()) {
        mcp.auth = Some(auth.to_spec());
    }
    if let Some(http) = config.toolforge.as_ref().and_then(|t| t.http.as_ref()) {
        mcp.http = http.to_spec();
    }
    mcp.prompts = offers::prompts(config);
    mcp.resources = offers::resources(config);
    mcp
}

/// Builds the spec; computed-field compile errors are reported through `reporter`.
pub(crate) fn lower(
    config: &Config,
    default_name: &str,
    reporter: &mut Reporter<'_>,
) -> SchemaSpec {
    let mut spec = SchemaSpec {
        name: config
            .name
            .clone()
            .unwrap_or_else(|| default_name.to_owned()),
        description: config.description.clone(),
        entities: config.entities.iter().map(entities::lower_entity).collect(),
        relationships: relationships::lower_relationships(config),
        tools: config
            .toolforge
            .as_ref()
            .map(|options| options.to_tool_options())
            .unwrap_or_default(),
        mcp: mcp_spec(config),
        embedding: embeddings::embedding_spec(config),
        change_log: None,
        declared_tools: Vec::new(),
        access: Vec::new(),
    };
    embeddings::add_pipelines(config, &mut spec);
    entities::add_hierarchies(config, &mut spec);
    computed::lower_computed_fields(config, &mut spec, reporter);
    declared::lower_declared_tools(config, &mut spec, reporter);
    access::lower_access_rules(config, &mut spec, reporter);
    let reads_changes = spec.entities.iter().any(|entity| {
        entity
            .computed_fields
            .iter()
            .any(|c| c.sql.contains(toolforge::spec::CHANGES_TABLE))
    });
    if reads_changes || spec.tracked_entities().next().is_some() {
        spec.change_log = Some(toolforge::spec::ChangeLogSpec {
            max_changes_per_record: config
                .toolforge
                .as_ref()
                .and_then(|t| t.change_history.as_ref())
                .and_then(|h| h.max_changes_per_record),
        });
    }
    spec
}
