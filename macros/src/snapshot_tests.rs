//! Expansion snapshots: what `#[derive(Tool)]` writes for representative structs, formatted
//! with prettyplease. Review a change with `cargo insta review`.

use proc_macro2::TokenStream;
use syn::{DeriveInput, parse_quote};

use crate::expand::{expand_with, placeholder_with};

fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("the expansion is valid Rust");
    prettyplease::unparse(&file)
}

/// The expansion with `::toolforge` as the runtime path unless `#[tool(crate)]` says otherwise
/// (no `Cargo.toml` lookup: snapshots must not depend on this crate's manifest).
fn expanded(input: DeriveInput) -> String {
    let tokens = expand_with(&input, |explicit| {
        explicit.unwrap_or_else(|| parse_quote!(::toolforge))
    })
    .expect("the input is valid");
    pretty(tokens)
}

macro_rules! assert_expansion {
    ($name:literal, $expanded:expr) => {
        insta::with_settings!({
            snapshot_path => "../tests/snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!($name, $expanded);
        })
    };
}

#[test]
fn every_attribute() {
    assert_expansion!(
        "every_attribute",
        expanded(parse_quote! {
            /// Searches the code base.
            ///
            /// Returns matching files.
            #[derive(Debug)]
            #[tool(title = "Code search", read_only, destructive = false, idempotent)]
            #[tool(open_world = false, capabilities = ["search", "code"], keywords = ["grep"])]
            pub struct SearchCode {
                /// The text to look for.
                pub query: String,
                /// At most this many files.
                #[serde(default)]
                #[schemars(range(min = 1, max = 100))]
                limit: Option<u32>,
            }
        })
    );
}

#[test]
fn no_arguments_and_a_renamed_crate() {
    assert_expansion!(
        "renamed_crate",
        expanded(parse_quote! {
            #[tool(name = "ping-server", description = "Checks that the server answers.")]
            #[tool(crate = "::tf")]
            #[serde(deny_unknown_fields)]
            struct Ping {}
        })
    );
}

#[test]
fn description_from_a_macro() {
    assert_expansion!(
        "description_from_a_macro",
        expanded(parse_quote! {
            /// Runs a query.
            #[doc = include_str!("query.md")]
            struct RunQuery {
                #[serde(rename = "sql")]
                statement: String,
            }
        })
    );
}

#[test]
fn placeholder_after_an_error() {
    let input: DeriveInput = parse_quote! {
        /// Not a struct.
        enum Choice<'a, T: Clone> where T: Send { A(&'a T) }
    };
    assert_expansion!(
        "placeholder_after_an_error",
        pretty(placeholder_with(&input, &parse_quote!(::toolforge)))
    );
}

#[test]
fn definition_from_a_function() {
    assert_expansion!(
        "definition_from_a_function",
        expanded(parse_quote! {
            /// Not the description: the definition function gives it.
            #[tool(definition = crate::definitions::search)]
            #[serde(deny_unknown_fields)]
            struct Search {
                /// Not in a schema either.
                #[serde(default)]
                query: Option<String>,
            }
        })
    );
}

#[test]
fn a_serde_crate_attribute_of_the_user_is_not_copied_to_the_mirror() {
    // A struct that also derives serde itself names serde's crate for its own derive; the
    // mirror names its own, and a second `crate` key would not compile.
    for input in [
        parse_quote! {
            /// Searches.
            #[derive(Serialize)]
            #[serde(crate = "::toolforge::serde")]
            #[serde(deny_unknown_fields)]
            struct Search { query: String }
        },
        parse_quote! {
            #[tool(definition = Search::definition)]
            #[serde(crate = "::toolforge::serde")]
            #[serde(deny_unknown_fields)]
            struct Search { query: String }
        },
    ] {
        let expansion = expanded(input);
        assert_eq!(expansion.matches("#[serde(crate").count(), 1, "{expansion}");
        assert!(expansion.contains("#[serde(crate = \"::toolforge::__private::serde\")]"));
        assert!(expansion.contains("#[serde(deny_unknown_fields)]"));
    }
}

#[test]
fn a_definition_path_through_the_struct_name_names_the_users_struct() {
    let expansion = expanded(parse_quote! {
        #[tool(definition = Search::definition)]
        struct Search { query: String }
    });
    assert!(
        expansion.contains("__ToolforgeArguments::definition()"),
        "{expansion}"
    );
}
