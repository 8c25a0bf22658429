//! The generated module: the embedded spec and schema, the records and tool-argument modules,
//! and the registry setup.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use toolforge::spec::SchemaSpec;

use super::error::CodegenError;
use super::options::Layout;
use super::{declared_tools, records, tool_args};

pub(crate) fn module_tokens(
    spec: &SchemaSpec,
    layout: Layout,
) -> Result<TokenStream, CodegenError> {
    // Files beside `mod.rs` hold the spec and the SQL; the config macro has no files.
    let (spec_json, schema_sql) = match layout {
        Layout::ClientFolder | Layout::Embedded => (
            quote!(include_str!("spec.json")),
            quote!(include_str!("schema.sql")),
        ),
        Layout::Inline => {
            let json =
                serde_json::to_string_pretty(spec).map_err(|error| CodegenError::SpecJson {
                    reason: error.to_string(),
                })?;
            let ddl = toolforge::sql::ddl::schema_sql(spec).map_err(CodegenError::Spec)?;
            // Plain (escaped) literals: a raw string cannot hold a carriage return, which an
            // `enum` value may put into the DDL.
            let (json, ddl) = (Literal::string(&json), Literal::string(ddl.trim_end()));
            (quote!(#json), quote!(#ddl))
        }
    };
    let records = records::records_module(spec)?;
    let tools = tool_args::tools_module(spec);
    let declared = declared_tools::declared_tools_module(spec)?;
    let name = crate::output::escape_invisible(&spec.name, false);
    let spec_doc =
        format!(" The storage spec of `{name}`, as JSON (`spec.json`; see `toolforge::spec`).");
    // A client folder is a real module file: keep rustfmt from reformatting it (and `toolforge
    // check` from then reporting drift). Not possible in an `include!`d file.
    let inner_attributes = match layout {
        Layout::ClientFolder => quote! { #![cfg_attr(rustfmt, rustfmt::skip)] },
        Layout::Embedded | Layout::Inline => TokenStream::new(),
    };
    let client_folder = match layout {
        Layout::ClientFolder => quote! {
            pub mod custom_tools;

            /// The registry of this config's tools: `batch`, the database tools and the tools of
            /// `custom_tools::register`; unknown names are answered by `InvalidTool`. The
            /// database is also in every call's context (`context.extension::<Database>()`).
            #[allow(dead_code)]
            pub fn setup_tool_registry(db: ::toolforge::sql::Database) -> Result<::std::sync::Arc<::toolforge::ToolRegistry>, ::toolforge::RegistryError> {
                setup_tool_registry_with(db, custom_tools::register)
            }
        },
        Layout::Embedded | Layout::Inline => TokenStream::new(),
    };
    Ok(quote! {
        #inner_attributes

        #[doc = #spec_doc]
        #[allow(dead_code)]
        pub const SPEC_JSON: &str = #spec_json;

        /// The tables, indexes and edge tables of the config (`schema.sql`).
        #[allow(dead_code)]
        pub const SCHEMA_SQL: &str = #schema_sql;

        /// The storage spec, parsed once.
        #[allow(dead_code)]
        pub fn spec() -> &'static ::std::sync::Arc<::toolforge::spec::SchemaSpec> {
            static SPEC: ::std::sync::OnceLock<::std::sync::Arc<::toolforge::spec::SchemaSpec>> = ::std::sync::OnceLock::new();
            SPEC.get_or_init(|| ::toolforge::sql::records::parse_spec(SPEC_JSON))
        }

        /// Creates the missing tables and indexes of `SCHEMA_SQL` (idempotent; an existing table
        /// that differs is an error and nothing changes).
        #[allow(dead_code)]
        pub fn apply_schema(db: &::toolforge::sql::Database) -> Result<::toolforge::sql::InitReport, ::toolforge::sql::DbError> {
            db.init(spec())
        }

        /// The database tools of the config: the engine's tools over the embedded spec,
        /// answering from the `Database` of each call's context (see `registry_builder`).
        #[allow(dead_code)]
        pub fn database_tools() -> Vec<::std::sync::Arc<dyn ::toolforge::Tool>> {
            ::toolforge::sql::tools::context_database_tools(spec().clone())
        }

        /// A registry builder with `batch` and the database tools, and the database in the
        /// call context; add your own tools, then `build()`.
        #[allow(dead_code)]
        pub fn registry_builder(db: ::toolforge::sql::Database) -> Result<::toolforge::RegistryBuilder, ::toolforge::RegistryError> {
            let mut builder = ::toolforge::ToolRegistry::standard()?.with_extension(db);
            for tool in database_tools() {
                builder.add(tool)?;
            }
            Ok(builder)
        }

        /// The registry of this config's tools plus the ones `custom` registers.
        #[allow(dead_code)]
        pub fn setup_tool_registry_with(
            db: ::toolforge::sql::Database,
            custom: impl FnOnce(::toolforge::RegistryBuilder) -> Result<::toolforge::RegistryBuilder, ::toolforge::RegistryError>,
        ) -> Result<::std::sync::Arc<::toolforge::ToolRegistry>, ::toolforge::RegistryError> {
            Ok(custom(registry_builder(db)?)?.build())
        }

        #client_folder

        #records

        #tools

        #declared
    })
}
