//! `resources/list`, `resources/templates/list` and `resources/read`.

use rmcp::model::{
    ErrorData, ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate,
};
use serde_json::{Value, json};

use super::data::{Caller, Offers, SCHEMA_URI, text_of};
use super::markdown;
use super::uris::{JSON_QUERY, Target};
use crate::mcp::paging::page;
use crate::{ErrorCode, ToolError};

/// Related records shown per relationship in a record's Markdown.
const RELATED_SHOWN: u32 = 10;
/// Relationship types followed for a record's Markdown.
const RELATIONSHIPS_SHOWN: usize = 16;

/// Every resource listed for the caller: the documents, the schema, then up to the configured
/// number of records per entity (those the caller's rules let it read).
pub(in crate::mcp) async fn list_resources(
    offers: &Offers,
    caller: &Caller<'_>,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<ListResourcesResult, ErrorData> {
    let mut items: Vec<Resource> = Vec::new();
    for document in &offers.spec.mcp.resources.documents {
        let mut resource = Resource::new(&document.uri, &document.name)
            .with_mime_type(&document.mime_type)
            .with_size(document.text.len() as u64);
        if let Some(description) = &document.description {
            resource = resource.with_description(description);
        }
        items.push(resource);
    }
    if offers.get_schema.is_some() {
        items.push(
            Resource::new(SCHEMA_URI, "schema")
                .with_title(format!("The schema of {}", offers.spec.name))
                .with_description(
                    "Every entity with its fields, computed fields and relationships (what \
                     get_schema answers)",
                )
                .with_mime_type("application/json"),
        );
    }
    if let (Some(query), Some(_)) = (&offers.query_entities, &offers.get_entity_by_id) {
        for (position, template) in offers.uris.iter().enumerate() {
            if template.listed == 0 {
                continue;
            }
            let entity = &offers.spec.entities[position];
            let mut arguments = json!({"entity_type": entity.name, "limit": template.listed});
            if let Some((field, descending)) = &template.order_by {
                arguments["order_by"] =
                    json!({"field": field, "direction": if *descending { "DESC" } else { "ASC" }});
            }
            let answer = caller.call(query, arguments).await;
            let records = match answer {
                Ok(answer) => answer,
                // A caller that may not query this entity (scopes, rules) is shown none of it.
                Err(error) if matches!(error.code, ErrorCode::Forbidden) => continue,
                Err(error) => return Err(tool_error(error, &template.template())),
            };
            for record in records["results"].as_array().into_iter().flatten() {
                let Some(id) = text_of(&record[&entity.unique_field]) else {
                    continue;
                };
                let name = entity
                    .display_name_field
                    .as_ref()
                    .and_then(|field| text_of(&record[field]))
                    .unwrap_or_else(|| id.clone());
                items.push(
                    Resource::new(template.uri(&id), name)
                        .with_description(format!("{} {} = {id}", entity.name, entity.unique_field))
                        .with_mime_type("text/markdown"),
                );
            }
        }
    }
    let (range, next) = page(cursor, items.len(), page_size)?;
    let mut listed = ListResourcesResult::with_all_items(items.drain(range).collect());
    listed.next_cursor = next;
    Ok(listed)
}

/// One template per entity, when records can be read.
pub(in crate::mcp) fn list_templates(offers: &Offers) -> ListResourceTemplatesResult {
    let templates = match offers.get_entity_by_id {
        None => Vec::new(),
        Some(_) => offers
            .uris
            .iter()
            .zip(&offers.spec.entities)
            .map(|(template, entity)| {
                ResourceTemplate::new(template.template(), &entity.name)
                    .with_title(format!("{} record", entity.name))
                    .with_description(format!(
                        "One {} by its {} (`{{id}}`): its fields, computed fields and related \
                         records in Markdown; add `{JSON_QUERY}` for the record as JSON",
                        entity.name, entity.unique_field
                    ))
                    .with_mime_type("text/markdown")
            })
            .collect(),
    };
    ListResourceTemplatesResult::with_all_items(templates)
}

/// The content of `uri`, read for the caller.
pub(in crate::mcp) async fn read_resource(
    offers: &Offers,
    caller: &Caller<'_>,
    uri: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let Some(target) = offers.target(uri) else {
        return Err(not_a_resource(uri));
    };
    let (mime_type, text) = match target {
        Target::Document(position) => {
            let document = &offers.spec.mcp.resources.documents[position];
            (document.mime_type.clone(), document.text.clone())
        }
        Target::Schema => {
            let tool = offers.get_schema.as_deref().unwrap_or_default();
            let schema = caller
                .call(tool, json!({}))
                .await
                .map_err(|error| tool_error(error, uri))?;
            ("application/json".to_owned(), pretty(&schema))
        }
        Target::Record { entity, id, json } => {
            let entity = &offers.spec.entities[entity];
            let tool = offers.get_entity_by_id.as_deref().unwrap_or_default();
            let answer = caller
                .call(tool, json!({"entity_type": entity.name, "id_value": id}))
                .await
                .map_err(|error| tool_error(error, uri))?;
            let record = &answer["record"];
            if json {
                ("application/json".to_owned(), pretty(record))
            } else {
                let related = related(offers, caller, entity, &id).await;
                (
                    "text/markdown".to_owned(),
                    markdown::record(offers, entity, record, &related),
                )
            }
        }
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type(mime_type),
    ]))
}

/// The records related to one, per relationship type that touches its entity: the answers of
/// `explore_relationships` (a relationship the caller may not follow is left out).
async fn related(
    offers: &Offers,
    caller: &Caller<'_>,
    entity: &crate::spec::EntitySpec,
    id: &str,
) -> Vec<(String, Value)> {
    let Some(tool) = &offers.explore_relationships else {
        return Vec::new();
    };
    let mut types: Vec<&str> = Vec::new();
    for relationship in &offers.spec.relationships {
        if (relationship.source == entity.name || relationship.target == entity.name)
            && !types.contains(&relationship.rel_type.as_str())
        {
            types.push(&relationship.rel_type);
        }
    }
    let mut related = Vec::new();
    for rel_type in types.into_iter().take(RELATIONSHIPS_SHOWN) {
        let arguments = json!({
            "start_entity_type": entity.name,
            "start_conditions": [{"field": entity.unique_field, "operator": "=", "value": id}],
            "relationship_type": rel_type,
            "direction": "both",
            "limit": RELATED_SHOWN,
        });
        if let Ok(answer) = caller.call(tool, arguments).await {
            related.push((rel_type.to_owned(), answer));
        }
    }
    related
}

/// The error of a URI that names nothing of this server.
pub(in crate::mcp) fn not_a_resource(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!(
            "`{uri}` is not a resource of this server; resources/list and \
             resources/templates/list say which are"
        ),
        Some(json!({"uri": uri})),
    )
}

/// A tool's error as the JSON-RPC error of a resource read.
fn tool_error(error: ToolError, uri: &str) -> ErrorData {
    let data = Some(error.to_json());
    match error.code {
        ErrorCode::NotFound => ErrorData::resource_not_found(
            format!("there is no resource `{uri}`: {}", error.message),
            data,
        ),
        ErrorCode::InvalidArguments => ErrorData::invalid_params(error.message, data),
        ErrorCode::Forbidden => ErrorData::invalid_request(error.message, data),
        _ => ErrorData::internal_error(error.message, data),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
