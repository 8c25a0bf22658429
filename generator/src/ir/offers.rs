//! Lowering `toolforge.prompts` and `toolforge.resources` (checked by `validate/offers.rs`).

use toolforge::spec::{
    DocumentSpec, EntityResourceSpec, PromptArgumentSpec, PromptContent, PromptMessageSpec,
    PromptRole, PromptSpec, ResourcesSpec,
};

use crate::config::{Config, Entity};

/// What stands for the unique value in an entity's URI template.
pub(crate) const ID_PLACEHOLDER: &str = "{id}";

/// `field [ASC|DESC]` as (field, descending); `None` when it is not that.
pub(crate) fn parse_order(text: &str) -> Option<(String, bool)> {
    let mut words = text.split_whitespace();
    let field = words.next()?;
    let descending = match words.next().map(str::to_ascii_uppercase).as_deref() {
        None | Some("ASC") => false,
        Some("DESC") => true,
        Some(_) => return None,
    };
    words
        .next()
        .is_none()
        .then(|| (field.to_owned(), descending))
}

/// The names a `field_of:` argument takes: the entity's unique field, its fields and its
/// computed fields, in that order.
pub(crate) fn field_names(entity: &Entity) -> Vec<String> {
    let mut names = vec![entity.unique_field().to_owned()];
    for name in entity
        .searchable_fields
        .iter()
        .map(|field| &field.name)
        .chain(entity.computed_fields.iter().map(|computed| &computed.name))
    {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// The values a `values_of: Entity.field` argument takes: the enum's values; `Err` says what
/// is wrong with the reference.
pub(crate) fn enum_values(config: &Config, reference: &str) -> Result<Vec<String>, String> {
    let Some((entity_name, field_name)) = reference.split_once('.') else {
        return Err(format!("`{reference}` is not `Entity.field`"));
    };
    let Some(entity) = config.entities.iter().find(|e| e.name == entity_name) else {
        return Err(format!("there is no entity `{entity_name}`"));
    };
    let Some(field) = entity
        .searchable_fields
        .iter()
        .find(|f| f.name == field_name)
    else {
        return Err(format!("`{entity_name}` has no field `{field_name}`"));
    };
    match &field.values {
        Some(values) if !values.is_empty() => Ok(values.clone()),
        _ => Err(format!(
            "`{entity_name}.{field_name}` is not an enum field (it lists no `values`)"
        )),
    }
}

/// The prompts the config declares.
pub(super) fn prompts(config: &Config) -> Vec<PromptSpec> {
    let Some(prompts) = config.toolforge.as_ref().and_then(|t| t.prompts.as_ref()) else {
        return Vec::new();
    };
    prompts
        .iter()
        .map(|prompt| {
            let mut messages: Vec<PromptMessageSpec> = prompt
                .template
                .iter()
                .map(|text| PromptMessageSpec::new(PromptRole::User, PromptContent::Text, text))
                .collect();
            for message in prompt.messages.iter().flatten() {
                let role = match message.role.as_deref() {
                    Some("assistant") => PromptRole::Assistant,
                    _ => PromptRole::User,
                };
                match (&message.text, &message.resource) {
                    (Some(text), _) => {
                        messages.push(PromptMessageSpec::new(role, PromptContent::Text, text));
                    }
                    (None, Some(uri)) => {
                        messages.push(PromptMessageSpec::new(role, PromptContent::Resource, uri));
                    }
                    (None, None) => {}
                }
            }
            let mut spec = PromptSpec::new(
                &prompt.name,
                prompt.description.clone().unwrap_or_default(),
                messages,
            );
            spec.title = prompt.title.clone();
            for argument in prompt.arguments.iter().flatten() {
                let mut lowered =
                    PromptArgumentSpec::new(&argument.name, argument.required.unwrap_or(true));
                lowered.description = argument.description.clone();
                lowered.values = argument.values.clone().unwrap_or_default();
                if let Some(entity) = &argument.field_of
                    && let Some(entity) = config.entities.iter().find(|e| e.name == *entity)
                {
                    lowered.values = field_names(entity);
                }
                if let Some(Ok(values)) = argument
                    .values_of
                    .as_deref()
                    .map(|reference| enum_values(config, reference))
                {
                    lowered.values = values;
                }
                lowered.entity = argument.entity.clone();
                spec.arguments.push(lowered);
            }
            spec
        })
        .collect()
}

/// How records and documents are served.
pub(super) fn resources(config: &Config) -> ResourcesSpec {
    let mut spec = ResourcesSpec::default();
    let Some(options) = config.toolforge.as_ref().and_then(|t| t.resources.as_ref()) else {
        return spec;
    };
    if let Some(listed) = options.listed {
        spec.listed = listed.min(ResourcesSpec::MAX_LISTED);
    }
    for (name, entity) in options.entities.iter().flatten() {
        let mut lowered = EntityResourceSpec::new(name);
        lowered.uri = entity.uri.clone();
        lowered.order_by = entity.order_by.as_deref().and_then(parse_order);
        lowered.listed = entity.listed.map(|n| n.min(ResourcesSpec::MAX_LISTED));
        spec.entities.push(lowered);
    }
    for document in options.documents.iter().flatten() {
        let mut lowered = DocumentSpec::new(&document.uri, &document.name, &document.text);
        lowered.description = document.description.clone();
        if let Some(mime_type) = &document.mime_type {
            lowered.mime_type = mime_type.clone();
        }
        spec.documents.push(lowered);
    }
    spec
}
