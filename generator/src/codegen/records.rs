//! Per entity: the typed record struct, its field enum, and thin typed helpers over
//! `toolforge::sql::records` (query, get, upsert, relationship traversal and links).

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;
use toolforge::spec::{EntitySpec, FieldSpec, FieldType, SchemaSpec, ValueType};

use super::error::CodegenError;
use super::names::{camel, field_ident, ident, snake, type_ident};

/// The name of an entity's field enum (`Scope` → `ScopeField`), a valid identifier.
pub(crate) fn field_enum_name(entity: &EntitySpec) -> String {
    ident(&format!("{}Field", camel(&entity.name))).to_string()
}

/// The Rust enum of an enum field with listed values (`Book.genre` → `BookGenre`), or `None`
/// for a field that is not such an enum.
fn value_enum_name(entity: &EntitySpec, field: &FieldSpec) -> Option<String> {
    (field.ty == FieldType::Enum && !field.values.is_empty())
        .then(|| ident(&format!("{}{}", camel(&entity.name), camel(&field.name))).to_string())
}

/// What a Rust type the records module declares for an entity is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypeRole<'s> {
    /// The record struct (`Book`).
    Record,
    /// The field enum (`BookField`).
    FieldEnum,
    /// The enum of the values of this `enum` field (`BookGenre`).
    ValueEnum(&'s str),
}

/// Every Rust type name the records module declares for `entity`, with what it is for.
pub(crate) fn type_names(entity: &EntitySpec) -> Vec<(String, TypeRole<'_>)> {
    let mut names = vec![
        (type_ident(&entity.name).to_string(), TypeRole::Record),
        (field_enum_name(entity), TypeRole::FieldEnum),
    ];
    names.extend(
        entity
            .fields
            .iter()
            .filter(|field| field.name != entity.unique_field)
            .filter_map(|field| {
                value_enum_name(entity, field).map(|name| (name, TypeRole::ValueEnum(&field.name)))
            }),
    );
    names
}

fn doc(text: &str) -> TokenStream {
    let text = crate::output::escape_invisible(text, true);
    let lines: Vec<String> = text
        .lines()
        .map(|line| format!(" {}", line.trim_end()))
        .collect();
    quote! { #( #[doc = #lines] )* }
}

fn stored_type(ty: FieldType) -> TokenStream {
    match ty {
        FieldType::String | FieldType::Datetime | FieldType::Enum => quote!(::std::string::String),
        FieldType::Number => quote!(f64),
        FieldType::Integer => quote!(i64),
        FieldType::Boolean => quote!(bool),
        FieldType::StringArray => quote!(::std::vec::Vec<::std::string::String>),
        FieldType::NumberArray => quote!(::std::vec::Vec<f64>),
        FieldType::Point => quote!(::toolforge::sql::places::Point),
    }
}

/// The serde attributes of an optional record field; number fields go through
/// `records::number::serialize` so whole values are written as JSON integers. (A missing
/// `Option` field reads as `None` without `default`; with it, schemars' derive would name
/// `serde` directly for the default of a `serialize_with` field, which a crate depending on
/// `toolforge` alone does not have.)
fn optional_serde(config: &str, number: bool) -> TokenStream {
    if number {
        quote! {
            #[serde(rename = #config, skip_serializing_if = "::core::option::Option::is_none",
                serialize_with = "::toolforge::sql::records::number::serialize")]
        }
    } else {
        quote! {
            #[serde(rename = #config, default, skip_serializing_if = "::core::option::Option::is_none")]
        }
    }
}

fn value_type_name(ty: ValueType) -> &'static str {
    match ty {
        ValueType::String => "string",
        ValueType::Datetime => "datetime",
        ValueType::Number => "number",
        ValueType::Boolean => "boolean",
    }
}

fn computed_type(ty: ValueType) -> TokenStream {
    match ty {
        ValueType::String | ValueType::Datetime => quote!(::std::string::String),
        ValueType::Number => quote!(f64),
        ValueType::Boolean => quote!(bool),
    }
}

/// The `records` module: one struct and one field enum per entity.
pub(crate) fn records_module(spec: &SchemaSpec) -> Result<TokenStream, CodegenError> {
    let mut type_names = BTreeSet::new();
    let mut items = Vec::new();
    for entity in &spec.entities {
        for (name, _) in self::type_names(entity) {
            if !type_names.insert(name.clone()) {
                return Err(CodegenError::NameCollision(format!(
                    "entity `{}` needs the Rust type name `{name}`, which another entity already uses; rename one of them",
                    entity.name
                )));
            }
        }
        items.push(entity_items(spec, entity));
    }
    Ok(quote! {
        /// Typed records: one struct and one field enum per entity, with typed queries.
        #[allow(dead_code)]
        pub mod records {
            /// Runs `f` in one write transaction: every upsert and link it makes through the
            /// writer is committed together, or none is. Returns `f`'s value and how much was written.
            pub fn write<T>(
                db: &::toolforge::sql::Database,
                f: impl FnOnce(&mut ::toolforge::sql::records::Writer<'_, '_, '_>) -> ::core::result::Result<T, ::toolforge::sql::ImportError>,
            ) -> ::core::result::Result<(T, ::toolforge::sql::ImportStats), ::toolforge::sql::ImportError> {
                ::toolforge::sql::records::write(db, super::spec(), f)
            }

            #( #items )*
        }
    })
}

fn entity_items(spec: &SchemaSpec, entity: &EntitySpec) -> TokenStream {
    let name = &entity.name;
    let ty = type_ident(name);
    let field_enum = ident(&field_enum_name(entity));
    let struct_doc = doc(&format!(
        "A `{name}` record{}",
        entity
            .description
            .as_deref()
            .map(|d| format!(": {d}"))
            .unwrap_or_else(|| ".".into())
    ));

    let mut fields = Vec::new();
    let mut variants = Vec::new();
    let mut value_enums = Vec::new();
    let mut id_ident = None;
    for field in &entity.fields {
        let config = &field.name;
        let rust = field_ident(config);
        let is_unique = field.name == entity.unique_field;
        let field_ty = match value_enum_name(entity, field).filter(|_| !is_unique) {
            Some(enum_name) => {
                let enum_ty = ident(&enum_name);
                let values: Vec<(String, String)> = field
                    .values
                    .iter()
                    .map(|value| (value.clone(), format!("`{value}`")))
                    .collect();
                let enum_doc = format!(" The values of `{name}.{config}`.");
                value_enums.push(super::string_enum::string_enum(
                    &enum_ty, &enum_doc, &values,
                ));
                quote!(#enum_ty)
            }
            None => stored_type(field.ty),
        };
        let description = field.description.clone().unwrap_or_default();
        let field_doc = doc(&format!(
            "`{config}` ({}{}){}{}",
            field.ty.config_name(),
            if is_unique { ", unique" } else { "" },
            if field.values.is_empty() {
                String::new()
            } else {
                format!(", one of: {}", field.values.join(", "))
            },
            if description.is_empty() {
                String::new()
            } else {
                format!(": {description}")
            }
        ));
        variants.push((config.clone(), type_ident(config), field_doc.clone()));
        if is_unique {
            id_ident = Some(rust.clone());
            let key_ty = match field.ty {
                FieldType::Integer => quote!(i64),
                _ => quote!(::std::string::String),
            };
            fields.push(quote! {
                #field_doc
                #[serde(rename = #config)]
                pub #rust: #key_ty,
            });
        } else {
            let serde = optional_serde(
                config,
                matches!(field.ty, FieldType::Number | FieldType::NumberArray),
            );
            fields.push(quote! {
                #field_doc
                #serde
                pub #rust: ::core::option::Option<#field_ty>,
            });
        }
    }
    for computed in &entity.computed_fields {
        let config = &computed.name;
        let rust = field_ident(config);
        let field_ty = computed_type(computed.ty);
        let field_doc = doc(&format!(
            "Computed, read-only: `{}`{}",
            computed.source,
            computed
                .description
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ));
        let serde = optional_serde(config, computed.ty == ValueType::Number);
        fields.push(quote! {
            #field_doc
            #serde
            pub #rust: ::core::option::Option<#field_ty>,
        });
        let variant_doc = doc(&format!(
            "`{config}` (computed, {}): `{}`{}",
            value_type_name(computed.ty),
            computed.source,
            computed
                .description
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ));
        variants.push((config.clone(), type_ident(config), variant_doc));
    }
    // The lowering always lists the unique field; fall back to a String field if not.
    let id_ident = id_ident.unwrap_or_else(|| {
        let rust = field_ident(&entity.unique_field);
        let config = &entity.unique_field;
        let field_doc = doc(&format!("`{config}` (string, unique)"));
        fields.insert(
            0,
            quote! {
                #field_doc
                #[serde(rename = #config)]
                pub #rust: ::std::string::String,
            },
        );
        variants.insert(0, (config.clone(), type_ident(config), field_doc));
        rust
    });

    let variant_idents: Vec<_> = variants.iter().map(|(_, v, _)| v.clone()).collect();
    let variant_names: Vec<_> = variants.iter().map(|(n, _, _)| n.clone()).collect();
    let variant_docs: Vec<_> = variants.iter().map(|(_, _, d)| d.clone()).collect();
    let count = variants.len();
    let enum_doc = doc(&format!(
        "The fields of `{name}` (stored, then computed), for queries and ordering."
    ));

    let relationship_fns = relationship_methods(spec, entity);
    // The key as the data has it: an integer key is an `i64` to `get`, and its decimal text
    // to the engine.
    let integer_key = entity.key_type() == FieldType::Integer;
    let (id_text, id_arg, id_key) = if integer_key {
        (
            quote!(::std::borrow::Cow::Owned(self.#id_ident.to_string())),
            quote!(i64),
            quote!(&id.to_string()),
        )
    } else {
        (
            quote!(::std::borrow::Cow::Borrowed(&self.#id_ident)),
            quote!(&str),
            quote!(id),
        )
    };

    quote! {
        #struct_doc
        #[derive(Debug, Clone, PartialEq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize, ::toolforge::schemars::JsonSchema)]
        #[serde(crate = "::toolforge::serde")]
        #[schemars(crate = "::toolforge::schemars")]
        pub struct #ty {
            #( #fields )*
        }

        #( #value_enums )*

        #enum_doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize, ::toolforge::schemars::JsonSchema)]
        #[serde(crate = "::toolforge::serde")]
        #[schemars(crate = "::toolforge::schemars")]
        pub enum #field_enum {
            #( #variant_docs #[serde(rename = #variant_names)] #variant_idents, )*
        }

        impl #field_enum {
            /// Every field, in config order.
            pub const ALL: [#field_enum; #count] = [ #( #field_enum::#variant_idents ),* ];

            /// The field's name in the config.
            pub fn as_str(self) -> &'static str {
                match self {
                    #( #field_enum::#variant_idents => #variant_names, )*
                }
            }
        }

        impl ::toolforge::sql::records::RecordField for #field_enum {
            fn as_str(self) -> &'static str {
                #field_enum::as_str(self)
            }
        }

        impl ::toolforge::sql::records::Record for #ty {
            const ENTITY: &'static str = #name;
            type Field = #field_enum;

            fn spec() -> &'static ::std::sync::Arc<::toolforge::spec::SchemaSpec> {
                super::spec()
            }

            fn id(&self) -> ::std::borrow::Cow<'_, str> {
                #id_text
            }
        }

        impl #ty {
            /// A typed query over these records.
            pub fn query() -> ::toolforge::sql::records::Query<#ty> {
                ::toolforge::sql::records::Query::new()
            }

            /// The record with this unique value, if any.
            pub async fn get(db: &::toolforge::sql::Database, id: #id_arg) -> ::core::result::Result<::core::option::Option<#ty>, ::toolforge::sql::RecordsError> {
                ::toolforge::sql::records::get(db, #id_key).await
            }

            /// Inserts or updates records by their unique field, in one transaction (to write
            /// several entities and edges in one, use `records::write`).
            pub fn upsert(db: &::toolforge::sql::Database, records: &[#ty]) -> ::core::result::Result<::toolforge::sql::ImportStats, ::toolforge::sql::ImportError> {
                ::toolforge::sql::records::upsert(db, records)
            }

            #( #relationship_fns )*
        }
    }
}

/// Traversal and link methods for each edge table touching the entity.
fn relationship_methods(spec: &SchemaSpec, entity: &EntitySpec) -> Vec<TokenStream> {
    let mut used = BTreeSet::new();
    let mut unique = |base: String| {
        let mut name = base.clone();
        let mut n = 2;
        while !used.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        ident(&name)
    };
    let mut out = Vec::new();
    for rel in &spec.relationships {
        let rel_type = &rel.rel_type;
        if rel.source == entity.name {
            let target = type_ident(&rel.target);
            let method = unique(format!("out_{}_{}", snake(rel_type), snake(&rel.target)));
            let link = unique(format!("link_{}_{}", snake(rel_type), snake(&rel.target)));
            let link_in = unique(format!("{link}_in"));
            let docs = doc(&format!(
                "The `{}` records this one points to: `{} -[{rel_type}]-> {}`.",
                rel.target, rel.source, rel.target
            ));
            let link_docs = doc(&format!(
                "Adds the edge `{} -[{rel_type}]-> {}` from this record to `to` (both must exist), in its own transaction.",
                rel.source, rel.target
            ));
            let link_in_docs = doc(&format!(
                "Adds the edge `{} -[{rel_type}]-> {}` from this record to `to` in the writer's transaction \
                 (see `records::write`; both records must exist when it ends).",
                rel.source, rel.target
            ));
            out.push(quote! {
                #docs
                pub async fn #method(&self, db: &::toolforge::sql::Database, limit: u32) -> ::core::result::Result<::std::vec::Vec<#target>, ::toolforge::sql::RecordsError> {
                    ::toolforge::sql::records::related::<Self, #target>(db, #rel_type, ::toolforge::sql::records::Follow::Outgoing, &::toolforge::sql::records::Record::id(self), limit).await
                }

                #link_docs
                pub fn #link(&self, db: &::toolforge::sql::Database, to: &#target) -> ::core::result::Result<::toolforge::sql::ImportStats, ::toolforge::sql::ImportError> {
                    ::toolforge::sql::records::link(db, #rel_type, self, to)
                }

                #link_in_docs
                pub fn #link_in(&self, writer: &mut ::toolforge::sql::records::Writer<'_, '_, '_>, to: &#target) -> ::core::result::Result<(), ::toolforge::sql::ImportError> {
                    writer.link(#rel_type, self, to)
                }
            });
        }
        if rel.target == entity.name {
            let source = type_ident(&rel.source);
            let method = unique(format!("in_{}_{}", snake(rel_type), snake(&rel.source)));
            let docs = doc(&format!(
                "The `{}` records pointing to this one: `{} -[{rel_type}]-> {}`.",
                rel.source, rel.source, rel.target
            ));
            out.push(quote! {
                #docs
                pub async fn #method(&self, db: &::toolforge::sql::Database, limit: u32) -> ::core::result::Result<::std::vec::Vec<#source>, ::toolforge::sql::RecordsError> {
                    ::toolforge::sql::records::related::<Self, #source>(db, #rel_type, ::toolforge::sql::records::Follow::Incoming, &::toolforge::sql::records::Record::id(self), limit).await
                }
            });
        }
    }
    out
}
