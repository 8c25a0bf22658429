//! The `tool_args` module: the config's entity, field and relationship names as enums, and per
//! database tool an alias of the runtime's argument struct instantiated with them. The structs
//! themselves (fields, schema, handler) are defined once, in the runtime.

use proc_macro2::TokenStream;
use quote::quote;
use toolforge::spec::SchemaSpec;

use super::argument_types::NamedType;

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
    ($($variant:ident: $name:literal, $family:ident, $($module:ident)::+, $args:ident<$($param:ident),+>, $needs:ident;)*) => {
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

/// The runtime's types the arguments of `tool` name (its argument struct first), each with
/// its name parameters, from the list generated from the runtime's derives.
fn argument_types(tool: &str) -> &'static [NamedType] {
    super::argument_types::TOOL_ARGUMENT_TYPES
        .iter()
        .find(|(name, _)| *name == tool)
        .map_or(&[], |(_, types)| *types)
}

/// The types the typed query API takes whatever the tools (those of `query_entities`'s
/// conditions and order), so a module keeps them when its config turns that tool off.
const QUERY_TYPES: &[&str] = &["Condition", "Operator", "OrderBy", "Direction"];

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

    });
    let relationship_names = if relationships.is_empty() {
        quote!(::std::string::String)
    } else {
        quote!(RelationshipName)
    };
    let name_type = |param: &str| match param {
        "E" => quote!(EntityName),
        "F" => quote!(FieldName),
        _ => relationship_names.clone(),
    };
    // The types the arguments name, each once, in the order the tools first name them.
    let mut named: Vec<NamedType> = argument_types("query_entities")
        .iter()
        .filter(|(name, _)| QUERY_TYPES.contains(name))
        .copied()
        .collect();
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
        for (name, params) in argument_types(tool.tool) {
            if *name != tool.ty && !named.iter().any(|(known, _)| known == name) {
                named.push((name, params));
            }
        }
    }
    for (name, params) in named {
        let ident = super::names::ident(name);
        if params.is_empty() {
            items.push(quote! {
                #[allow(unused_imports)]
                pub use ::toolforge::sql::tools::#ident;
            });
        } else {
            let doc = format!(" The runtime's `{name}` with this config's names.");
            let params = params.iter().map(|param| name_type(param));
            items.push(quote! {
                #[doc = #doc]
                pub type #ident = ::toolforge::sql::tools::#ident<#(#params),*>;
            });
        }
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
