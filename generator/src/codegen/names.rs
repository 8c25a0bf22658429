//! Rust names for config names: `startLine` → `start_line`, `HTTPServer` → `HttpServer`,
//! `type` → `r#type`, `self` → `self_`.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

/// Keywords that cannot even be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Strict and reserved Rust keywords (2024 edition), usable as raw identifiers.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// The snake_case spelling of a config name, as a Rust field or function name would use it.
///
/// ```
/// use toolforge_generator::__private::codegen::names::snake;
/// assert_eq!(snake("startLine"), "start_line");
/// assert_eq!(snake("HTTPServer"), "http_server");
/// assert_eq!(snake("user_account"), "user_account");
/// ```
pub fn snake(name: &str) -> String {
    name.to_snake_case()
}

/// The UpperCamelCase spelling of a config name, as a Rust type or variant would use it.
///
/// ```
/// use toolforge_generator::__private::codegen::names::camel;
/// assert_eq!(camel("HTTPServer"), "HttpServer");
/// assert_eq!(camel("user_account"), "UserAccount");
/// assert_eq!(camel("DEFINED_IN"), "DefinedIn");
/// ```
pub fn camel(name: &str) -> String {
    name.to_upper_camel_case()
}

/// A field or function identifier for a config name: snake_case, raw when it is a keyword,
/// suffixed with `_` when it cannot be raw.
pub fn field_ident(name: &str) -> Ident {
    ident(&snake(name))
}

/// A type or variant identifier for a config name (UpperCamelCase).
pub fn type_ident(name: &str) -> Ident {
    ident(&camel(name))
}

/// An identifier for an already-cased name, made safe for Rust: every character that cannot
/// be in an identifier becomes `_`, a leading digit gets a `_` before it, keywords become raw
/// identifiers (`r#type`) or get a `_` after them (`self_`) when they cannot be raw. Never
/// panics, whatever the name (validation rejects names that are not identifiers; this keeps
/// code generation total anyway).
///
/// ```
/// use toolforge_generator::__private::codegen::names::ident;
/// assert_eq!(ident("x²").to_string(), "x_");
/// assert_eq!(ident("1a").to_string(), "_1a");
/// assert_eq!(ident("fn").to_string(), "r#fn");
/// assert_eq!(ident("").to_string(), "_unnamed");
/// ```
pub fn ident(name: &str) -> Ident {
    let mut safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        safe = "_unnamed".to_owned();
    } else if safe.starts_with(|c: char| c.is_ascii_digit()) {
        safe.insert(0, '_');
    }
    if NOT_RAW.contains(&safe.as_str()) {
        Ident::new(&format!("{safe}_"), Span::call_site())
    } else if KEYWORDS.contains(&safe.as_str()) {
        Ident::new_raw(&safe, Span::call_site())
    } else {
        Ident::new(&safe, Span::call_site())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_become_raw_or_suffixed() {
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("match").to_string(), "r#match");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(type_ident("Self").to_string(), "Self_");
        assert_eq!(field_ident("order").to_string(), "order");
    }

    #[test]
    fn acronyms_and_mixed_case() {
        assert_eq!(field_ident("apiKey").to_string(), "api_key");
        assert_eq!(type_ident("HTTPServer").to_string(), "HttpServer");
        assert_eq!(field_ident("startLine").to_string(), "start_line");
        assert_eq!(field_ident("2fa").to_string(), "_2fa");
    }

    #[test]
    fn any_name_gives_an_identifier() {
        for name in [
            "x²", "é", "名前", "a-b", "a b", "", "_", "__", "1", "r#type", "\n", "self",
        ] {
            for made in [ident(name), field_ident(name), type_ident(name)] {
                syn::parse_str::<syn::Ident>(&made.to_string())
                    .unwrap_or_else(|error| panic!("{name:?} gave {made}: {error}"));
            }
        }
    }
}
