//! What the range tools (`query_entities_by_date_range`, `query_entities_by_number_range`)
//! share: the fields they apply to, and one page of records whose field lies between bounds.

use serde_json::{Value, json};

use crate::ToolError;
use crate::spec::{EntitySpec, FieldType, SchemaSpec};

use crate::sql::backend::Reader;
use crate::sql::describe::DescriptionBuilder;
use crate::sql::query::Condition;
use crate::sql::query::Operator;
use crate::sql::query::fields_of_type;
use crate::sql::query::{
    ConditionPaths, Direction, EntityQuery, OrderBy, compile_condition, resolve_field,
};
use crate::sql::tools::shared::answers::EntityPage;
use crate::sql::tools::shared::common::{HandlerError, PageLimits, list_page};
use crate::sql::value::SqlValue;

/// `Entity: a, b; Other: c` for the entities that have fields of type `ty`.
pub(crate) fn fields_by_entity(spec: &SchemaSpec, ty: FieldType) -> String {
    spec.entities
        .iter()
        .filter_map(|entity| {
            let names = fields_of_type(entity, ty);
            (!names.is_empty()).then(|| format!("{}: {}", entity.name, names.join(", ")))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The description of a range tool: `purpose`, the fields it applies to (`what` fields of type
/// `ty`) and an example call whose other arguments are `example`.
pub(crate) fn range_description(
    spec: &SchemaSpec,
    purpose: &str,
    what: &str,
    ty: FieldType,
    field_argument: &str,
    example: Value,
) -> String {
    let mut text = DescriptionBuilder::new(purpose);
    let listed = format!("{what}: {}.", fields_by_entity(spec, ty));
    if !text.push("\n", &listed) {
        let room = text.remaining("\n").min(600);
        text.push(
            "\n",
            &format!(
                "{what}: {}",
                crate::sql::describe::bounded_list(
                    &fields_by_entity(spec, ty)
                        .split("; ")
                        .map(str::to_owned)
                        .collect::<Vec<_>>(),
                    room.saturating_sub(what.len() + 2)
                )
            ),
        );
    }
    if let Some(entity) = spec
        .entities
        .iter()
        .find(|entity| !fields_of_type(entity, ty).is_empty())
    {
        let mut call = json!({"entity_type": entity.name});
        call[field_argument] = json!(fields_of_type(entity, ty)[0]);
        if let (Value::Object(call), Value::Object(rest)) = (&mut call, example) {
            call.extend(rest);
        }
        text.push("\n", &format!("Example call: {call}"));
    }
    text.finish()
}

/// The field named `name` of `entity`, which must be of type `ty` (`kind` names the type in
/// messages, `tool` the tool): its name, or an `invalid_arguments` error listing the fields
/// that are.
pub(crate) fn typed_field<'s>(
    entity: &'s EntitySpec,
    name: &str,
    path: &str,
    ty: FieldType,
    tool: &str,
) -> Result<&'s str, ToolError> {
    let field = resolve_field(entity, name, path)?;
    if field.ty.is_like(ty) {
        return Ok(field.name);
    }
    let valid = fields_of_type(entity, ty);
    let message = if valid.is_empty() {
        format!(
            "`{path}`: {tool} needs a {} field, and {} has none",
            ty.config_name(),
            entity.name
        )
    } else {
        format!(
            "`{path}`: `{}` is {} field of {}; {tool} takes one of its {} fields: {}",
            field.name,
            field.ty.config_name(),
            entity.name,
            ty.config_name(),
            valid.join(", ")
        )
    };
    Err(ToolError::invalid_arguments(message).with_details(json!({"path": path, "valid": valid})))
}

/// One bound of a range: the condition's operator, its value, and the argument it came from.
pub(crate) struct RangeBound {
    pub operator: Operator,
    pub value: Value,
    pub path: &'static str,
}

/// One page of the records of `entity` whose `field` is not null and satisfies every bound,
/// ordered by `field` in `direction` (ties by the unique field).
pub(crate) async fn range_page(
    entity: &EntitySpec,
    field: &str,
    bounds: Vec<RangeBound>,
    direction: Direction,
    limits: &PageLimits,
    offset: u64,
    conn: &dyn Reader,
) -> Result<EntityPage, HandlerError> {
    let dialect = conn.dialect();
    let mut params: Vec<SqlValue> = Vec::new();
    let mut parts = vec![compile_condition(
        entity,
        &Condition {
            field: field.to_owned(),
            operator: Operator::Ne,
            value: Value::Null,
        },
        &ConditionPaths {
            field: "field".into(),
            operator: "field".into(),
            value: "field".into(),
        },
        &mut params,
        dialect,
    )?];
    for bound in bounds {
        let condition = Condition {
            field: field.to_owned(),
            operator: bound.operator,
            value: bound.value,
        };
        let paths = ConditionPaths {
            field: bound.path.into(),
            operator: bound.path.into(),
            value: bound.path.into(),
        };
        parts.push(compile_condition(
            entity,
            &condition,
            &paths,
            &mut params,
            dialect,
        )?);
    }
    let where_sql = parts
        .iter()
        .map(|part| format!("({part})"))
        .collect::<Vec<_>>()
        .join(" AND ");
    let order = OrderBy {
        field: field.to_owned(),
        direction,
    };
    let query = EntityQuery::compiled(
        entity,
        where_sql,
        params,
        Some(&order),
        limits.rows,
        dialect,
    )?
    .with_offset(offset);
    list_page(conn, query, &entity.name, limits).await
}
