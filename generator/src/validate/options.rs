//! The `toolforge:` section: limits and the tool-name prefix.

use crate::config::Config;
use crate::config::options::LONGEST_TOOL_NAME;
use crate::report::Reporter;
use toolforge_names::{InvalidToolName, MAX_TOOL_NAME_LEN, validate_tool_name};

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    let Some(options) = &config.toolforge else {
        return;
    };
    let effective = options.to_tool_options();
    if options.default_limit == Some(0) {
        r.error("toolforge.default_limit", "`default_limit` is 0")
            .hint("use at least 1 (default 20)")
            .emit();
    }
    if let Some(history) = &options.change_history
        && history.max_changes_per_record == Some(0)
    {
        r.error(
            "toolforge.change_history.max_changes_per_record",
            "`max_changes_per_record` is 0",
        )
        .hint("use at least 1, or leave it out to keep every change")
        .emit();
    }
    if let Some(vector_search) = &options.vector_search {
        if let Some(ef_search) = vector_search.ef_search
            && !(1..=1000).contains(&ef_search)
        {
            r.error(
                "toolforge.vector_search.ef_search",
                format!("`ef_search` is {ef_search}, outside what pgvector takes"),
            )
            .hint("use 1 to 1000 (default 100)")
            .emit();
        }
        if vector_search.max_vectors_in_memory == Some(0) {
            r.error(
                "toolforge.vector_search.max_vectors_in_memory",
                "`max_vectors_in_memory` is 0",
            )
            .hint(
                "use at least 1 (default 2000000), or keep the vectors in PostgreSQL with pgvector",
            )
            .emit();
        }
    }
    if options.max_limit == Some(0) {
        r.error("toolforge.max_limit", "`max_limit` is 0")
            .hint("use at least 1 (default 500)")
            .emit();
    } else if effective.default_limit > effective.max_limit {
        let path = if options.default_limit.is_some() {
            "toolforge.default_limit"
        } else {
            "toolforge.max_limit"
        };
        r.error(
            path,
            format!(
                "default_limit {} is larger than max_limit {}",
                effective.default_limit, effective.max_limit
            ),
        )
        .hint("make `default_limit` at most `max_limit`")
        .emit();
    }
    if let Some(prefix) = &options.name_prefix {
        match validate_tool_name(&format!("{prefix}{LONGEST_TOOL_NAME}")) {
            Ok(()) => {}
            Err(InvalidToolName::TooLong { .. }) => {
                r.error(
                    "toolforge.name_prefix",
                    format!(
                        "name_prefix `{prefix}` is too long: `{prefix}{LONGEST_TOOL_NAME}` exceeds {MAX_TOOL_NAME_LEN} characters"
                    ),
                )
                .hint(format!(
                    "use at most {} characters",
                    MAX_TOOL_NAME_LEN - LONGEST_TOOL_NAME.len()
                ))
                .emit();
            }
            Err(error) => {
                r.error(
                    "toolforge.name_prefix",
                    format!("name_prefix `{prefix}` may only use letters, digits, `_` and `-`"),
                )
                .hint(error.to_string())
                .emit();
            }
        }
    }
    if options.tools.as_ref().is_some_and(Vec::is_empty) {
        r.warning(
            "toolforge.tools",
            "`tools` is empty: no tools will be generated",
        )
        .hint(format!(
            "list families among {}, or remove the key",
            toolforge::spec::ToolFamily::ALL
                .iter()
                .map(|family| format!("`{}`", family.name()))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .emit();
    }
}
