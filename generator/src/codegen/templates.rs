//! The minijinja templates in `templates/`: `schema.sql` and the `custom_tools.rs` stub.

use minijinja::{Environment, context};
use toolforge::spec::{EntitySpec, FieldType, SchemaSpec, ValueType};

use super::error::CodegenError;
use super::names::{camel, snake};

const SCHEMA_SQL: &str = include_str!("../../templates/schema.sql.j2");
const CUSTOM_TOOLS: &str = include_str!("../../templates/custom_tools.rs.j2");

fn render(name: &str, source: &str, ctx: minijinja::Value) -> Result<String, CodegenError> {
    let mut env = Environment::new();
    let mut text = env
        .add_template(name, source)
        .and_then(|_| env.get_template(name)?.render(ctx))
        .map_err(|error| CodegenError::Template {
            template: name.to_string(),
            reason: error.to_string(),
        })?;
    text.push('\n');
    Ok(text)
}

/// `schema.sql`: the header, then the DDL of `toolforge::sql::ddl`.
pub(crate) fn schema_sql(spec: &SchemaSpec, header: &str) -> Result<String, CodegenError> {
    let ddl = toolforge::sql::ddl::schema_sql(spec).map_err(CodegenError::Spec)?;
    render(
        "schema.sql.j2",
        SCHEMA_SQL,
        context! {
            header => header.trim_end(),
            name => crate::output::escape_invisible(&spec.name, false),
            entity_count => spec.entities.len(),
            relationship_count => spec.relationships.len(),
            ddl => ddl.trim_end(),
        },
    )
}

struct StubEntity {
    name: String,
    type_name: String,
    field_enum: String,
    tool_type: String,
    filter_field: String,
    filter_variant: String,
    order_field: String,
    order_variant: String,
}

/// The `custom_tools.rs` stub: one worked example over the first entity.
/// The stub `custom_tools.rs`; `crate_path` is how the user's crate names the runtime.
pub(crate) fn custom_tools(
    spec: &SchemaSpec,
    config_name: &str,
    crate_path: &str,
) -> Result<String, CodegenError> {
    // `use` paths of the 2018+ editions need no leading `::`.
    let krate = crate_path.trim_start_matches("::");
    let entity = spec.entities.first().map(stub_entity);
    let tool_name = entity
        .as_ref()
        .map(|e| format!("{}list_{}", spec.tools.name_prefix, snake(&e.name)));
    render(
        "custom_tools.rs.j2",
        CUSTOM_TOOLS,
        context! {
            config_name => crate::output::escape_invisible(config_name, false),
            krate,
            entity => entity.map(|e| e.into_map()),
            tool_name,
        },
    )
}

impl StubEntity {
    fn into_map(self) -> std::collections::BTreeMap<&'static str, String> {
        [
            ("name", self.name),
            ("type_name", self.type_name),
            ("field_enum", self.field_enum),
            ("tool_type", self.tool_type),
            ("filter_field", self.filter_field),
            ("filter_variant", self.filter_variant),
            ("order_field", self.order_field),
            ("order_variant", self.order_variant),
        ]
        .into_iter()
        .collect()
    }
}

fn stub_entity(entity: &EntitySpec) -> StubEntity {
    let variant = |name: &str| super::names::type_ident(name).to_string();
    // Filter on a text field (the display name, else the unique field); order by the first
    // number or computed number, else by the filter field.
    let filter_field = entity
        .display_name_field
        .clone()
        .filter(|name| {
            entity
                .field(name)
                .is_some_and(|f| matches!(f.ty, FieldType::String))
        })
        .unwrap_or_else(|| entity.unique_field.clone());
    let order_field = entity
        .computed_fields
        .iter()
        .find(|c| c.ty == ValueType::Number)
        .map(|c| c.name.clone())
        .or_else(|| {
            entity
                .fields
                .iter()
                .find(|f| f.ty == FieldType::Number)
                .map(|f| f.name.clone())
        })
        .unwrap_or_else(|| filter_field.clone());
    StubEntity {
        name: entity.name.clone(),
        type_name: super::names::type_ident(&entity.name).to_string(),
        field_enum: super::records::field_enum_name(entity),
        tool_type: super::names::ident(&format!("List{}", camel(&entity.name))).to_string(),
        filter_variant: variant(&filter_field),
        filter_field,
        order_variant: variant(&order_field),
        order_field,
    }
}
