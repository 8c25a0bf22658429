//! `--tools FAMILY,...`: the tool families a command builds, replacing the config's
//! `toolforge.tools` (the same option as `Builder::tools`).

use toolforge::spec::ToolFamily;
use toolforge_generator::CompileOptions;

/// Reads one family name (`ranges`); an unknown name is refused with the accepted ones.
///
/// ```
/// use toolforge::spec::ToolFamily;
/// assert_eq!(toolforge_cli::families::parse_family("graph"), Ok(ToolFamily::Graph));
/// assert!(toolforge_cli::families::parse_family("graphs").unwrap_err().contains("aggregates"));
/// ```
pub fn parse_family(text: &str) -> Result<ToolFamily, String> {
    ToolFamily::ALL
        .into_iter()
        .find(|family| family.name() == text.trim())
        .ok_or_else(|| {
            let names: Vec<&str> = ToolFamily::ALL.iter().map(|f| f.name()).collect();
            format!(
                "unknown tool family `{text}`; use one of: {}",
                names.join(", ")
            )
        })
}

/// `base` with the families of `--tools`, when given.
pub fn with_tools(base: CompileOptions, tools: &Option<Vec<ToolFamily>>) -> CompileOptions {
    match tools {
        Some(families) => base.tools(families.iter().copied()),
        None => base,
    }
}
