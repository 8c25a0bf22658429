//! The tool-name rule every provider accepts: `^[A-Za-z0-9_-]{1,64}$`.

/// The longest name every provider accepts.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Checks `name` against `^[A-Za-z0-9_-]{1,64}$`; the error says what is wrong and how to fix it.
///
/// ```
/// use toolforge::validate_tool_name;
/// assert!(validate_tool_name("query_entities").is_ok());
/// let error = validate_tool_name("query entities").unwrap_err();
/// assert!(error.contains("' '"), "{error}");
/// ```
pub fn validate_tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the tool name is empty; use 1 to 64 characters from [A-Za-z0-9_-]".into());
    }
    if let Some((position, bad)) = name
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "the tool name `{name}` contains {bad:?} at byte {position}; only ASCII letters, \
             digits, `_` and `-` are accepted by every provider (try `{}`)",
            suggest(name)
        ));
    }
    if name.len() > MAX_TOOL_NAME_LEN {
        return Err(format!(
            "the tool name `{name}` is {} characters long; the limit is {MAX_TOOL_NAME_LEN}",
            name.len()
        ));
    }
    Ok(())
}

/// `name` with every unaccepted character replaced by `_`, cut to the length limit.
fn suggest(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_TOOL_NAME_LEN)
        .collect()
}
