//! `join_entities {start_entity_type, start_conditions?, hops, limit, offset}`: a chain of up to
//! four relationship hops, each with a direction and conditions on the records it reaches,
//! answered as the records at the end of the chain with the ids of the path that reached each
//! — one statement on every backend.

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::limits::{array_len, object_len};
use crate::sql::backend::Reader;
use crate::sql::describe::{DescriptionBuilder, relationship_arrow};
use crate::sql::query::{Condition, Page, Projection, ROW_ALIAS, compile_conditions, page_total};
use crate::sql::text::ident::{qualified, quote};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::graph::walk::{Walk, walks};
use crate::sql::tools::relationships::explore_relationships::TraversalDirection;
use crate::sql::tools::shared::answers::{Item, ListPage, Record, with_record};
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, check_relationship_types, definition, entity, list_answer,
    offset,
};
use crate::sql::value::{SqlValue, sql_to_json};

/// The most hops of one chain.
pub(crate) const MAX_HOPS: usize = 4;

/// One hop of a chain: a relationship followed from the records the chain has reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>, R: Deserialize<'de>")
)]
pub struct JoinHop<E = String, F = String, R = String> {
    /// The relationship to follow.
    #[schemars(extend("x-toolforge-slot" = "relationship"))]
    pub relationship_type: R,
    /// outgoing (the reached records are its targets), incoming, or both (default).
    #[serde(default)]
    pub direction: TraversalDirection,
    /// The entity reached (needed only when the relationship reaches several).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: Option<E>,
    /// Conditions on the records reached (AND), as in `query_entities`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition<F>>,
}

/// The arguments of `join_entities`: the records at the end of a chain of relationships.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>, R: Deserialize<'de>")
)]
pub struct JoinEntitiesArgs<E = String, F = String, R = String> {
    /// The entity type the chain starts from.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub start_entity_type: E,
    /// Conditions on the start records (AND), as in `query_entities`; absent: every record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_conditions: Vec<Condition<F>>,
    /// The hops, in order (1 to 4).
    #[schemars(length(min = 1, max = 4))]
    pub hops: Vec<JoinHop<E, F, R>>,
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

/// One record at the end of a chain.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct JoinRow {
    /// The unique ids of the records on the path, from the start record to this one.
    #[schemars(with = "Vec<String>")]
    path: Vec<Value>,
    /// The record reached.
    record: Record,
}

impl Item for JoinRow {
    fn into_json(mut self) -> Result<Value, serde_json::Error> {
        let record = std::mem::take(&mut self.record);
        with_record(&self, record)
    }
}

/// The head of `join_entities`'s pages.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct JoinHead {
    /// The entity of every record on each path, start first.
    path_entity_types: Vec<String>,
}

/// `join_entities`: one page of the records the chain reaches, one per path, ordered by the
/// path's ids; `total` counts the paths.
pub(crate) type JoinPage = ListPage<JoinHead, JoinRow>;

impl EngineTool for JoinEntitiesArgs {
    type Answer = JoinPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut description = DescriptionBuilder::new(
            "Follow a chain of 1 to 4 relationships in one call: from the records matching \
             start_conditions, each hop follows a relationship (direction: outgoing, incoming \
             or both) to the records matching its own conditions. Answers the records at the \
             end of the chain, each with the ids of its path (one row per path).",
        );
        let arrows: Vec<String> = spec.relationships.iter().map(relationship_arrow).collect();
        description.push("\n", &format!("Relationships: {}.", arrows.join(", ")));
        if let Some(first) = spec.relationships.first()
            && let Some(source) = spec.entity(&first.source)
        {
            let mut hops =
                vec![json!({"relationship_type": first.rel_type, "direction": "outgoing"})];
            if let Some(second) = spec
                .relationships
                .iter()
                .find(|r| r.source == first.target && r.rel_type != first.rel_type)
            {
                hops.push(json!({"relationship_type": second.rel_type, "direction": "outgoing"}));
            }
            description.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({
                        "start_entity_type": source.name,
                        "start_conditions": [{"field": source.unique_field, "operator": "=", "value": "<id>"}],
                        "hops": hops,
                        "limit": 10
                    })
                ),
            );
        }
        definition::<Self>(
            spec,
            "Join entities",
            description.finish(),
            &[
                "join",
                "chain",
                "multi-hop",
                "path",
                "relationships",
                "traverse",
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

/// The entity a hop from `from` reaches, and the walks of the edge tables that lead there.
struct Step<'s> {
    reached: &'s EntitySpec,
    legs: Vec<Walk<'s>>,
}

fn step<'s>(
    spec: &'s SchemaSpec,
    from: &EntitySpec,
    hop: &JoinHop,
    path: &str,
) -> Result<Step<'s>, ToolError> {
    let rel_type = hop.relationship_type.as_str();
    check_relationship_types(
        spec,
        std::slice::from_ref(&hop.relationship_type),
        &format!("{path}.relationship_type"),
    )?;
    let wanted = match &hop.entity_type {
        Some(name) => Some(entity(spec, name, &format!("{path}.entity_type"))?),
        None => None,
    };
    let found: Vec<Walk<'s>> = walks(
        spec,
        std::slice::from_ref(&hop.relationship_type),
        hop.direction,
    )
    .into_iter()
    .filter(|walk| walk.start_entity() == from.name)
    .collect();
    let mut reachable: Vec<String> = found.iter().map(|w| w.to_entity().to_owned()).collect();
    reachable.sort_unstable();
    reachable.dedup();
    let reached_name = match (wanted, reachable.as_slice()) {
        (Some(wanted), _) if reachable.contains(&wanted.name) => wanted.name.as_str(),
        (None, [only]) => only.as_str(),
        (None, []) | (Some(_), _) => {
            let touching: Vec<String> = spec
                .relationships
                .iter()
                .filter(|r| r.source == from.name || r.target == from.name)
                .map(relationship_arrow)
                .collect();
            let direction = match hop.direction {
                TraversalDirection::Outgoing => "outgoing",
                TraversalDirection::Incoming => "incoming",
                TraversalDirection::Both => "either",
            };
            return Err(ToolError::invalid_arguments(format!(
                "`{path}`: no {rel_type} edge leads {direction} from {}{}; {}'s relationships: \
                 {}",
                from.name,
                wanted.map_or(String::new(), |w| format!(" to {}", w.name)),
                from.name,
                if touching.is_empty() {
                    "none".to_owned()
                } else {
                    touching.join(", ")
                }
            ))
            .with_details(json!({"path": path, "relationships": touching})));
        }
        (None, several) => {
            return Err(ToolError::invalid_arguments(format!(
                "`{path}`: {rel_type} from {} reaches {}; say which with `entity_type`",
                from.name,
                several.join(" and ")
            ))
            .with_details(json!({"path": format!("{path}.entity_type"), "valid": several})));
        }
    };
    let reached = spec
        .entity(reached_name)
        .ok_or_else(|| ToolError::invalid_arguments(format!("`{path}`: unknown entity")))?;
    Ok(Step {
        reached,
        legs: found
            .into_iter()
            .filter(|walk| walk.to_entity() == reached_name)
            .collect(),
    })
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: JoinEntitiesArgs,
) -> Result<JoinPage, HandlerError> {
    let start = entity(spec, &arguments.start_entity_type, "start_entity_type")?;
    if arguments.hops.is_empty() || arguments.hops.len() > MAX_HOPS {
        return Err(ToolError::invalid_arguments(format!(
            "`hops` has {} hops; a chain has 1 to {MAX_HOPS} (for a longer one, call again \
             from the records this one reaches)",
            arguments.hops.len()
        ))
        .with_details(json!({"path": "hops"}))
        .into());
    }
    let limits = PageLimits::of(spec, arguments.limit)?;
    let offset = offset(arguments.offset)?;
    let dialect = conn.dialect();
    let mut params: Vec<SqlValue> = Vec::new();
    let filtered = |entity: &EntitySpec,
                    conditions: &[Condition],
                    path: &str,
                    params: &mut Vec<SqlValue>|
     -> Result<String, ToolError> {
        let where_sql = compile_conditions(entity, conditions, path, params, dialect)?;
        Ok(format!(
            "(SELECT {} AS \"id\" FROM {} AS {} WHERE {where_sql})",
            qualified(ROW_ALIAS, &entity.unique_field),
            quote(&entity.table),
            quote(ROW_ALIAS)
        ))
    };
    let mut from_sql = format!(
        "FROM {} AS \"h0\"",
        filtered(
            start,
            &arguments.start_conditions,
            "start_conditions",
            &mut params
        )?
    );
    let mut entities = vec![start];
    let mut path_columns = vec!["\"h0\".\"id\"".to_owned()];
    let hops = arguments.hops.len();
    for (i, hop) in arguments.hops.iter().enumerate() {
        let path = format!("hops[{i}]");
        let from = entities[i];
        let step = step(spec, from, hop, &path)?;
        let edges: Vec<String> = step
            .legs
            .iter()
            .map(|walk| {
                format!(
                    "SELECT {} AS \"a\", {} AS \"b\" FROM {}",
                    quote(walk.near()),
                    quote(walk.far()),
                    quote(&walk.relationship.table)
                )
            })
            .collect();
        let (e, h) = (format!("\"e{}\"", i + 1), format!("\"h{}\"", i + 1));
        // UNION: a pair linked both ways (or by two legs) is one step of one path.
        from_sql.push_str(&format!(
            " JOIN ({}) AS {e} ON {e}.\"a\" = \"h{i}\".\"id\"",
            edges.join(" UNION ")
        ));
        if i + 1 < hops {
            let reached = filtered(
                step.reached,
                &hop.conditions,
                &format!("{path}.conditions"),
                &mut params,
            )?;
            from_sql.push_str(&format!(" JOIN {reached} AS {h} ON {h}.\"id\" = {e}.\"b\""));
            path_columns.push(format!("{h}.\"id\""));
        } else {
            from_sql.push_str(&format!(
                " JOIN {} AS {} ON {} = {e}.\"b\"",
                quote(&step.reached.table),
                quote(ROW_ALIAS),
                qualified(ROW_ALIAS, &step.reached.unique_field)
            ));
            let where_sql = compile_conditions(
                step.reached,
                &hop.conditions,
                &format!("{path}.conditions"),
                &mut params,
                dialect,
            )?;
            from_sql.push_str(&format!(" WHERE {where_sql}"));
            path_columns.push(qualified(ROW_ALIAS, &step.reached.unique_field));
        }
        entities.push(step.reached);
    }
    let last = entities[hops];
    let projection = Projection::all(last);
    let order: Vec<String> = (1..=path_columns.len()).map(|i| i.to_string()).collect();
    let sql = format!(
        "SELECT {}, {} {from_sql} ORDER BY {} LIMIT {} OFFSET {offset}",
        path_columns.join(", "),
        projection.select_list(),
        order.join(", "),
        u64::from(limits.rows) + 1
    );
    let rows = conn.rows(&sql, &params).await?;
    let head = JoinHead {
        path_entity_types: entities.iter().map(|e| e.name.clone()).collect(),
    };
    let mut collector = Collector::new(&limits, &head);
    let mut results = Vec::new();
    let mut more = false;
    for row in &rows {
        if results.len() >= limits.rows as usize {
            more = true;
            break;
        }
        let path: Vec<Value> = (0..path_columns.len())
            .map(|i| sql_to_json(crate::spec::FieldType::String, &row[i]))
            .collect();
        let record = projection.record(row, path_columns.len());
        // `{"path":`, `,"record":` and `}` around the two.
        if !collector.take_bytes(19 + array_len(&path) + object_len(&record) + 1) {
            more = true;
            break;
        }
        results.push(JoinRow { path, record });
    }
    drop(rows);
    let (total, total_exact) = page_total(offset, results.len(), more, limits.rows, async |cap| {
        conn.count(
            &format!("SELECT count(*) FROM (SELECT 1 {from_sql} LIMIT {cap}) AS \"counted\""),
            &params,
        )
        .await
    })
    .await?;
    let page = Page {
        total,
        total_exact,
        offset,
        results,
    };
    Ok(list_answer(head, page, &limits, &collector)?)
}
