//! The `declared_tools` module: per tool declared in the config, an argument struct whose
//! fields are the tool's parameters (those the model gives; `from_context` ones come from the
//! call's context) plus `limit` and `offset`, with typed calls answering pages of the entity's
//! typed records. The tool itself (schema, checks, query) is the one the runtime builds from
//! the embedded spec.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;
use toolforge::spec::{DeclaredToolSpec, ParameterSpec, ParameterType, SchemaSpec};

use super::error::CodegenError;
use super::names::{camel, field_ident, ident, type_ident};

/// The `declared_tools` module, or nothing when the config declares no tool.
pub(crate) fn declared_tools_module(spec: &SchemaSpec) -> Result<TokenStream, CodegenError> {
    if spec.declared_tools.is_empty() {
        return Ok(TokenStream::new());
    }
    let mut type_names = BTreeSet::new();
    let mut items = Vec::new();
    for tool in &spec.declared_tools {
        items.push(tool_items(tool, &mut type_names)?);
    }
    Ok(quote! {
        /// The tools declared in the config, typed: one argument struct per tool (its
        /// parameters as fields), whose `call` runs it through a registry (as a model's call)
        /// and `run` on the database of a call context, both answering a page of the entity's
        /// typed records (or of rows, for a `sql:` tool).
        #[allow(dead_code)]
        pub mod declared_tools {
            #( #items )*
        }
    })
}

/// Claims a Rust type name for `tool`, or says which declared tool already has it.
fn claim(
    names: &mut BTreeSet<String>,
    name: String,
    tool: &DeclaredToolSpec,
) -> Result<proc_macro2::Ident, CodegenError> {
    if !names.insert(name.clone()) {
        return Err(CodegenError::NameCollision(format!(
            "declared tool `{}` needs the Rust type name `{name}`, which another declared tool \
             already uses; rename one of them",
            tool.name
        )));
    }
    Ok(ident(&name))
}

/// The argument struct of one declared tool, its value enums and its typed calls.
fn tool_items(
    tool: &DeclaredToolSpec,
    names: &mut BTreeSet<String>,
) -> Result<TokenStream, CodegenError> {
    let ty = claim(names, format!("{}Args", camel(&tool.name)), tool)?;
    let tool_name = &tool.name;
    let escape = |text: &str| crate::output::escape_invisible(text, true).into_owned();
    // A `sql:` tool answers rows; the expression form pages the entity's records.
    let (answer, answers) = if tool.sql.is_some() {
        (
            quote!(::toolforge::sql::tools::DeclaredRows),
            "rows (column name to value)".to_owned(),
        )
    } else {
        let record = type_ident(&tool.entity);
        (
            quote!(::toolforge::sql::tools::DeclaredPage<super::records::#record>),
            format!("`{}` records", escape(&tool.entity)),
        )
    };
    let mut doc = format!(
        " The arguments of `{tool_name}`: {}. Answers pages of {answers}, at most {} each.",
        escape(tool.description.trim_end_matches('.')),
        tool.limit
    );
    for param in &tool.parameters {
        if let Some(value) = &param.from_context {
            doc.push_str(&format!(
                " `{}` is not an argument: it is the call's context value `{}`.",
                escape(&param.name),
                escape(value)
            ));
        }
    }
    let mut enums = Vec::new();
    let mut fields = Vec::new();
    let mut required = Vec::new();
    let mut optional = Vec::new();
    for param in tool.parameters.iter().filter(|p| p.from_context.is_none()) {
        let field = field_ident(&param.name);
        let name = &param.name;
        let mut value = match string_values(param) {
            Some(values) => {
                let enum_ty = claim(
                    names,
                    format!("{}{}", camel(&tool.name), camel(&param.name)),
                    tool,
                )?;
                let enum_doc = format!(" The values of `{tool_name}`'s parameter `{name}`.");
                let values: Vec<(String, String)> = values
                    .into_iter()
                    .map(|value| (value.clone(), format!("`{value}`")))
                    .collect();
                enums.push(super::string_enum::string_enum(
                    &enum_ty, &enum_doc, &values,
                ));
                quote!(#enum_ty)
            }
            None => rust_type(param.ty),
        };
        let doc = format!(" {}", escape(&parameter_doc(param)));
        if param.required {
            fields.push(quote! {
                #[doc = #doc]
                #[serde(rename = #name)]
                pub #field: #value,
            });
            required.push((field, value));
        } else {
            value = quote!(::core::option::Option<#value>);
            fields.push(quote! {
                #[doc = #doc]
                #[serde(rename = #name, default, skip_serializing_if = "::core::option::Option::is_none")]
                pub #field: #value,
            });
            optional.push(field);
        }
    }
    let limit_doc = format!(
        " The most records to return (default and at most {}).",
        tool.limit
    );
    let (required_fields, required_types): (Vec<_>, Vec<_>) = required.into_iter().unzip();
    let new_doc = if required_fields.is_empty() {
        " The call with every parameter left to its default.".to_owned()
    } else {
        " The call with the required parameters; the others left to their defaults.".to_owned()
    };
    Ok(quote! {
        #( #enums )*

        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq, ::toolforge::serde::Serialize, ::toolforge::serde::Deserialize)]
        #[serde(crate = "::toolforge::serde", deny_unknown_fields)]
        pub struct #ty {
            #( #fields )*
            #[doc = #limit_doc]
            #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
            pub limit: ::core::option::Option<u32>,
            /// How many matching records to skip: 0 (the default), then the `next_offset` of
            /// the previous page.
            #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
            pub offset: ::core::option::Option<u64>,
        }

        impl #ty {
            #[doc = #new_doc]
            pub fn new(#( #required_fields: #required_types ),*) -> Self {
                #ty {
                    #( #required_fields, )*
                    #( #optional: ::core::option::Option::None, )*
                    limit: ::core::option::Option::None,
                    offset: ::core::option::Option::None,
                }
            }

            /// Runs the tool through `registry`, exactly as a model's call would (argument
            /// checks, deadline and answer cap included).
            pub async fn call(
                &self,
                registry: &::toolforge::ToolRegistry,
            ) -> ::core::result::Result<#answer, ::toolforge::ToolError> {
                ::toolforge::sql::tools::call_declared(self, registry).await
            }

            /// Runs the tool on the `Database` of `context`, without a registry (the context's
            /// values bind `from_context` parameters and row rules).
            pub async fn run(
                &self,
                context: &::toolforge::ToolContext,
            ) -> ::core::result::Result<#answer, ::toolforge::ToolError> {
                ::toolforge::sql::tools::run_declared(self, context).await
            }
        }

        impl ::toolforge::sql::tools::DeclaredArgs for #ty {
            const TOOL_NAME: &'static str = #tool_name;
            type Answer = #answer;

            fn spec() -> &'static ::std::sync::Arc<::toolforge::spec::SchemaSpec> {
                super::spec()
            }
        }
    })
}

/// The values of a string parameter with an `enum`, when every one is a string.
fn string_values(param: &ParameterSpec) -> Option<Vec<String>> {
    if param.ty != ParameterType::String || param.allowed.is_empty() {
        return None;
    }
    param
        .allowed
        .iter()
        .map(|value| value.as_str().map(str::to_owned))
        .collect()
}

/// The Rust type of a parameter's values.
fn rust_type(ty: ParameterType) -> TokenStream {
    match ty {
        ParameterType::String | ParameterType::Datetime => quote!(::std::string::String),
        ParameterType::Number => quote!(f64),
        ParameterType::Integer => quote!(i64),
        ParameterType::Boolean => quote!(bool),
        ParameterType::StringArray => quote!(::std::vec::Vec<::std::string::String>),
        ParameterType::NumberArray => quote!(::std::vec::Vec<f64>),
        ParameterType::Point => quote!(::toolforge::sql::places::Point),
    }
}

/// A parameter's doc: its name, description and the checks its values pass
/// (`` `min_fee`: Smallest fee (at least 0; default 0). ``).
fn parameter_doc(param: &ParameterSpec) -> String {
    let mut doc = format!("`{}`", param.name);
    if let Some(description) = &param.description {
        doc.push_str(": ");
        doc.push_str(description.trim_end_matches('.'));
    }
    let mut checks = Vec::new();
    if param.ty == ParameterType::Datetime {
        checks.push("ISO 8601, or relative: `now`, `today`, `7 days ago`".to_owned());
    }
    if let Some(min) = param.min {
        checks.push(format!("at least {min}"));
    }
    if let Some(max) = param.max {
        checks.push(format!("at most {max}"));
    }
    if let Some(pattern) = &param.pattern {
        checks.push(format!("matching `{pattern}`"));
    }
    if !param.allowed.is_empty() && string_values(param).is_none() {
        let values: Vec<String> = param.allowed.iter().map(Value::to_string).collect();
        checks.push(format!("one of {}", values.join(", ")));
    }
    if let Some(default) = &param.default {
        checks.push(format!("default {default}"));
    }
    if !checks.is_empty() {
        doc.push_str(&format!(" ({})", checks.join("; ")));
    }
    doc.push('.');
    doc
}
