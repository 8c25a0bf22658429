//! `completion/complete`: values for a prompt's arguments (its allowed values, entity names,
//! or an entity's unique values by prefix) and for the `{id}` of a record's URI template.

use rmcp::model::{CompleteResult, CompletionInfo, ErrorData, Reference};
use serde_json::{Value, json};

use super::data::{Caller, Offers, text_of};
use crate::spec::{EntitySpec, FieldType};

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
    let integer_key = entity.key_type() == FieldType::Integer;
    let searches: Vec<Value> = match (prefix.is_empty(), integer_key) {
        (true, _) => vec![json!([])],
        (false, false) => {
            vec![json!([{"field": field, "operator": "STARTS WITH", "value": prefix}])]
        }
        // Whole numbers whose decimal text starts with the prefix: one range per length.
        (false, true) => decimal_ranges(prefix)
            .into_iter()
            .map(|(low, high)| {
                json!([{"field": field, "operator": ">=", "value": low},
                       {"field": field, "operator": "<=", "value": high}])
            })
            .collect(),
    };
    let mut values = Vec::new();
    for conditions in searches {
        if values.len() > MAX_VALUES {
            break;
        }
        let arguments = json!({
            "entity_type": entity.name,
            "conditions": conditions,
            "order_by": {"field": field, "direction": "ASC"},
            "limit": MAX_VALUES + 1 - values.len(),
        });
        let answer = match caller.call(query, arguments).await {
            Ok(answer) => answer,
            // A caller that may not query the entity is offered nothing; nor is a prefix the
            // field's type does not take.
            Err(_) => return Ok(Vec::new()),
        };
        values.extend(
            answer["results"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|record| text_of(&record[field])),
        );
    }
    Ok(values)
}

/// The ranges of whole numbers whose decimal text starts with `prefix`, in ascending order of
/// their values (`27`: 27, then 270 to 279, 2700 to 2799, ...; `-27`: -27, -279 to -270, ...
/// listed from the nearest to zero), as far as an `i64` goes. Nothing for a prefix that no
/// whole number starts with.
fn decimal_ranges(prefix: &str) -> Vec<(i64, i64)> {
    let (negative, digits) = match prefix.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, prefix),
    };
    if negative && digits.is_empty() {
        return vec![(i64::MIN, -1)];
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    // `0` is only itself; `07` is no number's text.
    if digits.starts_with('0') {
        return if digits == "0" && !negative {
            vec![(0, 0)]
        } else {
            Vec::new()
        };
    }
    let Ok(start) = digits.parse::<i64>() else {
        return Vec::new();
    };
    let mut ranges = Vec::new();
    let (mut low, mut width) = (start, 1i64);
    loop {
        let Some(high) = width.checked_sub(1).and_then(|w| low.checked_add(w)) else {
            ranges.push(if negative {
                (-i64::MAX, -low)
            } else {
                (low, i64::MAX)
            });
            break;
        };
        ranges.push(if negative { (-high, -low) } else { (low, high) });
        match (low.checked_mul(10), width.checked_mul(10)) {
            (Some(next_low), Some(next_width)) => (low, width) = (next_low, next_width),
            _ => break,
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::decimal_ranges;

    #[test]
    fn integer_prefixes_are_ranges_of_each_length() {
        assert_eq!(
            &decimal_ranges("27")[..3],
            [(27, 27), (270, 279), (2700, 2799)]
        );
        assert_eq!(&decimal_ranges("-27")[..2], [(-27, -27), (-279, -270)]);
        assert_eq!(decimal_ranges("0"), [(0, 0)]);
        assert!(decimal_ranges("07").is_empty());
        assert!(decimal_ranges("2x").is_empty());
        assert!(decimal_ranges("99999999999999999999").is_empty());
        let last = *decimal_ranges("9").last().unwrap();
        assert_eq!(last, (9_000_000_000_000_000_000, i64::MAX));
    }
}
