//! What `toolforge serve` serves: the tool names in `mcp.tools` and `toolforge.toolsets`.
//!
//! A name that is not one of the config's tools is a warning when a config is validated (a
//! Rust registry may add a tool of that name) and an error when the config is served as it is
//! ([`crate::CompileOptions::serving`]).

use toolforge::spec::{SchemaSpec, ToolFamily};
use toolforge_names::validate_tool_name;

use crate::config::Config;
use crate::config::spans::At;
use crate::diagnostics::Severity;
use crate::report::{Reporter, suggestion};

/// The tools `spec` builds, as a registry serving it names them (`batch` included).
fn served_tool_names(spec: &SchemaSpec) -> Vec<String> {
    spec.database_tool_names()
        .into_iter()
        .map(|name| format!("{}{name}", spec.tools.name_prefix))
        .chain(spec.declared_tools.iter().map(|tool| tool.name.clone()))
        .chain(std::iter::once("batch".to_owned()))
        .collect()
}

pub(super) fn check(config: &Config, spec: &SchemaSpec, serving: bool, r: &mut Reporter<'_>) {
    let tools = served_tool_names(spec);
    let unknown = if serving {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut exposed: Option<Vec<&str>> = None;
    if let Some(listed) = config.mcp.as_ref().and_then(|mcp| mcp.tools.as_ref()) {
        let mut seen: Vec<&str> = Vec::new();
        for (i, tool) in listed.iter().enumerate() {
            let path = format!("mcp.tools[{i}].name");
            if seen.contains(&tool.name.as_str()) {
                r.warning(&path, format!("`{}` is listed twice", tool.name))
                    .related(
                        &format!("mcp.tools[{}].name", position(listed, &tool.name)),
                        "first listed here",
                    )
                    .hint("remove one of the entries")
                    .emit();
                continue;
            }
            seen.push(&tool.name);
            name_exists(
                &tool.name,
                &path,
                &tools,
                spec,
                unknown,
                "remove the entry or set `expose: false`",
                r,
            );
        }
        let shown: Vec<&str> = listed
            .iter()
            .filter(|tool| tool.expose != Some(false))
            .map(|tool| tool.name.as_str())
            .collect();
        if shown.is_empty() {
            r.warning("mcp.tools", "no tool is exposed: the server would offer nothing")
                .hint("set `expose: true` on the tools to serve, or remove `mcp.tools` to serve every tool")
                .emit();
        }
        exposed = Some(shown);
    }
    let Some(toolsets) = config.toolforge.as_ref().and_then(|t| t.toolsets.as_ref()) else {
        return;
    };
    for (name, members) in toolsets {
        let path = format!("toolforge.toolsets.{name}");
        if validate_tool_name(name).is_err() {
            r.at(
                Severity::Error,
                &path,
                At::Key,
                format!("toolset name `{name}` cannot be part of a URL path (`/mcp/{name}`)"),
            )
            .hint("use 1 to 64 letters, digits, `_` and `-`")
            .emit();
        }
        if members.is_empty() {
            r.warning(&path, format!("toolset `{name}` lists no tools"))
                .hint("list the tools it serves, for example `[get_schema, query_entities]`")
                .emit();
        }
        for (i, member) in members.iter().enumerate() {
            let member_path = format!("{path}[{i}]");
            if !name_exists(
                member,
                &member_path,
                &tools,
                spec,
                unknown,
                "remove it from the toolset",
                r,
            ) {
                continue;
            }
            if let Some(shown) = &exposed
                && !shown.contains(&member.as_str())
            {
                r.at(
                    unknown,
                    &member_path,
                    At::Value,
                    format!("toolset `{name}` lists `{member}`, which `mcp.tools` does not expose"),
                )
                .hint(format!(
                    "add `{member}` to `mcp.tools`, or remove it from the toolset"
                ))
                .emit();
            }
        }
    }
}

/// The tool family `name` (with the spec's prefix) belongs to, when the spec does not build
/// that family.
fn family_left_out(name: &str, spec: &SchemaSpec) -> Option<ToolFamily> {
    let bare = name.strip_prefix(spec.tools.name_prefix.as_str())?;
    ToolFamily::ALL
        .into_iter()
        .find(|family| family.tool_names().contains(&bare) && !spec.tools.families.contains(family))
}

/// Checks that `name` is one of `tools`, reporting at `path` with `severity` if not.
fn name_exists(
    name: &str,
    path: &str,
    tools: &[String],
    spec: &SchemaSpec,
    severity: Severity,
    fix: &str,
    r: &mut Reporter<'_>,
) -> bool {
    if tools.iter().any(|tool| tool == name) {
        return true;
    }
    let hint = match family_left_out(name, spec) {
        Some(family) => {
            let mut families: Vec<&str> = spec.tools.families.iter().map(|f| f.name()).collect();
            families.push(family.name());
            format!(
                "`{name}` is a tool of the `{family}` family, which is built only when \
                 `toolforge.tools` lists it: `tools: [{}]`; or {fix}",
                families.join(", "),
                family = family.name()
            )
        }
        None => format!(
            "{}; or {fix}",
            suggestion(
                name,
                tools.iter().map(String::as_str),
                "the tools of this config"
            )
        ),
    };
    let message = if validate_tool_name(name).is_err() {
        format!("`{name}` is not a valid tool name")
    } else if severity == Severity::Error {
        format!("`{name}` is not a tool of this config")
    } else {
        format!(
            "`{name}` is not a tool of this config; `toolforge serve` refuses it unless the \
             registry served adds a tool of that name"
        )
    };
    r.at(severity, path, At::Value, message).hint(hint).emit();
    false
}

fn position(listed: &[crate::config::McpTool], name: &str) -> usize {
    listed
        .iter()
        .position(|tool| tool.name == name)
        .unwrap_or(0)
}
