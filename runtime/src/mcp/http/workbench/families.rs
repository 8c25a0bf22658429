//! Which family a served tool belongs to, for the workbench's grouping: the database tools by
//! the one table of tools ([`ToolFamily::tool_names`]), the config's declared tools, `batch`,
//! the catalog's `tool_search`, and everything else as `custom`.

use crate::spec::{SchemaSpec, ToolFamily};

/// The group of tools the page lists after the database families, in this order.
const OTHER_GROUPS: [&str; 4] = ["declared", "custom", "catalog", "batch"];

/// What tells the families apart: the spec's tool-name prefix and its declared tools.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Families {
    prefix: String,
    declared: Vec<String>,
}

impl Families {
    /// The families of the tools `spec` produces.
    pub(super) fn of(spec: &SchemaSpec) -> Families {
        Families {
            prefix: spec.tools.name_prefix.clone(),
            declared: spec.declared_tools.iter().map(|t| t.name.clone()).collect(),
        }
    }

    /// The family of the served tool `tool`.
    pub(super) fn family_of(&self, tool: &str) -> &'static str {
        if self.declared.iter().any(|name| name == tool) {
            return "declared";
        }
        let bare = tool.strip_prefix(self.prefix.as_str()).unwrap_or(tool);
        if let Some(family) = ToolFamily::ALL
            .into_iter()
            .find(|family| family.tool_names().contains(&bare))
        {
            return family.name();
        }
        match tool {
            crate::builtin::BATCH_TOOL_NAME => "batch",
            "tool_search" => "catalog",
            _ => "custom",
        }
    }
}

/// Where a family is listed: the database families in registration order, then the others.
pub(super) fn rank(family: &str) -> usize {
    ToolFamily::ALL
        .iter()
        .map(|f| f.name())
        .chain(OTHER_GROUPS)
        .position(|name| name == family)
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::{Families, rank};

    #[test]
    fn tools_fall_into_their_families() {
        let families = Families {
            prefix: "kb_".into(),
            declared: vec!["recent_notes".into()],
        };
        assert_eq!(families.family_of("kb_query_entities"), "query");
        assert_eq!(families.family_of("kb_find_path"), "graph");
        assert_eq!(families.family_of("recent_notes"), "declared");
        assert_eq!(families.family_of("batch"), "batch");
        assert_eq!(families.family_of("tool_search"), "catalog");
        assert_eq!(families.family_of("scope_loc"), "custom");
        assert!(rank("schema") < rank("query"));
        assert!(rank("places") < rank("declared"));
        assert!(rank("custom") < rank("batch"));
    }
}
