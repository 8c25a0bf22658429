//! Per database tool: a typed argument struct (entity, field and relationship names as enums)
//! with a `call` that runs the registered engine tool.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use toolforge::spec::{SchemaSpec, ToolFamily};

/// A string enum: config names as serde renames, `as_str`, `ALL`. `names` pairs each config
/// name with its variant's doc text.
fn name_enum(name: &str, doc: &str, named: &[(String, String)]) -> TokenStream {
    let ty = super::names::ident(name);
    let names: Vec<&String> = named.iter().map(|(name, _)| name).collect();
    let docs: Vec<String> = named.iter().map(|(_, doc)| format!(" {doc}")).collect();
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
            #( #[doc = #docs] #[serde(rename = #names)] #variants, )*
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

        impl ::core::convert::From<#ty> for String {
            fn from(name: #ty) -> String {
                name.as_str().to_owned()
            }
        }
    }
}

/// A typed database tool: the arguments struct, deriving `Tool` with the engine's definition,
/// and a handler that runs the engine's tool.
fn args_struct(ty: &str, tool: &str, doc: &str, fields: TokenStream, prefix: &str) -> TokenStream {
    let kind = super::names::ident(&super::names::camel(tool));
    let ty = super::names::ident(ty);
    let name = format!("{prefix}{tool}");
    let doc = format!(" The `{name}` tool, typed: {doc}");
    let doc_more = " Its definition is the engine's; a call runs the engine's tool over the \
                    embedded spec and the `Database` of the call context.";
    quote! {
        #[doc = #doc]
        #[doc = #doc_more]
        #[derive(Debug, Clone, PartialEq, ::toolforge::serde::Serialize, ::toolforge::Tool)]
        #[serde(crate = "::toolforge::serde")]
        #[serde(deny_unknown_fields)]
        #[tool(definition = Self::engine_definition, crate = "::toolforge")]
        pub struct #ty {
            #fields
        }

        impl #ty {
            /// The registered name of this tool.
            pub const TOOL: &'static str = #name;

            /// The engine tool this one runs.
            pub const ENGINE_TOOL: ::toolforge::sql::tools::DatabaseTool = ::toolforge::sql::tools::DatabaseTool::#kind;

            /// The engine's definition of the tool for the embedded spec.
            pub fn engine_definition() -> ::toolforge::ToolDefinition {
                Self::ENGINE_TOOL.definition(super::spec())
            }

            /// Runs the tool through `registry`, exactly as a model's call would.
            pub async fn call(&self, registry: &::toolforge::ToolRegistry) -> ::toolforge::ToolResult {
                ::toolforge::sql::records::call_tool(registry, Self::TOOL, self).await
            }
        }

        impl ::toolforge::ToolHandler for #ty {
            type Output = ::toolforge::serde_json::Value;

            async fn run(self, context: &::toolforge::ToolContext) -> ::toolforge::ToolResult {
                ::toolforge::sql::records::run_database_tool(super::spec(), Self::ENGINE_TOOL, &self, context).await
            }
        }
    }
}

/// The names of the typed tool structs the spec's families ask for, in the engine's order.
pub(crate) fn tool_types(spec: &SchemaSpec) -> Vec<Ident> {
    let mut types = Vec::new();
    let mut seen = Vec::new();
    for family in &spec.tools.families {
        if seen.contains(family) {
            continue;
        }
        seen.push(*family);
        let names: &[&str] = match family {
            ToolFamily::Schema => &["GetSchemaArgs", "DescribeEntityArgs"],
            ToolFamily::Query => &["QueryEntitiesArgs", "GlobSearchArgs"],
            ToolFamily::Lookup => &["GetEntityByIdArgs", "GetEntitiesByIdsArgs"],
            ToolFamily::Relationships if !spec.relationships.is_empty() => {
                &["ExploreRelationshipsArgs"]
            }
            ToolFamily::Relationships => &[],
        };
        types.extend(names.iter().map(|name| super::names::ident(name)));
    }
    types
}

/// The `tools` module.
pub(crate) fn tools_module(spec: &SchemaSpec) -> TokenStream {
    let entities: Vec<(String, String)> = spec
        .entities
        .iter()
        .map(|e| {
            let doc = match &e.description {
                Some(description) => format!("`{}`: {description}", e.name),
                None => format!("The entity `{}`.", e.name),
            };
            (e.name.clone(), doc)
        })
        .collect();
    // Each field name once, with the entities that have it.
    let mut fields: Vec<(String, Vec<&str>)> = Vec::new();
    for entity in &spec.entities {
        let names = entity
            .fields
            .iter()
            .map(|f| &f.name)
            .chain(entity.computed_fields.iter().map(|c| &c.name));
        for name in names {
            match fields.iter_mut().find(|(known, _)| known == name) {
                Some((_, owners)) => owners.push(&entity.name),
                None => fields.push((name.clone(), vec![&entity.name])),
            }
        }
    }
    let fields: Vec<(String, String)> = fields
        .into_iter()
        .map(|(name, owners)| {
            let doc = format!("The field `{name}` (of {}).", owners.join(", "));
            (name, doc)
        })
        .collect();
    let mut relationships: Vec<(String, Vec<String>)> = Vec::new();
    for rel in &spec.relationships {
        let arrow = format!("`{} -[{}]-> {}`", rel.source, rel.rel_type, rel.target);
        match relationships
            .iter_mut()
            .find(|(known, _)| *known == rel.rel_type)
        {
            Some((_, arrows)) => arrows.push(arrow),
            None => relationships.push((rel.rel_type.clone(), vec![arrow])),
        }
    }
    let relationships: Vec<(String, String)> = relationships
        .into_iter()
        .map(|(name, arrows)| {
            let doc = format!("The relationship {}.", arrows.join(", "));
            (name, doc)
        })
        .collect();
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
        #[derive(Debug, Clone, PartialEq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize)]
        #[serde(crate = "::toolforge::serde", deny_unknown_fields)]
        pub struct Condition {
            /// A field or computed field of the entity (`FieldName::X.into()`). A string, as in
            /// the engine's schema, so that a wrong name gets the engine's did-you-mean answer.
            pub field: String,
            /// The comparison.
            pub operator: ::toolforge::sql::query::Operator,
            /// The value to compare with (an array for `IN`; absent reads as `null`).
            #[serde(default)]
            pub value: ::toolforge::serde_json::Value,
        }

        /// The sort order of `query_entities`.
        #[derive(Debug, Clone, PartialEq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize)]
        #[serde(crate = "::toolforge::serde", deny_unknown_fields)]
        pub struct OrderBy {
            /// A field or computed field to sort by (`FieldName::X.into()`).
            pub field: String,
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
                        #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "::toolforge::sql::tools::optional_integer")]
                        pub limit: Option<i64>,
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
                        /// The field matched against the pattern (`FieldName::X.into()`).
                        pub field: String,
                        /// The glob pattern (`*`, `?`, `[...]`).
                        pub pattern: String,
                        /// The most records to return.
                        #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "::toolforge::sql::tools::optional_integer")]
                        pub limit: Option<i64>,
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
                        /// The fields to return (default: all; `FieldName::X.into()`).
                        #[serde(default, skip_serializing_if = "Option::is_none")]
                        pub fields: Option<Vec<String>>,
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
                    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize)]
                    #[serde(crate = "::toolforge::serde", rename_all = "lowercase")]
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
                        #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "::toolforge::sql::tools::optional_integer")]
                        pub limit: Option<i64>,
                    },
                    prefix,
                ));
            }
            ToolFamily::Relationships => {}
        }
    }
    quote! {
        /// The database tools, typed: per tool an arguments struct deriving `Tool` with the
        /// engine's definition (entity and relationship names are enums there) and a handler
        /// that runs the engine's tool, so the registered tools answer exactly as the engine's.
        /// Entity, field and relationship names are enums here too; `call` runs a tool through
        /// a registry, the same call as a model's.
        #[allow(dead_code)]
        pub mod tool_args {
            #( #items )*
        }
    }
}
