//! `hybrid_search {entity_type, query, index?, top_k}`: the full-text (BM25) ranking and the
//! vector ranking of the same query, fused by reciprocal rank (each list gives a record
//! `1 / (60 + rank)`), for entities with both a full-text index and a vector index. A record
//! that both rankings place high wins over one only a single ranking likes.

use crate::__private::IntoEngine;
use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::describe::DescriptionBuilder;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::search::full_text_search::ranked_ids;
use crate::sql::tools::search::semantic_search::{embed_query, ranked_answer, vector_index};
use crate::sql::tools::shared::answers::RankedAnswer;
use crate::sql::tools::shared::common::{
    HandlerError, PageLimits, definition, entity, limit_named,
};
use crate::sql::vectors::nearest::{Search, nearest};

/// The constant of reciprocal rank fusion (the value of the original paper, Cormack et al.).
const RRF_K: f64 = 60.0;
/// The fewest candidates each ranking contributes.
const MIN_CANDIDATES: u32 = 50;
/// The most candidates each ranking contributes.
const MAX_CANDIDATES: u32 = 1000;

/// The arguments of `hybrid_search`: records matching a text by words and by meaning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields, bound(deserialize = "E: Deserialize<'de>"))]
pub struct HybridSearchArgs<E = String> {
    /// The entity type to search (one with a full-text index and a vector index).
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// What to look for: words to match and a meaning to be close to.
    #[schemars(length(min = 1, max = 2000))]
    pub query: String,
    /// The vector index to use (default: the entity's first).
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
}

/// The entities `hybrid_search` works on.
fn hybrid_entities(spec: &SchemaSpec) -> Vec<&EntitySpec> {
    spec.entities
        .iter()
        .filter(|e| e.full_text.is_some() && !e.vector_indexes.is_empty())
        .collect()
}

impl EngineTool for HybridSearchArgs {
    type Answer = RankedAnswer;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find records by words and by meaning at once: the full-text ranking (BM25) and the \
             semantic ranking of `query` fused by reciprocal rank; best first, each with its \
             id, name, fused score (higher is better) and the start of its text. Use it when a \
             query has both exact terms (names, identifiers) and an intent.",
        );
        let entities: Vec<String> = hybrid_entities(spec)
            .iter()
            .map(|entity| {
                let indexes: Vec<&str> = entity
                    .vector_indexes
                    .iter()
                    .map(|i| i.name.as_str())
                    .collect();
                format!("{} (vector indexes: {})", entity.name, indexes.join(", "))
            })
            .collect();
        text.push("\n", &format!("Entities: {}.", entities.join("; ")));
        if let Some(entity) = hybrid_entities(spec).first() {
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "query": "parse config errors", "top_k": 5})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Hybrid search",
            text.finish(),
            &[
                "hybrid",
                "semantic",
                "full text",
                "keyword",
                "search",
                "rank fusion",
            ],
        )
    }

    async fn execute(self, _: &SchemaSpec, _: &dyn Reader) -> Result<Self::Answer, HandlerError> {
        Err(ToolError::new(
            crate::ErrorCode::Unavailable,
            "hybrid_search needs its database's embedder",
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
        if entity.full_text.is_none() || entity.vector_indexes.is_empty() {
            let both: Vec<&str> = hybrid_entities(spec)
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            return Err(ToolError::invalid_arguments(format!(
                "`entity_type`: {} needs both a full-text index and a vector index for hybrid \
                 search; entities with both: {}",
                entity.name,
                both.join(", ")
            ))
            .with_details(json!({"path": "entity_type", "valid": both}))
            .into());
        }
        let index = vector_index(spec, entity, self.index.as_deref())?;
        let limits = PageLimits::capped(limit_named(spec, self.top_k, "top_k")?);
        let depth = (limits.rows * 4).clamp(MIN_CANDIDATES, MAX_CANDIDATES);
        let words = ranked_ids(spec, conn, &entity.name, &self.query, depth).await?;
        let query_vector = crate::sync::compute(|| embed_query(db, index, &self.query))?;
        let meaning: Vec<String> = nearest(
            db,
            conn,
            spec,
            &Search {
                entity,
                index,
                vector: &query_vector,
                k: depth as usize,
                conditions: &[],
            },
        )
        .await?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
        let word_ids: Vec<String> = words.into_iter().map(|(id, _)| id).collect();
        let mut fused = fuse(&[&word_ids, &meaning]);
        fused.truncate(limits.rows as usize);
        let text_field = index.source_field.as_deref().or_else(|| {
            entity
                .full_text
                .as_ref()
                .and_then(|f| f.fields.first())
                .map(|f| f.name.as_str())
        });
        let answer = ranked_answer(
            conn,
            entity,
            text_field,
            fused,
            &limits,
            RankedAnswer {
                entity_type: entity.name.clone(),
                index: Some(index.name.clone()),
                similarity: None,
                returned: 0,
                truncated: false,
                results: Vec::new(),
            },
        )
        .await?;
        Ok(answer)
    }
}

/// Reciprocal rank fusion of rankings (ids, best first): each gives a record
/// `1 / (RRF_K + rank)` (rank from 1); records by fused score, ties by id.
pub(crate) fn fuse(rankings: &[&[String]]) -> Vec<(String, f64)> {
    let mut scores: HashMap<&str, f64> = HashMap::new();
    for ranking in rankings {
        for (position, id) in ranking.iter().enumerate() {
            *scores.entry(id.as_str()).or_default() += 1.0 / (RRF_K + position as f64 + 1.0);
        }
    }
    let mut fused: Vec<(String, f64)> = scores
        .into_iter()
        .map(|(id, score)| (id.to_owned(), score))
        .collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    fused
}

#[cfg(test)]
mod tests {
    use super::fuse;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn a_record_both_rankings_like_beats_one_each_likes_best() {
        let words = ids(&["a", "both", "c"]);
        let meaning = ids(&["x", "both", "y"]);
        let fused = fuse(&[&words, &meaning]);
        assert_eq!(fused[0].0, "both");
        assert!((fused[0].1 - 2.0 / 62.0).abs() < 1e-12);
        // `a` and `x` tie (first in one list each): ordered by id.
        assert_eq!((fused[1].0.as_str(), fused[2].0.as_str()), ("a", "x"));
        assert_eq!(fused.len(), 5);
    }

    #[test]
    fn one_ranking_alone_keeps_its_order() {
        let words = ids(&["b", "a", "c"]);
        let fused: Vec<String> = fuse(&[&words, &[]]).into_iter().map(|(id, _)| id).collect();
        assert_eq!(fused, ["b", "a", "c"]);
    }
}
