//! Doc comments as tool descriptions.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta};

/// The text of an item's doc comment.
pub(crate) enum DocText {
    /// No doc comment.
    Missing,
    /// Plain `///` or `/** */` comments, already joined and trimmed.
    Text(String),
    /// At least one `#[doc = some_macro!(...)]`: the pieces are joined by `concat!` at compile
    /// time (the runtime trims the result).
    Expressions(Vec<Expr>),
}

impl DocText {
    /// Reads the `#[doc = ...]` attributes (doc comments) of an item.
    pub(crate) fn of(attrs: &[Attribute]) -> DocText {
        let mut lines = Vec::new();
        let mut expressions = Vec::new();
        let mut all_literal = true;
        for attr in attrs {
            let Meta::NameValue(doc) = &attr.meta else {
                continue;
            };
            if !doc.path.is_ident("doc") {
                continue;
            }
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) = &doc.value
            {
                // `split`, not `lines`: an empty `///` line is a paragraph break to keep.
                let piece: Vec<String> = text
                    .value()
                    .split('\n')
                    .map(|line| strip_one_space(line.trim_end_matches('\r')).to_owned())
                    .collect();
                expressions.push(Expr::Lit(ExprLit {
                    attrs: Vec::new(),
                    lit: Lit::Str(LitStr::new(&piece.join("\n"), text.span())),
                }));
                lines.extend(piece);
            } else {
                all_literal = false;
                expressions.push(doc.value.clone());
            }
        }
        if expressions.is_empty() {
            DocText::Missing
        } else if all_literal {
            let text = lines.join("\n").trim().to_owned();
            if text.is_empty() {
                DocText::Missing
            } else {
                DocText::Text(text)
            }
        } else {
            DocText::Expressions(expressions)
        }
    }

    /// A `&'static str` expression of the text.
    pub(crate) fn to_expression(&self) -> TokenStream {
        match self {
            DocText::Missing => quote!(""),
            DocText::Text(text) => text.to_token_stream(),
            DocText::Expressions(pieces) => {
                let lines = pieces.iter().map(|piece| quote!(#piece, "\n"));
                quote!(::core::concat!(#(#lines),*))
            }
        }
    }
}

/// `/// text` arrives as `" text"`: drop the one space the comment syntax adds.
fn strip_one_space(line: &str) -> &str {
    line.strip_prefix(' ').unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn doc(item: syn::DeriveInput) -> DocText {
        DocText::of(&item.attrs)
    }

    #[test]
    fn line_comments_keep_their_lines_and_indentation() {
        let text = doc(parse_quote! {
            /// Searches code.
            ///
            /// Returns:
            ///   - matches
            struct S {}
        });
        let DocText::Text(text) = text else {
            panic!("expected text")
        };
        assert_eq!(text, "Searches code.\n\nReturns:\n  - matches");
    }

    #[test]
    fn empty_comments_are_missing() {
        assert!(matches!(
            doc(parse_quote! {
                #[doc = " "]
                struct S {}
            }),
            DocText::Missing
        ));
        assert!(matches!(
            doc(parse_quote! { struct S {} }),
            DocText::Missing
        ));
        assert!(matches!(
            doc(parse_quote! { #[doc(hidden)] struct S {} }),
            DocText::Missing
        ));
    }

    #[test]
    fn macro_docs_become_concat() {
        let text = doc(parse_quote! {
            /// Intro.
            #[doc = include_str!("tool.md")]
            struct S {}
        });
        let DocText::Expressions(pieces) = &text else {
            panic!("expected expressions")
        };
        assert_eq!(pieces.len(), 2);
        assert!(
            text.to_expression()
                .to_string()
                .starts_with(":: core :: concat !")
        );
    }
}
