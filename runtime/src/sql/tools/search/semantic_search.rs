//! `semantic_search {entity_type, query, index?, top_k, min_score?, conditions?}`: the query
//! text is embedded by the database's embedder and the index's nearest records found
//! ([`nearest`]: by PostgreSQL with pgvector, or over the vectors kept in memory), optionally
//! among the records matching `conditions` only.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spec::{EntitySpec, SchemaSpec, VectorIndexSpec};
use crate::{CallBudget, ErrorCode, ToolDefinition, ToolError};

use crate::embed::EmbedError;
use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::describe::DescriptionBuilder;
use crate::sql::query::Condition;
use crate::sql::text::ident::quote;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::{RankedAnswer, RankedHit};
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, definition, entity, limit_named,
};
use crate::sql::value::SqlValue;
use crate::sql::vectors::nearest::{Search, nearest};

/// The most characters of source text shown with a match.
const SNIPPET_CHARS: usize = 240;

/// The arguments of `semantic_search`: the records whose meaning is closest to a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>")
)]
pub struct SemanticSearchArgs<E = String, F = String> {
    /// The entity type to search (one with a vector index).
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// What to look for, in natural language.
    #[schemars(length(min = 1, max = 2000))]
    pub query: String,
    /// The vector index to search (default: the entity's first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// The most matches to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub top_k: Option<i64>,
    /// Leave out matches scoring below this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_score: Option<f64>,
    /// Search only among the records matching all these conditions (as in `query_entities`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition<F>>,
}

impl EngineTool for SemanticSearchArgs {
    type Answer = RankedAnswer;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find the records whose meaning is closest to a text: `query` is embedded and \
             compared with the vectors of a vector index; results are best first, each with \
             its id, name, score (higher is closer) and the start of the indexed text. \
             `conditions` (as in query_entities) restrict the search to matching records.",
        );
        let indexes: Vec<String> = spec
            .entities
            .iter()
            .flat_map(|entity| {
                entity.vector_indexes.iter().map(move |index| {
                    format!(
                        "{}.{} (index `{}`, from {}, {} dimensions, {})",
                        entity.name,
                        index.column,
                        index.name,
                        index
                            .source_field
                            .as_deref()
                            .unwrap_or("vectors given on import"),
                        index.dimension,
                        index.similarity.name()
                    )
                })
            })
            .collect();
        text.push("\n", &format!("Vector indexes: {}.", indexes.join("; ")));
        if let Some(entity) = spec.entities.iter().find(|e| !e.vector_indexes.is_empty()) {
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "query": "where are errors reported to the user", "top_k": 5})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Semantic search",
            text.finish(),
            &[
                "semantic",
                "meaning",
                "similar",
                "embedding",
                "search",
                "natural language",
            ],
        )
    }

    async fn execute(self, _: &SchemaSpec, _: &dyn Reader) -> Result<Self::Answer, HandlerError> {
        Err(ToolError::new(
            ErrorCode::Unavailable,
            "semantic_search needs its database's embedder",
        )
        .into())
    }

    async fn execute_in(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
        db: &Database,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = entity(spec, &self.entity_type, "entity_type")?;
        let index = vector_index(spec, entity, self.index.as_deref())?;
        let limits = PageLimits::capped(limit_named(spec, self.top_k, "top_k")?);
        if self.query.trim().is_empty() {
            return Err(ToolError::invalid_arguments(
                "`query` is empty; say in words what the records should be about",
            )
            .with_details(json!({"path": "query"}))
            .into());
        }
        if let Some(min) = self.min_score
            && !min.is_finite()
        {
            return Err(
                ToolError::invalid_arguments("`min_score` must be a finite number")
                    .with_details(json!({"path": "min_score"}))
                    .into(),
            );
        }
        let query_vector = crate::sync::compute(|| embed_query(db, index, &self.query))?;
        let hits: Vec<(String, f64)> = nearest(
            db,
            conn,
            spec,
            &Search {
                entity,
                index,
                vector: &query_vector,
                k: limits.rows as usize,
                conditions: &self.conditions,
            },
        )
        .await?
        .into_iter()
        .filter(|(_, score)| self.min_score.is_none_or(|min| *score >= min))
        .collect();
        let answer = ranked_answer(
            conn,
            entity,
            index.source_field.as_deref(),
            hits,
            &limits,
            RankedAnswer {
                entity_type: entity.name.clone(),
                index: Some(index.name.clone()),
                similarity: Some(index.similarity.name().to_owned()),
                returned: 0,
                truncated: false,
                results: Vec::new(),
            },
        )
        .await?;
        Ok(answer)
    }
}

/// The index named `name` of `entity` (its first when `None`), or an error naming the choices.
pub(crate) fn vector_index<'s>(
    spec: &'s SchemaSpec,
    entity: &'s EntitySpec,
    name: Option<&str>,
) -> Result<&'s VectorIndexSpec, ToolError> {
    if entity.vector_indexes.is_empty() {
        let searchable: Vec<&str> = spec
            .entities
            .iter()
            .filter(|e| !e.vector_indexes.is_empty())
            .map(|e| e.name.as_str())
            .collect();
        return Err(ToolError::invalid_arguments(format!(
            "`entity_type`: {} has no vector index; semantic search works on {}",
            entity.name,
            searchable.join(", ")
        ))
        .with_details(json!({"path": "entity_type", "valid": searchable})));
    }
    match name {
        None => Ok(&entity.vector_indexes[0]),
        Some(name) => entity
            .vector_indexes
            .iter()
            .find(|index| index.name == name || index.column == name)
            .ok_or_else(|| {
                let names: Vec<&str> = entity
                    .vector_indexes
                    .iter()
                    .map(|i| i.name.as_str())
                    .collect();
                ToolError::invalid_arguments(format!(
                    "`index`: {} has no vector index `{name}`; its indexes: {}",
                    entity.name,
                    names.join(", ")
                ))
                .with_details(json!({"path": "index", "valid": names}))
            }),
    }
}

/// The query's vector, from the database's embedder, within the call's deadline.
pub(crate) fn embed_query(
    db: &Database,
    index: &VectorIndexSpec,
    query: &str,
) -> Result<Vec<f32>, ToolError> {
    let Some(embedder) = db.embedder() else {
        return Err(ToolError::new(
            ErrorCode::Unavailable,
            "semantic search has no embedding provider: set `toolforge.embeddings` (or ragforge's \
             `embedding.provider`) in the config, or give the database one with \
             `Database::with_embedder`",
        ));
    };
    let deadline = CallBudget::current_deadline();
    let mut vectors = embedder
        .embed(&[query], deadline)
        .map_err(|error| match error {
            EmbedError::Stopped => crate::sql::handler_error::stopped_error(),
            other => ToolError::new(
                ErrorCode::Unavailable,
                format!("the query could not be embedded: {other}"),
            ),
        })?;
    let vector = vectors.pop().unwrap_or_default();
    if vector.len() != index.dimension as usize {
        return Err(ToolError::execution_failed(format!(
            "the embedding model gives vectors of {} values, but vector index `{}` holds {}: \
             the database was filled with another model; run `toolforge db embed --force`",
            vector.len(),
            index.name,
            index.dimension
        )));
    }
    Ok(vector)
}

/// The answer for ranked `hits` (id, score): each with its display name and the start of
/// `text_field`, as many as fit the call's answer-size cap.
pub(crate) async fn ranked_answer(
    conn: &dyn Reader,
    entity: &EntitySpec,
    text_field: Option<&str>,
    hits: Vec<(String, f64)>,
    limits: &PageLimits,
    mut answer: RankedAnswer,
) -> Result<RankedAnswer, HandlerError> {
    let details = hit_details(conn, entity, text_field, &hits).await?;
    let mut collector = Collector::new(limits, &answer);
    for (id, score) in hits {
        let (name, text) = details.get(&id).cloned().unwrap_or((None, None));
        let hit = RankedHit {
            id: crate::sql::key::to_json(entity, &id),
            name,
            score,
            snippet: text.map(|text| snippet(&text)),
        };
        if !collector.take_item(&hit) {
            answer.truncated = true;
            break;
        }
        answer.results.push(hit);
    }
    answer.returned = answer.results.len() as u64;
    Ok(answer)
}

/// A record's display name and text.
type Details = (Option<String>, Option<String>);

/// Display name and text of each hit, by id.
async fn hit_details(
    conn: &dyn Reader,
    entity: &EntitySpec,
    text_field: Option<&str>,
    hits: &[(String, f64)],
) -> Result<std::collections::HashMap<String, Details>, HandlerError> {
    let mut details = std::collections::HashMap::new();
    if hits.is_empty() {
        return Ok(details);
    }
    let column = |name: Option<&str>| match name.filter(|name| entity.field(name).is_some()) {
        Some(name) => format!("CAST({} AS TEXT)", quote(name)),
        None => "NULL".to_owned(),
    };
    let placeholders: Vec<String> = (1..=hits.len()).map(|i| format!("?{i}")).collect();
    let params: Vec<SqlValue> = hits
        .iter()
        .map(|(id, _)| crate::sql::tools::shared::key::param(entity, id))
        .collect();
    let rows = conn
        .rows(
            &format!(
                "SELECT {}, {}, {} FROM {} WHERE {} IN ({})",
                quote(&entity.unique_field),
                column(entity.display_name_field.as_deref()),
                column(text_field),
                quote(&entity.table),
                quote(&entity.unique_field),
                placeholders.join(", ")
            ),
            &params,
        )
        .await?;
    for row in rows {
        let mut row = row.into_iter();
        let text = |value: Option<SqlValue>| match value {
            Some(SqlValue::Text(text)) => Some(text),
            _ => None,
        };
        if let Some(id) = row.next().and_then(SqlValue::into_key_text) {
            details.insert(id, (text(row.next()), text(row.next())));
        }
    }
    Ok(details)
}

/// The start of `text`, whitespace runs folded, at most [`SNIPPET_CHARS`] characters.
fn snippet(text: &str) -> String {
    let folded: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= SNIPPET_CHARS {
        folded
    } else {
        let cut: String = folded.chars().take(SNIPPET_CHARS).collect();
        format!("{cut}…")
    }
}
