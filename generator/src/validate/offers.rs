//! `toolforge.prompts` and `toolforge.resources`: names, arguments, templates, URIs, entities.

use std::collections::HashSet;

use crate::config::Config;
use crate::config::options::{PromptOptions, ResourcesOptions};
use crate::ir::offers::{ID_PLACEHOLDER, enum_values, parse_order};
use crate::report::{Reporter, suggestion};
use toolforge::spec::ResourcesSpec;

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    let Some(options) = &config.toolforge else {
        return;
    };
    if let Some(prompts) = &options.prompts {
        check_prompts(config, prompts, r);
    }
    if let Some(resources) = &options.resources {
        check_resources(config, resources, r);
    }
}

fn entity_names(config: &Config) -> impl Iterator<Item = &str> + Clone {
    config.entities.iter().map(|entity| entity.name.as_str())
}

fn check_prompts(config: &Config, prompts: &[PromptOptions], r: &mut Reporter<'_>) {
    let mut names: Vec<&str> = Vec::new();
    for (i, prompt) in prompts.iter().enumerate() {
        let at = format!("toolforge.prompts[{i}]");
        if let Err(error) = toolforge_names::validate_tool_name(&prompt.name) {
            r.error(&format!("{at}.name"), format!("prompt name: {error}"))
                .hint("use letters, digits, `_` and `-`, for example `review_member`")
                .emit();
        }
        if let Some(first) = names.iter().position(|name| *name == prompt.name) {
            r.error(
                &format!("{at}.name"),
                format!("two prompts are named `{}`", prompt.name),
            )
            .related(&format!("toolforge.prompts[{first}].name"), "first here")
            .hint("rename one of them")
            .emit();
        }
        names.push(&prompt.name);
        if prompt.description.as_deref().is_none_or(str::is_empty) {
            r.error(
                &at,
                format!("prompt `{}` has no `description`", prompt.name),
            )
            .hint("say what the prompt is for; clients show it in their menus")
            .emit();
        }
        let mut declared: HashSet<&str> = HashSet::new();
        for (j, argument) in prompt.arguments.iter().flatten().enumerate() {
            let path = format!("{at}.arguments[{j}]");
            if !crate::naming::is_identifier(&argument.name) {
                r.error(
                    &format!("{path}.name"),
                    format!("`{}` is not a name a template can read", argument.name),
                )
                .hint("use letters, digits and `_`, not starting with a digit")
                .emit();
            }
            if !declared.insert(&argument.name) {
                r.error(
                    &format!("{path}.name"),
                    format!("the argument `{}` is declared twice", argument.name),
                )
                .hint("remove one of them")
                .emit();
            }
            if let Some(entity) = &argument.entity
                && !entity_names(config).any(|name| name == entity)
            {
                r.error(
                    &format!("{path}.entity"),
                    format!("there is no entity `{entity}`"),
                )
                .hint(suggestion(entity, entity_names(config), "entities"))
                .emit();
            }
            if let Some(entity) = &argument.field_of
                && !entity_names(config).any(|name| name == entity)
            {
                r.error(
                    &format!("{path}.field_of"),
                    format!("there is no entity `{entity}`"),
                )
                .hint(suggestion(entity, entity_names(config), "entities"))
                .emit();
            }
            if let Some(reference) = &argument.values_of
                && let Err(problem) = enum_values(config, reference)
            {
                r.error(&format!("{path}.values_of"), problem)
                    .hint("name an enum field as `Entity.field`, for example `Member.status`")
                    .emit();
            }
            let kinds = [
                argument.values.is_some(),
                argument.entity.is_some(),
                argument.field_of.is_some(),
                argument.values_of.is_some(),
            ];
            if kinds.into_iter().filter(|&set| set).count() > 1 {
                r.error(
                    &path,
                    format!(
                        "the argument `{}` says in more than one way what it takes",
                        argument.name
                    ),
                )
                .hint("keep one of `values` (the allowed values), `entity` (its unique values), `field_of` (its field names) and `values_of` (an enum's values)")
                .emit();
            }
            if argument.values.as_ref().is_some_and(Vec::is_empty) {
                r.error(&format!("{path}.values"), "`values` is empty")
                    .hint("list the allowed values, or leave `values` out")
                    .emit();
            }
        }
        let messages = prompt.messages.as_deref().unwrap_or_default();
        match (&prompt.template, messages.is_empty()) {
            (Some(_), false) => {
                r.error(
                    &at,
                    format!(
                        "prompt `{}` has both `template` and `messages`",
                        prompt.name
                    ),
                )
                .hint("`template: TEXT` is a shorthand for `messages: [{text: TEXT}]`; keep one")
                .emit();
            }
            (None, true) => {
                r.error(&at, format!("prompt `{}` has no `messages`", prompt.name))
                    .hint(
                        "add `template: \"...\"`, or `messages:` with `text:` or `resource:` items",
                    )
                    .emit();
            }
            _ => {}
        }
        if let Some(template) = &prompt.template {
            check_template(&format!("{at}.template"), template, &declared, r);
        }
        for (j, message) in messages.iter().enumerate() {
            let path = format!("{at}.messages[{j}]");
            if let Some(role) = &message.role
                && role != "user"
                && role != "assistant"
            {
                r.error(
                    &format!("{path}.role"),
                    format!("`{role}` is not a role of a prompt message"),
                )
                .hint("use `user` or `assistant`")
                .emit();
            }
            match (&message.text, &message.resource) {
                (Some(text), None) => check_template(&format!("{path}.text"), text, &declared, r),
                (None, Some(uri)) => {
                    check_template(&format!("{path}.resource"), uri, &declared, r);
                }
                _ => {
                    r.error(&path, "a prompt message has one of `text` and `resource`")
                        .hint("`text: \"...\"` for words, `resource: \"scheme://...\"` to embed a resource of this server")
                        .emit();
                }
            }
        }
    }
}

/// Checks that `template` parses and reads only the arguments declared.
fn check_template(path: &str, template: &str, declared: &HashSet<&str>, r: &mut Reporter<'_>) {
    let env = minijinja::Environment::new();
    let parsed = match env.template_from_str(template) {
        Ok(parsed) => parsed,
        Err(error) => {
            let line = error
                .line()
                .map(|line| format!(" (line {line} of the template)"))
                .unwrap_or_default();
            r.error(
                path,
                format!("the template does not parse: {}{line}", error.detail().unwrap_or("syntax error")),
            )
            .hint("templates use minijinja syntax: `{{ name }}` for an argument, `{% if name %}...{% endif %}`")
            .emit();
            return;
        }
    };
    let mut unknown: Vec<String> = parsed
        .undeclared_variables(false)
        .into_iter()
        .filter(|name| !declared.contains(name.as_str()))
        .collect();
    unknown.sort();
    for name in unknown {
        r.error(
            path,
            format!("the template reads `{name}`, which is not an argument of the prompt"),
        )
        .hint(suggestion(&name, declared.iter().copied(), "arguments"))
        .emit();
    }
}

fn check_resources(config: &Config, resources: &ResourcesOptions, r: &mut Reporter<'_>) {
    let max = ResourcesSpec::MAX_LISTED;
    let check_listed = |path: &str, listed: Option<u32>, r: &mut Reporter<'_>| {
        if let Some(listed) = listed
            && listed > max
        {
            r.error(path, format!("`listed` is {listed}"))
                .hint(format!("list at most {max} records per entity; every record stays readable through its URI"))
                .emit();
        }
    };
    check_listed("toolforge.resources.listed", resources.listed, r);
    let mut uris: Vec<(String, String)> = Vec::new();
    for (name, options) in resources.entities.iter().flatten() {
        let at = format!("toolforge.resources.entities.{name}");
        let Some(entity) = config.entities.iter().find(|entity| entity.name == *name) else {
            r.error(&at, format!("there is no entity `{name}`"))
                .hint(suggestion(name, entity_names(config), "entities"))
                .emit();
            continue;
        };
        check_listed(&format!("{at}.listed"), options.listed, r);
        if let Some(uri) = &options.uri {
            let path = format!("{at}.uri");
            if uri.matches(ID_PLACEHOLDER).count() != 1 || !has_scheme(uri) {
                r.error(
                    &path,
                    format!("`{uri}` is not a URI template with one `{ID_PLACEHOLDER}`"),
                )
                .hint("write `scheme://path/{id}`, for example `library://members/{id}`")
                .emit();
            } else if let Some((other, _)) = uris.iter().find(|(_, other)| other == uri) {
                r.error(
                    &path,
                    format!("`{uri}` is also the URI template of `{other}`"),
                )
                .hint("give each entity its own URI template")
                .emit();
            } else {
                uris.push((name.clone(), uri.clone()));
            }
        }
        if let Some(order) = &options.order_by {
            let path = format!("{at}.order_by");
            match parse_order(order) {
                None => {
                    r.error(&path, format!("`{order}` is not `field [ASC|DESC]`"))
                        .hint("name one stored field, for example `joined_at DESC`")
                        .emit();
                }
                Some((field, _))
                    if field != entity.unique_field() && entity.field(&field).is_none() =>
                {
                    let fields: Vec<&str> = entity
                        .searchable_fields
                        .iter()
                        .map(|field| field.name.as_str())
                        .collect();
                    r.error(&path, format!("`{name}` has no field `{field}`"))
                        .hint(suggestion(&field, fields.iter().copied(), "fields"))
                        .emit();
                }
                Some(_) => {}
            }
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (i, document) in resources.documents.iter().flatten().enumerate() {
        let at = format!("toolforge.resources.documents[{i}]");
        if !has_scheme(&document.uri) {
            r.error(
                &format!("{at}.uri"),
                format!("`{}` is not a URI", document.uri),
            )
            .hint("write `scheme:...`, for example `library://guide`")
            .emit();
        }
        if seen.contains(&document.uri.as_str()) {
            r.error(
                &format!("{at}.uri"),
                format!("two documents have the URI `{}`", document.uri),
            )
            .hint("give each document its own URI")
            .emit();
        }
        seen.push(&document.uri);
        if document.name.trim().is_empty() {
            r.error(&format!("{at}.name"), "the document has no name")
                .hint("name it; clients show the name")
                .emit();
        }
    }
}

/// Whether `uri` starts with a scheme (`letters:`), as RFC 3986 writes it.
fn has_scheme(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}
