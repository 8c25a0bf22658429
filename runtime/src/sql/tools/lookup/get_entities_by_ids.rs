//! `get_entities_by_ids {entity_type, ids, fields, with_children, offset}`.

use crate::__private::IntoEngine;
use std::collections::HashMap;

use crate::sql::backend::Reader;
use crate::sql::value::SqlValue;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::describe::{DescriptionBuilder, bounded_list};
use crate::sql::query::{Projection, ROW_ALIAS, resolve_field};
use crate::sql::text::ident::{qualified, quote};
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::shared::answers::RecordsPage;
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, check_oversized, definition, entity, offset, page_end,
};
use crate::sql::value::sql_to_json;

/// The arguments of `get_entities_by_ids`: several records by the values of their unique
/// field, in the order given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>")
)]
pub struct GetEntitiesByIdsArgs<E = String, F = String> {
    /// The entity type of the records.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// Values of the entity's unique field.
    #[serde(deserialize_with = "crate::sql::tools::shared::key::texts_or_integers")]
    #[schemars(length(min = 1), extend("x-toolforge-slot" = "key_list"))]
    pub ids: Vec<String>,
    /// Fields or computed fields of the entity to return (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-toolforge-slot" = "field_list"))]
    pub fields: Option<Vec<F>>,
    /// Also return each record's children and their content. The schema offers it only when
    /// some entity of the spec has a hierarchy.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(
        description = "Also return each record's children and their content.",
        extend("default" = false, "x-toolforge-slot" = "hierarchy")
    )]
    pub with_children: bool,
    /// Distinct ids to skip: `0` (the default), then the previous answer's `next_offset`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

impl EngineTool for GetEntitiesByIdsArgs {
    type Answer = RecordsPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let max = spec.tools.max_limit.max(1);
        let hierarchical: Vec<String> = spec
            .entities
            .iter()
            .filter_map(|e| {
                e.hierarchy.as_ref().map(|h| {
                    format!(
                        "{} (children via {}, content: {})",
                        e.name, h.relationship, h.content_field
                    )
                })
            })
            .collect();
        let mut description = DescriptionBuilder::new(format!(
            "Fetch several records by the values of their unique field, in the order given (at most \
             {max}). `fields` limits the returned fields (the unique field is always included); \
             missing ids are listed in `missing`."
        ));
        if !hierarchical.is_empty() {
            let room = description
                .remaining(
                    " `with_children: true` adds each record's children and their content for: .",
                )
                .min(500);
            description.push(
                " ",
                &format!(
                    "`with_children: true` adds each record's children and their content for: {}.",
                    bounded_list(&hierarchical, room)
                ),
            );
        }
        if let Some(entity) = spec.entities.first() {
            let fields: Vec<&str> = entity
                .fields
                .iter()
                .take(3)
                .map(|f| f.name.as_str())
                .collect();
            description.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": entity.name, "ids": ["<id 1>", "<id 2>"], "fields": fields})
                ),
            );
        }
        let description = description.finish();
        definition::<Self>(
            spec,
            "Get entities by ids",
            description,
            &["get", "fetch", "ids", "batch", "children", "lookup"],
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

async fn children(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    entity: &EntitySpec,
    ids: &[SqlValue],
) -> Result<HashMap<String, Vec<Value>>, HandlerError> {
    let Some(hierarchy) = &entity.hierarchy else {
        return Err(ToolError::invalid_arguments(format!(
            "`with_children`: {} has no hierarchy; call again without with_children.",
            entity.name
        ))
        .into());
    };
    let relationship = spec.relationships.iter().find(|r| {
        r.rel_type == hierarchy.relationship
            && if hierarchy.child_is_source {
                r.target == entity.name
            } else {
                r.source == entity.name
            }
    });
    let Some(relationship) = relationship else {
        return Err(ToolError::execution_failed(format!(
            "The hierarchy of {} names the relationship {}, which does not exist in the schema.",
            entity.name, hierarchy.relationship
        ))
        .into());
    };
    let child_name = if hierarchy.child_is_source {
        &relationship.source
    } else {
        &relationship.target
    };
    let Some(child) = spec.entity(child_name) else {
        return Err(ToolError::execution_failed("The hierarchy's child entity is missing.").into());
    };
    let content = resolve_field(child, &hierarchy.content_field, "content_field")?;
    let (parent_column, child_column) = if hierarchy.child_is_source {
        ("target_id", "source_id")
    } else {
        ("source_id", "target_id")
    };
    let placeholders: Vec<String> = (1..=ids.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "SELECT \"e\".{parent}, {unique}, {content} FROM {edge} AS \"e\" JOIN {child} AS {alias} \
         ON {unique} = \"e\".{child_column} WHERE \"e\".{parent} IN ({list}) ORDER BY 1, 2",
        parent = quote(parent_column),
        child_column = quote(child_column),
        unique = qualified(ROW_ALIAS, &child.unique_field),
        content = content.sql,
        edge = quote(&relationship.table),
        child = quote(&child.table),
        alias = quote(ROW_ALIAS),
        list = placeholders.join(", "),
    );
    let rows = conn.rows(&sql, ids).await?;
    let mut out: HashMap<String, Vec<Value>> = HashMap::new();
    for row in &rows {
        let parent = text_of(&row[0]);
        let mut record = Map::new();
        record.insert("entity_type".into(), json!(child.name));
        record.insert(
            child.unique_field.clone(),
            sql_to_json(crate::spec::FieldType::String, &row[1]),
        );
        record.insert(content.name.to_string(), sql_to_json(content.ty, &row[2]));
        out.entry(parent).or_default().push(Value::Object(record));
    }
    Ok(out)
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: GetEntitiesByIdsArgs,
) -> Result<RecordsPage, HandlerError> {
    let entity = entity(spec, &arguments.entity_type, "entity_type")?;
    let max = spec.tools.max_limit.max(1) as usize;
    if arguments.ids.is_empty() || arguments.ids.len() > max {
        return Err(ToolError::invalid_arguments(format!(
            "`ids` must list 1 to {max} values, got {}",
            arguments.ids.len()
        ))
        .into());
    }
    if arguments.with_children && entity.hierarchy.is_none() {
        return Err(ToolError::invalid_arguments(format!(
            "`with_children`: {} has no hierarchy; call again without with_children.",
            entity.name
        ))
        .into());
    }
    let projection = match &arguments.fields {
        Some(fields) => Projection::of(entity, fields, "fields")?,
        None => Projection::all(entity),
    };
    let mut unique: Vec<String> = Vec::with_capacity(arguments.ids.len());
    for (i, id) in arguments.ids.iter().enumerate() {
        // An integer key is compared as the number it spells (`"07"` is record 7).
        let id = match crate::sql::tools::shared::key::bound(entity, id, &format!("ids[{i}]"))? {
            SqlValue::Integer(n) => n.to_string(),
            _ => id.clone(),
        };
        if !unique.contains(&id) {
            unique.push(id);
        }
    }

    let offset = offset(arguments.offset)?;
    let limits = PageLimits::capped(u32::try_from(unique.len()).unwrap_or(u32::MAX));
    let window: Vec<String> = unique
        .iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(limits.rows as usize)
        .cloned()
        .collect();
    let mut found: HashMap<String, Map<String, Value>> = HashMap::new();
    if !window.is_empty() {
        let params: Vec<SqlValue> = window.iter().cloned().map(SqlValue::Text).collect();
        let placeholders: Vec<String> = (1..=params.len()).map(|i| format!("?{i}")).collect();
        let unique_sql = qualified(ROW_ALIAS, &entity.unique_field);
        let sql = format!(
            "SELECT {unique_sql}, {} FROM {} AS {} WHERE {unique_sql} IN ({})",
            projection.select_list(),
            quote(&entity.table),
            quote(ROW_ALIAS),
            placeholders.join(", ")
        );
        for row in conn.rows(&sql, &params).await? {
            found.insert(text_of(&row[0]), projection.record(&row, 1));
        }
    }
    let mut children_of = if arguments.with_children {
        let present: Vec<SqlValue> = window
            .iter()
            .filter(|id| found.contains_key(*id))
            .cloned()
            .map(SqlValue::Text)
            .collect();
        if present.is_empty() {
            HashMap::new()
        } else {
            children(spec, conn, entity, &present).await?
        }
    } else {
        HashMap::new()
    };
    // The keys before the page's, measured against the answer's cap.
    #[derive(Serialize)]
    struct Head<'a> {
        entity_type: &'a str,
        requested: usize,
    }
    let head = Head {
        entity_type: &entity.name,
        requested: unique.len(),
    };
    let mut collector = Collector::new(&limits, &head);
    let mut results = Vec::new();
    let mut missing = Vec::new();
    // The page is counted in ids answered (found or missing), so `next_offset` indexes the
    // distinct ids.
    let mut answered: u64 = 0;
    for id in &window {
        match found.remove(id) {
            Some(mut record) => {
                if arguments.with_children {
                    record.insert(
                        "children".into(),
                        Value::Array(children_of.remove(id).unwrap_or_default()),
                    );
                }
                if !collector.take_record(&record) {
                    break;
                }
                results.push(record);
            }
            None => {
                if !collector.take_item(id) {
                    break;
                }
                missing.push(id.clone());
            }
        }
        answered += 1;
    }
    if answered == 0 {
        check_oversized(offset, &limits, &collector)?;
    }
    let total = unique.len() as u64;
    let next_offset = offset.saturating_add(answered).min(total.max(offset));
    Ok(RecordsPage {
        entity_type: entity.name.clone(),
        requested: total,
        offset,
        returned: results.len() as u64,
        missing,
        end: page_end(next_offset, next_offset < total, &limits, &collector),
        results,
    })
}

/// The text of a unique-field value read back from the database.
fn text_of(value: &SqlValue) -> String {
    match value {
        SqlValue::Text(text) => text.clone(),
        SqlValue::Integer(n) => n.to_string(),
        SqlValue::Real(n) => n.to_string(),
        SqlValue::Blob(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        SqlValue::Null => String::new(),
    }
}
