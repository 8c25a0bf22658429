//! The path generated code names the runtime by: `::toolforge` unless the user's crate renames
//! the dependency (`tf = { package = "toolforge-runtime", ... }`) or re-exports it, the way prost-build's
//! `prost_path` works.
//!
//! The module is generated with `::toolforge` and rewritten once: every path that starts with
//! `::toolforge` and every string literal that starts with `"::toolforge` (serde's and the
//! derive's `crate = "..."` attributes) gets the configured path instead.

use proc_macro2::{Group, Literal, Spacing, TokenStream, TokenTree};

use super::error::CodegenError;

/// The path generated code uses by default.
pub const DEFAULT_CRATE_PATH: &str = "::toolforge";

/// Checks that `path` is a Rust path (`::tf`, `crate::deps::toolforge`) and returns its tokens.
pub(crate) fn parse(path: &str) -> Result<TokenStream, CodegenError> {
    let invalid = |reason: String| CodegenError::InvalidCratePath {
        path: path.to_owned(),
        reason,
    };
    let tokens: TokenStream = path
        .parse()
        .map_err(|error: proc_macro2::LexError| invalid(error.to_string()))?;
    syn::parse2::<syn::Path>(tokens.clone()).map_err(|error| invalid(error.to_string()))?;
    Ok(tokens)
}

/// `tokens` with every `::toolforge` path prefix replaced by `path` (no change for the
/// default path).
pub(crate) fn rewrite(tokens: TokenStream, path: &str) -> Result<TokenStream, CodegenError> {
    if path == DEFAULT_CRATE_PATH {
        return Ok(tokens);
    }
    let replacement = parse(path)?;
    Ok(replace(tokens, &replacement, path))
}

fn replace(tokens: TokenStream, replacement: &TokenStream, path: &str) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        if starts_default_path(&trees[i..]) {
            out.extend(replacement.clone());
            i += 3;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(group) => {
                let mut rewritten = Group::new(
                    group.delimiter(),
                    replace(group.stream(), replacement, path),
                );
                rewritten.set_span(group.span());
                out.push(TokenTree::Group(rewritten));
            }
            TokenTree::Literal(literal) => out.push(rewrite_literal(literal, path)),
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// `::toolforge` followed by anything but another path segment of a longer name.
fn starts_default_path(trees: &[TokenTree]) -> bool {
    match trees {
        [
            TokenTree::Punct(first),
            TokenTree::Punct(second),
            TokenTree::Ident(name),
            ..,
        ] => {
            first.as_char() == ':'
                && first.spacing() == Spacing::Joint
                && second.as_char() == ':'
                && name == "toolforge"
        }
        _ => false,
    }
}

/// A string literal `"::toolforge..."` with the prefix replaced; other literals unchanged.
fn rewrite_literal(literal: &Literal, path: &str) -> TokenTree {
    let text = literal.to_string();
    match text
        .strip_prefix('"')
        .and_then(|rest| rest.strip_prefix(DEFAULT_CRATE_PATH))
    {
        Some(rest) if rest.starts_with("::") || rest.starts_with('"') => {
            let value = format!("{path}{}", rest.trim_end_matches('"'));
            let mut rewritten = Literal::string(&value);
            rewritten.set_span(literal.span());
            TokenTree::Literal(rewritten)
        }
        _ => TokenTree::Literal(literal.clone()),
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    #[test]
    fn paths_and_crate_attributes_are_rewritten() {
        let tokens = quote! {
            #[serde(crate = "::toolforge::serde")]
            #[tool(crate = "::toolforge")]
            pub fn f(db: &::toolforge::sql::Database) -> ::std::vec::Vec<::toolforge_extra::X> {
                let text = "::toolforge is a crate";
                toolforge::x()
            }
        };
        let rewritten = rewrite(tokens, "::tf").unwrap().to_string();
        assert!(rewritten.contains("crate = \"::tf::serde\""), "{rewritten}");
        assert!(rewritten.contains("crate = \"::tf\""), "{rewritten}");
        assert!(
            rewritten.contains(":: tf :: sql :: Database"),
            "{rewritten}"
        );
        // Other crates, prose and relative paths are left alone.
        assert!(rewritten.contains(":: toolforge_extra :: X"), "{rewritten}");
        assert!(
            rewritten.contains("\"::toolforge is a crate\""),
            "{rewritten}"
        );
        assert!(rewritten.contains("toolforge :: x ()"), "{rewritten}");
    }

    #[test]
    fn the_default_path_changes_nothing_and_bad_paths_are_errors() {
        let tokens = quote!(::toolforge::Tool);
        assert_eq!(
            rewrite(tokens.clone(), DEFAULT_CRATE_PATH)
                .unwrap()
                .to_string(),
            tokens.to_string()
        );
        let nested = rewrite(tokens, "crate::deps::toolforge").unwrap();
        assert_eq!(nested.to_string(), "crate :: deps :: toolforge :: Tool");
        for bad in ["", "::", "tool forge", "a::", "\"x\""] {
            assert!(
                matches!(
                    rewrite(quote!(::toolforge::Tool), bad),
                    Err(CodegenError::InvalidCratePath { .. })
                ),
                "{bad:?}"
            );
        }
    }
}
