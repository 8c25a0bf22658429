//! `prompts/list` and `prompts/get`: the config's prompts, and two every config gets
//! (`explore_entity`, `find_records_about`) written with the tools it serves. Templates are
//! rendered with minijinja in a sandbox: no loader, no functions beyond its builtins, a
//! bounded amount of work (fuel) and output; argument values are text that is never parsed as
//! template, and a `resource:` message percent-encodes them into its URI (`{{ uri | safe }}`
//! takes a whole URI as it is; it must still name a resource of this server).

use std::collections::BTreeMap;

use rmcp::model::{
    ErrorData, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage,
    ResourceContents, Role,
};
use serde_json::json;

use super::data::{Caller, Offers};
use super::resources;
use super::uris::encode;
use crate::ToolRegistry;
use crate::spec::{
    PromptArgumentSpec, PromptContent, PromptMessageSpec, PromptRole, PromptSpec, SchemaSpec,
};

/// The longest argument value, in bytes.
const MAX_ARGUMENT_BYTES: usize = 4096;
/// The longest rendered message, in bytes.
const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// The work one template may do (minijinja's fuel: about one unit per instruction).
const FUEL: u64 = 100_000;

/// The config's prompts, then the generated ones whose names it does not take.
pub(super) fn all(spec: &SchemaSpec, registry: &ToolRegistry) -> Vec<PromptSpec> {
    let mut prompts = spec.mcp.prompts.clone();
    for generated in generated(spec, registry) {
        if !prompts.iter().any(|prompt| prompt.name == generated.name) {
            prompts.push(generated);
        }
    }
    prompts
}

/// The prompts every config gets, naming the tools `registry` serves.
fn generated(spec: &SchemaSpec, registry: &ToolRegistry) -> Vec<PromptSpec> {
    let tool = |name: &str| {
        let full = format!("{}{name}", spec.tools.name_prefix);
        registry.contains(&full).then_some(full)
    };
    let entities: Vec<String> = spec.entities.iter().map(|e| e.name.clone()).collect();
    let mut prompts = Vec::new();

    let mut steps: Vec<String> = Vec::new();
    if let Some(schema) = tool("describe_entity").or_else(|| tool("get_schema")) {
        steps.push(format!(
            "learn its fields, computed fields and relationships with `{schema}`"
        ));
    }
    if let Some(query) = tool("query_entities") {
        steps.push(format!(
            "look at a few records with `{query}` (entity_type \"{{{{ entity }}}}\", limit 5)"
        ));
    }
    if let Some(explore) = tool("explore_relationships")
        && !spec.relationships.is_empty()
    {
        steps.push(format!("follow their relationships with `{explore}`"));
    }
    if !steps.is_empty() {
        let mut argument = PromptArgumentSpec::new("entity", true);
        argument.description = Some("The entity type to explore".to_owned());
        argument.values = entities.clone();
        let mut prompt = PromptSpec::new(
            "explore_entity",
            format!(
                "Explore one entity type of {}: its shape, its records and what they connect to",
                spec.name
            ),
            vec![PromptMessageSpec::new(
                PromptRole::User,
                PromptContent::Text,
                format!(
                    "Explore the {{{{ entity }}}} records of {}. {}. Then describe what a \
                     {{{{ entity }}}} is, which of its fields say the most, and how it connects \
                     to the other entities.",
                    spec.name,
                    capitalise(&steps.join(", then "))
                ),
            )],
        );
        prompt.title = Some("Explore an entity".to_owned());
        prompt.arguments = vec![argument];
        prompts.push(prompt);
    }

    let search = ["hybrid_search", "full_text_search", "semantic_search"]
        .into_iter()
        .find_map(tool);
    let find = match (search, tool("query_entities")) {
        (Some(search), _) => Some(format!(
            "Search for it with `{search}`{{% if entity %}} (entity_type \"{{{{ entity }}}}\"){{% endif %}}"
        )),
        (None, Some(query)) => Some(format!(
            "Look for it with `{query}`, using CONTAINS conditions on the text fields{{% if entity %}} of \"{{{{ entity }}}}\"{{% endif %}}"
        )),
        (None, None) => None,
    };
    if let Some(find) = find {
        let fetch = tool("get_entity_by_id")
            .map(|get| format!(", read the best matches in full with `{get}`"))
            .unwrap_or_default();
        let mut topic = PromptArgumentSpec::new("topic", true);
        topic.description = Some("What to look for, in words".to_owned());
        let mut entity = PromptArgumentSpec::new("entity", false);
        entity.description = Some("Only records of this entity type".to_owned());
        entity.values = entities;
        let mut prompt = PromptSpec::new(
            "find_records_about",
            format!(
                "Find the records of {} about a topic and answer from them",
                spec.name
            ),
            vec![PromptMessageSpec::new(
                PromptRole::User,
                PromptContent::Text,
                format!(
                    "Find the records about \"{{{{ topic }}}}\"{{% if entity %}} among the \
                     {{{{ entity }}}} records{{% endif %}}. {find}{fetch}, and answer from what \
                     they say, naming each record you use by its id."
                ),
            )],
        );
        prompt.title = Some("Find records about a topic".to_owned());
        prompt.arguments = vec![topic, entity];
        prompts.push(prompt);
    }
    prompts
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Every prompt (a config declares few, so one page).
pub(in crate::mcp) fn list_prompts(offers: &Offers) -> ListPromptsResult {
    let prompts = offers
        .prompts
        .iter()
        .map(|prompt| {
            let arguments: Vec<PromptArgument> = prompt
                .arguments
                .iter()
                .map(|argument| {
                    let mut listed =
                        PromptArgument::new(&argument.name).with_required(argument.required);
                    if let Some(description) = describe_argument(argument) {
                        listed = listed.with_description(description);
                    }
                    listed
                })
                .collect();
            let mut listed = Prompt::new(
                &prompt.name,
                Some(prompt.description.clone()),
                (!arguments.is_empty()).then_some(arguments),
            );
            if let Some(title) = &prompt.title {
                listed = listed.with_title(title);
            }
            listed
        })
        .collect();
    ListPromptsResult::with_all_items(prompts)
}

/// An argument's description, with its allowed values when it has a few.
fn describe_argument(argument: &PromptArgumentSpec) -> Option<String> {
    let values = (!argument.values.is_empty() && argument.values.len() <= 12)
        .then(|| format!("one of: {}", argument.values.join(", ")));
    let entity = argument
        .entity
        .as_ref()
        .map(|entity| format!("the unique value of a {entity}"));
    let parts: Vec<String> = argument
        .description
        .iter()
        .cloned()
        .chain(values)
        .chain(entity)
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The prompt `name` rendered with `arguments`, its resources read for the caller.
pub(in crate::mcp) async fn get_prompt(
    offers: &Offers,
    caller: &Caller<'_>,
    name: &str,
    arguments: &BTreeMap<String, String>,
) -> Result<GetPromptResult, ErrorData> {
    let Some(prompt) = offers.prompts.iter().find(|prompt| prompt.name == name) else {
        let names: Vec<&str> = offers.prompts.iter().map(|p| p.name.as_str()).collect();
        let hint = toolforge_names::closest(name, names.iter().copied())
            .map(|close| format!(" (did you mean `{close}`?)"))
            .unwrap_or_default();
        return Err(ErrorData::invalid_params(
            format!("there is no prompt `{name}`{hint}; prompts/list says which there are"),
            Some(json!({"prompt": name, "prompts": names})),
        ));
    };
    check_arguments(prompt, arguments)?;
    let mut messages = Vec::with_capacity(prompt.messages.len());
    for message in &prompt.messages {
        let role = match message.role {
            PromptRole::User => Role::User,
            PromptRole::Assistant => Role::Assistant,
        };
        let rendered = render(message, arguments).map_err(|error| {
            ErrorData::internal_error(
                format!("the prompt `{name}` could not be rendered: {error}"),
                None,
            )
        })?;
        messages.push(match message.kind {
            PromptContent::Text => PromptMessage::new_text(role, rendered),
            PromptContent::Resource => {
                let read = resources::read_resource(offers, caller, &rendered).await?;
                let Some(ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    ..
                }) = read.contents.into_iter().next()
                else {
                    return Err(ErrorData::internal_error(
                        format!("the resource `{rendered}` of prompt `{name}` has no text"),
                        None,
                    ));
                };
                PromptMessage::new_resource(role, uri, mime_type, Some(text), None, None, None)
            }
        });
    }
    let mut result = GetPromptResult::new(messages);
    result.description = Some(prompt.description.clone());
    Ok(result)
}

/// Refuses a missing required argument, an unknown one, a value not allowed or too long.
fn check_arguments(
    prompt: &PromptSpec,
    arguments: &BTreeMap<String, String>,
) -> Result<(), ErrorData> {
    let invalid = |message: String| {
        Err(ErrorData::invalid_params(
            message,
            Some(json!({"prompt": prompt.name})),
        ))
    };
    for (name, value) in arguments {
        let Some(argument) = prompt.arguments.iter().find(|a| a.name == *name) else {
            let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
            return invalid(format!(
                "the prompt `{}` has no argument `{name}`; its arguments are: {}",
                prompt.name,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        };
        if value.len() > MAX_ARGUMENT_BYTES {
            return invalid(format!(
                "the argument `{name}` is {} bytes; at most {MAX_ARGUMENT_BYTES} are taken",
                value.len()
            ));
        }
        if !argument.values.is_empty() && !argument.values.contains(value) {
            return invalid(format!(
                "`{value}` is not a value of the argument `{name}`; use one of: {}",
                argument.values.join(", ")
            ));
        }
    }
    for argument in &prompt.arguments {
        if argument.required && !arguments.contains_key(&argument.name) {
            return invalid(format!(
                "the prompt `{}` needs the argument `{}`{}",
                prompt.name,
                argument.name,
                describe_argument(argument)
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            ));
        }
    }
    Ok(())
}

/// One message's template rendered with the arguments.
fn render(
    message: &PromptMessageSpec,
    arguments: &BTreeMap<String, String>,
) -> Result<String, minijinja::Error> {
    let mut env = minijinja::Environment::new();
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(32);
    if message.kind == PromptContent::Resource {
        env.set_formatter(|out, _state, value| {
            if value.is_safe() {
                // `{{ uri | safe }}`: a whole URI given as the argument, taken as it is (it
                // must still name a resource of this server).
                std::fmt::Write::write_str(out, &value.to_string())?;
            } else if !value.is_undefined() && !value.is_none() {
                std::fmt::Write::write_str(out, &encode(&value.to_string()))?;
            }
            Ok(())
        });
    }
    let rendered = env.render_str(&message.template, arguments)?;
    if rendered.len() > MAX_MESSAGE_BYTES {
        return Err(minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!("the message is over {MAX_MESSAGE_BYTES} bytes"),
        ));
    }
    Ok(rendered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn argument_values_are_text_and_uri_parts_are_encoded() {
        let text = PromptMessageSpec::new(PromptRole::User, PromptContent::Text, "Hi {{ who }}");
        assert_eq!(
            render(&text, &args(&[("who", "{{ 7 * 7 }} & <b>")])).unwrap(),
            "Hi {{ 7 * 7 }} & <b>"
        );
        let uri = PromptMessageSpec::new(
            PromptRole::User,
            PromptContent::Resource,
            "toolforge://Member/{{ id }}",
        );
        assert_eq!(
            render(&uri, &args(&[("id", "../schema?x")])).unwrap(),
            "toolforge://Member/..%2Fschema%3Fx"
        );
        let whole = PromptMessageSpec::new(
            PromptRole::User,
            PromptContent::Resource,
            "{{ uri | safe }}",
        );
        assert_eq!(
            render(&whole, &args(&[("uri", "test://static-text")])).unwrap(),
            "test://static-text"
        );
    }

    #[test]
    fn runaway_templates_stop() {
        let looping = PromptMessageSpec::new(
            PromptRole::User,
            PromptContent::Text,
            "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
        );
        assert!(render(&looping, &args(&[])).is_err());
    }
}
