//! Tool names: the snake_case default (the `^[A-Za-z0-9_-]{1,64}$` rule itself is
//! [`toolforge_names::validate_tool_name`]).

use heck::ToSnakeCase;
use syn::Ident;
use syn::ext::IdentExt;

/// The default tool name: the snake_case of the struct name (`SearchCode` → `search_code`).
pub(crate) fn default_name(ident: &Ident) -> String {
    ident.unraw().to_string().to_snake_case()
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
}
