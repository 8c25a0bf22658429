//! The expansion of `#[derive(IntoEngine)]`, which the runtime's tool argument types derive:
//! the conversion of a struct generic over name types (`E`, `F`, `R`) into its engine form
//! (every name a `String`), and the list of the argument types it names, for the generator's
//! re-exports. A type without type parameters converts to itself.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, GenericParam, parse_quote};

/// The derive's output, or its compile error.
pub(crate) fn derive(input: DeriveInput) -> TokenStream {
    expand(&input).unwrap_or_else(syn::Error::into_compile_error)
}

/// Expands the derive. Paths go through `::toolforge::__private`, which the runtime names
/// itself by (`extern crate self as toolforge`).
pub(crate) fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let name_text = name.to_string();
    let private = quote!(::toolforge::__private);
    let mut params = Vec::new();
    for param in &input.generics.params {
        match param {
            GenericParam::Type(param) => params.push(param.ident.clone()),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "`IntoEngine` takes type parameters for names only (no lifetimes or consts)",
                ));
            }
        }
    }
    let param_names: Vec<String> = params.iter().map(ToString::to_string).collect();
    let field_types: Vec<&syn::Type> = match &input.data {
        Data::Struct(data) => data.fields.iter().map(|field| &field.ty).collect(),
        Data::Enum(data) => {
            if !params.is_empty() {
                return Err(syn::Error::new(
                    input.generics.span(),
                    "`IntoEngine` on an enum converts it to itself: it takes no type parameters",
                ));
            }
            data.variants
                .iter()
                .flat_map(|variant| variant.fields.iter().map(|field| &field.ty))
                .collect()
        }
        Data::Union(data) => {
            return Err(syn::Error::new(
                data.union_token.span(),
                "`IntoEngine` applies to structs and enums",
            ));
        }
    };
    let conversion = match (&input.data, params.is_empty()) {
        (_, true) => quote! {
            type Engine = Self;

            fn into_engine(self) -> Self {
                self
            }
        },
        (Data::Struct(data), false) => {
            let Fields::Named(fields) = &data.fields else {
                return Err(syn::Error::new(
                    data.fields.span(),
                    "`IntoEngine` with type parameters needs named fields",
                ));
            };
            let strings = params.iter().map(|_| quote!(::std::string::String));
            let converted = fields.named.iter().map(|field| {
                let ident = &field.ident;
                quote!(#ident: #private::IntoEngine::into_engine(self.#ident))
            });
            quote! {
                type Engine = #name<#(#strings),*>;

                fn into_engine(self) -> Self::Engine {
                    #name { #(#converted),* }
                }
            }
        }
        // Enums with parameters and unions were refused above.
        (_, false) => {
            return Err(syn::Error::new(
                input.span(),
                "`IntoEngine` cannot convert this type",
            ));
        }
    };
    let bounded: Vec<syn::TypeParam> = params
        .iter()
        .map(|param| parse_quote!(#param: #private::ArgName))
        .collect();
    Ok(quote! {
        impl<#(#bounded),*> #private::IntoEngine for #name<#(#params),*> {
            #conversion

            fn named_types(out: &mut ::std::vec::Vec<#private::NamedType>) {
                if out.iter().any(|named| named.name == #name_text) {
                    return;
                }
                out.push(#private::NamedType {
                    name: #name_text,
                    params: &[#(#param_names),*],
                });
                #(<#field_types as #private::IntoEngine>::named_types(out);)*
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(input: DeriveInput) -> String {
        let file: syn::File = syn::parse2(expand(&input).unwrap()).unwrap();
        prettyplease::unparse(&file)
    }

    #[test]
    fn a_generic_struct_converts_field_by_field() {
        let text = expanded(parse_quote! {
            pub struct Hop<E = String, R = String> { pub rel: R, pub to: Option<E>, pub limit: i64 }
        });
        assert!(
            text.contains("type Engine = Hop<::std::string::String, ::std::string::String>;"),
            "{text}"
        );
        assert!(
            text.contains("rel: ::toolforge::__private::IntoEngine::into_engine(self.rel)"),
            "{text}"
        );
        assert!(text.contains("params: &[\"E\", \"R\"]"), "{text}");
        assert!(
            text.contains("<Option<E> as ::toolforge::__private::IntoEngine>::named_types(out);"),
            "{text}"
        );
    }

    #[test]
    fn an_enum_converts_to_itself() {
        let text = expanded(parse_quote! { pub enum Kind { A, B } });
        assert!(text.contains("type Engine = Self;"), "{text}");
        assert!(text.contains("params: &[]"), "{text}");
    }

    #[test]
    fn refusals_say_why() {
        let error = expand(&parse_quote! { pub enum Kind<E> { A(E) } }).unwrap_err();
        assert!(error.to_string().contains("takes no type parameters"));
        let error = expand(&parse_quote! { pub struct T<E>(E); }).unwrap_err();
        assert!(error.to_string().contains("named fields"));
        let error = expand(&parse_quote! { pub struct T<'a> { a: &'a str } }).unwrap_err();
        assert!(error.to_string().contains("names only"));
    }
}
