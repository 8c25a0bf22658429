//! Deferred tools: `toolforge serve --defer-tools` and `toolforge tools list --defer` show a
//! model a few core tools up front and let it find the others by searching.

/// The core tools when `--core` is not given: the config's `get_schema` and
/// `describe_entity` (with the config's name prefix), those of them that are among `names`.
///
/// ```
/// let names = ["get_schema", "query_entities", "describe_entity"];
/// assert_eq!(
///     toolforge_cli::defer::default_core("", names),
///     ["get_schema", "describe_entity"]
/// );
/// assert!(toolforge_cli::defer::default_core("kb_", names).is_empty());
/// ```
pub fn default_core<'a>(prefix: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let names: Vec<&str> = names.into_iter().collect();
    ["get_schema", "describe_entity"]
        .iter()
        .map(|name| format!("{prefix}{name}"))
        .filter(|name| names.contains(&name.as_str()))
        .collect()
}
