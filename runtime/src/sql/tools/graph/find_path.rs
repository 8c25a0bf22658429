//! `find_path {from: {entity_type, id}, to: {entity_type, id}, relationship_types?, direction?,
//! max_depth?}`: a shortest path, as hops, found breadth first: in the graph of the edge
//! tables the database keeps for calls while nothing is committed (`path_in_memory.rs`), or
//! statement by statement (`path_by_statements.rs`) when none may be kept or loaded; both
//! answer the same path.

use crate::__private::IntoEngine;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{CallBudget, ErrorCode, ToolDefinition, ToolError};

use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::describe::{DescriptionBuilder, bounded_list, relationship_arrow};
use crate::sql::path_graphs::{EdgeTable, PathGraph, PathGraphSpec};
use crate::sql::query::ROW_ALIAS;
use crate::sql::text::ident::{qualified, quote};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::graph::walk::{Node, PathSearch, walks};
use crate::sql::tools::graph::{path_by_statements, path_in_memory};
use crate::sql::tools::relationships::explore_relationships::TraversalDirection;
use crate::sql::tools::shared::answers::{PathAnswer, PathHop, PathNode, Record};
use crate::sql::tools::shared::common::{
    HandlerError, check_relationship_types, definition, entity,
};
use crate::sql::value::SqlValue;

/// The default `max_depth`.
pub const DEFAULT_MAX_DEPTH: i64 = 6;
/// The largest `max_depth`.
pub const MAX_DEPTH: i64 = 12;

/// One end of a path: a record named by its entity and unique id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields, bound(deserialize = "E: Deserialize<'de>"))]
pub struct PathEnd<E = String> {
    /// The record's entity type.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// The record's unique id (the value of its unique field).
    #[serde(deserialize_with = "crate::sql::tools::shared::key::text_or_integer")]
    #[schemars(extend("x-toolforge-slot" = "key"))]
    pub id: String,
}

fn outgoing() -> TraversalDirection {
    TraversalDirection::Outgoing
}

/// The arguments of `find_path`: a shortest chain of relationships from one record to another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, R: Deserialize<'de>")
)]
pub struct FindPathArgs<E = String, R = String> {
    /// The record the path starts from.
    pub from: PathEnd<E>,
    /// The record the path reaches.
    pub to: PathEnd<E>,
    /// The relationships the path may follow; empty or absent: every relationship.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-toolforge-slot" = "relationship_list"))]
    pub relationship_types: Vec<R>,
    /// outgoing (default): follow edges from source to target; incoming: backwards; both:
    /// either way.
    #[serde(default = "outgoing")]
    pub direction: TraversalDirection,
    /// The most hops (1 to 12, default 6).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 1, max = 12))]
    pub max_depth: Option<i64>,
}

impl EngineTool for FindPathArgs {
    type Answer = PathAnswer;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find a shortest path from one record to another along relationships (how does X \
             reach Y): the answer lists the hops, each with the relationship followed and the \
             records at both ends, or found: false when no path of at most max_depth hops \
             exists. direction: outgoing (default, source to target), incoming or both.",
        );
        let arrows: Vec<String> = spec.relationships.iter().map(relationship_arrow).collect();
        let room = text.remaining("\nRelationships: .").saturating_sub(300);
        text.push(
            "\n",
            &format!("Relationships: {}.", bounded_list(&arrows, room)),
        );
        if let Some(relationship) = spec.relationships.first() {
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"from": {"entity_type": relationship.source, "id": "<id>"},
                           "to": {"entity_type": relationship.target, "id": "<id>"},
                           "relationship_types": [relationship.rel_type], "max_depth": 4})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Find path",
            text.finish(),
            &[
                "path",
                "graph",
                "reach",
                "route",
                "chain",
                "connection",
                "shortest",
            ],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        handle(spec, conn, self, None).await
    }

    async fn execute_in(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
        db: &Database,
    ) -> Result<Self::Answer, HandlerError> {
        handle(spec, conn, self, Some(db)).await
    }
}

fn entity_index(spec: &SchemaSpec, entity: &EntitySpec) -> usize {
    spec.entities
        .iter()
        .position(|e| e.name == entity.name)
        .unwrap_or(0)
}

/// Whether the record `id` of `entity` exists.
async fn exists(conn: &dyn Reader, entity: &EntitySpec, id: &str) -> Result<bool, HandlerError> {
    let sql = format!(
        "SELECT count(*) FROM {} AS {} WHERE {} = ?1",
        quote(&entity.table),
        quote(ROW_ALIAS),
        qualified(ROW_ALIAS, &entity.unique_field)
    );
    Ok(conn
        .count(&sql, &[crate::sql::tools::shared::key::param(entity, id)])
        .await?
        > 0)
}

/// `{entity_type, id}` of a node, with its display name when the entity has one.
async fn node_json(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    (index, id): &Node,
) -> Result<PathNode, HandlerError> {
    let entity = &spec.entities[*index];
    let mut display_name = Record::new();
    if let Some(display) = &entity.display_name_field
        && display != &entity.unique_field
        && entity.field(display).is_some()
    {
        let rows = conn
            .rows(
                &format!(
                    "SELECT {} FROM {} AS {} WHERE {} = ?1",
                    qualified(ROW_ALIAS, display),
                    quote(&entity.table),
                    quote(ROW_ALIAS),
                    qualified(ROW_ALIAS, &entity.unique_field)
                ),
                &[crate::sql::tools::shared::key::param(entity, id)],
            )
            .await?;
        if let Some(Some(SqlValue::Text(name))) = rows.first().map(|row| row.first()) {
            display_name.insert(display.clone(), json!(name));
        }
    }
    Ok(PathNode {
        entity_type: entity.name.clone(),
        id: crate::sql::tools::shared::key::to_json(entity, id),
        display: display_name,
    })
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: FindPathArgs,
    db: Option<&Database>,
) -> Result<PathAnswer, HandlerError> {
    let from_entity = entity(spec, &arguments.from.entity_type, "from.entity_type")?;
    let to_entity = entity(spec, &arguments.to.entity_type, "to.entity_type")?;
    check_relationship_types(spec, &arguments.relationship_types, "relationship_types")?;
    let max_depth = match arguments.max_depth {
        None => DEFAULT_MAX_DEPTH,
        Some(d) if (1..=MAX_DEPTH).contains(&d) => d,
        Some(d) => {
            return Err(ToolError::invalid_arguments(format!(
                "`max_depth` must be between 1 and {MAX_DEPTH}, got {d}"
            ))
            .with_details(json!({"path": "max_depth", "minimum": 1, "maximum": MAX_DEPTH}))
            .into());
        }
    } as usize;
    for (end, entity, path) in [
        (&arguments.from, from_entity, "from"),
        (&arguments.to, to_entity, "to"),
    ] {
        if !exists(conn, entity, &end.id).await? {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "`{path}.id`: no {} has {} = \"{}\"; find the id with query_entities",
                    entity.name,
                    entity.unique_field,
                    crate::sql::text::names::shorten(&end.id)
                ),
            )
            .with_details(json!({"path": format!("{path}.id")}))
            .into());
        }
    }
    let walks = walks(spec, &arguments.relationship_types, arguments.direction);
    let search = PathSearch {
        spec,
        walks: &walks,
        start: (entity_index(spec, from_entity), arguments.from.id.clone()),
        goal: (entity_index(spec, to_entity), arguments.to.id.clone()),
        max_depth,
    };
    let kept = match db {
        Some(db) => kept_graph(spec, conn, db).await?,
        None => None,
    };
    let hops = match kept {
        Some(graph) => crate::sync::compute(|| path_in_memory::shortest(&graph, &search))?,
        None => path_by_statements::shortest(conn, &search).await?,
    };
    let (start, goal) = (&search.start, &search.goal);
    let from = node_json(spec, conn, start).await?;
    let to = node_json(spec, conn, goal).await?;
    let mut listed = Vec::new();
    if let Some(hops) = &hops {
        for (a, b, walk_index) in hops {
            let walk = &walks[*walk_index];
            listed.push(PathHop {
                from: node_json(spec, conn, a).await?,
                relationship: relationship_arrow(walk.relationship),
                direction: if walk.outgoing {
                    "outgoing"
                } else {
                    "incoming"
                },
                to: node_json(spec, conn, b).await?,
            });
        }
    }
    Ok(PathAnswer {
        from,
        to,
        found: hops.is_some(),
        length: hops.is_some().then_some(listed.len() as u64),
        hops: listed,
        max_depth: max_depth as u64,
    })
}

/// The graph of `spec`'s edge tables as `db` keeps it for this call (see
/// `sql/path_graphs.rs`), when one may be used: not with row rules (each caller sees its own
/// rows, and a kept graph is everyone's), and only when the search over it stays within the
/// call's memory cap.
async fn kept_graph(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    db: &Database,
) -> Result<Option<Arc<PathGraph>>, HandlerError> {
    if !spec.access.is_empty() {
        return Ok(None);
    }
    let index = |name: &str| spec.entities.iter().position(|e| e.name == name);
    let Some(tables) = spec
        .relationships
        .iter()
        .map(|r| {
            Some(EdgeTable {
                table: r.table.clone(),
                source: index(&r.source)?,
                target: index(&r.target)?,
            })
        })
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(None);
    };
    let graph_spec = PathGraphSpec {
        entities: spec.entities.len(),
        tables,
    };
    let Some(graph) = db
        .path_graphs()
        .graph(conn, &graph_spec, db.graph_cache().places())
        .await?
    else {
        return Ok(None);
    };
    let cap = CallBudget::current().and_then(|budget| budget.limits().max_memory_bytes);
    let needs = graph.bytes() + path_in_memory::search_bytes(&graph, spec.entities.len());
    Ok(cap.is_none_or(|cap| needs <= cap).then_some(graph))
}
