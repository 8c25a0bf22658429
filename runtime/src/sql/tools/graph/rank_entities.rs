//! `rank_entities {entity_type, relationship_type, algorithm: pagerank|degree, direction?,
//! limit}`: the most central records along a relationship.
//!
//! `degree` counts each record's edges in SQL. `pagerank` loads the record ids and the edges
//! between records of the entity (at most [`MAX_GRAPH_NODES`] and [`MAX_GRAPH_EDGES`], within
//! the call's memory cap, shared by calls wanting the same graph at once: see `sql/graphs.rs`)
//! and iterates in memory, checking the call's deadline every round.

use crate::__private::IntoEngine;
use std::collections::HashMap;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{CallBudget, ToolDefinition, ToolError};

use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::describe::{DescriptionBuilder, bounded_list, relationship_arrow};
use crate::sql::graphs::GraphCache;
use crate::sql::query::ROW_ALIAS;
use crate::sql::text::ident::{qualified, quote};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::graph::walk::{
    ID_BATCH, Walk, load_within, page_rank, records_of, touching, walks,
};
use crate::sql::tools::relationships::explore_relationships::TraversalDirection;
use crate::sql::tools::shared::answers::{Answer, Record};
use crate::sql::tools::shared::common::{
    HandlerError, PageLimits, check_relationship_types, definition, entity,
};
use crate::sql::value::SqlValue;

/// The damping factor of `pagerank`.
pub const DAMPING: f64 = 0.85;

/// How `rank_entities` scores a record.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
#[serde(rename_all = "lowercase")]
pub enum RankAlgorithm {
    /// PageRank (damping 0.85): a record is central when central records point to it.
    #[default]
    Pagerank,
    /// The number of edges.
    Degree,
}

fn incoming() -> TraversalDirection {
    TraversalDirection::Incoming
}

/// The arguments of `rank_entities`: the most central records along a relationship.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, R: Deserialize<'de>")
)]
pub struct RankEntitiesArgs<E = String, R = String> {
    /// The entity type to rank.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// The relationship whose edges count.
    #[schemars(extend("x-toolforge-slot" = "relationship"))]
    pub relationship_type: R,
    /// pagerank (default) or degree.
    #[serde(default)]
    pub algorithm: RankAlgorithm,
    /// Which edges count toward a record: incoming (default: edges reaching it, e.g. who
    /// calls it), outgoing (edges leaving it; pagerank on the reversed graph) or both.
    #[serde(default = "incoming")]
    pub direction: TraversalDirection,
    /// The most records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
}

/// One ranked record: its id, its display name when the entity has one, and its score.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RankedRecord {
    /// The record's unique id.
    #[schemars(with = "String", extend("x-toolforge-slot" = "key"))]
    id: Value,
    /// Its display name, under the entity's display name field, when it has one.
    #[serde(flatten)]
    display: Record,
    /// Its score: its degree (a whole number) or its PageRank.
    #[schemars(with = "f64")]
    score: Value,
}

/// `rank_entities`: the top records by score.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RankAnswer {
    /// The entity ranked.
    entity_type: String,
    /// The relationship whose edges count.
    relationship_type: String,
    /// The algorithm that scored.
    algorithm: RankAlgorithm,
    /// Which edges count.
    direction: TraversalDirection,
    /// How many records the entity has.
    total: u64,
    /// How many records this answer holds.
    returned: u64,
    /// The records, highest score first.
    results: Vec<RankedRecord>,
}

impl Answer for RankAnswer {}

impl EngineTool for RankEntitiesArgs {
    type Answer = RankAnswer;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Rank the records of an entity by how central they are along a relationship (find \
             the important ones): algorithm pagerank (default; needs a relationship from the \
             entity to itself) or degree (the number of edges). direction: incoming (default), \
             outgoing or both. Answer: the top records with their score, highest first.",
        );
        let arrows: Vec<String> = spec.relationships.iter().map(relationship_arrow).collect();
        let room = text.remaining("\nRelationships: .").saturating_sub(220);
        text.push(
            "\n",
            &format!("Relationships: {}.", bounded_list(&arrows, room)),
        );
        if let Some(relationship) = spec
            .relationships
            .iter()
            .find(|r| r.source == r.target)
            .or(spec.relationships.first())
        {
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": relationship.target, "relationship_type": relationship.rel_type,
                           "algorithm": if relationship.source == relationship.target { "pagerank" } else { "degree" },
                           "limit": 10})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Rank entities",
            text.finish(),
            &[
                "rank",
                "pagerank",
                "central",
                "important",
                "degree",
                "most",
                "popular",
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
        handle(spec, conn, self, Some(db.graph_cache())).await
    }
}

/// The entity's display field, when it has a stored one besides the unique field.
pub(crate) fn display_field(entity: &EntitySpec) -> Option<&str> {
    entity
        .display_name_field
        .as_deref()
        .filter(|name| *name != entity.unique_field && entity.field(name).is_some())
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: RankEntitiesArgs,
    graphs: Option<&GraphCache>,
) -> Result<RankAnswer, HandlerError> {
    let started = Instant::now();
    let entity = entity(spec, &arguments.entity_type, "entity_type")?;
    check_relationship_types(
        spec,
        std::slice::from_ref(&arguments.relationship_type),
        "relationship_type",
    )?;
    let limits = PageLimits::of(spec, arguments.limit)?;
    // The walks leaving a record along the counted edges: counting edges that reach a record
    // means walking them backwards from it.
    let reversed = match arguments.direction {
        TraversalDirection::Incoming => TraversalDirection::Outgoing,
        TraversalDirection::Outgoing => TraversalDirection::Incoming,
        TraversalDirection::Both => TraversalDirection::Both,
    };
    let all = walks(
        spec,
        std::slice::from_ref(&arguments.relationship_type),
        reversed,
    );
    // Degree: the walks ending at the entity (edges counted at their far end).
    let counted: Vec<&Walk<'_>> = all
        .iter()
        .filter(|walk| walk.to_entity() == entity.name)
        .collect();
    if counted.is_empty() {
        let arrows = touching(spec, entity);
        return Err(ToolError::invalid_arguments(format!(
            "`relationship_type`: {} has no {} edges in direction {}; its relationships: {}",
            entity.name,
            arguments.relationship_type,
            serde_json::to_value(arguments.direction)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            if arrows.is_empty() {
                "none".to_owned()
            } else {
                arrows.join(", ")
            }
        ))
        .with_details(json!({"path": "relationship_type", "relationships": arrows}))
        .into());
    }
    let unique = qualified(ROW_ALIAS, &entity.unique_field);
    let display = display_field(entity);
    let select_display = display
        .map(|name| format!(", {}", qualified(ROW_ALIAS, name)))
        .unwrap_or_default();
    let total = records_of(conn, entity).await?;
    let mut results = Vec::new();
    match arguments.algorithm {
        RankAlgorithm::Degree => {
            let degree: Vec<String> = counted
                .iter()
                .map(|walk| {
                    format!(
                        "(SELECT count(*) FROM {} AS \"e\" WHERE \"e\".{} = {unique})",
                        quote(&walk.relationship.table),
                        quote(walk.far())
                    )
                })
                .collect();
            let sql = format!(
                "SELECT {unique}{select_display}, {} AS \"degree\" FROM {} AS {} \
                 ORDER BY \"degree\" DESC, {unique} ASC LIMIT {}",
                degree.join(" + "),
                quote(&entity.table),
                quote(ROW_ALIAS),
                limits.rows
            );
            for row in conn.rows(&sql, &[]).await? {
                let score = match row.last() {
                    Some(SqlValue::Integer(n)) => json!(n),
                    Some(SqlValue::Real(x)) => json!(*x as i64),
                    _ => json!(0),
                };
                results.push(ranked(&row, display, score));
            }
        }
        RankAlgorithm::Pagerank => {
            let within: Vec<&Walk<'_>> = counted
                .iter()
                .copied()
                .filter(|walk| walk.start_entity() == entity.name)
                .collect();
            if within.is_empty() {
                return Err(ToolError::invalid_arguments(format!(
                    "`algorithm`: pagerank ranks records along a relationship from {0} to {0}, \
                     and {1} links {0} to other entities; use algorithm degree",
                    entity.name, arguments.relationship_type
                ))
                .with_details(json!({"path": "algorithm", "valid": ["degree"]}))
                .into());
            }
            let graph = load_within(
                spec,
                conn,
                entity,
                total,
                &within,
                graphs,
                started,
                "pagerank loads",
                "use algorithm degree",
            )
            .await?;
            let budget = CallBudget::current();
            let scores = crate::sync::compute(|| {
                graph.scores(|graph| {
                    page_rank(graph.len(), graph.edges(), DAMPING, || {
                        budget.as_ref().is_some_and(|b| b.is_expired())
                    })
                })
            })?;
            let mut order: Vec<u32> = (0..graph.len() as u32).collect();
            let by_score = |a: &u32, b: &u32| {
                scores[*b as usize]
                    .total_cmp(&scores[*a as usize])
                    .then(a.cmp(b))
            };
            let take = (limits.rows as usize).min(order.len());
            if take > 0 && take < order.len() {
                order.select_nth_unstable_by(take - 1, by_score);
                order.truncate(take);
            }
            order.sort_unstable_by(by_score);
            order.truncate(take);
            let top: Vec<&str> = order.iter().map(|&i| graph.id(i as usize)).collect();
            let names = display_names(conn, entity, display, &top).await?;
            for (&i, id) in order.iter().zip(&top) {
                // Rounded so that the same graph gives the same digits on every backend.
                let score = (scores[i as usize] * 1e12).round() / 1e12;
                let row = [
                    crate::sql::tools::shared::key::param(entity, id),
                    names.get(*id).cloned().unwrap_or(SqlValue::Null),
                ];
                results.push(ranked(&row, display, json!(score)));
            }
        }
    }
    Ok(RankAnswer {
        entity_type: entity.name.clone(),
        relationship_type: arguments.relationship_type,
        algorithm: arguments.algorithm,
        direction: arguments.direction,
        total,
        returned: results.len() as u64,
        results,
    })
}

/// The display field of the records `ids` of `entity`, by id (empty without a display field).
pub(crate) async fn display_names(
    conn: &dyn Reader,
    entity: &EntitySpec,
    display: Option<&str>,
    ids: &[&str],
) -> Result<HashMap<String, SqlValue>, HandlerError> {
    let mut names = HashMap::new();
    let Some(display) = display else {
        return Ok(names);
    };
    for chunk in ids.chunks(ID_BATCH) {
        let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("?{i}")).collect();
        let params: Vec<SqlValue> = chunk
            .iter()
            .map(|id| crate::sql::tools::shared::key::param(entity, id))
            .collect();
        let rows = conn
            .rows(
                &format!(
                    "SELECT {}, {} FROM {} AS {} WHERE {} IN ({})",
                    qualified(ROW_ALIAS, &entity.unique_field),
                    qualified(ROW_ALIAS, display),
                    quote(&entity.table),
                    quote(ROW_ALIAS),
                    qualified(ROW_ALIAS, &entity.unique_field),
                    placeholders.join(", ")
                ),
                &params,
            )
            .await?;
        for row in rows {
            let mut values = row.into_iter();
            if let (Some(id), Some(name)) = (
                values.next().and_then(SqlValue::into_key_text),
                values.next(),
            ) {
                names.insert(id, name);
            }
        }
    }
    Ok(names)
}

/// `{id, <display field>, score}` of a row `[id, display?, ...]`.
fn ranked(row: &[SqlValue], display: Option<&str>, score: Value) -> RankedRecord {
    let text = |value: Option<&SqlValue>| match value {
        Some(SqlValue::Text(text)) => json!(text),
        Some(SqlValue::Integer(n)) => json!(n),
        _ => Value::Null,
    };
    let mut shown = Record::new();
    if let Some(name) = display {
        shown.insert(name.into(), text(row.get(1)));
    }
    RankedRecord {
        id: text(row.first()),
        display: shown,
        score,
    }
}
