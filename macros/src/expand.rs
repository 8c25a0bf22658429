//! The expansion of `#[derive(Tool)]`: checks, then the `ToolArgs` impl and the private mirror
//! struct that derives serde's `Deserialize` and schemars' `JsonSchema`.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, FieldsNamed, LitStr, Path, parse_quote};

use crate::attributes::ToolAttributes;
use crate::crate_path::{path_string, runtime_path};
use crate::docs::DocText;
use crate::errors::Errors;
use crate::tool_name;

/// The derive's output: the expansion, or the compile errors plus a placeholder impl so the
/// user sees those errors and not a cascade of "`ToolArgs` is not implemented".
pub(crate) fn derive(input: DeriveInput) -> TokenStream {
    match expand(&input) {
        Ok(tokens) => tokens,
        Err(error) => {
            let mut tokens = error.into_compile_error();
            tokens.extend(placeholder(&input));
            tokens
        }
    }
}

/// Expands the derive, naming the runtime as the user's `Cargo.toml` does.
pub(crate) fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    expand_with(input, runtime_path)
}

/// Expands the derive; `runtime` turns the `#[tool(crate = "...")]` path, if any, into the path
/// of the runtime crate.
pub(crate) fn expand_with(
    input: &DeriveInput,
    runtime: impl FnOnce(Option<Path>) -> Path,
) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let fields = named_fields(input, &mut errors);
    let attributes = ToolAttributes::parse(&input.attrs, &mut errors);
    if let Some(fields) = fields {
        reject_field_attributes(fields, &mut errors);
    }
    if let Some(title) = attributes
        .title
        .as_ref()
        .filter(|t| t.value().trim().is_empty())
    {
        errors.push(syn::Error::new(
            title.span(),
            "`title` must not be empty; leave it out instead",
        ));
    }
    if let Some(definition) = attributes.definition.clone() {
        for (key, span) in attributes.definition_conflicts() {
            errors.push(syn::Error::new(
                span,
                format!(
                    "`{key}` cannot be combined with `definition`: the definition function \
                     gives the whole definition; set `{key}` there, or remove `definition`"
                ),
            ));
        }
        errors.finish()?;
        let Some(fields) = fields else {
            // Unreachable in practice: `None` only after an error was recorded.
            return Err(syn::Error::new(
                input.ident.span(),
                "#[derive(Tool)] failed",
            ));
        };
        let runtime = runtime(attributes.krate.clone());
        return Ok(expand_with_definition(input, fields, &runtime, &definition));
    }
    let name = tool_name(input, &attributes, &mut errors);
    let description = description(input, &attributes, &mut errors);
    errors.finish()?;
    let (Some(fields), Some(name)) = (fields, name) else {
        // Unreachable in practice: both are `None` only after an error was recorded.
        return Err(syn::Error::new(
            input.ident.span(),
            "#[derive(Tool)] failed",
        ));
    };

    let runtime = runtime(attributes.krate.clone());
    let ident = &input.ident;
    let spec = spec(&runtime, &name, &description, &attributes);
    let definition = quote! {
        fn definition() -> #runtime::ToolDefinition {
            #spec.into_definition::<#ident>()
        }
    };
    Ok(mirror(
        input,
        fields,
        &runtime,
        Mirror::WithSchema,
        definition,
    ))
}

/// `#[tool(definition = path)]`: the definition is what `path()` returns, kept as it is
/// (`COMPLETE_DEFINITION`); the arguments are read with serde only (no schemars schema).
fn expand_with_definition(
    input: &DeriveInput,
    fields: &FieldsNamed,
    runtime: &Path,
    definition: &Path,
) -> TokenStream {
    let ident = &input.ident;
    // Inside the block the mirror shadows the struct's name: `Struct::f` must name the user's
    // struct (`Self::f` does already, in the impl).
    let mut definition = definition.clone();
    if definition.leading_colon.is_none()
        && definition.segments.len() > 1
        && definition.segments[0].ident == *ident
    {
        definition.segments[0].ident = syn::Ident::new("__ToolforgeArguments", ident.span());
    }
    let definition = quote! {
        const COMPLETE_DEFINITION: bool = true;

        fn definition() -> #runtime::ToolDefinition {
            #definition()
        }
    };
    mirror(input, fields, runtime, Mirror::SerdeOnly, definition)
}

/// What the private mirror of the arguments struct derives.
#[derive(Clone, Copy, PartialEq)]
enum Mirror {
    /// serde and schemars: the input schema comes from the fields.
    WithSchema,
    /// serde only: the definition comes from elsewhere.
    SerdeOnly,
}

/// The expansion around a `ToolArgs` impl: a private mirror of the user's struct deriving serde
/// (and schemars) through the runtime's re-exports, named alike so that the schema title and
/// serde's messages use the user's name, a `From` into the user's struct, and the impl with
/// `definition_items` and `from_arguments`. The alias, declared in an outer block, names the
/// user's struct inside the inner block where the mirror shadows it.
fn mirror(
    input: &DeriveInput,
    fields: &FieldsNamed,
    runtime: &Path,
    kind: Mirror,
    definition_items: TokenStream,
) -> TokenStream {
    let ident = &input.ident;
    let with_schema = kind == Mirror::WithSchema;
    let kept = |attr: &syn::Attribute| {
        let path = attr.path();
        path.is_ident("serde") || (with_schema && path.is_ident("schemars"))
    };
    let serde_crate = path_string(runtime, "::__private::serde");
    let (derives, schemars_attr) = if with_schema {
        let schemars_crate = path_string(runtime, "::__private::schemars");
        (
            quote!(#runtime::__private::serde::Deserialize, #runtime::__private::schemars::JsonSchema),
            quote!(#[schemars(crate = #schemars_crate)]),
        )
    } else {
        (quote!(#runtime::__private::serde::Deserialize), quote!())
    };
    let container_attrs = input
        .attrs
        .iter()
        .filter(|attr| kept(attr) && !is_crate_only(attr));
    let mirror_fields = fields.named.iter().map(|field| {
        let attrs = field
            .attrs
            .iter()
            .filter(|attr| kept(attr) || (with_schema && attr.path().is_ident("doc")));
        let field_ident = &field.ident;
        let ty = &field.ty;
        quote!(#(#attrs)* #field_ident: #ty)
    });
    let field_idents: Vec<_> = fields.named.iter().map(|field| &field.ident).collect();
    quote! {
        const _: () = {
            type __ToolforgeArguments = #ident;

            const _: () = {
                #[derive(#derives)]
                #[serde(crate = #serde_crate)]
                #schemars_attr
                #(#container_attrs)*
                struct #ident {
                    #(#mirror_fields,)*
                }

                #[automatically_derived]
                impl ::core::convert::From<#ident> for __ToolforgeArguments {
                    fn from(arguments: #ident) -> Self {
                        Self {
                            #(#field_idents: arguments.#field_idents,)*
                        }
                    }
                }

                #[automatically_derived]
                impl #runtime::ToolArgs for __ToolforgeArguments {
                    #definition_items

                    fn from_arguments(
                        arguments: #runtime::__private::serde_json::Value,
                    ) -> ::core::result::Result<Self, #runtime::ToolError> {
                        ::core::result::Result::map(
                            #runtime::deserialize_arguments::<#ident>(arguments),
                            <Self as ::core::convert::From<#ident>>::from,
                        )
                    }
                }
            };
        };
    }
}

/// `#[serde(crate = "...")]` (or `#[schemars(crate = "...")]`) alone: meant for the user's own
/// serde derives; the mirror names its own crate paths, and a second `crate` would clash.
fn is_crate_only(attr: &syn::Attribute) -> bool {
    attr.parse_args_with(|input: syn::parse::ParseStream<'_>| {
        input.parse::<syn::Token![crate]>()?;
        input.parse::<syn::Token![=]>()?;
        input.parse::<LitStr>()
    })
    .is_ok()
}

/// The `DeriveSpec` literal.
fn spec(runtime: &Path, name: &str, description: &DocText, attrs: &ToolAttributes) -> TokenStream {
    let title = option(attrs.title.as_ref().map(ToTokens::to_token_stream));
    let description = description.to_expression();
    let flag = |flag: &Option<bool>| option(flag.map(|flag| flag.to_token_stream()));
    let read_only = flag(&attrs.read_only);
    let destructive = flag(&attrs.destructive);
    let idempotent = flag(&attrs.idempotent);
    let open_world = flag(&attrs.open_world);
    let capabilities = &attrs.capabilities;
    let keywords = &attrs.keywords;
    quote! {
        #runtime::__private::DeriveSpec {
            name: #name,
            title: #title,
            description: #description,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
            capabilities: &[#(#capabilities),*],
            keywords: &[#(#keywords),*],
        }
    }
}

fn option(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// The named fields, or an error saying why this item cannot be a tool's arguments.
fn named_fields<'a>(input: &'a DeriveInput, errors: &mut Errors) -> Option<&'a FieldsNamed> {
    if input.generics.lt_token.is_some() || input.generics.where_clause.is_some() {
        errors.push(syn::Error::new_spanned(
            &input.generics,
            "#[derive(Tool)] does not support generic structs: a tool has one fixed input \
             schema, so use concrete field types",
        ));
    }
    let ident = &input.ident;
    match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => return Some(fields),
            Fields::Unnamed(fields) => errors.push(syn::Error::new(
                fields.span(),
                format!(
                    "#[derive(Tool)] does not support tuple structs: name the fields, they \
                     become the argument names (`struct {ident} {{ query: String }}`)"
                ),
            )),
            Fields::Unit => errors.push(syn::Error::new(
                ident.span(),
                format!(
                    "#[derive(Tool)] does not support unit structs: a tool without arguments \
                     is a struct with empty braces (`struct {ident} {{}}`)"
                ),
            )),
        },
        Data::Enum(data) => errors.push(syn::Error::new(
            data.enum_token.span(),
            "#[derive(Tool)] does not support enums: a tool's arguments are a JSON object, so \
             derive it on a struct with named fields (an enum can be the type of a field)",
        )),
        Data::Union(data) => errors.push(syn::Error::new(
            data.union_token.span(),
            "#[derive(Tool)] does not support unions: derive it on a struct with named fields",
        )),
    }
    None
}

/// `#[tool]` belongs on the struct; on a field it would be silently ignored.
fn reject_field_attributes(fields: &FieldsNamed, errors: &mut Errors) {
    for field in &fields.named {
        for attr in field
            .attrs
            .iter()
            .filter(|attr| attr.path().is_ident("tool"))
        {
            errors.push(syn::Error::new_spanned(
                attr,
                "`#[tool(...)]` goes on the struct, not on a field; describe a field with a doc \
                 comment, and rename it with `#[serde(rename = \"...\")]`",
            ));
        }
    }
}

/// The checked tool name: `#[tool(name)]` or the snake_case of the struct name.
fn tool_name(input: &DeriveInput, attrs: &ToolAttributes, errors: &mut Errors) -> Option<String> {
    let (name, span, origin) = match &attrs.name {
        Some(lit) => (lit.value(), lit.span(), String::new()),
        None => (
            tool_name::default_name(&input.ident),
            input.ident.span(),
            format!(
                "; it is the snake_case of `{}`: choose another with #[tool(name = \"...\")]",
                input.ident
            ),
        ),
    };
    match toolforge_names::validate_tool_name(&name) {
        Ok(()) => Some(name),
        Err(error) => {
            errors.push(syn::Error::new(span, format!("{error}{origin}")));
            None
        }
    }
}

/// The description: `#[tool(description)]`, else the doc comment; one of them is required.
fn description(input: &DeriveInput, attrs: &ToolAttributes, errors: &mut Errors) -> DocText {
    if let Some(lit) = &attrs.description {
        let text = lit.value().trim().to_owned();
        if text.is_empty() {
            errors.push(syn::Error::new(
                lit.span(),
                "`description` must not be empty: say what the tool does, for the model",
            ));
        }
        return DocText::Text(text);
    }
    let doc = DocText::of(&input.attrs);
    if matches!(doc, DocText::Missing) {
        errors.push(syn::Error::new(
            input.ident.span(),
            format!(
                "tool `{}` needs a description, written for the model: add a doc comment \
                 (`/// Searches ...`) to the struct, or #[tool(description = \"...\")]",
                input.ident
            ),
        ));
    }
    doc
}

/// The impl emitted next to compile errors: it keeps every use of the tool compiling, so the
/// errors above are the only ones. Its bodies never run (the crate does not compile).
fn placeholder(input: &DeriveInput) -> TokenStream {
    // An unreadable `crate` key: no path to name the runtime by.
    let Some(explicit) = crate::attributes::crate_override(&input.attrs) else {
        return TokenStream::new();
    };
    let runtime = runtime_path(explicit);
    placeholder_with(input, &runtime)
}

pub(crate) fn placeholder_with(input: &DeriveInput, runtime: &Path) -> TokenStream {
    let ident = &input.ident;
    let mut generics = input.generics.clone();
    generics
        .make_where_clause()
        .predicates
        .push(parse_quote!(Self: ::core::marker::Send + 'static));
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let name = LitStr::new("", ident.span());
    let spec = spec(
        runtime,
        &name.value(),
        &DocText::Missing,
        &ToolAttributes::default(),
    );
    quote! {
        #[automatically_derived]
        impl #impl_generics #runtime::ToolArgs for #ident #type_generics #where_clause {
            fn definition() -> #runtime::ToolDefinition {
                #spec.into_definition::<#runtime::__private::serde_json::Value>()
            }

            fn from_arguments(
                _: #runtime::__private::serde_json::Value,
            ) -> ::core::result::Result<Self, #runtime::ToolError> {
                ::core::result::Result::Err(#runtime::__private::derive_failed())
            }
        }
    }
}
