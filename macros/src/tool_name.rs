//! Tool names: the snake_case default and the `^[A-Za-z0-9_-]{1,64}$` rule every provider
//! accepts.

use heck::ToSnakeCase;
use syn::Ident;
use syn::ext::IdentExt;

/// The longest name every provider accepts.
pub(crate) const MAX_LEN: usize = 64;

/// The default tool name: the snake_case of the struct name (`SearchCode` → `search_code`).
pub(crate) fn default_name(ident: &Ident) -> String {
    ident.unraw().to_string().to_snake_case()
}

/// Why `name` is not a valid tool name, written as the end of a sentence that starts with
/// "tool name `...`", or `None` when it is valid.
pub(crate) fn problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some(format!(
            "is empty; use 1 to {MAX_LEN} characters from `A-Z`, `a-z`, `0-9`, `_` and `-`"
        ));
    }
    if let Some((position, bad)) = name.chars().enumerate().find(|&(_, c)| !is_allowed(c)) {
        let fixed: String = name
            .chars()
            .map(|c| if is_allowed(c) { c } else { '_' })
            .take(MAX_LEN)
            .collect();
        return Some(format!(
            "contains {bad:?} at character {}; only `A-Z`, `a-z`, `0-9`, `_` and `-` are \
             accepted by every provider (for example `{fixed}`)",
            position + 1
        ));
    }
    if name.len() > MAX_LEN {
        return Some(format!(
            "is {} characters long; providers accept at most {MAX_LEN}",
            name.len()
        ));
    }
    None
}

fn is_allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn default_names_are_snake_case() {
        let name = |s: &str| default_name(&Ident::new(s, Span::call_site()));
        assert_eq!(name("SearchCode"), "search_code");
        assert_eq!(name("HTTPGet"), "http_get");
        assert_eq!(name("ping"), "ping");
        assert_eq!(
            default_name(&Ident::new_raw("type", Span::call_site())),
            "type"
        );
    }

    #[test]
    fn valid_names_pass() {
        for name in ["a", "search_code", "get-entity", "Tool2", &"x".repeat(64)] {
            assert_eq!(problem(name), None, "{name}");
        }
    }

    #[test]
    fn invalid_names_say_why() {
        assert!(problem("").unwrap().starts_with("is empty"));
        let space = problem("search code").unwrap();
        assert!(space.contains("' ' at character 7"), "{space}");
        assert!(space.contains("`search_code`"), "{space}");
        assert!(problem("recherché").unwrap().contains("'é' at character 9"));
        assert_eq!(
            problem(&"x".repeat(65)).unwrap(),
            "is 65 characters long; providers accept at most 64"
        );
    }
}
