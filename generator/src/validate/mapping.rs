//! Existing tables: `table:`, `column:`, `foreign_key:` and `join_table:`.
//!
//! A config either maps every entity onto a table the database already has, or lets toolforge
//! create all of them; one of each is refused, so that `db init` and imports never write into
//! a database the user owns. A mapped entity's key is one of its own columns (listed, text or
//! integer), every relationship says where its edges are (a foreign key column or a join
//! table). A full-text index and the vectors of vector indexes are kept apart in toolforge's
//! side store, and so is the change log of an entity tracking its changes (`toolforge db
//! init` creates them, `toolforge db refresh` and `toolforge db embed` bring them up to
//! date); what would need other objects of toolforge's own inside the user's tables
//! (materialized computed fields, points) is refused with what to do instead.

use toolforge::spec::TableRef;

use crate::config::{Config, Entity};
use crate::report::{Reporter, suggestion};

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    let first_mapped = config.entities.iter().position(|e| e.table.is_some());
    for (i, entity) in config.entities.iter().enumerate() {
        let base = format!("entities[{i}]");
        match (&entity.table, first_mapped) {
            (Some(table), _) => {
                if let Err(problem) = TableRef::parse(table) {
                    r.error(
                        &format!("{base}.table"),
                        format!("`table: {table}` cannot be read: {problem}"),
                    )
                    .hint("write `table: name` or `table: schema.name`; double-quote a part that holds a dot or a quote, as in SQL: `table: sales.\"Order Lines\"`")
                    .emit();
                }
                check_mapped_entity(entity, &base, r);
            }
            (None, Some(j)) => {
                let at = r.line_col(&format!("entities[{j}].table"));
                r.error(
                    &format!("{base}.name"),
                    format!(
                        "`{}` names no `table:`, but `{}` reads an existing table (at {at}): a config maps every entity onto the database's tables, or none",
                        entity.name, config.entities[j].name
                    ),
                )
                .hint(format!(
                    "add `table: <the table {} reads>` (`toolforge init --from-db` writes a complete mapping), or remove every `table:` to let toolforge create its own tables",
                    entity.name
                ))
                .emit();
            }
            (None, None) => check_own_entity(entity, &base, r),
        }
    }
}

/// What only a mapped entity may say, said on one toolforge creates.
fn check_own_entity(entity: &Entity, base: &str, r: &mut Reporter<'_>) {
    for (suffix, index) in entity.all_vector_indexes() {
        if index.column.is_some() {
            r.error(
                &format!("{base}.{suffix}.column"),
                format!(
                    "`column:` reads the vectors of vector index `{}` from an existing table's column, and `{}` names no `table:`",
                    index.name, entity.name
                ),
            )
            .hint("add `table:` to the entity to read an existing table, or remove `column:` (`field:` names the column of toolforge's own table)")
            .emit();
        }
    }
    for (j, field) in entity.searchable_fields.iter().enumerate() {
        if field.column.is_some() {
            r.error(
                &format!("{base}.searchable_fields[{j}].column"),
                format!(
                    "`column:` maps a field onto an existing table's column, and `{}` names no `table:`",
                    entity.name
                ),
            )
            .hint("add `table:` to the entity to read an existing table, or remove `column:` (toolforge's own tables name columns like their fields)")
            .emit();
        }
    }
    for (j, rel) in entity.relationships.iter().enumerate() {
        for (key, given) in [
            ("foreign_key", rel.foreign_key.is_some()),
            ("join_table", rel.join_table.is_some()),
        ] {
            if given {
                r.error(
                    &format!("{base}.relationships[{j}].{key}"),
                    format!(
                        "`{key}:` reads a relationship from an existing table, and `{}` names no `table:`",
                        entity.name
                    ),
                )
                .hint("remove it: relationships between toolforge's own tables are kept in edge tables of their own, filled by `toolforge db import`")
                .emit();
            }
        }
    }
}

fn check_mapped_entity(entity: &Entity, base: &str, r: &mut Reporter<'_>) {
    for (suffix, index) in entity.all_vector_indexes() {
        let Some(column) = &index.column else {
            continue;
        };
        if column.trim().is_empty() {
            r.error(
                &format!("{base}.{suffix}.column"),
                "`column:` is empty".to_owned(),
            )
            .hint("name the table's pgvector column, or remove `column:` to keep toolforge's vectors in its side store")
            .emit();
        } else if index.source_field.is_some() {
            r.error(
                &format!("{base}.{suffix}.source_field"),
                format!(
                    "vector index `{}` reads the vectors of your column `{column}` as they are, so toolforge embeds no `source_field` into it (it never writes your table)",
                    index.name
                ),
            )
            .hint(format!(
                "remove `source_field` (your application keeps `{column}` current), or remove `column:` to let toolforge embed `source_field` into its side store"
            ))
            .emit();
        }
    }
    let unique = entity.unique_field();
    let listed: Vec<&str> = entity
        .searchable_fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    match entity.field(unique) {
        None => {
            let path = if entity.unique_field.is_some() {
                format!("{base}.unique_field")
            } else {
                format!("{base}.name")
            };
            r.error(
                &path,
                format!(
                    "the key `{unique}` of `{}` is none of its fields: a mapped table's key is one of its own columns",
                    entity.name
                ),
            )
            .hint(format!(
                "set `unique_field:` to the field of its single-column primary key (or of a unique, not-null column) and list that field in `searchable_fields`; {}",
                suggestion(unique, listed.iter().copied(), "fields")
            ))
            .emit();
        }
        Some(field) if !matches!(field.ty.as_str(), "string" | "integer") => {
            let j = listed.iter().position(|name| *name == unique).unwrap_or(0);
            r.error(
                &format!("{base}.searchable_fields[{j}].type"),
                format!(
                    "the key `{unique}` of `{}` is {} field; a key is a `string` or an `integer`",
                    entity.name,
                    article(&field.ty)
                ),
            )
            .hint("map a unique column of text, integer or uuid type; for a composite key, map a view with a single-column key")
            .emit();
        }
        Some(_) => {}
    }
    for (j, field) in entity.searchable_fields.iter().enumerate() {
        if field.column.as_deref().is_some_and(|c| c.trim().is_empty()) {
            r.error(
                &format!("{base}.searchable_fields[{j}].column"),
                "`column:` is empty".to_owned(),
            )
            .hint("name the column holding the field, or remove `column:` when it is named like the field")
            .emit();
        }
        if field.ty == "point" {
            r.error(
                &format!("{base}.searchable_fields[{j}].type"),
                format!(
                    "`point` fields are not read from existing tables yet (`{}`)",
                    field.name
                ),
            )
            .hint("map the latitude and longitude columns as two `number` fields")
            .emit();
        }
    }
    for (j, computed) in entity.computed_fields.iter().enumerate() {
        if computed.materialized == Some(true) {
            r.error(
                &format!("{base}.computed_fields[{j}].materialized"),
                format!(
                    "`{}` cannot be materialized: that adds a column to your table, and tools over existing tables only read",
                    computed.name
                ),
            )
            .hint("remove `materialized` (the field is computed in each query)")
            .emit();
        }
    }
    for (j, rel) in entity.relationships.iter().enumerate() {
        let path = format!("{base}.relationships[{j}]");
        match (&rel.foreign_key, &rel.join_table) {
            (None, None) => {
                r.error(
                    &format!("{path}.type"),
                    format!(
                        "the relationship `{}` between existing tables says neither `foreign_key:` nor `join_table:`",
                        rel.rel_type
                    ),
                )
                .hint("name the column that holds the target's key (`foreign_key: AuthorId`, on the relationship's source table), or the join table (`join_table: {table: BookAuthor, source_column: BookId, target_column: AuthorId}`)")
                .emit();
            }
            (Some(_), Some(_)) => {
                r.error(
                    &format!("{path}.join_table"),
                    format!(
                        "the relationship `{}` says both `foreign_key:` and `join_table:`",
                        rel.rel_type
                    ),
                )
                .hint(
                    "keep one: a foreign key column for many-to-one, a join table for many-to-many",
                )
                .emit();
            }
            (Some(column), None) => {
                if column.trim().is_empty() {
                    r.error(
                        &format!("{path}.foreign_key"),
                        "`foreign_key:` is empty".to_owned(),
                    )
                    .hint("name the column of the source table that holds the target's key")
                    .emit();
                }
                if !rel.properties.is_empty() {
                    r.error(
                        &format!("{path}.properties"),
                        format!(
                            "the relationship `{}` is a foreign key column, which has no properties",
                            rel.rel_type
                        ),
                    )
                    .hint("map the other columns as fields of the entity; a relationship has properties when it is a join table")
                    .emit();
                }
            }
            (None, Some(join)) => {
                if let Err(problem) = TableRef::parse(&join.table) {
                    r.error(
                        &format!("{path}.join_table.table"),
                        format!("`table: {}` cannot be read: {problem}", join.table),
                    )
                    .hint("write `name` or `schema.name`; double-quote a part that holds a dot or a quote")
                    .emit();
                }
                for (key, column) in [
                    ("source_column", &join.source_column),
                    ("target_column", &join.target_column),
                ] {
                    if column.trim().is_empty() {
                        r.error(
                            &format!("{path}.join_table.{key}"),
                            format!("`{key}` is empty"),
                        )
                        .hint("name the join table's column that holds that side's key")
                        .emit();
                    }
                }
                if join.source_column == join.target_column {
                    r.error(
                        &format!("{path}.join_table.target_column"),
                        "`source_column` and `target_column` name the same column".to_owned(),
                    )
                    .hint("a join table has one column referencing each side")
                    .emit();
                }
                for (k, property) in rel.properties.iter().enumerate() {
                    if property.ty == "point" {
                        r.error(
                            &format!("{path}.properties[{k}].type"),
                            "`point` properties are not read from existing tables yet".to_owned(),
                        )
                        .hint("map the latitude and longitude columns as two `number` properties")
                        .emit();
                    }
                }
            }
        }
    }
}

fn article(ty: &str) -> String {
    match ty.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an `{ty}`"),
        _ => format!("a `{ty}`"),
    }
}
