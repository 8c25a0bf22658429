//! `full_text_search {entity_type, query, fields, top_k, prefix, offset}`: records ranked by
//! BM25 over an entity's full-text index (see [`full_text`](crate::sql::full_text)).

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::spec::{EntitySpec, FullTextSpec, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::backend::Reader;
use crate::sql::describe::DescriptionBuilder;
use crate::sql::full_text::{FullTextQuery, Ranking, search};
use crate::sql::query::Page;
use crate::sql::text::names::unknown_name_message;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::{EntityHead, SearchHit, SearchPage};
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, definition, entity, limit_named, list_answer, offset,
};

/// The arguments of `full_text_search`: an entity's records ranked by how well their indexed
/// text matches a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(deny_unknown_fields)]
pub struct FullTextSearchArgs<E = String, F = String> {
    /// The entity type to search (one with a full-text index).
    #[schemars(extend("x-toolforge-slot" = "full_text_entity"))]
    pub entity_type: E,
    /// Words and "quoted phrases", all of which must match (case, accents and word endings
    /// are ignored). Everything else is plain text: no operators, wildcards or field
    /// filters.
    pub query: String,
    /// Search only these indexed fields of the entity (default: all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "full_text_field_list"))]
    pub fields: Option<Vec<F>>,
    /// The most records to return, best first.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub top_k: Option<i64>,
    /// Match words as the beginnings of terms (`pars` finds `parser`); quoted phrases stay
    /// exact. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<bool>,
    /// Ranked records to skip: `0` (the default), then the previous answer's `next_offset`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

impl EngineTool for FullTextSearchArgs {
    type Answer = SearchPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find the records whose indexed text best matches words or \"quoted phrases\" \
             (every one must match; case, accents and word endings are ignored), ranked by \
             BM25 relevance with per-field weights. Each result has the unique id, the display \
             name, the score (higher is better) and a snippet with the matched terms between \
             ** marks. `prefix: true` matches words as term beginnings. Fetch whole records \
             with get_entities_by_ids.",
        );
        let indexed: Vec<String> = spec
            .entities
            .iter()
            .filter_map(|entity| Some((entity, entity.full_text.as_ref()?)))
            .map(|(entity, index)| {
                let fields: Vec<String> = index
                    .fields
                    .iter()
                    .map(|f| format!("{} (weight {})", f.name, f.weight))
                    .collect();
                format!("{}: {}", entity.name, fields.join(", "))
            })
            .collect();
        text.push("\n", &format!("Indexed fields: {}.", indexed.join("; ")));
        if let Some((entity, index)) = spec
            .entities
            .iter()
            .find_map(|entity| Some((entity, entity.full_text.as_ref()?)))
        {
            let field = &index.fields[0].name;
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "query": "\"error handling\" retry", "fields": [field], "top_k": 10})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Full-text search",
            text.finish(),
            &["search", "full-text", "keyword", "bm25", "text", "find"],
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

/// The entity's full-text index, or the error naming the entities that have one.
pub(crate) fn full_text_index<'s>(
    spec: &'s SchemaSpec,
    entity: &'s EntitySpec,
) -> Result<&'s FullTextSpec, ToolError> {
    entity.full_text.as_ref().ok_or_else(|| {
        let indexed: Vec<&str> = spec
            .entities
            .iter()
            .filter(|e| e.full_text.is_some())
            .map(|e| e.name.as_str())
            .collect();
        ToolError::invalid_arguments(format!(
            "`entity_type`: {} has no full-text index; search one of {}, or use \
             query_entities with CONTAINS",
            entity.name,
            indexed.join(", ")
        ))
        .with_details(json!({"path": "entity_type", "valid": indexed}))
    })
}

/// The search text parsed, or an `invalid_arguments` error saying what to send instead.
pub(crate) fn parse_query(text: &str) -> Result<FullTextQuery, ToolError> {
    FullTextQuery::parse(text).map_err(|error| {
        ToolError::invalid_arguments(format!("`query`: {error}"))
            .with_details(json!({"path": "query"}))
    })
}

/// Checks `fields` against the index: each must be one of its fields.
fn checked_fields(
    entity: &EntitySpec,
    index: &FullTextSpec,
    fields: Option<Vec<String>>,
) -> Result<Vec<String>, ToolError> {
    let indexed: Vec<&str> = index.fields.iter().map(|f| f.name.as_str()).collect();
    let fields = fields.unwrap_or_default();
    for (i, name) in fields.iter().enumerate() {
        if !indexed.contains(&name.as_str()) {
            return Err(ToolError::invalid_arguments(format!(
                "`fields[{i}]`: {}",
                unknown_name_message(
                    "indexed field",
                    name,
                    &format!(" of {}", entity.name),
                    indexed.clone()
                )
            ))
            .with_details(json!({"path": format!("fields[{i}]"), "valid": indexed})));
        }
    }
    let mut unique: Vec<String> = Vec::new();
    for name in fields {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    Ok(unique)
}

/// The records of `entity_type` ranked for `query` (all indexed fields, whole words): the
/// first `top_k` unique ids with their scores, best first. The ranked list other searches
/// fuse with theirs.
#[allow(dead_code)]
pub(crate) async fn ranked_ids(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    entity_type: &str,
    query: &str,
    top_k: u32,
) -> Result<Vec<(String, f64)>, HandlerError> {
    let entity = entity(spec, entity_type, "entity_type")?;
    let index = full_text_index(spec, entity)?;
    let query = parse_query(query)?;
    let ranking = Ranking {
        entity,
        index,
        query: &query,
        fields: &[],
        prefix: false,
    };
    let (hits, _) = search(conn, &ranking, top_k, 0, false, false).await?;
    Ok(hits.into_iter().map(|hit| (hit.id, hit.score)).collect())
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: FullTextSearchArgs,
) -> Result<SearchPage, HandlerError> {
    let entity = entity(spec, &arguments.entity_type, "entity_type")?;
    let index = full_text_index(spec, entity)?;
    let mut limits = PageLimits::capped(limit_named(spec, arguments.top_k, "top_k")?);
    if limits.rows_limit == "limit" {
        limits.rows_limit = "top_k";
    }
    let offset = offset(arguments.offset)?;
    let fields = checked_fields(entity, index, arguments.fields)?;
    let query = parse_query(&arguments.query)?;
    let ranking = Ranking {
        entity,
        index,
        query: &query,
        fields: &fields,
        prefix: arguments.prefix.unwrap_or(false),
    };
    let (hits, total) = search(conn, &ranking, limits.rows, offset, true, true).await?;
    let head = EntityHead {
        entity_type: entity.name.clone(),
    };
    let mut collector = Collector::new(&limits, &head);
    let mut results = Vec::with_capacity(hits.len());
    for hit in hits {
        let result = SearchHit {
            id: crate::sql::key::to_json(entity, &hit.id),
            name: hit.name,
            score: hit.score,
            snippet: hit.snippet.unwrap_or_default(),
        };
        if !collector.take_item(&result) {
            break;
        }
        results.push(result);
    }
    let page = Page {
        total,
        total_exact: true,
        offset,
        results,
    };
    Ok(list_answer(head, page, &limits, &collector)?)
}
