//! `toolforge serve --http` as an OAuth resource server: the config's `toolforge.auth` (and the
//! `--oauth-*` flags) turned into the runtime's [`OAuthOptions`], with each scope entry
//! resolved to the served tools it names.

use std::sync::Arc;
use std::time::Duration;

use toolforge::ScopePolicy;
use toolforge::mcp::OAuthOptions;
use toolforge::spec::{AuthSpec, SchemaSpec, ToolFamily};

/// The issuer and audience given on the command line, over the config's.
#[derive(Debug, Clone, Default)]
pub struct OAuthFlags {
    /// `--oauth-issuer`.
    pub issuer: Option<String>,
    /// `--oauth-audience`.
    pub audience: Option<String>,
}

/// The OAuth settings of a server of `spec`, or `None` when neither the config nor the flags
/// ask for them; its scope policy is given by [`with_scopes`] once the served tools are known.
/// Without an audience, it is `default_audience` (the server's own URL, known once it
/// listens).
pub fn oauth_options(
    spec: &SchemaSpec,
    flags: &OAuthFlags,
    default_audience: &str,
) -> Result<Option<OAuthOptions>, String> {
    let configured = spec.mcp.auth.clone();
    let Some(issuer) = flags
        .issuer
        .clone()
        .or_else(|| configured.as_ref().map(|auth| auth.issuer.clone()))
    else {
        return Ok(None);
    };
    let auth = configured.unwrap_or_default();
    let audience = flags
        .audience
        .clone()
        .or_else(|| auth.audience.clone())
        .unwrap_or_else(|| default_audience.to_owned());
    let mut options = OAuthOptions::new(issuer, audience)
        .with_jwks_uri(auth.jwks_uri.clone())
        .with_algorithms(auth.algorithms.clone());
    if let Some(leeway) = auth.leeway_seconds {
        options = options.with_leeway(Duration::from_secs(leeway));
    }
    for (name, path) in &auth.claims {
        options = options.with_claim(name, path);
    }
    if let Some(introspection) = &auth.introspection {
        let secret = std::env::var(&introspection.client_secret_env)
            .ok()
            .filter(|secret| !secret.is_empty())
            .ok_or_else(|| {
                format!(
                    "toolforge.auth.introspection.client_secret_env: the environment variable \
                     {} is not set; set it to the client secret of `{}` at the issuer",
                    introspection.client_secret_env, introspection.client_id
                )
            })?;
        options = options.with_introspection(Some(toolforge::mcp::Introspection {
            endpoint: introspection.endpoint.clone(),
            client_id: introspection.client_id.clone(),
            client_secret: secret,
        }));
    }
    options.check()?;
    Ok(Some(options))
}

/// `options` with the scopes of `toolforge.auth`, each entry resolved to the served `tools`.
pub fn with_scopes(
    options: OAuthOptions,
    spec: &SchemaSpec,
    tools: &[String],
) -> Result<OAuthOptions, String> {
    let auth = spec.mcp.auth.clone().unwrap_or_default();
    Ok(options.with_policy(Arc::new(policy(spec, &auth, tools)?)))
}

/// The scopes of `auth`: each `scopes` entry names a served tool, a tool family or a toolset.
fn policy(spec: &SchemaSpec, auth: &AuthSpec, tools: &[String]) -> Result<ScopePolicy, String> {
    let mut policy = ScopePolicy::new(auth.required_scopes.iter().cloned());
    for (key, scope) in &auth.scopes {
        let named: Vec<&String> = if tools.contains(key) {
            tools.iter().filter(|tool| *tool == key).collect()
        } else if let Some(family) = ToolFamily::ALL.into_iter().find(|f| f.name() == key) {
            let prefix = &spec.tools.name_prefix;
            tools
                .iter()
                .filter(|tool| {
                    family
                        .tool_names()
                        .iter()
                        .any(|name| **tool == format!("{prefix}{name}"))
                })
                .collect()
        } else if let Some(members) = spec.mcp.toolsets.get(key) {
            tools.iter().filter(|tool| members.contains(tool)).collect()
        } else {
            return Err(format!(
                "toolforge.auth.scopes.{key}: `{key}` names no served tool, tool family or \
                 toolset; the tools are {}",
                tools.join(", ")
            ));
        };
        for tool in named {
            policy = policy.with_tool(tool.clone(), [scope.clone()]);
        }
    }
    Ok(policy)
}
