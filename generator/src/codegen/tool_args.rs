//! Per database tool: a typed argument struct (entity, field and relationship names as enums)
//! with a `call` that runs the registered engine tool.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use toolforge::spec::{SchemaSpec, ToolFamily};

/// A string enum: config names as serde renames, `as_str`, `ALL`.
fn name_enum(name: &str, doc: &str, names: &[String]) -> TokenStream {
    let ty = super::names::ident(name);
    let mut used = BTreeSet::new();
    let variants: Vec<Ident> = names
        .iter()
        .map(|config| {
            let base = super::names::camel(config);
            let mut candidate = base.clone();
            let mut n = 2;
            while !used.insert(candidate.clone()) {
                candidate = format!("{base}{n}");
                n += 1;
            }
            super::names::ident(&candidate)
        })
        .collect();
    let count = names.len();
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize, ::toolforge::schemars::JsonSchema)]
        #[serde(crate = "::toolforge::serde")]
        #[schemars(crate = "::toolforge::schemars")]
        pub enum #ty {
            #( #[serde(rename = #names)] #variants, )*
        }

        impl #ty {
            /// Every value, in config order.
            pub const ALL: [#ty; #count] = [ #( #ty::#variants ),* ];

            /// The name as written in the config.
            pub fn as_str(self) -> &'static str {
                match self {
                    #( #ty::#variants => #names, )*
                }
            }
        }
    }
}

fn args_struct(ty: &str, tool: &str, doc: &str, fields: TokenStream, prefix: &str) -> TokenStream {
    let ty = super::names::ident(ty);
    let name = format!("{prefix}{tool}");
    let doc = format!(" Typed arguments of `{name}`: {doc}");
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize, ::toolforge::schemars::JsonSchema)]
        #[serde(crate = "::toolforge::serde", deny_unknown_fields)]
        #[schemars(crate = "::toolforge::schemars")]
        pub struct #ty {
            #fields
        }

        impl #ty {
            /// The registered tool these arguments are for.
            pub const TOOL: &'static str = #name;

            /// Runs the tool through `registry`, exactly as a model's call would.
            pub async fn call(&self, registry: &::toolforge::ToolRegistry) -> ::toolforge::ToolResult {
                ::toolforge::sql::records::call_tool(registry, Self::TOOL, self).await
            }
        }
    }
}

/// The `tools` module.
pub(crate) fn tools_module(spec: &SchemaSpec) -> TokenStream {
    let entities: Vec<String> = spec.entities.iter().map(|e| e.name.clone()).collect();
    let mut fields: Vec<String> = Vec::new();
    for entity in &spec.entities {
        let names = entity
            .fields
            .iter()
            .map(|f| &f.name)
            .chain(entity.computed_fields.iter().map(|c| &c.name));
        for name in names {
            if !fields.contains(name) {
                fields.push(name.clone());
            }
        }
    }
    let mut relationships: Vec<String> = Vec::new();
    for rel in &spec.relationships {
        if !relationships.contains(&rel.rel_type) {
            relationships.push(rel.rel_type.clone());
        }
    }
    let prefix = spec.tools.name_prefix.as_str();
    let mut items = vec![
        name_enum("EntityName", " The entity types of the config.", &entities),
        name_enum(
            "FieldName",
            " Every stored and computed field name of every entity.",
            &fields,
        ),
    ];
    if !relationships.is_empty() {
        items.push(name_enum(
            "RelationshipName",
            " The relationship types of the config.",
            &relationships,
        ));
    }
    items.push(quote! {
        /// One condition of `query_entities` / `explore_relationships`.
        #[derive(Debug, Clone, PartialEq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize, ::toolforge::schemars::JsonSchema)]
        #[serde(crate = "::toolforge::serde", deny_unknown_fields)]
        #[schemars(crate = "::toolforge::schemars")]
        pub struct Condition {
            /// A field or computed field of the entity.
            pub field: FieldName,
            /// The comparison.
            pub operator: ::toolforge::sql::query::Operator,
            /// The value to compare with (an array for `IN`).
            pub value: ::toolforge::serde_json::Value,
        }

        /// The sort order of `query_entities`.
        #[derive(Debug, Clone, PartialEq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize, ::toolforge::schemars::JsonSchema)]
        #[serde(crate = "::toolforge::serde", deny_unknown_fields)]
        #[schemars(crate = "::toolforge::schemars")]
        pub struct OrderBy {
            /// A field or computed field to sort by.
            pub field: FieldName,
            /// ASC (default) or DESC.
            #[serde(default)]
            pub direction: ::toolforge::sql::query::Direction,
        }
    });
    let mut seen = Vec::new();
    for family in &spec.tools.families {
        if seen.contains(family) {
            continue;
        }
        seen.push(*family);
        match family {
            ToolFamily::Schema => {
                items.push(args_struct(
                    "GetSchemaArgs",
                    "get_schema",
                    "the whole schema.",
                    quote! {
                        /// Include usage tips (default true).
                        #[serde(default, skip_serializing_if = "Option::is_none")]
                        pub include_tips: Option<bool>,
                    },
                    prefix,
                ));
                items.push(args_struct(
                    "DescribeEntityArgs",
                    "describe_entity",
                    "one entity type in detail.",
                    quote! {
                        /// The entity type to describe.
                        pub entity_name: EntityName,
                    },
                    prefix,
                ));
            }
            ToolFamily::Query => {
                items.push(args_struct(
                    "QueryEntitiesArgs",
                    "query_entities",
                    "records matching conditions.",
                    quote! {
                        /// The entity type to query.
                        pub entity_type: EntityName,
                        /// Conditions, all of which must hold.
                        #[serde(default, skip_serializing_if = "Vec::is_empty")]
                        pub conditions: Vec<Condition>,
                        /// Sort order.
                        #[serde(default, skip_serializing_if = "Option::is_none")]
                        pub order_by: Option<OrderBy>,
                        /// The most records to return.
                        #[serde(default, skip_serializing_if = "Option::is_none")]
                        pub limit: Option<u32>,
                    },
                    prefix,
                ));
                items.push(args_struct(
                    "GlobSearchArgs",
                    "glob_search",
                    "records whose field matches a glob pattern.",
                    quote! {
                        /// The entity type to search.
                        pub entity_type: EntityName,
                        /// The field matched against the pattern.
                        pub field: FieldName,
                        /// The glob pattern (`*`, `?`, `[...]`).
                        pub pattern: String,
                        /// The most records to return.
                        #[serde(default, skip_serializing_if = "Option::is_none")]
                        pub limit: Option<u32>,
                    },
                    prefix,
                ));
            }
            ToolFamily::Lookup => {
                items.push(args_struct(
                    "GetEntityByIdArgs",
                    "get_entity_by_id",
                    "one record by its unique field.",
                    quote! {
                        /// The entity type.
                        pub entity_type: EntityName,
                        /// The value of the unique field.
                        pub id_value: String,
                    },
                    prefix,
                ));
                items.push(args_struct(
                    "GetEntitiesByIdsArgs",
                    "get_entities_by_ids",
                    "several records by their unique field.",
                    quote! {
                        /// The entity type.
                        pub entity_type: EntityName,
                        /// The unique-field values.
                        pub ids: Vec<String>,
                        /// The fields to return (default: all).
                        #[serde(default, skip_serializing_if = "Option::is_none")]
                        pub fields: Option<Vec<FieldName>>,
                        /// Also return each record's children (hierarchical entities).
                        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
                        pub with_children: bool,
                    },
                    prefix,
                ));
            }
            ToolFamily::Relationships if !relationships.is_empty() => {
                items.push(quote! {
                    /// Which edges `explore_relationships` follows.
                    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize, ::toolforge::schemars::JsonSchema)]
                    #[serde(crate = "::toolforge::serde", rename_all = "lowercase")]
                    #[schemars(crate = "::toolforge::schemars")]
                    pub enum TraversalDirection {
                        /// From the start records along outgoing edges.
                        Outgoing,
                        /// Along incoming edges.
                        Incoming,
                        /// Both ways (the default).
                        #[default]
                        Both,
                    }
                });
                items.push(args_struct(
                    "ExploreRelationshipsArgs",
                    "explore_relationships",
                    "records linked to the start records.",
                    quote! {
                        /// The entity type to start from.
                        pub start_entity_type: EntityName,
                        /// Conditions selecting the start records.
                        #[serde(default, skip_serializing_if = "Vec::is_empty")]
                        pub start_conditions: Vec<Condition>,
                        /// The relationship to follow.
                        pub relationship_type: RelationshipName,
                        /// Which way to follow it.
                        #[serde(default)]
                        pub direction: TraversalDirection,
                        /// Only this target entity type.
                        #[serde(default, skip_serializing_if = "Option::is_none")]
                        pub target_entity_type: Option<EntityName>,
                        /// The most records to return.
                        #[serde(default, skip_serializing_if = "Option::is_none")]
                        pub limit: Option<u32>,
                    },
                    prefix,
                ));
            }
            ToolFamily::Relationships => {}
        }
    }
    quote! {
        /// Typed arguments of the database tools, with entity, field and relationship names as
        /// enums. `call` runs the registered tool, so a typed call and a model's call are the
        /// same call.
        #[allow(dead_code)]
        pub mod tool_args {
            #( #items )*
        }
    }
}
