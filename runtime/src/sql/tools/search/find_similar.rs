//! `find_similar {entity_type, id, similarity?, index?, relationships?, measure?, conditions?,
//! top_k}`: the records most like a given one — by meaning (the nearest vectors to its own
//! stored vector, no embedding call), by structure (the most neighbours shared along
//! relationships: Jaccard or Adamic–Adar, one statement), or both fused by reciprocal rank.
//! The record itself is never in its own answer.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spec::{EntitySpec, SchemaSpec, VectorIndexSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::describe::{DescriptionBuilder, relationship_arrow};
use crate::sql::query::{Condition, ROW_ALIAS, compile_conditions};
use crate::sql::text::ident::quote;
use crate::sql::text::names::unknown_name_message;
use crate::sql::tools::TraversalDirection;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::graph::walk::{Walk, walks};
use crate::sql::tools::search::hybrid_search::fuse;
use crate::sql::tools::search::semantic_search::{ranked_answer, vector_index};
use crate::sql::tools::shared::answers::RankedAnswer;
use crate::sql::tools::shared::common::{
    HandlerError, PageLimits, definition, entity, limit_named, quoted,
};
use crate::sql::value::SqlValue;
use crate::sql::vectors::cache::read_vector;
use crate::sql::vectors::nearest::{Search, nearest, scored};

/// The fewest candidates each ranking gives a hybrid answer.
const MIN_CANDIDATES: u32 = 50;
/// The most candidates each ranking gives a hybrid answer.
const MAX_CANDIDATES: u32 = 1000;

/// How `find_similar` compares records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(rename_all = "snake_case")]
pub enum SimilarityKind {
    /// The nearest stored vectors to the record's own.
    Semantic,
    /// The most neighbours shared along relationships.
    Structural,
    /// Both rankings fused by reciprocal rank.
    Hybrid,
}

/// How shared neighbours score.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
#[serde(rename_all = "snake_case")]
pub enum NeighbourMeasure {
    /// Shared neighbours ÷ the neighbours of either.
    #[default]
    Jaccard,
    /// Shared neighbours weighted by 1 / ln(their degree): rare ones count more.
    AdamicAdar,
}

impl NeighbourMeasure {
    fn name(self) -> &'static str {
        match self {
            NeighbourMeasure::Jaccard => "jaccard",
            NeighbourMeasure::AdamicAdar => "adamic_adar",
        }
    }
}

/// The arguments of `find_similar`: the records most like one record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>, R: Deserialize<'de>")
)]
pub struct FindSimilarArgs<E = String, F = String, R = String> {
    /// The entity type of the record.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// The record's unique id.
    #[serde(deserialize_with = "crate::sql::tools::shared::key::text_or_integer")]
    #[schemars(length(min = 1, max = 1000), extend("x-toolforge-slot" = "key"))]
    pub id: String,
    /// `semantic`, `structural` or `hybrid` (default: semantic when the entity has a vector
    /// index, else structural).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<SimilarityKind>,
    /// The vector index (default: the entity's first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// The relationships whose shared neighbours count, either direction (default: all of
    /// the entity's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-toolforge-slot" = "relationship_list"))]
    pub relationships: Vec<R>,
    /// `jaccard` (default) or `adamic_adar` (rare shared neighbours count more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<NeighbourMeasure>,
    /// Only records matching all these conditions (as in `query_entities`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition<F>>,
    /// The most records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub top_k: Option<i64>,
}

/// Whether `entity` has a relationship.
fn has_relationships(spec: &SchemaSpec, entity: &EntitySpec) -> bool {
    spec.relationships
        .iter()
        .any(|r| r.source == entity.name || r.target == entity.name)
}

impl EngineTool for FindSimilarArgs {
    type Answer = RankedAnswer;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find the records most like one record (never itself), best first with a score: \
             `semantic` by the nearest stored vectors to its own, `structural` by the \
             neighbours they share along relationships (`measure`: jaccard or adamic_adar), \
             `hybrid` both fused by rank. `conditions` (as in query_entities) restrict the \
             candidates.",
        );
        let kinds: Vec<String> = spec
            .entities
            .iter()
            .filter_map(|entity| {
                let mut kinds = Vec::new();
                if !entity.vector_indexes.is_empty() {
                    kinds.push("semantic");
                }
                if has_relationships(spec, entity) {
                    kinds.push("structural");
                }
                if kinds.len() == 2 {
                    kinds.push("hybrid");
                }
                (!kinds.is_empty()).then(|| format!("{} ({})", entity.name, kinds.join(", ")))
            })
            .collect();
        text.push("\n", &format!("Entities: {}.", kinds.join("; ")));
        if let Some(entity) = spec
            .entities
            .iter()
            .find(|e| !e.vector_indexes.is_empty() || has_relationships(spec, e))
        {
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "id": format!("<{}>", entity.unique_field), "top_k": 5})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Find similar records",
            text.finish(),
            &[
                "similar",
                "related",
                "recommend",
                "like this",
                "neighbours",
                "jaccard",
            ],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = entity(spec, &self.entity_type, "entity_type")?;
        let kind = self.kind(spec, entity)?;
        if kind != SimilarityKind::Structural {
            return Err(ToolError::new(
                crate::ErrorCode::Unavailable,
                "semantic similarity needs its database's vectors",
            )
            .into());
        }
        self.answer(spec, conn, None, entity, kind).await
    }

    async fn execute_in(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
        db: &Database,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = entity(spec, &self.entity_type, "entity_type")?;
        let kind = self.kind(spec, entity)?;
        self.answer(spec, conn, Some(db), entity, kind).await
    }
}

impl FindSimilarArgs {
    /// The similarity asked for, or the entity's default; an error when the entity lacks what
    /// it needs.
    fn kind(&self, spec: &SchemaSpec, entity: &EntitySpec) -> Result<SimilarityKind, ToolError> {
        let vectors = !entity.vector_indexes.is_empty();
        let edges = has_relationships(spec, entity);
        let kind = match self.similarity {
            Some(kind) => kind,
            None if vectors => SimilarityKind::Semantic,
            None => SimilarityKind::Structural,
        };
        let needs_vectors = matches!(kind, SimilarityKind::Semantic | SimilarityKind::Hybrid);
        let needs_edges = matches!(kind, SimilarityKind::Structural | SimilarityKind::Hybrid);
        if (needs_vectors && !vectors) || (needs_edges && !edges) {
            let missing = if needs_vectors && !vectors {
                "vector index"
            } else {
                "relationship"
            };
            let offered: Vec<&str> = [
                (vectors, "semantic"),
                (edges, "structural"),
                (vectors && edges, "hybrid"),
            ]
            .into_iter()
            .filter_map(|(offered, name)| offered.then_some(name))
            .collect();
            return Err(ToolError::invalid_arguments(format!(
                "`similarity`: {} has no {missing}, so it cannot be compared that way; {}",
                entity.name,
                if offered.is_empty() {
                    "it has neither a vector index nor a relationship".to_owned()
                } else {
                    format!("it can be compared by: {}", offered.join(", "))
                }
            ))
            .with_details(json!({"path": "similarity", "valid": offered})));
        }
        Ok(kind)
    }

    async fn answer(
        &self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
        db: Option<&Database>,
        entity: &EntitySpec,
        kind: SimilarityKind,
    ) -> Result<RankedAnswer, HandlerError> {
        let limits = PageLimits::capped(limit_named(spec, self.top_k, "top_k")?);
        let k = limits.rows as usize;
        let index = match kind {
            SimilarityKind::Structural => None,
            _ => Some(vector_index(spec, entity, self.index.as_deref())?),
        };
        let stored = record_vector(conn, entity, index, &self.id).await?;
        let measure = self.measure.unwrap_or_default();
        let depth = match kind {
            SimilarityKind::Hybrid => (limits.rows * 4).clamp(MIN_CANDIDATES, MAX_CANDIDATES),
            _ => limits.rows,
        } as usize;
        let semantic = match (index, db) {
            (Some(index), Some(db)) => {
                let vector = stored.ok_or_else(|| no_vector(entity, index, &self.id))?;
                let hits = nearest(
                    db,
                    conn,
                    spec,
                    &Search {
                        entity,
                        index,
                        vector: &vector,
                        k: depth + 1,
                        conditions: &self.conditions,
                    },
                )
                .await?;
                Some(without(hits, &self.id, depth))
            }
            _ => None,
        };
        let structural = match kind {
            SimilarityKind::Semantic => None,
            _ => Some(
                shared_neighbours(
                    spec,
                    conn,
                    entity,
                    &self.id,
                    &self.relationships,
                    measure,
                    &self.conditions,
                    depth,
                )
                .await?,
            ),
        };
        let (hits, similarity) = match (semantic, structural) {
            (Some(semantic), Some(structural)) => {
                let ids = |hits: &[(String, f64)]| -> Vec<String> {
                    hits.iter().map(|(id, _)| id.clone()).collect()
                };
                let mut fused = fuse(&[&ids(&semantic), &ids(&structural)]);
                fused.truncate(k);
                (fused, "rrf".to_owned())
            }
            (Some(semantic), None) => (
                semantic,
                index.map_or("", |i| i.similarity.name()).to_owned(),
            ),
            (None, Some(structural)) => (structural, measure.name().to_owned()),
            (None, None) => (Vec::new(), String::new()),
        };
        let text_field = index.and_then(|index| index.source_field.as_deref());
        let answer = ranked_answer(
            conn,
            entity,
            text_field,
            hits,
            &limits,
            RankedAnswer {
                entity_type: entity.name.clone(),
                index: index.map(|index| index.name.clone()),
                similarity: Some(similarity),
                returned: 0,
                truncated: false,
                results: Vec::new(),
            },
        )
        .await?;
        Ok(answer)
    }
}

/// The hits without the record itself, at most `k`.
fn without(hits: Vec<(String, f64)>, id: &str, k: usize) -> Vec<(String, f64)> {
    hits.into_iter()
        .filter(|(hit, _)| hit != id)
        .take(k)
        .collect()
}

/// The record's stored vector in `index` (`None`: no index asked, or the record has none);
/// not_found when the call cannot see a record with that id.
async fn record_vector(
    conn: &dyn Reader,
    entity: &EntitySpec,
    index: Option<&VectorIndexSpec>,
    id: &str,
) -> Result<Option<Vec<f32>>, HandlerError> {
    let column = index.map_or("NULL".to_owned(), |index| quote(&index.column));
    let rows = conn
        .rows(
            &format!(
                "SELECT {column} FROM {} WHERE {} = ?1",
                quote(&entity.table),
                quote(&entity.unique_field)
            ),
            &[crate::sql::tools::shared::key::param(entity, id)],
        )
        .await?;
    let Some(row) = rows.into_iter().next() else {
        return Err(ToolError::not_found(format!(
            "No {} has {} {}.",
            entity.name,
            entity.unique_field,
            quoted(id)
        ))
        .with_details(json!({"path": "id", "entity_type": entity.name}))
        .into());
    };
    let mut vector = Vec::new();
    Ok(match (row.into_iter().next(), index) {
        (Some(SqlValue::Blob(bytes)), Some(index))
            if read_vector(&bytes, index.dimension as usize, &mut vector) =>
        {
            Some(vector)
        }
        _ => None,
    })
}

/// The error for a record without a vector in `index`.
fn no_vector(entity: &EntitySpec, index: &VectorIndexSpec, id: &str) -> ToolError {
    let why = match &index.source_field {
        Some(field) => format!(
            "its `{field}` is empty, or its vectors were not computed yet (`toolforge db \
             embed`)"
        ),
        None => "no vector was given for it on import".to_owned(),
    };
    ToolError::invalid_arguments(format!(
        "{} {} has no vector in index `{}`: {why}; `similarity: structural` compares it by \
         its relationships instead",
        entity.name,
        quoted(id),
        index.name
    ))
    .with_details(json!({"path": "id", "index": index.name}))
}

/// The walks of `relationships` (all of the entity's when empty) leaving `entity`, either
/// direction; a named relationship that does not touch the entity is an error listing those
/// that do.
fn legs<'s>(
    spec: &'s SchemaSpec,
    entity: &EntitySpec,
    relationships: &[String],
) -> Result<Vec<Walk<'s>>, ToolError> {
    let legs: Vec<Walk<'s>> = walks(spec, relationships, TraversalDirection::Both)
        .into_iter()
        .filter(|walk| walk.start_entity() == entity.name)
        .collect();
    for (i, name) in relationships.iter().enumerate() {
        if !legs.iter().any(|walk| walk.relationship.rel_type == *name) {
            let touching: Vec<_> = spec
                .relationships
                .iter()
                .filter(|r| r.source == entity.name || r.target == entity.name)
                .collect();
            let mut names: Vec<&str> = touching.iter().map(|r| r.rel_type.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            let arrows: Vec<String> = touching.iter().map(|r| relationship_arrow(r)).collect();
            return Err(ToolError::invalid_arguments(format!(
                "`relationships[{i}]`: {}; {}'s relationships: {}",
                unknown_name_message("relationship", name, "", names.iter().copied()),
                entity.name,
                arrows.join(", ")
            ))
            .with_details(json!({"path": format!("relationships[{i}]"), "valid": names})));
        }
    }
    Ok(legs)
}

/// The `k` records of `entity` sharing the most neighbours with record `id` along
/// `relationships`, by `measure`, best first (ties by id), among those matching `conditions`.
/// One statement: the adjacency of the legs, the record's neighbours, each neighbour's degree
/// (the records of `entity` it touches), the candidates sharing one, and their own neighbour
/// counts.
#[allow(clippy::too_many_arguments)]
async fn shared_neighbours(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    entity: &EntitySpec,
    id: &str,
    relationships: &[String],
    measure: NeighbourMeasure,
    conditions: &[Condition],
    k: usize,
) -> Result<Vec<(String, f64)>, HandlerError> {
    let legs = legs(spec, entity, relationships)?;
    let adjacency: Vec<String> = legs
        .iter()
        .map(|walk| {
            // The far end keyed by its entity (its position in the spec): ids of two entities
            // may be equal.
            let other = spec
                .entities
                .iter()
                .position(|e| e.name == walk.to_entity())
                .unwrap_or(usize::MAX);
            format!(
                "SELECT {} AS a, {other} AS ze, {} AS z FROM {}",
                quote(walk.near()),
                quote(walk.far()),
                quote(&walk.relationship.table)
            )
        })
        .collect();
    let mut params = vec![crate::sql::tools::shared::key::param(entity, id)];
    let where_sql = compile_conditions(
        entity,
        conditions,
        "conditions",
        &mut params,
        conn.dialect(),
    )?;
    let score = match measure {
        NeighbourMeasure::Jaccard => "CAST(s.c AS double precision) / \
             ((SELECT count(*) FROM nx) + ny.n - s.c)"
            .to_owned(),
        NeighbourMeasure::AdamicAdar => "s.aa".to_owned(),
    };
    let row = quote(ROW_ALIAS);
    let sql = format!(
        "WITH adj AS ({adjacency}), \
         nx AS (SELECT DISTINCT ze, z FROM adj WHERE a = ?1), \
         deg AS (SELECT adj.ze, adj.z, count(DISTINCT adj.a) AS d FROM adj \
         JOIN nx ON adj.ze = nx.ze AND adj.z = nx.z GROUP BY adj.ze, adj.z), \
         pairs AS (SELECT DISTINCT adj.a AS y, adj.ze, adj.z FROM adj \
         JOIN nx ON adj.ze = nx.ze AND adj.z = nx.z WHERE adj.a <> ?1), \
         s AS (SELECT pairs.y, count(*) AS c, \
         sum(1.0 / ln(CAST(deg.d AS double precision))) AS aa FROM pairs \
         JOIN deg ON deg.ze = pairs.ze AND deg.z = pairs.z GROUP BY pairs.y), \
         ny AS (SELECT u.a AS y, count(*) AS n FROM (SELECT DISTINCT adj.a, adj.ze, adj.z \
         FROM adj JOIN s ON s.y = adj.a) AS u GROUP BY u.a) \
         SELECT s.y, CAST({score} AS double precision) AS score FROM s \
         JOIN ny ON ny.y = s.y \
         JOIN {table} AS {row} ON {row}.{unique} = s.y \
         WHERE {where_sql} \
         ORDER BY score DESC, s.y LIMIT {k}",
        adjacency = adjacency.join(" UNION ALL "),
        table = quote(&entity.table),
        unique = quote(&entity.unique_field),
    );
    Ok(scored(conn.rows(&sql, &params).await?))
}
