//! `aggregate_entities {entity_type, aggregation, field?, conditions?, group_by?, bucket?,
//! along?, order?, limit}`.
//!
//! One statement: the groups with their value and count, and (as window functions over the
//! groups) the overall value, the overall count and the number of groups, so the answer costs
//! what the hand-written `GROUP BY` costs. Along a relationship, the rows aggregated are the
//! edges of the matching records (a record without such an edge adds none), and `field` is a
//! field of the records at the other end.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::spec::{EntitySpec, FieldType, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::backend::{Reader, SqlDialect};
use crate::sql::describe::{DescriptionBuilder, relationship_arrow};
use crate::sql::query::Condition;
use crate::sql::query::{FieldRef, ROW_ALIAS, compile_conditions, resolve_field};
use crate::sql::text::ident::{qualified, quote};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::relationships::explore_relationships::TraversalDirection;
use crate::sql::tools::shared::answers::Answer;
use crate::sql::tools::shared::common::{
    HandlerError, PageLimits, check_relationship_types, definition, entity,
};
use crate::sql::value::{SqlValue, sql_to_json};

/// What `aggregate_entities` computes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
pub enum Aggregation {
    /// The number of rows (with `field`: of rows where it is not null).
    #[serde(rename = "COUNT", alias = "count")]
    Count,
    /// The sum of a number field.
    #[serde(rename = "SUM", alias = "sum")]
    Sum,
    /// The average of a number field.
    #[serde(rename = "AVG", alias = "avg")]
    Avg,
    /// The smallest value of a number, text or datetime field.
    #[serde(rename = "MIN", alias = "min")]
    Min,
    /// The largest value of a number, text or datetime field.
    #[serde(rename = "MAX", alias = "max")]
    Max,
}

impl Aggregation {
    fn as_str(self) -> &'static str {
        match self {
            Aggregation::Count => "COUNT",
            Aggregation::Sum => "SUM",
            Aggregation::Avg => "AVG",
            Aggregation::Min => "MIN",
            Aggregation::Max => "MAX",
        }
    }
}

/// How a datetime group field is cut into periods (UTC).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
#[serde(rename_all = "lowercase")]
pub enum Bucket {
    /// `2024-05-01`.
    Day,
    /// The Monday starting the ISO week, `2024-04-29`.
    Week,
    /// `2024-05`.
    Month,
    /// `2024`.
    Year,
}

/// The order of the groups.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
#[serde(rename_all = "snake_case")]
pub enum AggregateOrder {
    /// Largest value first (the default).
    #[default]
    ValueDesc,
    /// Smallest value first.
    ValueAsc,
    /// By the group fields, ascending (chronological for buckets).
    GroupAsc,
    /// By the group fields, descending.
    GroupDesc,
}

/// A relationship to aggregate along.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields, bound(deserialize = "R: Deserialize<'de>"))]
pub struct Along<R = String> {
    /// The relationship whose edges are aggregated.
    #[schemars(extend("x-toolforge-slot" = "relationship"))]
    pub relationship_type: R,
    /// outgoing: the record is the source; incoming: the target; both (default): either.
    #[serde(default)]
    pub direction: TraversalDirection,
}

/// The arguments of `aggregate_entities`: a count, sum, average, minimum or maximum over the
/// matching records, optionally per group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>, R: Deserialize<'de>")
)]
pub struct AggregateEntitiesArgs<E = String, F = String, R = String> {
    /// The entity type to aggregate.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// COUNT, SUM, AVG, MIN or MAX.
    pub aggregation: Aggregation,
    /// The field aggregated (required except for COUNT); along a relationship, a field of the
    /// records at the other end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "field"))]
    pub field: Option<F>,
    /// Conditions on the records of entity_type (AND), as in query_entities.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition<F>>,
    /// Fields of entity_type to group by (one group per distinct combination). Along a
    /// relationship the default is one group per record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-toolforge-slot" = "field_list"))]
    pub group_by: Vec<F>,
    /// Cut the datetime fields of group_by into periods: day, week, month or year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<Bucket>,
    /// Aggregate the edges of a relationship of each record (e.g. COUNT of incoming CALLS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "along"))]
    pub along: Option<Along<R>>,
    /// The order of the groups: value_desc (default), value_asc, group_asc or group_desc.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<AggregateOrder>,
    /// The most groups to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
}

/// One group of `aggregate_entities`: the group fields by name, then `value` and `count`.
type Group = Map<String, Value>;

/// `aggregate_entities`: the overall value and count, and the groups.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AggregateAnswer {
    /// The entity aggregated.
    pub entity_type: String,
    /// COUNT, SUM, AVG, MIN or MAX.
    pub aggregation: &'static str,
    /// The field aggregated (null for COUNT of rows).
    pub field: Option<String>,
    /// The relationship aggregated along, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub along: Option<AlongAnswer>,
    /// The aggregate over every matching row (null when no row has a value).
    pub value: Value,
    /// How many rows were aggregated.
    pub count: i64,
    /// The fields grouped by, when grouping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_by: Option<Vec<String>>,
    /// How many groups there are in all, when grouping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_groups: Option<i64>,
    /// How many groups this answer holds, when grouping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returned: Option<u64>,
    /// Whether groups were left out (raise `limit`), when grouping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// The groups, in the order asked, when grouping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<Group>>,
}

impl Answer for AggregateAnswer {}

/// The relationship `aggregate_entities` aggregated along.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AlongAnswer {
    /// The relationship followed.
    pub relationship_type: String,
    /// Which way it was followed.
    pub direction: TraversalDirection,
}

impl EngineTool for AggregateEntitiesArgs {
    type Answer = AggregateAnswer;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Aggregate the records of an entity: COUNT (rows, or non-null values of `field`), \
             SUM / AVG of a number field, MIN / MAX of a number, text or datetime field; over \
             the records matching `conditions`, optionally per `group_by` fields (`bucket` cuts \
             datetime groups into day / week / month / year). `along` aggregates the edges of a \
             relationship of each record (e.g. how often each one is called). Answer: \
             {aggregation, field, value, count, groups: [{<group fields>, value, count}]}, \
             groups by value (largest first) unless `order` says otherwise.",
        );
        let numbers = crate::sql::tools::ranges::bounds::fields_by_entity(spec, FieldType::Number);
        if !numbers.is_empty() {
            text.push("\n", &format!("Number fields: {numbers}."));
        }
        if !spec.relationships.is_empty() {
            let arrows: Vec<String> = spec.relationships.iter().map(relationship_arrow).collect();
            let room = text.remaining("\nRelationships: .").saturating_sub(250);
            text.push(
                "\n",
                &format!(
                    "Relationships: {}.",
                    crate::sql::describe::bounded_list(&arrows, room)
                ),
            );
        }
        if let Some(relationship) = spec.relationships.first() {
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": relationship.target, "aggregation": "COUNT",
                           "along": {"relationship_type": relationship.rel_type, "direction": "incoming"},
                           "limit": 10})
                ),
            );
        } else if let Some(entity) = spec.entities.first() {
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "aggregation": "COUNT",
                           "group_by": [entity.fields.iter().find(|f| f.name != entity.unique_field)
                               .map_or(entity.unique_field.as_str(), |f| f.name.as_str())]})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Aggregate entities",
            text.finish(),
            &[
                "aggregate",
                "count",
                "sum",
                "average",
                "statistics",
                "group",
                "most",
            ],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        handle(spec, conn, self).await
    }
}

/// One edge table read from the aggregated records' side: `near` is their column.
struct Leg<'s> {
    table: &'s str,
    near: &'static str,
    far: &'static str,
    other: &'s EntitySpec,
}

fn legs<'s>(
    spec: &'s SchemaSpec,
    start: &EntitySpec,
    along: &Along,
) -> Result<Vec<Leg<'s>>, ToolError> {
    let rel_type = along.relationship_type.as_str();
    check_relationship_types(
        spec,
        std::slice::from_ref(&along.relationship_type),
        "along.relationship_type",
    )?;
    let outgoing = matches!(
        along.direction,
        TraversalDirection::Outgoing | TraversalDirection::Both
    );
    let incoming = matches!(
        along.direction,
        TraversalDirection::Incoming | TraversalDirection::Both
    );
    let mut legs = Vec::new();
    for relationship in spec.relationships.iter().filter(|r| r.rel_type == rel_type) {
        if outgoing
            && relationship.source == start.name
            && let Some(other) = spec.entity(&relationship.target)
        {
            legs.push(Leg {
                table: &relationship.table,
                near: "source_id",
                far: "target_id",
                other,
            });
        }
        if incoming
            && relationship.target == start.name
            && let Some(other) = spec.entity(&relationship.source)
        {
            legs.push(Leg {
                table: &relationship.table,
                near: "target_id",
                far: "source_id",
                other,
            });
        }
    }
    if legs.is_empty() {
        let touching: Vec<String> = spec
            .relationships
            .iter()
            .filter(|r| r.source == start.name || r.target == start.name)
            .map(relationship_arrow)
            .collect();
        return Err(ToolError::invalid_arguments(format!(
            "`along`: {} has no {rel_type} edges in that direction; its relationships: {}",
            start.name,
            if touching.is_empty() {
                "none".to_owned()
            } else {
                touching.join(", ")
            }
        ))
        .with_details(json!({"path": "along", "relationships": touching})));
    }
    Ok(legs)
}

/// `field`'s type check for `aggregation`.
fn check_field(aggregation: Aggregation, field: &FieldRef<'_>) -> Result<(), ToolError> {
    let fits = match aggregation {
        Aggregation::Count => !matches!(field.ty, FieldType::StringArray | FieldType::NumberArray),
        Aggregation::Sum | Aggregation::Avg => field.ty.is_numeric(),
        Aggregation::Min | Aggregation::Max => matches!(
            field.ty,
            FieldType::Number
                | FieldType::Integer
                | FieldType::String
                | FieldType::Enum
                | FieldType::Datetime
        ),
    };
    if fits {
        return Ok(());
    }
    let needs = match aggregation {
        Aggregation::Sum | Aggregation::Avg => "a number field",
        Aggregation::Min | Aggregation::Max => "a number, text or datetime field",
        Aggregation::Count => "a field that is not an array",
    };
    Err(ToolError::invalid_arguments(format!(
        "`field`: {} needs {needs}, and `{}` is {}",
        aggregation.as_str(),
        field.name,
        field.ty.config_name()
    ))
    .with_details(json!({"path": "field"})))
}

/// The SQL of a datetime cut into `bucket`s.
pub(crate) fn bucketed(sql: &str, bucket: Bucket, dialect: SqlDialect) -> String {
    match (bucket, dialect) {
        (Bucket::Day, _) => format!("substr({sql}, 1, 10)"),
        (Bucket::Month, _) => format!("substr({sql}, 1, 7)"),
        (Bucket::Year, _) => format!("substr({sql}, 1, 4)"),
        (Bucket::Week, SqlDialect::Sqlite) => format!("date({sql}, 'weekday 0', '-6 days')"),
        (Bucket::Week, SqlDialect::Postgres) => {
            format!("to_char(date_trunc('week', CAST({sql} AS timestamp)), 'YYYY-MM-DD')")
        }
    }
}

/// A group column: its name in the answer, its type there and its SQL.
struct GroupColumn {
    name: String,
    ty: FieldType,
    sql: String,
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: AggregateEntitiesArgs,
) -> Result<AggregateAnswer, HandlerError> {
    let dialect = conn.dialect();
    let start = entity(spec, &arguments.entity_type, "entity_type")?;
    let limits = PageLimits::of(spec, arguments.limit)?;
    let legs = match &arguments.along {
        Some(along) => Some(legs(spec, start, along)?),
        None => None,
    };
    // The group columns, over the start records (alias `n`).
    let mut group_names: Vec<String> = arguments.group_by.clone();
    if group_names.is_empty() && legs.is_some() {
        group_names.push(start.unique_field.clone());
        if let Some(display) = &start.display_name_field
            && display != &start.unique_field
        {
            group_names.push(display.clone());
        }
    }
    let mut groups: Vec<GroupColumn> = Vec::new();
    let mut bucket_used = false;
    for (i, name) in group_names.iter().enumerate() {
        let path = format!("group_by[{i}]");
        let field = resolve_field(start, name, &path)?;
        if matches!(field.ty, FieldType::StringArray | FieldType::NumberArray) {
            return Err(ToolError::invalid_arguments(format!(
                "`{path}`: `{}` is an {} field; group by a field that is not an array",
                field.name,
                field.ty.config_name()
            ))
            .into());
        }
        if groups.iter().any(|g| g.name == field.name) {
            continue;
        }
        let (sql, ty) = match arguments.bucket {
            Some(bucket) if field.ty == FieldType::Datetime => {
                bucket_used = true;
                (bucketed(&field.sql, bucket, dialect), FieldType::String)
            }
            _ => (field.sql.clone(), field.ty),
        };
        groups.push(GroupColumn {
            name: field.name.to_owned(),
            ty,
            sql,
        });
    }
    if arguments.bucket.is_some() && !bucket_used {
        return Err(ToolError::invalid_arguments(
            "`bucket` cuts datetime fields of group_by into periods, and group_by has none; \
             add a datetime field to group_by, or leave bucket out",
        )
        .with_details(json!({"path": "bucket"}))
        .into());
    }
    let mut params: Vec<SqlValue> = Vec::new();
    let where_sql = compile_conditions(
        start,
        &arguments.conditions,
        "conditions",
        &mut params,
        dialect,
    )?;
    // The aggregated value's SQL and type, and the FROM clause.
    let value_entity = match &legs {
        Some(legs) => {
            if arguments.field.is_some()
                && legs.iter().any(|leg| leg.other.name != legs[0].other.name)
            {
                return Err(ToolError::invalid_arguments(
                    "`field`: the relationship reaches records of several entities; aggregate \
                     one of them with query tools, or COUNT without a field",
                )
                .into());
            }
            legs[0].other
        }
        None => start,
    };
    let value_field = match &arguments.field {
        Some(name) => {
            let field = resolve_field(value_entity, name, "field")?;
            check_field(arguments.aggregation, &field)?;
            Some(field)
        }
        None if arguments.aggregation == Aggregation::Count => None,
        None => {
            return Err(ToolError::invalid_arguments(format!(
                "`field`: {} needs a field to aggregate",
                arguments.aggregation.as_str()
            ))
            .with_details(json!({"path": "field"}))
            .into());
        }
    };
    let value_sql = value_field.as_ref().map(|f| f.sql.clone());
    let value_ty = value_field.as_ref().map_or(FieldType::Number, |f| f.ty);
    let (from_sql, group_sql): (String, Vec<String>) = match &legs {
        None => (
            format!(
                "FROM {} AS {} WHERE {where_sql}",
                quote(&start.table),
                quote(ROW_ALIAS)
            ),
            groups.iter().map(|g| g.sql.clone()).collect(),
        ),
        Some(legs) => {
            let mut inner = vec![format!(
                "{} AS \"k\"",
                qualified(ROW_ALIAS, &start.unique_field)
            )];
            inner.extend(
                groups
                    .iter()
                    .enumerate()
                    .map(|(i, g)| format!("{} AS \"g{i}\"", g.sql)),
            );
            let edges: Vec<String> = legs
                .iter()
                .map(|leg| {
                    format!(
                        "SELECT {} AS \"a\", {} AS \"b\" FROM {}",
                        quote(leg.near),
                        quote(leg.far),
                        quote(leg.table)
                    )
                })
                .collect();
            let mut from = format!(
                "FROM (SELECT {} FROM {} AS {} WHERE {where_sql}) AS \"s\" \
                 JOIN ({}) AS \"e\" ON \"e\".\"a\" = \"s\".\"k\"",
                inner.join(", "),
                quote(&start.table),
                quote(ROW_ALIAS),
                edges.join(" UNION ALL ")
            );
            if value_sql.is_some() {
                from.push_str(&format!(
                    " JOIN {} AS {} ON {} = \"e\".\"b\"",
                    quote(&value_entity.table),
                    quote(ROW_ALIAS),
                    qualified(ROW_ALIAS, &value_entity.unique_field)
                ));
            }
            (
                from,
                (0..groups.len())
                    .map(|i| format!("\"s\".\"g{i}\""))
                    .collect(),
            )
        }
    };
    let counted = value_sql.as_deref().unwrap_or("*");
    let aggregate_sql = match arguments.aggregation {
        Aggregation::Count => format!("count({counted})"),
        Aggregation::Sum => format!("sum({counted})"),
        Aggregation::Avg => format!("avg({counted})"),
        Aggregation::Min => format!("min({counted})"),
        Aggregation::Max => format!("max({counted})"),
    };
    let rows_sql = "count(*)";
    let mut answer = AggregateAnswer {
        entity_type: start.name.clone(),
        aggregation: arguments.aggregation.as_str(),
        field: value_field.as_ref().map(|f| f.name.to_string()),
        along: arguments.along.as_ref().map(|along| AlongAnswer {
            relationship_type: along.relationship_type.clone(),
            direction: along.direction,
        }),
        value: Value::Null,
        count: 0,
        group_by: None,
        total_groups: None,
        returned: None,
        truncated: None,
        groups: None,
    };
    let number = |value: &SqlValue| sql_to_json(FieldType::Number, value);
    let as_count = |value: Option<&SqlValue>| match value {
        Some(SqlValue::Integer(n)) => *n,
        Some(SqlValue::Real(x)) => *x as i64,
        _ => 0,
    };
    if groups.is_empty() {
        let sql = format!("SELECT {aggregate_sql}, {rows_sql}, count({counted}) {from_sql}");
        let rows = conn.rows(&sql, &params).await?;
        let row = rows.first().cloned().unwrap_or_default();
        answer.value = match arguments.aggregation {
            Aggregation::Count => json!(as_count(row.first())),
            _ => row
                .first()
                .map_or(Value::Null, |v| sql_to_json(value_ty, v)),
        };
        answer.count = as_count(row.get(1));
        return Ok(answer);
    }
    // value, count, then over all groups: the groups, the rows, and the parts of the overall
    // value (for AVG: sum and non-null count).
    let overall = match arguments.aggregation {
        Aggregation::Count => format!("CAST(sum(count({counted})) OVER () AS BIGINT)"),
        Aggregation::Sum => format!("sum(sum({counted})) OVER ()"),
        Aggregation::Avg => format!("sum(sum({counted})) OVER ()"),
        Aggregation::Min => format!("min(min({counted})) OVER ()"),
        Aggregation::Max => format!("max(max({counted})) OVER ()"),
    };
    let k = groups.len();
    let positions: Vec<String> = (1..=k).map(|i| i.to_string()).collect();
    let (value_direction, group_direction, first) = match arguments.order.unwrap_or_default() {
        AggregateOrder::ValueDesc => ("DESC NULLS LAST", "ASC NULLS FIRST", true),
        AggregateOrder::ValueAsc => ("ASC NULLS FIRST", "ASC NULLS FIRST", true),
        AggregateOrder::GroupAsc => ("DESC NULLS LAST", "ASC NULLS FIRST", false),
        AggregateOrder::GroupDesc => ("DESC NULLS LAST", "DESC NULLS LAST", false),
    };
    let by_groups: Vec<String> = positions
        .iter()
        .map(|p| format!("{p} {group_direction}"))
        .collect();
    let order_sql = if first {
        format!("{} {value_direction}, {}", k + 1, by_groups.join(", "))
    } else {
        by_groups.join(", ")
    };
    let sql = format!(
        "SELECT {groups}, {aggregate_sql}, {rows_sql}, count(*) OVER (), \
         CAST(sum({rows_sql}) OVER () AS BIGINT), {overall}, \
         CAST(sum(count({counted})) OVER () AS BIGINT) {from_sql} GROUP BY {positions} \
         ORDER BY {order_sql} LIMIT {limit}",
        groups = group_sql.join(", "),
        positions = positions.join(", "),
        limit = limits.rows,
    );
    let rows = conn.rows(&sql, &params).await?;
    let first_row = rows.first();
    let at = |i: usize| first_row.and_then(|row| row.get(k + i));
    let total_groups = as_count(at(2));
    let count = as_count(at(3));
    let value = match arguments.aggregation {
        Aggregation::Count => json!(as_count(at(4))),
        Aggregation::Avg => match (at(4), at(5)) {
            (Some(sum), Some(SqlValue::Integer(n))) if *n > 0 => {
                let sum = match sum {
                    SqlValue::Integer(i) => *i as f64,
                    SqlValue::Real(x) => *x,
                    _ => f64::NAN,
                };
                number(&SqlValue::Real(sum / *n as f64))
            }
            _ => Value::Null,
        },
        _ => at(4).map_or(Value::Null, |v| sql_to_json(value_ty, v)),
    };
    answer.value = value;
    answer.count = count;
    answer.group_by = Some(group_names);
    answer.total_groups = Some(total_groups);
    answer.returned = Some(rows.len() as u64);
    answer.truncated = Some(total_groups > rows.len() as i64);
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut group = Map::new();
        for (i, column) in groups.iter().enumerate() {
            group.insert(
                column.name.clone(),
                row.get(i)
                    .map_or(Value::Null, |v| sql_to_json(column.ty, v)),
            );
        }
        let value = match arguments.aggregation {
            Aggregation::Count => json!(as_count(row.get(k))),
            Aggregation::Avg => row.get(k).map_or(Value::Null, number),
            _ => row.get(k).map_or(Value::Null, |v| sql_to_json(value_ty, v)),
        };
        group.insert("value".into(), value);
        group.insert("count".into(), json!(as_count(row.get(k + 1))));
        out.push(group);
    }
    answer.groups = Some(out);
    if let Some(max) = limits.max_bytes {
        let bytes = crate::limits::serialized_len(&answer);
        if bytes > max {
            return Err(ToolError::new(
                crate::ErrorCode::TooLarge,
                format!(
                    "the answer has {bytes} bytes, more than an answer may have ({max} bytes, \
                     max_answer_bytes); ask for fewer groups with `limit`"
                ),
            )
            .into());
        }
    }
    Ok(answer)
}
