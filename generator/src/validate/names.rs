//! Names: identifiers, duplicates, entity names colliding in snake_case, field names colliding
//! as Rust identifiers, relationship types colliding in snake_case.

use std::collections::HashMap;

use super::is_identifier;
use crate::codegen::names::snake;
use crate::config::Config;
use crate::report::Reporter;

const IDENTIFIER_HINT: &str =
    "use ASCII letters, digits and `_`, not starting with a digit (keywords like `type` are fine)";

/// Checks one kind of names: each must be an identifier, unique, and unique in snake_case.
struct NameSet<'c> {
    what: &'static str,
    exact: HashMap<&'c str, String>,
    snake: HashMap<String, (&'c str, String)>,
}

impl<'c> NameSet<'c> {
    fn new(what: &'static str) -> Self {
        NameSet {
            what,
            exact: HashMap::new(),
            snake: HashMap::new(),
        }
    }

    /// `collision` explains what the snake_case form is used for.
    fn add(&mut self, name: &'c str, path: String, collision: &str, r: &mut Reporter<'_>) {
        let what = self.what;
        if !is_identifier(name) {
            r.error(&path, format!("{what} name `{name}` is not an identifier"))
                .hint(IDENTIFIER_HINT)
                .emit();
            return;
        }
        if let Some(first) = self.exact.get(name) {
            let at = r.line_col(first);
            r.error(
                &path,
                format!("duplicate {what} `{name}` (first declared at {at})"),
            )
            .related(first, format!("`{name}` first declared here"))
            .hint(format!("rename or remove one of the two {what}s"))
            .emit();
            return;
        }
        let snake = snake(name);
        if let Some((other, first)) = self.snake.get(&snake) {
            let at = r.line_col(first);
            r.error(
                &path,
                format!(
                    "{what} `{name}` collides with `{other}` (declared at {at}): both become `{snake}` {collision}"
                ),
            )
            .related(first, format!("`{other}` declared here"))
            .hint("rename one of them so their snake_case forms differ")
            .emit();
            return;
        }
        self.exact.insert(name, path.clone());
        self.snake.insert(snake, (name, path));
    }
}

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    let mut entities = NameSet::new("entity");
    let mut rel_types: HashMap<String, (&str, String)> = HashMap::new();
    for (i, entity) in config.entities.iter().enumerate() {
        entities.add(
            &entity.name,
            format!("entities[{i}].name"),
            "as table names",
            r,
        );

        // Every column of the entity's table shares one namespace.
        let mut columns = NameSet::new("field");
        let unique = entity.unique_field();
        let listed_unique = entity.field(unique).is_some();
        if !listed_unique && is_identifier(unique) {
            columns.add(
                unique,
                format!("entities[{i}].unique_field"),
                "as Rust identifiers",
                r,
            );
        }
        for (j, field) in entity.searchable_fields.iter().enumerate() {
            columns.add(
                &field.name,
                format!("entities[{i}].searchable_fields[{j}].name"),
                "as Rust identifiers",
                r,
            );
        }
        for (j, field) in entity.computed_fields.iter().enumerate() {
            columns.add(
                &field.name,
                format!("entities[{i}].computed_fields[{j}].name"),
                "as Rust identifiers",
                r,
            );
            if let Some(cache) = &field.cache_property {
                columns.add(
                    cache,
                    format!("entities[{i}].computed_fields[{j}].cache_property"),
                    "as Rust identifiers",
                    r,
                );
            }
        }
        for (suffix, index) in entity.all_vector_indexes() {
            if let Some(column) = &index.field {
                columns.add(
                    column,
                    format!("entities[{i}].{suffix}.field"),
                    "as Rust identifiers",
                    r,
                );
            }
        }

        for (j, rel) in entity.relationships.iter().enumerate() {
            let path = format!("entities[{i}].relationships[{j}].type");
            if !is_identifier(&rel.rel_type) {
                r.error(
                    &path,
                    format!("relationship type `{}` is not an identifier", rel.rel_type),
                )
                .hint(IDENTIFIER_HINT)
                .emit();
                continue;
            }
            let snake = snake(&rel.rel_type);
            match rel_types.get(&snake) {
                Some((other, first)) if *other != rel.rel_type => {
                    let at = r.line_col(first);
                    r.error(
                        &path,
                        format!(
                            "relationship type `{}` collides with `{other}` (declared at {at}): both become `{snake}` in edge table names",
                            rel.rel_type
                        ),
                    )
                    .related(first, format!("`{other}` declared here"))
                    .hint("spell the same relationship type the same way everywhere")
                    .emit();
                }
                Some(_) => {}
                None => {
                    rel_types.insert(snake, (&rel.rel_type, path));
                }
            }
            for (k, property) in rel.properties.iter().enumerate() {
                if !is_identifier(&property.name) {
                    r.error(
                        &format!("entities[{i}].relationships[{j}].properties[{k}].name"),
                        format!("property name `{}` is not an identifier", property.name),
                    )
                    .hint(IDENTIFIER_HINT)
                    .emit();
                }
            }
        }
    }
}
