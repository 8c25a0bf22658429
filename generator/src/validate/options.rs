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
    if let Some(http) = &options.http {
        use toolforge::spec::HttpSpec;
        for (key, value, default) in [
            (
                "header_timeout_seconds",
                http.header_timeout_seconds,
                HttpSpec::DEFAULT_HEADER_TIMEOUT_SECONDS,
            ),
            (
                "body_timeout_seconds",
                http.body_timeout_seconds,
                HttpSpec::DEFAULT_BODY_TIMEOUT_SECONDS,
            ),
            (
                "idle_timeout_seconds",
                http.idle_timeout_seconds,
                HttpSpec::DEFAULT_IDLE_TIMEOUT_SECONDS,
            ),
            (
                "max_connections",
                http.max_connections,
                HttpSpec::DEFAULT_MAX_CONNECTIONS,
            ),
            (
                "max_body_bytes",
                http.max_body_bytes,
                HttpSpec::DEFAULT_MAX_BODY_BYTES,
            ),
        ] {
            if value == Some(0) {
                r.error(&format!("toolforge.http.{key}"), format!("`{key}` is 0"))
                    .hint(format!("use at least 1 (default {default})"))
                    .emit();
            }
        }
    }
    if let Some(store) = &options.side_store {
        if store.schema.as_deref().is_some_and(|s| s.trim().is_empty()) {
            r.error("toolforge.side_store.schema", "`schema` is empty")
                .hint("name a schema for toolforge's own objects, or leave it out for `toolforge`")
                .emit();
        }
        if let Some(file) = store.file.as_deref() {
            let path = std::path::Path::new(file);
            if file.trim().is_empty() || path.file_name().is_none() {
                r.error(
                    "toolforge.side_store.file",
                    format!("`file: {file}` names no file"),
                )
                .hint("name a file beside the database, such as `shop.toolforge.db`")
                .emit();
            }
        }
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
    if let Some(auth) = &options.auth {
        check_auth(auth, r);
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

/// `toolforge.auth`: URLs that are URLs, known algorithms, claims and scopes that are names.
fn check_auth(auth: &crate::config::options::AuthOptions, r: &mut Reporter<'_>) {
    use crate::config::options::TOKEN_ALGORITHMS;
    let url = |value: &str| {
        (value.starts_with("https://") || value.starts_with("http://"))
            && value.len() > "https://".len()
            && !value.contains(char::is_whitespace)
    };
    if !url(&auth.issuer) {
        r.error(
            "toolforge.auth.issuer",
            format!("`{}` is not an http(s) URL", auth.issuer),
        )
        .hint("give the authorization server's issuer, like `https://id.example.com`")
        .emit();
    }
    let endpoint = auth.introspection.as_ref().and_then(|i| i.endpoint.clone());
    for (key, value) in [
        ("audience", &auth.audience),
        ("jwks_uri", &auth.jwks_uri),
        ("introspection.endpoint", &endpoint),
    ] {
        if let Some(value) = value
            && !url(value)
        {
            r.error(
                &format!("toolforge.auth.{key}"),
                format!("`{value}` is not an http(s) URL"),
            )
            .hint("give an absolute URL, like `https://tools.example.com/mcp`")
            .emit();
        }
    }
    for (i, algorithm) in auth.algorithms.iter().flatten().enumerate() {
        if !TOKEN_ALGORITHMS.contains(&algorithm.as_str()) {
            let hint = if algorithm.eq_ignore_ascii_case("none") {
                "unsigned tokens are never accepted; name a signature algorithm".to_owned()
            } else if algorithm.starts_with("HS") {
                "shared-secret (HS*) tokens are not accepted from an issuer; use its public-key \
                 algorithm"
                    .to_owned()
            } else {
                format!("use one of {}", TOKEN_ALGORITHMS.join(", "))
            };
            r.error(
                &format!("toolforge.auth.algorithms[{i}]"),
                format!("`{algorithm}` is not an accepted signature algorithm"),
            )
            .hint(hint)
            .emit();
        }
    }
    if let Some(leeway) = auth.leeway_seconds
        && leeway > 300
    {
        r.error(
            "toolforge.auth.leeway_seconds",
            format!("a leeway of {leeway} s keeps expired tokens valid for too long"),
        )
        .hint("use at most 300 (default 30)")
        .emit();
    }
    let name = |text: &str| {
        !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/'))
    };
    for (context, claim) in auth.claims.iter().flatten() {
        if !name(context) || context.contains(['.', ':', '/']) {
            r.error(
                &format!("toolforge.auth.claims.{context}"),
                format!("`{context}` is not a context value name"),
            )
            .hint("use letters, digits, `_` and `-`, as `:context.NAME` reads it")
            .emit();
        }
        if !name(claim) || claim.split('.').any(str::is_empty) {
            r.error(
                &format!("toolforge.auth.claims.{context}"),
                format!("`{claim}` is not a claim path"),
            )
            .hint("name a claim (`sub`, `email`), with dots for a nested one (`org.branch`)")
            .emit();
        }
    }
    let scopes = auth
        .required_scopes
        .iter()
        .flatten()
        .map(|scope| ("toolforge.auth.required_scopes".to_owned(), scope))
        .chain(
            auth.scopes
                .iter()
                .flatten()
                .map(|(key, scope)| (format!("toolforge.auth.scopes.{key}"), scope)),
        );
    for (path, scope) in scopes {
        if scope.is_empty() || scope.contains(|c: char| c.is_whitespace() || c == '"' || c == '\\')
        {
            r.error(&path, format!("`{scope}` is not a scope"))
                .hint("a scope is one word without spaces or quotes, like `tools:reports`")
                .emit();
        }
    }
}
