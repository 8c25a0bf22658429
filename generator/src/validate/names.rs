//! Names: identifiers, duplicates, and names that would collide once the generator turns them
//! into table names (snake_case), Rust type and variant names (UpperCamelCase), Rust field names
//! (snake_case) or SQLite columns (which ignore ASCII case); table names SQLite reserves;
//! relationship properties named like the edge tables' own columns.

use std::collections::HashMap;

use toolforge::sql::ddl::{EDGE_COLUMNS, is_reserved_name};

use crate::codegen::names::{camel, snake};
use crate::config::Config;
use crate::facts::DEFAULT_VECTOR_COLUMN;
use crate::naming::{is_identifier, table_name};
use crate::report::Reporter;

const IDENTIFIER_HINT: &str =
    "use ASCII letters, digits and `_`, not starting with a digit (keywords like `type` are fine)";

/// A spelling two names of one kind must not share, and what it is used for.
#[derive(Clone, Copy)]
enum Form {
    /// snake_case: table names, Rust field and function names.
    Snake(&'static str),
    /// UpperCamelCase: Rust type and enum variant names.
    Camel(&'static str),
    /// Lowercase: SQLite compares table and column names ignoring ASCII case.
    Lower,
}

impl Form {
    fn apply(self, name: &str) -> String {
        match self {
            Form::Snake(_) => snake(name),
            Form::Camel(_) => camel(name),
            Form::Lower => name.to_ascii_lowercase(),
        }
    }

    fn purpose(self) -> &'static str {
        match self {
            Form::Snake(purpose) | Form::Camel(purpose) => purpose,
            Form::Lower => "for SQLite, which ignores case in column names",
        }
    }
}

/// Checks one kind of names: each must be an identifier with a letter or digit, unique, and
/// unique in each of its [`Form`]s.
struct NameSet<'c> {
    what: &'static str,
    forms: &'static [Form],
    exact: HashMap<&'c str, String>,
    spelled: Vec<HashMap<String, (&'c str, String)>>,
}

/// Entities: tables are snake_case, record structs UpperCamelCase.
const ENTITY_FORMS: &[Form] = &[
    Form::Snake("as table names"),
    Form::Camel("as Rust type names"),
];

/// The columns of one table: Rust fields are snake_case, field enum variants UpperCamelCase.
const COLUMN_FORMS: &[Form] = &[
    Form::Snake("as Rust field names"),
    Form::Camel("as Rust enum variants"),
    Form::Lower,
];

/// The properties of one relationship: columns of its edge table.
const PROPERTY_FORMS: &[Form] = &[Form::Lower];

impl<'c> NameSet<'c> {
    fn new(what: &'static str, forms: &'static [Form]) -> Self {
        NameSet {
            what,
            forms,
            exact: HashMap::new(),
            spelled: forms.iter().map(|_| HashMap::new()).collect(),
        }
    }

    /// Adds `name`, declared at `path`; reports it (and keeps it out) when it is not usable.
    fn add(&mut self, name: &'c str, path: String, r: &mut Reporter<'_>) {
        self.add_as(name, path, self.what, r);
    }

    /// [`NameSet::add`], calling this name a `what` in messages.
    fn add_as(&mut self, name: &'c str, path: String, what: &str, r: &mut Reporter<'_>) {
        if !is_identifier(name) {
            r.error(&path, format!("{what} name `{name}` is not an identifier"))
                .hint(IDENTIFIER_HINT)
                .emit();
            return;
        }
        if !name.chars().any(|c| c.is_ascii_alphanumeric()) {
            r.error(
                &path,
                format!("{what} name `{name}` has no letter or digit"),
            )
            .hint("generated table, type and field names are built from the letters and digits of a name; add some")
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
            .hint(format!("rename or remove one of the two {}s", self.what))
            .emit();
            return;
        }
        let spelled: Vec<String> = self.forms.iter().map(|form| form.apply(name)).collect();
        for ((form, spelling), known) in self.forms.iter().zip(&spelled).zip(&self.spelled) {
            if let Some((other, first)) = known.get(spelling) {
                let at = r.line_col(first);
                r.error(
                    &path,
                    format!(
                        "{what} `{name}` collides with `{other}` (declared at {at}): both become `{spelling}` {}",
                        form.purpose()
                    ),
                )
                .related(first, format!("`{other}` declared here"))
                .hint(match form {
                    Form::Snake(_) => "rename one of them so their snake_case forms differ",
                    Form::Camel(_) => "rename one of them so their UpperCamelCase forms differ",
                    Form::Lower => "rename one of them so they differ in more than letter case",
                })
                .emit();
                return;
            }
        }
        self.exact.insert(name, path.clone());
        for (spelling, known) in spelled.into_iter().zip(&mut self.spelled) {
            known.insert(spelling, (name, path.clone()));
        }
    }
}

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    let mut entities = NameSet::new("entity", ENTITY_FORMS);
    let mut rel_types: HashMap<String, (&str, String)> = HashMap::new();
    for (i, entity) in config.entities.iter().enumerate() {
        let path = format!("entities[{i}].name");
        let table = table_name(&entity.name);
        if is_identifier(&entity.name) && is_reserved_name(&table) {
            r.error(
                &path,
                format!(
                    "entity `{}` would be stored in the table `{table}`, but SQLite reserves names starting with `sqlite_`",
                    entity.name
                ),
            )
            .hint("rename the entity so that its snake_case form does not start with `sqlite_`")
            .emit();
        } else {
            entities.add(&entity.name, path, r);
        }

        // Every column of the entity's table shares one namespace.
        let mut columns = NameSet::new("field", COLUMN_FORMS);
        let unique = entity.unique_field();
        if entity.field(unique).is_none() {
            columns.add(unique, format!("entities[{i}].unique_field"), r);
        }
        for (j, field) in entity.searchable_fields.iter().enumerate() {
            columns.add(
                &field.name,
                format!("entities[{i}].searchable_fields[{j}].name"),
                r,
            );
        }
        for (j, field) in entity.computed_fields.iter().enumerate() {
            columns.add(
                &field.name,
                format!("entities[{i}].computed_fields[{j}].name"),
                r,
            );
            if let Some(cache) = &field.cache_property {
                columns.add(
                    cache,
                    format!("entities[{i}].computed_fields[{j}].cache_property"),
                    r,
                );
            }
        }
        // Each vector index stores its embeddings in a column of the table (two indexes on one
        // column are reported with the vector indexes).
        let mut vector_columns = Vec::new();
        for (suffix, index) in entity.all_vector_indexes() {
            let (column, path) = match &index.field {
                Some(column) => (column.as_str(), format!("entities[{i}].{suffix}.field")),
                None => (
                    DEFAULT_VECTOR_COLUMN,
                    format!("entities[{i}].{suffix}.name"),
                ),
            };
            if !vector_columns.contains(&column) {
                vector_columns.push(column);
                columns.add_as(column, path, "vector column", r);
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
            if !rel.rel_type.chars().any(|c| c.is_ascii_alphanumeric()) {
                r.error(
                    &path,
                    format!("relationship type `{}` has no letter or digit", rel.rel_type),
                )
                .hint("edge table and method names are built from the letters and digits of the type; add some")
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
            let mut properties = NameSet::new("relationship property", PROPERTY_FORMS);
            for (k, property) in rel.properties.iter().enumerate() {
                let path = format!("entities[{i}].relationships[{j}].properties[{k}].name");
                if let Some(column) = EDGE_COLUMNS
                    .iter()
                    .find(|column| column.eq_ignore_ascii_case(&property.name))
                {
                    r.error(
                        &path,
                        format!(
                            "relationship property `{}` is named like the edge table's own column `{column}`",
                            property.name
                        ),
                    )
                    .hint("rename the property: every edge table has `source_id` and `target_id`, holding the unique values of the two ends")
                    .emit();
                    continue;
                }
                properties.add(&property.name, path, r);
            }
        }
    }
}
