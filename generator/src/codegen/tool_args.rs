//! The `tool_args` module: the config's entity, field and relationship names as enums, and per
//! database tool an alias of the runtime's argument struct instantiated with them. The structs
//! themselves (fields, schema, handler) are defined once, in the runtime.

use proc_macro2::TokenStream;
use quote::quote;
use toolforge::spec::SchemaSpec;

/// A name enum (`EntityName`, `FieldName`, `RelationshipName`): a string enum of config names
/// that the runtime's argument structs take as names.
fn name_enum(name: &str, doc: &str, named: &[(String, String)]) -> TokenStream {
    let ty = super::names::ident(name);
    let items = super::string_enum::string_enum(&ty, doc, named);
    quote! {
        #items

        impl ::toolforge::sql::tools::ArgName for #ty {
            fn as_name(&self) -> &str {
                self.as_str()
            }
        }
    }
}

/// A database tool as the `tool_args` module names it: the runtime's argument struct (the
/// alias has the same name), the tool's name, and which name enums the struct takes.
struct ToolAlias {
    ty: &'static str,
    tool: &'static str,
    names: NameParams,
}

/// The name enums an argument struct is generic over.
#[derive(Clone, Copy)]
enum NameParams {
    Entity,
    EntityField,
    EntityFieldRelationship,
    EntityRelationship,
}

/// The name enums of an argument struct's parameters, as the table of tools writes them.
macro_rules! name_params {
    (E) => {
        NameParams::Entity
    };
    (E, F) => {
        NameParams::EntityField
    };
    (E, F, R) => {
        NameParams::EntityFieldRelationship
    };
    (E, R) => {
        NameParams::EntityRelationship
    };
}

/// Every database tool, in the engine's order, from the runtime's one table of tools.
macro_rules! tool_aliases {
    ($($variant:ident: $name:literal, $family:ident, $($module:ident)::+, $args:ident<$($param:ident),+>;)*) => {
        const TOOLS: &[ToolAlias] = &[$(ToolAlias {
            ty: stringify!($args),
            tool: $name,
            names: name_params!($($param),+),
        }),*];
    };
}
toolforge::__private::database_tool_table!(tool_aliases);

/// The tools the spec builds ([`SchemaSpec::database_tool_names`]), in the engine's order.
fn planned_tools(spec: &SchemaSpec) -> Vec<&'static ToolAlias> {
    spec.database_tool_names()
        .into_iter()
        .filter_map(|name| TOOLS.iter().find(|tool| tool.tool == name))
        .collect()
}

/// The runtime's enums the arguments of `tool` take, re-exported next to its alias.
fn argument_enums(tool: &str) -> &'static [&'static str] {
    match tool {
        "explore_relationships" => &["TraversalDirection"],
        "query_entities_by_pattern" => &["PatternType"],
        "find_recently_modified_entities" => &["ChangeType"],
        "get_change_statistics" => &["Bucket"],
        "aggregate_entities" => &[
            "Aggregation",
            "AggregateOrder",
            "Along",
            "Bucket",
            "TraversalDirection",
        ],
        "find_path" => &["PathEnd", "TraversalDirection"],
        "rank_entities" => &["RankAlgorithm", "TraversalDirection"],
        _ => &[],
    }
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
        impl ::toolforge::sql::tools::EmbeddedSpec for EntityName {
            fn spec() -> &'static ::std::sync::Arc<::toolforge::spec::SchemaSpec> {
                super::spec()
            }
        }

        /// One condition of `query_entities` / `explore_relationships`, on a `FieldName`.
        pub type Condition = ::toolforge::sql::tools::Condition<FieldName>;
        /// The sort order of `query_entities`, on a `FieldName`.
        pub type OrderBy = ::toolforge::sql::tools::OrderBy<FieldName>;
        #[allow(unused_imports)]
        pub use ::toolforge::sql::tools::{Direction, Operator};
    });
    let relationship_names = if relationships.is_empty() {
        quote!(::std::string::String)
    } else {
        quote!(RelationshipName)
    };
    let mut enums: Vec<&str> = Vec::new();
    for tool in planned_tools(spec) {
        let ty = super::names::ident(tool.ty);
        let doc = format!(
            " The arguments of `{prefix}{}`, with this config's names.",
            tool.tool
        );
        let params = match tool.names {
            NameParams::Entity => quote!(EntityName),
            NameParams::EntityField => quote!(EntityName, FieldName),
            NameParams::EntityFieldRelationship => {
                quote!(EntityName, FieldName, #relationship_names)
            }
            NameParams::EntityRelationship => quote!(EntityName, #relationship_names),
        };
        items.push(quote! {
            #[doc = #doc]
            pub type #ty = ::toolforge::sql::tools::#ty<#params>;
        });
        for name in argument_enums(tool.tool) {
            if !enums.contains(name) {
                enums.push(name);
            }
        }
    }
    for name in enums {
        let name = super::names::ident(name);
        items.push(quote! {
            #[allow(unused_imports)]
            pub use ::toolforge::sql::tools::#name;
        });
    }
    quote! {
        /// The database tools' arguments with this config's names: the runtime's argument
        /// structs (one definition per tool) instantiated with the entity, field and
        /// relationship name enums below, so a misspelled name is a compile error. `call` runs
        /// one through a registry (the same call as a model's), `run` on the database of a
        /// call context.
        #[allow(dead_code)]
        pub mod tool_args {
            #( #items )*
        }
    }
}
