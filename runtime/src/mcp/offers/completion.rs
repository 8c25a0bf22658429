//! `completion/complete`: values for a prompt's arguments (its allowed values, entity names,
//! or an entity's unique values by prefix) and for the `{id}` of a record's URI template.

use rmcp::model::{CompleteResult, CompletionInfo, ErrorData, Reference};
use serde_json::json;

use super::data::{Caller, Offers, text_of};
use crate::spec::EntitySpec;

/// The most values one answer carries (MCP's cap).
const MAX_VALUES: usize = 100;

/// The completions of `argument`, whose value so far is `prefix`, of the prompt or template
/// `reference`.
pub(in crate::mcp) async fn complete(
    offers: &Offers,
    caller: &Caller<'_>,
    reference: &Reference,
    argument: &str,
    prefix: &str,
) -> Result<CompleteResult, ErrorData> {
    let values = match reference {
        Reference::Prompt(prompt) => {
            let Some(spec) = offers.prompts.iter().find(|p| p.name == prompt.name) else {
                return Err(ErrorData::invalid_params(
                    format!("there is no prompt `{}`", prompt.name),
                    None,
                ));
            };
            let Some(spec) = spec.arguments.iter().find(|a| a.name == argument) else {
                return Err(ErrorData::invalid_params(
                    format!("the prompt `{}` has no argument `{argument}`", prompt.name),
                    None,
                ));
            };
            match &spec.entity {
                Some(entity) => match offers.spec.entities.iter().find(|e| e.name == *entity) {
                    Some(entity) => ids(offers, caller, entity, prefix).await?,
                    None => Vec::new(),
                },
                None => matching(&spec.values, prefix),
            }
        }
        Reference::Resource(template) => {
            let Some(position) = offers
                .uris
                .iter()
                .position(|uri| uri.template() == template.uri)
            else {
                return Err(ErrorData::invalid_params(
                    format!(
                        "`{}` is not a resource template of this server; \
                         resources/templates/list says which are",
                        template.uri
                    ),
                    None,
                ));
            };
            if argument != "id" {
                return Err(ErrorData::invalid_params(
                    format!("the template `{}` has one variable, `id`", template.uri),
                    None,
                ));
            }
            ids(offers, caller, &offers.spec.entities[position], prefix).await?
        }
        other => {
            return Err(ErrorData::invalid_params(
                format!(
                    "completions of a `{}` are not offered",
                    other.reference_type()
                ),
                None,
            ));
        }
    };
    let has_more = values.len() > MAX_VALUES;
    let shown: Vec<String> = values.into_iter().take(MAX_VALUES).collect();
    let info = if has_more {
        CompletionInfo::with_pagination(shown, None, true)
    } else {
        CompletionInfo::with_all_values(shown)
    }
    .map_err(|error| ErrorData::internal_error(error, None))?;
    Ok(CompleteResult::new(info))
}

/// The values that start with `prefix` (ignoring case), in their order.
fn matching(values: &[String], prefix: &str) -> Vec<String> {
    let prefix = prefix.to_lowercase();
    values
        .iter()
        .filter(|value| value.to_lowercase().starts_with(&prefix))
        .cloned()
        .collect()
}

/// The unique values of `entity` that start with `prefix`, read through `query_entities` for
/// the caller (so its rules apply) in the unique field's order: one more than shown, to know
/// whether there are more.
async fn ids(
    offers: &Offers,
    caller: &Caller<'_>,
    entity: &EntitySpec,
    prefix: &str,
) -> Result<Vec<String>, ErrorData> {
    let Some(query) = &offers.query_entities else {
        return Ok(Vec::new());
    };
    let field = &entity.unique_field;
    let mut arguments = json!({"entity_type": entity.name, "limit": MAX_VALUES + 1});
    if !prefix.is_empty() {
        arguments["conditions"] =
            json!([{"field": field, "operator": "STARTS WITH", "value": prefix}]);
    }
    let answer = match caller.call(query, arguments).await {
        Ok(answer) => answer,
        // A caller that may not query the entity is offered nothing; nor is a prefix the
        // field's type does not take.
        Err(_) => return Ok(Vec::new()),
    };
    Ok(answer["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|record| text_of(&record[field]))
        .collect())
}
