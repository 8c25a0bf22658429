//! `--token-env VAR`: a bearer token read from an environment variable, shared by the commands
//! that send or require one (`catalog index --mcp-url`, `serve --http`).

/// The token in the environment variable `variable`, or the message saying it is not set or
/// empty (the caller may add a hint).
pub fn token_from_env(variable: &str) -> Result<String, String> {
    match std::env::var(variable) {
        Ok(token) if !token.trim().is_empty() => Ok(token),
        _ => Err(format!(
            "--token-env {variable}: the environment variable `{variable}` is not set or empty"
        )),
    }
}
