//! `query_entities_by_pattern {entity_type, field, pattern, pattern_type: regex|glob|fuzzy,
//! max_distance?, limit, offset}`.
//!
//! `regex` and `glob` are the `REGEX` and `GLOB` conditions of `query_entities` (same limits),
//! ordered by the field. `fuzzy` ranks the values within `max_distance` edits (Levenshtein,
//! over characters compared case-insensitively one by one) of the pattern: the database
//! keeps only values whose length could be that close, read in batches ordered by the unique
//! field, and the call's deadline is checked between batches; only the page's records are
//! then read whole.

use crate::__private::IntoEngine;
use std::collections::BinaryHeap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::spec::{EntitySpec, FieldType, SchemaSpec};
use crate::{CallBudget, ToolDefinition, ToolError};

use crate::sql::backend::{ExecError, Reader};
use crate::sql::describe::DescriptionBuilder;
use crate::sql::query::Condition;
use crate::sql::query::Operator;
use crate::sql::query::{
    ConditionPaths, Direction, EntityQuery, OrderBy, Page, Projection, ROW_ALIAS,
    compile_condition, resolve_field, text_field_names,
};
use crate::sql::text::ident::{qualified, quote};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::{EntityHead, PatternPage};
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, definition, entity, list_answer, list_page, offset,
};
use crate::sql::value::SqlValue;

/// How `query_entities_by_pattern` reads its pattern.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, IntoEngine,
)]
#[serde(rename_all = "lowercase")]
pub enum PatternType {
    /// Rust `regex` syntax, matching anywhere unless anchored (`(?i)` ignores case).
    #[default]
    Regex,
    /// Shell wildcards: `*`, `?`, `[abc]`, matching the whole value.
    Glob,
    /// Values within `max_distance` edits of the pattern, closest first (case ignored).
    Fuzzy,
}

/// The default `max_distance` of a fuzzy search.
pub const DEFAULT_MAX_DISTANCE: i64 = 2;
/// The largest `max_distance` a fuzzy search takes.
pub const MAX_DISTANCE: i64 = 8;
/// The longest fuzzy pattern, in characters.
pub const MAX_FUZZY_PATTERN_CHARS: usize = 256;
/// The deepest page (`offset` + `limit`) of a fuzzy search.
pub const MAX_FUZZY_DEPTH: u64 = 10_000;
/// How many values a fuzzy search reads per statement.
const FUZZY_BATCH: u32 = 5_000;

/// The arguments of `query_entities_by_pattern`: records whose text field matches a regex, a
/// glob, or is close to a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>")
)]
pub struct QueryEntitiesByPatternArgs<E = String, F = String> {
    /// The entity type to search.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// A text field (string, enum or datetime, stored or computed) of the entity.
    #[schemars(extend("x-toolforge-slot" = "text_field"))]
    pub field: F,
    /// The pattern: a regex (`.*Service$`), a glob (`*Service`) or, for fuzzy, the text to be
    /// close to (`getUsr`).
    pub pattern: String,
    /// regex (default), glob or fuzzy.
    #[serde(default)]
    pub pattern_type: PatternType,
    /// fuzzy only: the most edits (inserted, deleted or replaced characters) a match may be
    /// from the pattern (0 to 8, default 2).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0, max = 8))]
    pub max_distance: Option<i64>,
    /// The most records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
    /// Records to skip: `0` (the default), then the previous answer's `next_offset`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

impl EngineTool for QueryEntitiesByPatternArgs {
    type Answer = PatternPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find records whose text field matches a pattern. pattern_type: regex (Rust syntax, \
             matches anywhere unless anchored, `(?i)` ignores case), glob (`*`, `?`, `[abc]`, \
             whole value) or fuzzy (Levenshtein distance at most max_distance, default 2, case \
             ignored; closest first, with `distances`). regex and glob results are ordered by \
             the field.",
        );
        let per_entity: Vec<String> = spec
            .entities
            .iter()
            .map(|entity| format!("{}: {}", entity.name, text_field_names(entity).join(", ")))
            .collect();
        let listed = format!("Text fields: {}.", per_entity.join("; "));
        if !text.push("\n", &listed) {
            let room = text.remaining("\n").min(500);
            text.push(
                "\n",
                &format!(
                    "Text fields: {}",
                    crate::sql::describe::bounded_list(&per_entity, room.saturating_sub(13))
                ),
            );
        }
        if let Some(entity) = spec.entities.first() {
            let field = entity
                .display_name_field
                .clone()
                .filter(|name| text_field_names(entity).contains(&name.as_str()))
                .unwrap_or_else(|| entity.unique_field.clone());
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "field": field, "pattern": "parse_confg",
                           "pattern_type": "fuzzy", "max_distance": 2, "limit": 10})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Query entities by pattern",
            text.finish(),
            &[
                "pattern", "regex", "glob", "fuzzy", "typo", "similar", "name",
            ],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = entity(spec, &self.entity_type, "entity_type")?;
        let limits = PageLimits::of(spec, self.limit)?;
        let offset = offset(self.offset)?;
        let field = resolve_field(entity, &self.field, "field")?;
        if !matches!(
            field.ty,
            FieldType::String | FieldType::Enum | FieldType::Datetime
        ) {
            let valid = text_field_names(entity);
            return Err(ToolError::invalid_arguments(format!(
                "`field`: query_entities_by_pattern matches text fields, and `{}` is {} field \
                 of {}; use one of: {}",
                field.name,
                field.ty.config_name(),
                entity.name,
                valid.join(", ")
            ))
            .with_details(json!({"path": "field", "valid": valid}))
            .into());
        }
        if self.pattern_type != PatternType::Fuzzy && self.max_distance.is_some() {
            return Err(ToolError::invalid_arguments(
                "`max_distance` applies to pattern_type fuzzy only; leave it out, or use fuzzy",
            )
            .with_details(json!({"path": "max_distance"}))
            .into());
        }
        let operator = match self.pattern_type {
            PatternType::Regex => Operator::Regex,
            PatternType::Glob => Operator::Glob,
            PatternType::Fuzzy => {
                return fuzzy(entity, &self, &limits, offset, conn).await;
            }
        };
        let mut params = Vec::new();
        let where_sql = compile_condition(
            entity,
            &Condition {
                field: self.field.clone(),
                operator,
                value: Value::String(self.pattern),
            },
            &ConditionPaths {
                field: "field".into(),
                operator: "pattern_type".into(),
                value: "pattern".into(),
            },
            &mut params,
            conn.dialect(),
        )?;
        let order = OrderBy {
            field: self.field,
            direction: Direction::Asc,
        };
        let query = EntityQuery::compiled(
            entity,
            where_sql,
            params,
            Some(&order),
            limits.rows,
            conn.dialect(),
        )?
        .with_offset(offset);
        Ok(PatternPage {
            page: list_page(conn, query, &entity.name, &limits).await?,
            distances: None,
        })
    }
}

/// Characters compared case-insensitively, one for one (so lengths, and the length filter,
/// stay exact).
fn folded(text: &str) -> Vec<char> {
    text.chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .collect()
}

/// A fuzzy match: ordered by distance, then value, then unique id.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    distance: usize,
    value: String,
    id: String,
}

async fn fuzzy(
    entity: &EntitySpec,
    arguments: &QueryEntitiesByPatternArgs,
    limits: &PageLimits,
    offset: u64,
    conn: &dyn Reader,
) -> Result<PatternPage, HandlerError> {
    let pattern: Vec<char> = folded(&arguments.pattern);
    if pattern.len() > MAX_FUZZY_PATTERN_CHARS {
        return Err(ToolError::invalid_arguments(format!(
            "`pattern`: fuzzy patterns are limited to {MAX_FUZZY_PATTERN_CHARS} characters, got {}",
            pattern.len()
        ))
        .into());
    }
    let max_distance = match arguments.max_distance {
        None => DEFAULT_MAX_DISTANCE,
        Some(d) if (0..=MAX_DISTANCE).contains(&d) => d,
        Some(d) => {
            return Err(ToolError::invalid_arguments(format!(
                "`max_distance` must be between 0 and {MAX_DISTANCE}, got {d}"
            ))
            .with_details(json!({"path": "max_distance", "minimum": 0, "maximum": MAX_DISTANCE}))
            .into());
        }
    } as usize;
    let depth = offset + u64::from(limits.rows);
    if depth > MAX_FUZZY_DEPTH {
        return Err(ToolError::invalid_arguments(format!(
            "`offset`: a fuzzy search pages at most {MAX_FUZZY_DEPTH} records deep \
             (offset + limit), got {depth}; lower max_distance or make the pattern longer"
        ))
        .with_details(json!({"path": "offset", "maximum": MAX_FUZZY_DEPTH}))
        .into());
    }
    let field = resolve_field(entity, &arguments.field, "field")?;
    let unique = qualified(ROW_ALIAS, &entity.unique_field);
    let shortest = pattern.len().saturating_sub(max_distance) as i64;
    let longest = (pattern.len() + max_distance) as i64;
    let sql = format!(
        "SELECT {unique}, {value} FROM {table} AS {alias} WHERE {value} IS NOT NULL \
         AND length({value}) BETWEEN ?1 AND ?2 AND {unique} > ?3 ORDER BY {unique} LIMIT {FUZZY_BATCH}",
        value = field.sql,
        table = quote(&entity.table),
        alias = quote(ROW_ALIAS),
    );
    // The best `depth` matches so far (a max-heap: the worst on top), and how many matched.
    let mut best: BinaryHeap<Candidate> = BinaryHeap::new();
    let mut total: u64 = 0;
    let mut after = String::new();
    loop {
        if CallBudget::current().is_some_and(|budget| budget.is_expired()) {
            return Err(ExecError::Stopped.into());
        }
        let rows = conn
            .rows(
                &sql,
                &[
                    SqlValue::Integer(shortest),
                    SqlValue::Integer(longest),
                    SqlValue::Text(after.clone()),
                ],
            )
            .await?;
        let done = rows.len() < FUZZY_BATCH as usize;
        for row in rows {
            let (Some(SqlValue::Text(id)), Some(SqlValue::Text(value))) = (row.first(), row.get(1))
            else {
                continue;
            };
            after.clone_from(id);
            let distance = levenshtein(&pattern, &folded(value));
            if distance > max_distance {
                continue;
            }
            total += 1;
            let candidate = Candidate {
                distance,
                value: value.clone(),
                id: id.clone(),
            };
            if (best.len() as u64) < depth {
                best.push(candidate);
            } else if best.peek().is_some_and(|worst| candidate < *worst) {
                best.pop();
                best.push(candidate);
            }
        }
        if done {
            break;
        }
    }
    let ranked: Vec<Candidate> = best
        .into_sorted_vec()
        .into_iter()
        .skip(offset as usize)
        .collect();
    let projection = Projection::all(entity);
    let mut records: Vec<Option<Map<String, Value>>> = vec![None; ranked.len()];
    for (chunk_index, chunk) in ranked.chunks(500).enumerate() {
        let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("?{i}")).collect();
        let params: Vec<SqlValue> = chunk.iter().map(|c| SqlValue::Text(c.id.clone())).collect();
        let rows = conn
            .rows(
                &format!(
                    "SELECT {unique}, {} FROM {} AS {} WHERE {unique} IN ({})",
                    projection.select_list(),
                    quote(&entity.table),
                    quote(ROW_ALIAS),
                    placeholders.join(", ")
                ),
                &params,
            )
            .await?;
        for row in rows {
            let Some(SqlValue::Text(id)) = row.first() else {
                continue;
            };
            if let Some(position) = chunk.iter().position(|c| &c.id == id) {
                records[chunk_index * 500 + position] = Some(projection.record(&row, 1));
            }
        }
    }
    let head = EntityHead {
        entity_type: entity.name.clone(),
    };
    let mut collector = Collector::new(limits, &head);
    let mut results = Vec::new();
    let mut distances = Vec::new();
    for (candidate, record) in ranked.iter().zip(records) {
        let Some(record) = record else { continue };
        // The record, its comma, and its distance's digits and comma (at most three: the
        // distance is at most MAX_DISTANCE).
        if !collector.take_bytes(crate::limits::object_len(&record) + 4) {
            break;
        }
        results.push(record);
        distances.push(candidate.distance as u64);
    }
    let page = Page {
        total,
        total_exact: true,
        offset,
        results,
    };
    Ok(PatternPage {
        page: list_answer(head, page, limits, &collector)?,
        distances: Some(distances),
    })
}

/// The Levenshtein distance of two character sequences (strsim's, which counts characters).
fn levenshtein(a: &Vec<char>, b: &Vec<char>) -> usize {
    strsim::generic_levenshtein(a, b)
}
