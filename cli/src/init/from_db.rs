//! The config `toolforge init --from-db` writes from an existing database's [`Catalog`]: one
//! entity per table or view with a single-column key (`table:` names it, `column:` a column
//! whose name is not a field name), a relationship per single-column foreign key (outgoing
//! from the table that holds it, `foreign_key:`), and a join table (a primary key of exactly
//! its two single-column foreign keys) as one many-to-many relationship (`join_table:`).
//! Whatever cannot be mapped is a YAML comment where it would go, with the reason.
//!
//! The output is deterministic: catalog order (tables by schema and name, columns by
//! position), no timestamps, no absolute paths; two runs over the same database write the
//! same bytes.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use toolforge::sql::introspect::{
    Backend, Catalog, Column, ColumnKind, ForeignKey, Table, TableKind, TableName,
};
use toolforge_generator::__private::codegen::names::{camel, snake};
use toolforge_generator::__private::output::escape_invisible;

/// The config written, and what it maps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The config's text (YAML with comments).
    pub yaml: String,
    /// What it maps and what it leaves out.
    pub summary: Summary,
}

/// What a written config maps and leaves out, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Entities mapped from tables (and materialized views).
    pub tables: usize,
    /// Entities mapped from views.
    pub views: usize,
    /// Join tables written as a many-to-many relationship.
    pub join_tables: usize,
    /// Tables and views left out, by reason (`no key`, `composite key`, ...).
    pub skipped: BTreeMap<&'static str, usize>,
    /// Columns of mapped tables (and join tables) left out.
    pub columns_left_out: usize,
    /// Foreign keys of mapped tables left out.
    pub foreign_keys_left_out: usize,
}

impl Summary {
    /// The summary as one line, after `wrote <file>: `.
    pub fn line(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let entities = self.tables + self.views;
        let mut line = plural(entities, "entity", "entities");
        line.push_str(&format!(" ({}", plural(self.tables, "table", "tables")));
        if self.views > 0 {
            line.push_str(&format!(", {}", plural(self.views, "view", "views")));
        }
        line.push(')');
        line.push_str(&format!(
            ", {} as a relationship",
            plural(self.join_tables, "join table", "join tables")
        ));
        let skipped: usize = self.skipped.values().sum();
        line.push_str(&format!(", {} skipped", plural(skipped, "table", "tables")));
        if skipped > 0 {
            let reasons: Vec<String> = self
                .skipped
                .iter()
                .map(|(reason, n)| format!("{reason}: {n}"))
                .collect();
            line.push_str(&format!(" ({})", reasons.join(", ")));
        }
        line.push_str(&format!(
            ", {} left out",
            plural(self.columns_left_out, "column", "columns")
        ));
        if self.foreign_keys_left_out > 0 {
            line.push_str(&format!(
                ", {} left out",
                plural(self.foreign_keys_left_out, "foreign key", "foreign keys")
            ));
        }
        line
    }
}

/// Writes the config of `catalog`; `command` is the command line named in its first comment.
pub fn write_config(catalog: &Catalog, command: &str) -> Written {
    Mapper::new(catalog).write(command)
}

/// A field of an entity or a property of a relationship, or a column left out.
enum Slot<'c> {
    Field(Field<'c>),
    /// A pgvector column of this many values: an entity's vector index reads it as it is.
    Vectors {
        column: &'c Column,
        dimension: u32,
    },
    LeftOut {
        column: &'c Column,
        reason: String,
    },
}

struct Field<'c> {
    name: String,
    column: &'c Column,
    ty: &'static str,
    values: Option<Vec<String>>,
}

/// What becomes of a table.
enum Status {
    /// An entity: the key's column.
    Entity { key: String, view_key: bool },
    /// A join table, if both its ends are entities (decided once the entities are known).
    JoinCandidate { first: usize, second: usize },
    /// Mapped as a relationship of entity `source` (an index into the tables).
    Join(Join),
    /// Left out.
    Skipped {
        category: &'static str,
        reason: String,
    },
}

struct Join {
    source: usize,
    target: usize,
    source_column: String,
    target_column: String,
    rel_type: String,
}

struct Mapper<'c> {
    catalog: &'c Catalog,
    status: Vec<Status>,
    /// Each table's entity name (mapped tables only).
    names: Vec<Option<String>>,
    /// Each table's fields, in column order.
    slots: Vec<Vec<Slot<'c>>>,
    /// The relationship type of each foreign key of each table (`None`: left out).
    key_types: Vec<Vec<Option<String>>>,
    /// The relationship type of each join table (`None`: not a join table).
    join_types: Vec<Option<String>>,
}

impl<'c> Mapper<'c> {
    fn new(catalog: &'c Catalog) -> Mapper<'c> {
        let tables = &catalog.tables;
        let slots: Vec<Vec<Slot<'c>>> = tables.iter().map(|t| slots(&t.columns)).collect();
        let mut status: Vec<Status> = tables
            .iter()
            .zip(&slots)
            .map(|(table, slots)| first_status(table, slots))
            .collect();
        let mut names = vec![None; tables.len()];
        let mut taken = Names::default();
        for (i, table) in tables.iter().enumerate() {
            if matches!(status[i], Status::Entity { .. }) {
                names[i] = Some(taken.entity(table));
            }
        }
        // Join tables whose two ends are entities keyed by the columns they reference.
        for i in 0..tables.len() {
            let Status::JoinCandidate { first, second } = status[i] else {
                continue;
            };
            let table = &tables[i];
            let ends = [first, second].map(|k| {
                let key = &table.foreign_keys[k];
                let target = catalog_index(catalog, &key.referenced())?;
                match &status[target] {
                    Status::Entity { key: column, .. }
                        if key.referenced_columns == [column.clone()] =>
                    {
                        Some(target)
                    }
                    _ => None,
                }
            });
            status[i] = match ends {
                [Some(source), Some(target)] => Status::Join(Join {
                    source,
                    target,
                    source_column: table.foreign_keys[first].columns[0].clone(),
                    target_column: table.foreign_keys[second].columns[0].clone(),
                    rel_type: shouty(&table.name).unwrap_or_else(|| "JOINS".to_owned()),
                }),
                _ => Status::Skipped {
                    category: "composite key",
                    reason: format!(
                        ": composite primary key ({}) left out: a join table, but {} is not an entity keyed by the column it references; map a view with a single-column key",
                        column_list(&table.primary_key),
                        ends.iter()
                            .zip([first, second])
                            .find(|(end, _)| end.is_none())
                            .map(|(_, k)| sql_name(
                                catalog.backend,
                                &table.foreign_keys[k].referenced()
                            ))
                            .unwrap_or_default()
                    ),
                },
            };
        }
        let mut mapper = Mapper {
            catalog,
            status,
            names,
            slots,
            key_types: Vec::new(),
            join_types: Vec::new(),
        };
        (mapper.key_types, mapper.join_types) = mapper.relationship_types();
        mapper
    }

    /// The relationship types of every entity's foreign keys and join tables, unique per
    /// (entity, type, target): `_2`, `_3`, ... after one already taken.
    fn relationship_types(&self) -> (Vec<Vec<Option<String>>>, Vec<Option<String>>) {
        let tables = &self.catalog.tables;
        let mut key_types: Vec<Vec<Option<String>>> = tables
            .iter()
            .map(|t| vec![None; t.foreign_keys.len()])
            .collect();
        let mut join_types: Vec<Option<String>> = vec![None; tables.len()];
        for (i, table) in tables.iter().enumerate() {
            if !matches!(self.status[i], Status::Entity { .. }) {
                continue;
            }
            let mut taken: HashSet<(String, usize)> = HashSet::new();
            let mut unique = |rel_type: String, target: usize| {
                let mut candidate = rel_type.clone();
                let mut n = 2;
                while !taken.insert((candidate.clone(), target)) {
                    candidate = format!("{rel_type}_{n}");
                    n += 1;
                }
                candidate
            };
            for (k, key) in table.foreign_keys.iter().enumerate() {
                if let Ok((target, column)) = self.relationship(i, key) {
                    key_types[i][k] = Some(unique(
                        relationship_type(&column, self.entity(target)),
                        target,
                    ));
                }
            }
            for (j, status) in self.status.iter().enumerate() {
                if let Status::Join(join) = status
                    && join.source == i
                {
                    join_types[j] = Some(unique(join.rel_type.clone(), join.target));
                }
            }
        }
        (key_types, join_types)
    }

    fn write(&self, command: &str) -> Written {
        let mut summary = Summary::default();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Written by `{}`; edit freely.",
            escape_invisible(command, false)
        );
        let _ = writeln!(
            out,
            "# What could not be mapped is a comment where it would go, with the reason."
        );
        let _ = writeln!(out, "name: {}", scalar(&self.catalog.database));
        out.push_str("entities:\n");
        for (i, table) in self.catalog.tables.iter().enumerate() {
            match &self.status[i] {
                Status::Entity { key, view_key } => {
                    if table.kind == TableKind::View {
                        summary.views += 1;
                    } else {
                        summary.tables += 1;
                    }
                    self.write_entity(&mut out, i, key, *view_key, &mut summary);
                }
                Status::Join(join) => {
                    summary.join_tables += 1;
                    let _ = writeln!(
                        out,
                        "  # table {}: a join table, mapped as the relationship {} of {} (to {})",
                        comment(&sql_name(self.catalog.backend, &table.table_name())),
                        self.join_types[i].as_deref().unwrap_or(&join.rel_type),
                        self.entity(join.source),
                        self.entity(join.target),
                    );
                }
                Status::Skipped { category, reason } => {
                    *summary.skipped.entry(category).or_default() += 1;
                    let _ = writeln!(
                        out,
                        "  # table {}{}",
                        comment(&sql_name(self.catalog.backend, &table.table_name())),
                        comment(reason)
                    );
                }
                Status::JoinCandidate { .. } => {}
            }
        }
        Written { yaml: out, summary }
    }

    fn entity(&self, table: usize) -> &str {
        self.names[table].as_deref().unwrap_or("")
    }

    fn field_name(&self, table: usize, column: &str) -> Option<&str> {
        self.slots[table].iter().find_map(|slot| match slot {
            Slot::Field(field) if field.column.name == column => Some(field.name.as_str()),
            _ => None,
        })
    }

    fn write_entity(
        &self,
        out: &mut String,
        i: usize,
        key: &str,
        view_key: bool,
        summary: &mut Summary,
    ) {
        let table = &self.catalog.tables[i];
        let backend = self.catalog.backend;
        let _ = writeln!(out, "  - name: {}", scalar(self.entity(i)));
        let _ = writeln!(
            out,
            "    table: {}",
            scalar(&table_ref(backend, &table.table_name()))
        );
        if let Some(description) = &table.comment {
            let _ = writeln!(out, "    description: {}", scalar(description));
        }
        if view_key {
            let _ = writeln!(
                out,
                "    # a view has no key: {} is taken as its unique field; check that it is unique",
                comment(&quote_ident(key))
            );
        }
        let key_field = self.field_name(i, key).unwrap_or(key);
        let _ = writeln!(out, "    unique_field: {}", scalar(key_field));
        if let Some(display) = display_field(table, &self.slots[i]) {
            let _ = writeln!(out, "    display_name_field: {}", scalar(display));
        }
        out.push_str("    searchable_fields:\n");
        let (vectors, fields): (Vec<&Slot<'_>>, Vec<&Slot<'_>>) = self.slots[i]
            .iter()
            .partition(|slot| matches!(slot, Slot::Vectors { .. }));
        summary.columns_left_out += write_slots(out, "      ", &fields);
        if !vectors.is_empty() {
            out.push_str(
                "    # pgvector columns, searched as they are; queries are embedded with\n    \
                 # `toolforge.embeddings`: name the model that made these vectors there\n",
            );
            out.push_str("    vector_indexes:\n");
            for slot in vectors {
                if let Slot::Vectors { column, dimension } = slot {
                    let _ = writeln!(
                        out,
                        "      - {{name: {}, column: {}, dimension: {dimension}}}",
                        scalar(&identifier(&column.name, "vectors")),
                        scalar(&column.name)
                    );
                }
            }
        }

        // Relationships: the foreign keys, then the join tables declared here.
        let mut items: Vec<String> = Vec::new();
        for (k, key) in table.foreign_keys.iter().enumerate() {
            match self.relationship(i, key) {
                Ok((target, column)) => {
                    let rel_type = self.key_types[i][k].clone().unwrap_or_default();
                    items.push(format!(
                        "      - type: {}\n        target: {}\n        foreign_key: {}\n",
                        scalar(&rel_type),
                        scalar(self.entity(target)),
                        scalar(&column)
                    ));
                }
                Err(reason) => {
                    summary.foreign_keys_left_out += 1;
                    items.push(format!(
                        "      # foreign key ({}) -> {} ({}) left out: {}\n",
                        comment(&column_list(&key.columns)),
                        comment(&sql_name(backend, &key.referenced())),
                        comment(&column_list(&key.referenced_columns)),
                        comment(&reason)
                    ));
                }
            }
        }
        for (j, status) in self.status.iter().enumerate() {
            let Status::Join(join) = status else { continue };
            if join.source != i {
                continue;
            }
            let join_table = &self.catalog.tables[j];
            let rel_type = self.join_types[j].clone().unwrap_or_default();
            let mut item = format!(
                "      - type: {}\n        target: {}\n        join_table:\n          table: {}\n          source_column: {}\n          target_column: {}\n",
                scalar(&rel_type),
                scalar(self.entity(join.target)),
                scalar(&table_ref(backend, &join_table.table_name())),
                scalar(&join.source_column),
                scalar(&join.target_column),
            );
            let properties: Vec<&Slot<'_>> = self.slots[j]
                .iter()
                .filter(|slot| {
                    let column = match slot {
                        Slot::Field(field) => &field.column.name,
                        Slot::Vectors { column, .. } | Slot::LeftOut { column, .. } => &column.name,
                    };
                    *column != join.source_column && *column != join.target_column
                })
                .collect();
            if !properties.is_empty() {
                item.push_str("        properties:\n");
                summary.columns_left_out += write_slots(&mut item, "          ", &properties);
            }
            items.push(item);
        }
        if items.iter().any(|item| item.trim_start().starts_with('-')) {
            out.push_str("    relationships:\n");
            for item in items {
                out.push_str(&item);
            }
        } else {
            // Only comments: where the relationships would go, without the key.
            for item in items {
                out.push_str(&item[2..]);
            }
        }
    }

    /// The target entity and the field's column of a foreign key, or why it cannot be a
    /// relationship.
    fn relationship(&self, table: usize, key: &ForeignKey) -> Result<(usize, String), String> {
        if key.columns.len() != 1 {
            return Err(
                "a composite foreign key cannot be a relationship (map a view that joins it)"
                    .to_owned(),
            );
        }
        let referenced = key.referenced();
        let shown = sql_name(self.catalog.backend, &referenced);
        let Some(target) = catalog_index(self.catalog, &referenced) else {
            return Err(if self.catalog.filtered_out.contains(&referenced) {
                format!("{shown} is left out by --include / --exclude")
            } else if let Some(schema) = referenced
                .schema
                .as_ref()
                .filter(|schema| !self.catalog.schemas.contains(schema))
            {
                format!("{shown} is outside the schemas read (add --schema {schema} to map it)")
            } else {
                format!("the table {shown} does not exist")
            });
        };
        let column = &key.columns[0];
        if self.field_name(table, column).is_none() {
            return Err(format!("its column {} is left out", quote_ident(column)));
        }
        match &self.status[target] {
            Status::Entity {
                key: target_key, ..
            } => {
                if key.referenced_columns == [target_key.clone()] {
                    Ok((target, column.clone()))
                } else {
                    Err(format!(
                        "it references {}, not {}'s unique field {}",
                        column_list(&key.referenced_columns),
                        self.entity(target),
                        quote_ident(target_key)
                    ))
                }
            }
            _ => Err(format!("{shown} is not mapped (see its comment)")),
        }
    }
}

/// The index of the table `name` in the catalog.
fn catalog_index(catalog: &Catalog, name: &TableName) -> Option<usize> {
    catalog
        .tables
        .iter()
        .position(|t| t.name == name.name && t.schema == name.schema)
}

/// Writes fields (flow style, block style when they carry a description) and comments for
/// the columns left out; answers how many were left out.
fn write_slots(out: &mut String, indent: &str, slots: &[&Slot<'_>]) -> usize {
    let mut left_out = 0;
    for slot in slots.iter().copied() {
        match slot {
            Slot::Field(field) => {
                let mut parts = vec![format!("name: {}", scalar(&field.name))];
                if field.name != field.column.name {
                    parts.push(format!("column: {}", scalar(&field.column.name)));
                }
                parts.push(format!("type: {}", field.ty));
                if let Some(values) = &field.values {
                    let values: Vec<String> = values.iter().map(|v| scalar(v)).collect();
                    parts.push(format!("values: [{}]", values.join(", ")));
                }
                match &field.column.comment {
                    None => {
                        let _ = writeln!(out, "{indent}- {{{}}}", parts.join(", "));
                    }
                    Some(description) => {
                        parts.push(format!("description: {}", scalar(description)));
                        let _ = writeln!(out, "{indent}- {}", parts[0]);
                        for part in &parts[1..] {
                            let _ = writeln!(out, "{indent}  {part}");
                        }
                    }
                }
            }
            Slot::Vectors { column, .. } => {
                left_out += 1;
                let _ = writeln!(
                    out,
                    "{indent}# column {} ({}) left out: vectors are searched on entities, not relationships",
                    comment(&quote_ident(&column.name)),
                    comment(&column.declared_type),
                );
            }
            Slot::LeftOut { column, reason } => {
                left_out += 1;
                let declared = if column.declared_type.is_empty() {
                    "no type".to_owned()
                } else {
                    column.declared_type.clone()
                };
                let _ = writeln!(
                    out,
                    "{indent}# column {} ({}) left out: {}",
                    comment(&quote_ident(&column.name)),
                    comment(&declared),
                    comment(reason)
                );
            }
        }
    }
    left_out
}

/// A table's fields: each column typed, or left out with the reason; names unique in every
/// spelling the generator derives from them.
fn slots(columns: &[Column]) -> Vec<Slot<'_>> {
    let mut taken = Names::default();
    columns
        .iter()
        .map(
            |column| match (field_type(column), column.pgvector_dimension()) {
                (Err(_), Some(dimension)) => Slot::Vectors { column, dimension },
                (Ok((ty, values)), _) => Slot::Field(Field {
                    name: taken.field(&column.name),
                    column,
                    ty,
                    values,
                }),
                (Err(reason), None) => Slot::LeftOut { column, reason },
            },
        )
        .collect()
}

/// A column's field type (and enum values), or why it has none.
fn field_type(column: &Column) -> Result<(&'static str, Option<Vec<String>>), String> {
    let unusable = || "no tool can use this type".to_owned();
    let listed = |values: &Option<Vec<String>>| values.clone().filter(|v| !v.is_empty());
    Ok(match &column.kind {
        ColumnKind::Integer => ("integer", None),
        ColumnKind::Number => ("number", None),
        ColumnKind::Boolean => ("boolean", None),
        ColumnKind::DateTime => ("datetime", None),
        ColumnKind::Text | ColumnKind::Json => match listed(&column.check_in_values) {
            Some(values) if column.kind == ColumnKind::Text => ("enum", Some(values)),
            _ => ("string", None),
        },
        ColumnKind::Enum => match listed(&column.enum_values) {
            Some(values) => ("enum", Some(values)),
            None => ("string", None),
        },
        ColumnKind::Array(element) => match element.as_ref() {
            ColumnKind::Text | ColumnKind::Json | ColumnKind::Enum => ("array<string>", None),
            ColumnKind::Integer | ColumnKind::Number => ("array<number>", None),
            _ => return Err(unusable()),
        },
        ColumnKind::Untyped => {
            return Err(
                "declared without a type, it may hold anything (declare one, or map a view that casts it)"
                    .to_owned(),
            );
        }
        _ => return Err(unusable()),
    })
}

/// What a table becomes before join tables are resolved.
fn first_status(table: &Table, slots: &[Slot<'_>]) -> Status {
    let skip = |category: &'static str, reason: String| Status::Skipped { category, reason };
    if let Some(why) = &table.unreadable {
        return skip("unreadable", format!(" left out: it cannot be read: {why}"));
    }
    if let TableKind::Virtual { module } = &table.kind {
        return skip(
            "virtual table",
            format!(
                " left out: a virtual table (USING {module}); map the table that holds its content"
            ),
        );
    }
    let mapped = |column: &str| {
        slots
            .iter()
            .any(|slot| matches!(slot, Slot::Field(f) if f.column.name == column))
    };
    let key_entity = |key: &str, view_key: bool| {
        if mapped(key) {
            Status::Entity {
                key: key.to_owned(),
                view_key,
            }
        } else {
            let declared = table
                .column(key)
                .map(|c| c.declared_type.clone())
                .unwrap_or_default();
            skip(
                "key type",
                format!(
                    " left out: its key {} ({}) has a type no tool can use; map a view with a usable key",
                    quote_ident(key),
                    if declared.is_empty() {
                        "no type"
                    } else {
                        &declared
                    }
                ),
            )
        }
    };
    match table.primary_key.as_slice() {
        [key] => return key_entity(key, false),
        [] => {}
        key => {
            // A join table: its key is exactly its two single-column foreign keys.
            if table.kind == TableKind::Table && key.len() == 2 && key[0] != key[1] {
                let fk = |column: &str| {
                    table
                        .foreign_keys
                        .iter()
                        .position(|k| k.columns.len() == 1 && k.columns[0] == column)
                };
                let position = |column: &str| table.columns.iter().position(|c| c.name == column);
                if let (Some(a), Some(b)) = (fk(&key[0]), fk(&key[1])) {
                    let (first, second) = if position(&key[0]) <= position(&key[1]) {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    return Status::JoinCandidate { first, second };
                }
            }
            return skip(
                "composite key",
                format!(
                    ": composite primary key ({}) left out: map a view with a single-column key",
                    column_list(key)
                ),
            );
        }
    }
    // A single-column unique key over a NOT NULL column (a materialized view's unique index
    // whatever its columns say).
    let unique = table.unique.iter().find_map(|set| match set.as_slice() {
        [only]
            if table.kind == TableKind::MaterializedView
                || table.column(only).is_some_and(|c| c.not_null) =>
        {
            Some(only.clone())
        }
        _ => None,
    });
    if let Some(key) = unique {
        return key_entity(&key, false);
    }
    if matches!(table.kind, TableKind::View | TableKind::MaterializedView) {
        return match table.columns.first() {
            Some(first) if looks_like_key(&first.name) => key_entity(&first.name, true),
            _ => skip(
                "no key",
                " left out: a view has no key, and its first column is not named like one (id, ..._id); map a view whose first column is a unique id".to_owned(),
            ),
        };
    }
    skip(
        "no key",
        " left out: it has no primary key or unique NOT NULL column (map a view with one, or add a key)".to_owned(),
    )
}

/// `id`, `customer_id`, `AlbumId`, `ArtistID`.
fn looks_like_key(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower == "id" || (lower.len() > 3 && lower.ends_with("_id")) {
        return true;
    }
    let before = |suffix: &str| {
        name.strip_suffix(suffix)
            .and_then(|stem| stem.chars().last())
            .is_some_and(|c| c.is_lowercase() || c.is_ascii_digit())
    };
    before("Id") || before("ID")
}

/// The display name field: a text field named like `name`, `full_name`, `display_name`,
/// `title` or `label` (in that order of preference, ignoring case and `_`), else one named
/// like the table itself (`country.country`).
fn display_field<'s>(table: &Table, slots: &'s [Slot<'_>]) -> Option<&'s str> {
    let normal = |name: &str| -> String {
        name.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let texts: Vec<&Field<'_>> = slots
        .iter()
        .filter_map(|slot| match slot {
            Slot::Field(field) if field.ty == "string" => Some(field),
            _ => None,
        })
        .collect();
    let table_name = normal(&table.name);
    [
        "name",
        "fullname",
        "displayname",
        "title",
        "label",
        table_name.as_str(),
    ]
    .into_iter()
    .filter(|wanted| !wanted.is_empty())
    .find_map(|wanted| {
        texts
            .iter()
            .find(|field| normal(&field.column.name) == wanted)
            .map(|field| field.name.as_str())
    })
}

/// Names taken so far among entities, or among the fields of one table: unique as written,
/// in snake_case, in UpperCamelCase and ignoring ASCII case (the spellings the generator
/// derives and compares).
#[derive(Default)]
struct Names {
    taken: HashSet<String>,
    /// The schema of each entity name given (for the schema prefix on a collision).
    schemas: Vec<(String, Option<String>)>,
}

impl Names {
    fn forms(name: &str) -> [String; 4] {
        [
            format!("={name}"),
            format!("s{}", snake(name)),
            format!("c{}", camel(name)),
            format!("l{}", name.to_ascii_lowercase()),
        ]
    }

    fn free(&self, name: &str) -> bool {
        Self::forms(name)
            .iter()
            .all(|form| !self.taken.contains(form))
    }

    fn take(&mut self, name: &str) {
        self.taken.extend(Self::forms(name));
    }

    /// `base`, or `base2`, `base3`, ... (`base_2`, ... when `underscore`), whichever is free.
    fn suffixed(&self, base: &str, underscore: bool) -> String {
        if self.free(base) {
            return base.to_owned();
        }
        (2..)
            .map(|n| {
                if underscore {
                    format!("{base}_{n}")
                } else {
                    format!("{base}{n}")
                }
            })
            .find(|name| self.free(name))
            .unwrap_or_else(|| base.to_owned())
    }

    /// The entity name of `table`: its name in PascalCase, ASCII letters and digits only;
    /// on a collision with a table of another schema, the schema's name before it, else a
    /// number after it.
    fn entity(&mut self, table: &Table) -> String {
        let base = pascal(&table.name);
        let name = if self.free(&base) {
            base
        } else {
            let forms = Self::forms(&base);
            let other_schema = self
                .schemas
                .iter()
                .find(|(name, _)| Self::forms(name).iter().any(|f| forms.contains(f)))
                .is_some_and(|(_, schema)| *schema != table.schema);
            match &table.schema {
                Some(schema) if other_schema && self.free(&format!("{}{base}", pascal(schema))) => {
                    format!("{}{base}", pascal(schema))
                }
                _ => self.suffixed(&base, false),
            }
        };
        self.take(&name);
        self.schemas.push((name.clone(), table.schema.clone()));
        name
    }

    /// The field name of a column: the column's name when it is an identifier, else its
    /// snake_case made one; `_2`, `_3`, ... after it on a collision.
    fn field(&mut self, column: &str) -> String {
        let base = if is_identifier(column) {
            column.to_owned()
        } else {
            identifier(&column.to_snake_case(), "field")
        };
        let name = self.suffixed(&base, true);
        self.take(&name);
        name
    }
}

/// An ASCII identifier with a letter or digit: `^[A-Za-z_][A-Za-z0-9_]*$`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.chars().any(|c| c.is_ascii_alphanumeric())
}

/// `text` with every run of characters other than ASCII letters and digits as one `_`,
/// trimmed.
fn ascii_words(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_owned()
}

/// [`ascii_words`] of `text`; `fallback` when nothing is left, `fallback_` before a leading
/// digit.
fn identifier(text: &str, fallback: &str) -> String {
    let out = ascii_words(text);
    if out.is_empty() {
        fallback.to_owned()
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{fallback}_{out}")
    } else {
        out
    }
}

/// A table's name in PascalCase, ASCII letters and digits only (`order_details`, `Order
/// Details` → `OrderDetails`); `Table...` when that is empty, starts with a digit, or would
/// be stored as a `sqlite_` table.
fn pascal(name: &str) -> String {
    let camel: String = name
        .to_upper_camel_case()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    if camel.is_empty()
        || camel.starts_with(|c: char| c.is_ascii_digit())
        || snake(&camel).starts_with("sqlite_")
    {
        format!("Table{camel}")
    } else {
        camel
    }
}

/// `text` in SCREAMING_SNAKE_CASE, ASCII only; `None` when nothing is left.
fn shouty(text: &str) -> Option<String> {
    let out = ascii_words(&text.to_shouty_snake_case());
    if out.is_empty() {
        None
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        Some(format!("REL_{out}"))
    } else {
        Some(out)
    }
}

/// A foreign key's relationship type, from its column: `AlbumId` → `ALBUM`, `ReportsTo` →
/// `REPORTS_TO`, `customer_id` → `CUSTOMER`; the target's name when the column is just `id`.
fn relationship_type(column: &str, target: &str) -> String {
    let from_column = shouty(column)
        .map(|t| t.strip_suffix("_ID").map(str::to_owned).unwrap_or(t))
        .filter(|t| !t.is_empty() && t != "ID");
    from_column
        .or_else(|| shouty(target))
        .unwrap_or_else(|| "REFERENCES".to_owned())
}

/// `"a", "b"` for a comment.
fn column_list(columns: &[String]) -> String {
    columns
        .iter()
        .map(|c| quote_ident(c))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `"name"`, inner quotes doubled.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A table as comments name it: SQL-quoted, schema-qualified on PostgreSQL.
fn sql_name(backend: Backend, table: &TableName) -> String {
    match (&table.schema, backend) {
        (Some(schema), Backend::Postgres) => {
            format!("{}.{}", quote_ident(schema), quote_ident(&table.name))
        }
        _ => quote_ident(&table.name),
    }
}

/// The `table:` value: on PostgreSQL always `schema.name`, each part double-quoted unless
/// it is a plain (lowercase) identifier; on SQLite the name, quoted only when it holds a `.`
/// or a `"`.
fn table_ref(backend: Backend, table: &TableName) -> String {
    match backend {
        Backend::Postgres => {
            let part = |name: &str| {
                let plain = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                if plain {
                    name.to_owned()
                } else {
                    quote_ident(name)
                }
            };
            format!(
                "{}.{}",
                part(table.schema.as_deref().unwrap_or("public")),
                part(&table.name)
            )
        }
        Backend::Sqlite => {
            if table.name.contains(['.', '"']) {
                quote_ident(&table.name)
            } else {
                table.name.clone()
            }
        }
    }
}

/// Text for a YAML comment: invisible characters and line breaks escaped.
fn comment(text: &str) -> String {
    escape_invisible(text, false).into_owned()
}

/// Characters a YAML scalar must not carry unescaped.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}'
        )
}

/// A YAML scalar for `text`: plain when it is a word that reads as a string in every YAML
/// version (letters, digits, `_`, `-`, `.`, `/`, starting with a letter or `_`, not `yes`,
/// `null`, ...), single-quoted when it has no character to escape, double-quoted with escapes
/// otherwise.
fn scalar(text: &str) -> String {
    const SPECIAL: &[&str] = &[
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf",
    ];
    let plain = text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !SPECIAL.contains(&text.to_ascii_lowercase().as_str());
    if plain {
        return text.to_owned();
    }
    if !text.chars().any(needs_escape) {
        return format!("'{}'", text.replace('\'', "''"));
    }
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let n = c as u32;
                if n <= 0xFF {
                    let _ = write!(out, "\\x{n:02x}");
                } else {
                    let _ = write!(out, "\\u{n:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::{identifier, looks_like_key, pascal, relationship_type, scalar};

    #[test]
    fn names() {
        assert_eq!(pascal("order_details"), "OrderDetails");
        assert_eq!(pascal("Order Details"), "OrderDetails");
        assert_eq!(pascal("PlaylistTrack"), "PlaylistTrack");
        assert_eq!(pascal("2024 sales"), "Table2024Sales");
        assert_eq!(pascal("日本"), "Table");
        assert_eq!(identifier("unit_price", "field"), "unit_price");
        assert_eq!(identifier("we_ird", "field"), "we_ird");
        assert_eq!(identifier("1st", "field"), "field_1st");
        assert_eq!(relationship_type("AlbumId", "Album"), "ALBUM");
        assert_eq!(relationship_type("ReportsTo", "Employee"), "REPORTS_TO");
        assert_eq!(relationship_type("customer_id", "Customer"), "CUSTOMER");
        assert_eq!(relationship_type("SupportRepId", "Employee"), "SUPPORT_REP");
        assert_eq!(relationship_type("id", "Parent"), "PARENT");
        assert_eq!(relationship_type("ArtistID", "Artist"), "ARTIST");
        assert!(looks_like_key("id") && looks_like_key("actor_id") && looks_like_key("AlbumId"));
        assert!(!looks_like_key("fid") && !looks_like_key("UUID") && !looks_like_key("paid"));
    }

    #[test]
    fn scalars() {
        assert_eq!(scalar("Track"), "Track");
        assert_eq!(scalar("PG-13"), "PG-13");
        assert_eq!(scalar("yes"), "'yes'");
        assert_eq!(scalar("Unit Price"), "'Unit Price'");
        assert_eq!(scalar("it's"), "'it''s'");
        assert_eq!(scalar("sales.\"Order Lines\""), "'sales.\"Order Lines\"'");
        assert_eq!(scalar("a\nb\"c"), "\"a\\nb\\\"c\"");
        assert_eq!(scalar("13"), "'13'");
    }
}
