//! A Rust enum over a closed set of config strings (entity names, field names, an enum
//! field's `values`): one variant per string, serde-renamed to it, with `ALL` and `as_str`.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The variant for a config string: UpperCamelCase, only ASCII letters, digits and `_`
/// (`science-fiction` → `ScienceFiction`, `C++` → `C`), `Value` when nothing is left.
fn variant_base(value: &str) -> String {
    let mut camel: String = super::names::camel(value)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    // Dropping letters without ASCII forms can leave a lowercase start (`名z` → `z`).
    if let Some(first) = camel.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    if camel.is_empty() {
        "Value".to_owned()
    } else {
        camel
    }
}

/// The enum `name` with one variant per `(config string, variant doc)` in order; variants that
/// would collide get a numeric suffix (`C`, `C2`).
pub(crate) fn string_enum(name: &Ident, doc: &str, values: &[(String, String)]) -> TokenStream {
    let strings: Vec<&String> = values.iter().map(|(value, _)| value).collect();
    let escape = |text: &str| crate::output::escape_invisible(text, true).into_owned();
    let doc = escape(doc);
    let docs: Vec<String> = values
        .iter()
        .map(|(_, doc)| format!(" {}", escape(doc)))
        .collect();
    let mut used = BTreeSet::new();
    let variants: Vec<Ident> = strings
        .iter()
        .map(|value| {
            let base = variant_base(value);
            let mut candidate = base.clone();
            let mut n = 2;
            while !used.insert(candidate.clone()) {
                candidate = format!("{base}{n}");
                n += 1;
            }
            super::names::ident(&candidate)
        })
        .collect();
    let count = strings.len();
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize, ::toolforge::schemars::JsonSchema)]
        #[serde(crate = "::toolforge::serde")]
        #[schemars(crate = "::toolforge::schemars")]
        pub enum #name {
            #( #[doc = #docs] #[serde(rename = #strings)] #variants, )*
        }

        impl #name {
            /// Every value, in config order.
            pub const ALL: [#name; #count] = [ #( #name::#variants ),* ];

            /// The value as written in the config.
            pub fn as_str(self) -> &'static str {
                match self {
                    #( #name::#variants => #strings, )*
                }
            }
        }

        impl ::core::convert::From<#name> for ::std::string::String {
            fn from(value: #name) -> ::std::string::String {
                value.as_str().to_owned()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_valid_distinct_identifiers() {
        let values: Vec<(String, String)> =
            ["science-fiction", "C++", "C", "", "²", "123", "self", "名z"]
                .iter()
                .map(|v| (v.to_string(), String::new()))
                .collect();
        let tokens = string_enum(&super::super::names::ident("Genre"), " Genres.", &values);
        let parsed: syn::File = syn::parse2(tokens).expect("valid Rust");
        let syn::Item::Enum(item) = &parsed.items[0] else {
            panic!("an enum first");
        };
        let variants: Vec<String> = item.variants.iter().map(|v| v.ident.to_string()).collect();
        assert_eq!(
            variants,
            [
                "ScienceFiction",
                "C",
                "C2",
                "Value",
                "Value2",
                "_123",
                "Self_",
                "Z"
            ]
        );
    }
}
