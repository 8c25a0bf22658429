//! The naming rules validation and lowering share: which names are identifiers
//! ([`is_identifier`]) and the tables entities and relationships get ([`table_name`],
//! [`edge_table_name`]).

use heck::ToSnakeCase;

/// True for names usable as identifiers in every generated language: an ASCII letter or `_`
/// followed by letters, digits or `_`. Keywords (`type`, `self`, `order`) are valid names.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The table of an entity: its name in snake_case (`ExternalLibrary` → `external_library`).
///
/// ```
/// assert_eq!(toolforge_generator::__private::ir::table_name("ExternalLibrary"), "external_library");
/// ```
pub fn table_name(entity: &str) -> String {
    entity.to_snake_case()
}

/// The edge table of a relationship: `<source_table>__<type_snake>__<target_table>`.
///
/// ```
/// assert_eq!(
///     toolforge_generator::__private::ir::edge_table_name("Scope", "DEFINED_IN", "File"),
///     "scope__defined_in__file"
/// );
/// ```
pub fn edge_table_name(source: &str, rel_type: &str, target: &str) -> String {
    format!(
        "{}__{}__{}",
        table_name(source),
        rel_type.to_snake_case(),
        table_name(target)
    )
}

/// The temporary view presenting a mapped table (or a mapped relationship's edges) under the
/// name `table` would have: `<table>__mapped`, a name no user table is likely to have, so the
/// view shadows nothing a declared `sql:` statement reads.
///
/// ```
/// assert_eq!(toolforge_generator::__private::ir::mapped_view_name("track"), "track__mapped");
/// ```
pub fn mapped_view_name(table: &str) -> String {
    format!("{table}__mapped")
}

#[cfg(test)]
mod tests {
    use super::is_identifier;

    #[test]
    fn identifiers() {
        for ok in ["Scope", "_x", "startLine", "type", "self", "order", "a1"] {
            assert!(is_identifier(ok), "{ok}");
        }
        for bad in ["", "1a", "my field", "a-b", "é", "a.b"] {
            assert!(!is_identifier(bad), "{bad}");
        }
    }
}
