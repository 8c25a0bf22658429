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

/// An identifier for an already-cased name, made safe for Rust.
pub fn ident(name: &str) -> Ident {
    let name = if name.is_empty() {
        "_unnamed".to_string()
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{name}")
    } else {
        name.to_string()
    };
    if NOT_RAW.contains(&name.as_str()) {
        Ident::new(&format!("{name}_"), Span::call_site())
    } else if KEYWORDS.contains(&name.as_str()) {
        Ident::new_raw(&name, Span::call_site())
    } else {
        Ident::new(&name, Span::call_site())
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
}
