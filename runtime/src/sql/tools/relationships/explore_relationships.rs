//! `explore_relationships {start_entity_type, start_conditions, relationship_type, direction,
//! target_entity_type, limit, offset}`.

use crate::__private::IntoEngine;
use crate::sql::backend::Reader;
use crate::sql::value::SqlValue;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::{EntitySpec, RelationshipSpec, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::describe::{
    DescriptionBuilder, bounded_list, description_beyond_arrow, relationship_arrow,
};
use crate::sql::query::{Condition, Operator, Page, Projection, ROW_ALIAS, compile_conditions};
use crate::sql::text::ident::{qualified, quote};
use crate::sql::text::names::shorten;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::{Hop, HopsHead, Record, RelationshipPage};
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, check_relationship_types, definition, entity, list_answer,
    offset,
};
use crate::sql::value::sql_to_json;

/// Which edges `explore_relationships` follows from the start records.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
#[serde(rename_all = "lowercase")]
pub enum TraversalDirection {
    /// Start is the source: `start -[REL]-> other`.
    Outgoing,
    /// Start is the target: `other -[REL]-> start`.
    Incoming,
    /// Either way (the default).
    #[default]
    Both,
}

/// The arguments of `explore_relationships`: the records linked to the start records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>, R: Deserialize<'de>")
)]
pub struct ExploreRelationshipsArgs<E = String, F = String, R = String> {
    /// The entity type to start from.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub start_entity_type: E,
    /// Conditions selecting the start records (AND), as in `query_entities`; absent: every
    /// record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_conditions: Vec<Condition<F>>,
    /// The relationship to follow.
    #[schemars(extend("x-toolforge-slot" = "relationship"))]
    pub relationship_type: R,
    /// outgoing: start is the source; incoming: start is the target; both: either.
    #[serde(default)]
    pub direction: TraversalDirection,
    /// Only related records of this entity type (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub target_entity_type: Option<E>,
    /// The most related records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
    /// Related records to skip: `0` (the default), then the previous answer's `next_offset`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

impl EngineTool for ExploreRelationshipsArgs {
    type Answer = RelationshipPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut description = DescriptionBuilder::new(
            "Follow a relationship from the records matching start_conditions to the related \
             records. direction: outgoing (start -[REL]-> other), incoming (other -[REL]-> start) \
             or both (default). Each result says which start record it came from (`from`), the \
             direction and the related record.",
        );
        let described: Vec<String> = spec
            .relationships
            .iter()
            .map(
                |relationship| match description_beyond_arrow(relationship) {
                    Some(text) => {
                        format!("{} ({})", relationship_arrow(relationship), shorten(text))
                    }
                    None => relationship_arrow(relationship),
                },
            )
            .collect();
        let arrows: Vec<String> = spec.relationships.iter().map(relationship_arrow).collect();
        // Room is kept for the example call.
        let room = description
            .remaining("\nRelationships: .")
            .saturating_sub(330);
        let listed = if described.join(", ").chars().count() <= room {
            described.join(", ")
        } else {
            bounded_list(&arrows, room)
        };
        description.push("\n", &format!("Relationships: {listed}."));
        if let Some(relationship) = spec.relationships.first()
            && let Some(source) = spec.entity(&relationship.source)
        {
            description.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({
                        "start_entity_type": relationship.source,
                        "start_conditions": [{"field": source.unique_field, "operator": "=", "value": "<id>"}],
                        "relationship_type": relationship.rel_type,
                        "direction": "outgoing",
                        "target_entity_type": relationship.target,
                        "limit": 10
                    })
                ),
            );
        }
        let description = description.finish();
        definition::<Self>(
            spec,
            "Explore relationships",
            description,
            &[
                "relationships",
                "graph",
                "neighbors",
                "traverse",
                "related",
                "edges",
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

struct Leg<'s> {
    relationship: &'s RelationshipSpec,
    outgoing: bool,
    other: &'s EntitySpec,
}

fn legs<'s>(
    spec: &'s SchemaSpec,
    start: &EntitySpec,
    rel_type: &str,
    direction: TraversalDirection,
    target: Option<&EntitySpec>,
) -> Result<Vec<Leg<'s>>, ToolError> {
    check_relationship_types(spec, &[rel_type.to_owned()], "relationship_type")?;
    let mut legs = Vec::new();
    for relationship in spec.relationships.iter().filter(|r| r.rel_type == rel_type) {
        let target_ok = |name: &str| target.is_none_or(|t| t.name == name);
        if matches!(
            direction,
            TraversalDirection::Outgoing | TraversalDirection::Both
        ) && relationship.source == start.name
            && target_ok(&relationship.target)
            && let Some(other) = spec.entity(&relationship.target)
        {
            legs.push(Leg {
                relationship,
                outgoing: true,
                other,
            });
        }
        if matches!(
            direction,
            TraversalDirection::Incoming | TraversalDirection::Both
        ) && relationship.target == start.name
            && target_ok(&relationship.source)
            && let Some(other) = spec.entity(&relationship.source)
        {
            legs.push(Leg {
                relationship,
                outgoing: false,
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
        let wanted = match direction {
            TraversalDirection::Outgoing => format!(
                "{} -[{rel_type}]-> {}",
                start.name,
                target.map_or("*", |t| t.name.as_str())
            ),
            TraversalDirection::Incoming => format!(
                "{} -[{rel_type}]-> {}",
                target.map_or("*", |t| t.name.as_str()),
                start.name
            ),
            TraversalDirection::Both => format!(
                "{} -[{rel_type}]- {}",
                start.name,
                target.map_or("*", |t| t.name.as_str())
            ),
        };
        return Err(ToolError::invalid_arguments(format!(
            "No relationship matches {wanted}. Relationships of {}: {}.",
            start.name,
            if touching.is_empty() {
                "none".to_string()
            } else {
                touching.join(", ")
            }
        ))
        .with_details(json!({"relationships": touching})));
    }
    Ok(legs)
}

/// The id when the start conditions are just `unique field = "text"` (the usual "from this
/// record"; a unique field is text whatever its declared type, see `query::resolve_field`).
/// The edges are then filtered by that id without reading the start entity's table:
/// every edge's ends exist (the importer refuses an edge to a missing record and deletes a
/// record's edges with it), and under row rules the edge tables are views keeping only edges
/// whose both ends are visible (`sql::access`). One index probe fewer, and a join the planner
/// need not consider on every call.
fn start_id(start: &EntitySpec, conditions: &[Condition]) -> Option<SqlValue> {
    let [condition] = conditions else {
        return None;
    };
    if condition.field != start.unique_field || condition.operator != Operator::Eq {
        return None;
    }
    match (&condition.value, start.key_type()) {
        (serde_json::Value::String(id), _) => {
            Some(crate::sql::tools::shared::key::param(start, id))
        }
        (serde_json::Value::Number(n), crate::spec::FieldType::Integer) => {
            n.as_i64().map(SqlValue::Integer)
        }
        _ => None,
    }
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: ExploreRelationshipsArgs,
) -> Result<RelationshipPage, HandlerError> {
    let start = entity(spec, &arguments.start_entity_type, "start_entity_type")?;
    let target = match &arguments.target_entity_type {
        Some(name) => Some(entity(spec, name, "target_entity_type")?),
        None => None,
    };
    let limits = PageLimits::of(spec, arguments.limit)?;
    let offset = offset(arguments.offset)?;
    let legs = legs(
        spec,
        start,
        &arguments.relationship_type,
        arguments.direction,
        target,
    )?;
    let mut params: Vec<SqlValue> = Vec::new();
    // The test of the edges' start column: the one id the conditions name, or the ids of the
    // start records matching them.
    let start_test = match start_id(start, &arguments.start_conditions) {
        Some(id) => {
            params.push(id);
            format!("= ?{}", params.len())
        }
        None => {
            let where_sql = compile_conditions(
                start,
                &arguments.start_conditions,
                "start_conditions",
                &mut params,
                conn.dialect(),
            )?;
            format!(
                "IN (SELECT {} FROM {} AS {} WHERE {where_sql})",
                qualified(ROW_ALIAS, &start.unique_field),
                quote(&start.table),
                quote(ROW_ALIAS)
            )
        }
    };
    let head = HopsHead {
        start_entity_type: start.name.clone(),
        relationship_type: arguments.relationship_type.clone(),
    };
    let mut collector = Collector::new(&limits, &head);
    let mut results = Vec::new();
    let mut total: u64 = 0;
    // The legs' records are listed one leg after the other; `skip` is what is left of the
    // offset when a leg starts, `full` whether the page is complete.
    let mut skip = offset;
    let mut full = false;
    for leg in &legs {
        let (from_column, other_column) = if leg.outgoing {
            ("source_id", "target_id")
        } else {
            ("target_id", "source_id")
        };
        let projection = Projection::all(leg.other);
        // Said by every result of the leg: built once, cloned per row.
        let arrow = Value::String(relationship_arrow(leg.relationship));
        let properties: Vec<String> = leg
            .relationship
            .properties
            .iter()
            .map(|p| format!("\"e\".{}", quote(&p.name)))
            .collect();
        let mut select = vec![format!("\"e\".{}", quote(from_column))];
        select.extend(properties.iter().cloned());
        select.push(projection.select_list());
        let from_sql = format!(
            "FROM {edge} AS \"e\" JOIN {other} AS {alias} ON {other_unique} = \"e\".{other_column} \
             WHERE \"e\".{from_column} {start_test}",
            edge = quote(&leg.relationship.table),
            other = quote(&leg.other.table),
            alias = quote(ROW_ALIAS),
            other_unique = qualified(ROW_ALIAS, &leg.other.unique_field),
            other_column = quote(other_column),
            from_column = quote(from_column),
        );
        let count = async || {
            conn.count(&format!("SELECT count(*) {from_sql}"), &params)
                .await
        };
        if full {
            total += count().await?;
            continue;
        }
        let remaining = u64::from(limits.rows).saturating_sub(results.len() as u64);
        // The other ends in the order of their ids, read from the edge's own column: it holds
        // the very text of the record's unique field (a `TEXT` column whatever the field's
        // type), and the edge index (start id, other id) already gives that order, so no
        // sort is needed.
        let sql = format!(
            "SELECT {} {from_sql} ORDER BY 1, \"e\".{} LIMIT {} OFFSET {skip}",
            select.join(", "),
            quote(other_column),
            remaining + 1
        );
        let rows = conn.rows(&sql, &params).await?;
        let mut taken: u64 = 0;
        for row in &rows {
            if taken >= remaining {
                full = true;
                break;
            }
            let properties = (!leg.relationship.properties.is_empty()).then(|| {
                leg.relationship
                    .properties
                    .iter()
                    .enumerate()
                    .map(|(i, property)| {
                        (property.name.clone(), sql_to_json(property.ty, &row[1 + i]))
                    })
                    .collect::<Record>()
            });
            let item = Hop {
                from: sql_to_json(crate::spec::FieldType::String, &row[0]),
                relationship: arrow.clone(),
                direction: if leg.outgoing { "outgoing" } else { "incoming" },
                entity_type: leg.other.name.clone(),
                properties,
                record: projection.record(row, 1 + leg.relationship.properties.len()),
            };
            if !collector.take_item(&item) {
                full = true;
                break;
            }
            results.push(item);
            taken += 1;
        }
        drop(rows);
        let leg_total = if !full && (taken > 0 || skip == 0) {
            skip + taken
        } else {
            count().await?
        };
        skip = skip.saturating_sub(leg_total);
        total += leg_total;
    }
    let page = Page {
        total,
        total_exact: true,
        offset,
        results,
    };
    Ok(list_answer(head, page, &limits, &collector)?)
}
