//! `explore_relationships {start_entity_type, start_conditions, relationship_type, direction,
//! target_entity_type, limit}`.

use std::sync::Arc;

use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::spec::{EntitySpec, RelationshipSpec, SchemaSpec};
use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolFuture};

use super::super::describe::relationship_arrow;
use super::super::ident::{qualified, quote};
use super::super::names::unknown_name_message;
use super::super::query::{Condition, Projection, ROW_ALIAS, compile_conditions};
use super::super::value::sql_to_json;
use super::common::{
    HandlerError, Shared, definition, entity, entity_schema, limit, limit_schema, parse, run,
};
use super::query_entities::condition_schema;

const NAME: &str = "explore_relationships";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Direction {
    Outgoing,
    Incoming,
    Both,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    start_entity_type: String,
    #[serde(default)]
    start_conditions: Vec<Condition>,
    relationship_type: String,
    #[serde(default = "both")]
    direction: Direction,
    #[serde(default)]
    target_entity_type: Option<String>,
    #[serde(default, deserialize_with = "super::common::optional_integer")]
    limit: Option<i64>,
}

fn both() -> Direction {
    Direction::Both
}

/// `explore_relationships`.
pub struct ExploreRelationships {
    shared: Arc<Shared>,
    definition: ToolDefinition,
}

impl ExploreRelationships {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        let definition = Self::definition_for(&shared.spec);
        ExploreRelationships { shared, definition }
    }

    /// The definition, built from the spec alone.
    pub(crate) fn definition_for(spec: &SchemaSpec) -> ToolDefinition {
        let mut description = String::from(
            "Follow a relationship from the records matching start_conditions to the related \
             records. direction: outgoing (start -[REL]-> other), incoming (other -[REL]-> start) \
             or both (default). Each result says which start record it came from (`from`), the \
             direction and the related record. Relationships:\n",
        );
        for relationship in &spec.relationships {
            description.push_str(&format!("  - {}", relationship_arrow(relationship)));
            if let Some(text) = &relationship.description {
                description.push_str(&format!(" — {text}"));
            }
            description.push('\n');
        }
        if let Some(relationship) = spec.relationships.first()
            && let Some(source) = spec.entity(&relationship.source)
        {
            description.push_str(&format!(
                "Example call: {}",
                json!({
                    "start_entity_type": relationship.source,
                    "start_conditions": [{"field": source.unique_field, "operator": "=", "value": "<id>"}],
                    "relationship_type": relationship.rel_type,
                    "direction": "outgoing",
                    "target_entity_type": relationship.target,
                    "limit": 10
                })
            ));
        }
        let mut types: Vec<&str> = spec
            .relationships
            .iter()
            .map(|r| r.rel_type.as_str())
            .collect();
        types.sort_unstable();
        types.dedup();
        let input_schema = json!({
            "type": "object",
            "properties": {
                "start_entity_type": entity_schema(spec, "The entity type to start from."),
                "start_conditions": {
                    "type": "array",
                    "description": "Conditions selecting the start records (AND); absent: every record.",
                    "items": condition_schema()
                },
                "relationship_type": {"type": "string", "enum": types, "description": "The relationship to follow."},
                "direction": {"type": "string", "enum": ["outgoing", "incoming", "both"], "default": "both",
                              "description": "outgoing: start is the source; incoming: start is the target; both: either."},
                "target_entity_type": entity_schema(spec, "Only related records of this entity type (optional)."),
                "limit": limit_schema(spec, "related records")
            },
            "required": ["start_entity_type", "relationship_type"],
            "additionalProperties": false
        });
        definition(
            spec,
            NAME,
            "Explore relationships",
            description,
            input_schema,
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
    direction: Direction,
    target: Option<&EntitySpec>,
) -> Result<Vec<Leg<'s>>, ToolError> {
    if !spec.relationships.iter().any(|r| r.rel_type == rel_type) {
        let mut types: Vec<&str> = spec
            .relationships
            .iter()
            .map(|r| r.rel_type.as_str())
            .collect();
        types.dedup();
        return Err(ToolError::invalid_arguments(format!(
            "`relationship_type`: {}",
            unknown_name_message("relationship", rel_type, "", types)
        )));
    }
    let mut legs = Vec::new();
    for relationship in spec.relationships.iter().filter(|r| r.rel_type == rel_type) {
        let target_ok = |name: &str| target.is_none_or(|t| t.name == name);
        if matches!(direction, Direction::Outgoing | Direction::Both)
            && relationship.source == start.name
            && target_ok(&relationship.target)
            && let Some(other) = spec.entity(&relationship.target)
        {
            legs.push(Leg {
                relationship,
                outgoing: true,
                other,
            });
        }
        if matches!(direction, Direction::Incoming | Direction::Both)
            && relationship.target == start.name
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
            Direction::Outgoing => format!(
                "{} -[{rel_type}]-> {}",
                start.name,
                target.map_or("*", |t| t.name.as_str())
            ),
            Direction::Incoming => format!(
                "{} -[{rel_type}]-> {}",
                target.map_or("*", |t| t.name.as_str()),
                start.name
            ),
            Direction::Both => format!(
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

pub(crate) fn handle(
    spec: &SchemaSpec,
    conn: &Connection,
    arguments: Value,
) -> Result<Value, HandlerError> {
    let arguments: Arguments = parse(NAME, arguments)?;
    let start = entity(spec, &arguments.start_entity_type, "start_entity_type")?;
    let target = match &arguments.target_entity_type {
        Some(name) => Some(entity(spec, name, "target_entity_type")?),
        None => None,
    };
    let limit = limit(spec, arguments.limit)?;
    let legs = legs(
        spec,
        start,
        &arguments.relationship_type,
        arguments.direction,
        target,
    )?;
    let mut params: Vec<SqlValue> = Vec::new();
    let where_sql = compile_conditions(
        start,
        &arguments.start_conditions,
        "start_conditions",
        &mut params,
    )?;
    let start_ids = format!(
        "SELECT {} FROM {} AS {} WHERE {where_sql}",
        qualified(ROW_ALIAS, &start.unique_field),
        quote(&start.table),
        quote(ROW_ALIAS)
    );
    let mut results = Vec::new();
    let mut total: u64 = 0;
    for leg in &legs {
        let (from_column, other_column) = if leg.outgoing {
            ("source_id", "target_id")
        } else {
            ("target_id", "source_id")
        };
        let projection = Projection::all(leg.other);
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
             WHERE \"e\".{from_column} IN ({start_ids})",
            edge = quote(&leg.relationship.table),
            other = quote(&leg.other.table),
            alias = quote(ROW_ALIAS),
            other_unique = qualified(ROW_ALIAS, &leg.other.unique_field),
            other_column = quote(other_column),
            from_column = quote(from_column),
        );
        let remaining = u64::from(limit).saturating_sub(results.len() as u64);
        let sql = format!(
            "SELECT {} {from_sql} ORDER BY 1, {} LIMIT {}",
            select.join(", "),
            qualified(ROW_ALIAS, &leg.other.unique_field),
            remaining + 1
        );
        let mut statement = conn.prepare_cached(&sql)?;
        let mut rows = statement.query(rusqlite::params_from_iter(params.iter()))?;
        let mut taken: u64 = 0;
        let mut more = false;
        while let Some(row) = rows.next()? {
            if taken >= remaining {
                more = true;
                break;
            }
            let from: String = row.get(0)?;
            let mut item = Map::new();
            item.insert("from".into(), json!(from));
            item.insert(
                "relationship".into(),
                json!(relationship_arrow(leg.relationship)),
            );
            item.insert(
                "direction".into(),
                json!(if leg.outgoing { "outgoing" } else { "incoming" }),
            );
            item.insert("entity_type".into(), json!(leg.other.name));
            if !leg.relationship.properties.is_empty() {
                let mut edge = Map::new();
                for (i, property) in leg.relationship.properties.iter().enumerate() {
                    edge.insert(
                        property.name.clone(),
                        sql_to_json(property.ty, row.get_ref(1 + i)?),
                    );
                }
                item.insert("properties".into(), Value::Object(edge));
            }
            item.insert(
                "record".into(),
                Value::Object(projection.record(row, 1 + properties.len())?),
            );
            results.push(Value::Object(item));
            taken += 1;
        }
        drop(rows);
        total += if more || remaining == 0 {
            let mut count = conn.prepare_cached(&format!("SELECT count(*) {from_sql}"))?;
            count.query_row(rusqlite::params_from_iter(params.iter()), |row| {
                row.get::<_, i64>(0)
            })? as u64
        } else {
            taken
        };
    }
    let returned = results.len();
    Ok(json!({
        "start_entity_type": start.name,
        "relationship_type": arguments.relationship_type,
        "total": total,
        "returned": returned,
        "truncated": total > returned as u64,
        "results": results,
    }))
}

impl Tool for ExploreRelationships {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: Value, _context: &'a ToolContext) -> ToolFuture<'a> {
        run(&self.shared, arguments, handle)
    }
}
