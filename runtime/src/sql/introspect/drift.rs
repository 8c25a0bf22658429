//! A mapped config against the live database ([`drift`]): every table, column, key, foreign
//! key and join table the config maps, looked up in the database's [`Catalog`], and what the
//! database has that the config does not map yet. `toolforge validate --db` reports the
//! answer at the config's lines.

use crate::spec::{
    Drift, DriftLevel, DriftPlace, EdgeMapping, EntitySpec, FieldSpec, FieldType, RelationshipSpec,
    SchemaSpec, TableRef,
};

use super::catalog::{Backend, Catalog, ColumnKind, Table, TableKind};

/// How many names a note lists before it says how many more there are.
const LISTED: usize = 8;

/// The schemas a spec's mapped tables name, in order (`public` for unqualified ones on
/// PostgreSQL): what a comparison must read.
pub(crate) fn mapped_schemas(spec: &SchemaSpec) -> Vec<String> {
    let mut schemas: Vec<String> = Vec::new();
    for table in mapped_tables(spec) {
        let schema = table.schema.clone().unwrap_or_else(|| "public".to_owned());
        if !schemas.contains(&schema) {
            schemas.push(schema);
        }
    }
    schemas
}

/// Every difference between the tables `spec` maps and `catalog`, in config order: what breaks
/// a tool first for each entity, then what is risky, then what is not mapped yet; the tables
/// no entity maps last. An entity toolforge creates itself (no `table:`) is not compared.
pub fn drift(catalog: &Catalog, spec: &SchemaSpec) -> Vec<Drift> {
    let lookup = Lookup { catalog };
    let mut found = Vec::new();
    for entity in &spec.entities {
        let Some(source) = &entity.source else {
            continue;
        };
        let place = || DriftPlace::Entity {
            entity: entity.name.clone(),
        };
        let Some(table) = lookup.readable(source, place, &mut found) else {
            continue;
        };
        for field in &entity.fields {
            let place = DriftPlace::Field {
                entity: entity.name.clone(),
                field: field.name.clone(),
            };
            lookup.field(table, field, place, &mut found);
        }
        for index in &entity.vector_indexes {
            if let Some(column) = &index.existing_column {
                lookup.vector_column(table, entity, index, column, &mut found);
            }
        }
        if table.kind == TableKind::Table && !is_key(lookup.catalog, table, entity) {
            found.push(Drift {
                level: DriftLevel::Risky,
                place: DriftPlace::Field {
                    entity: entity.name.clone(),
                    field: entity.unique_field.clone(),
                },
                message: format!(
                    "table {}: the key column \"{}\" is neither its primary key nor declared unique",
                    show(source),
                    entity.key_column()
                ),
                hint: Some(
                    "a lookup by key may find several rows: make the column the table's primary key or add a UNIQUE index on it, or map a column that is unique"
                        .to_owned(),
                ),
            });
        }
    }
    for relationship in &spec.relationships {
        lookup.relationship(spec, relationship, &mut found);
    }
    unmapped_columns(&lookup, spec, &mut found);
    unmapped_tables(&lookup, spec, &mut found);
    found
}

/// The candidate closest to `name`, when one is close enough to be a likely typo.
fn closest<'a>(candidates: impl Iterator<Item = &'a str>, name: &str) -> Option<&'a str> {
    candidates
        .map(|candidate| (strsim::jaro_winkler(candidate, name), candidate))
        .filter(|(score, _)| *score > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// Whether `found` is the very table `table` (not an equal one).
fn is(found: Option<&Table>, table: &Table) -> bool {
    found.is_some_and(|found| std::ptr::eq(found, table))
}

/// The catalog, searched as the backend resolves names: SQLite's case-insensitively.
struct Lookup<'c> {
    catalog: &'c Catalog,
}

impl<'c> Lookup<'c> {
    fn same(&self, a: &str, b: &str) -> bool {
        match self.catalog.backend {
            Backend::Sqlite => a.eq_ignore_ascii_case(b),
            Backend::Postgres => a == b,
        }
    }

    fn table(&self, table: &TableRef) -> Option<&'c Table> {
        let schema = match self.catalog.backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(table.schema.as_deref().unwrap_or("public")),
        };
        self.catalog.tables.iter().find(|candidate| {
            self.same(&candidate.name, &table.name)
                && match (schema, candidate.schema.as_deref()) {
                    (Some(wanted), Some(found)) => wanted == found,
                    (None, _) => true,
                    (Some(_), None) => false,
                }
        })
    }

    /// The table `source` names when it is there and readable; otherwise the reason is found.
    fn readable(
        &self,
        source: &TableRef,
        place: impl Fn() -> DriftPlace,
        found: &mut Vec<Drift>,
    ) -> Option<&'c Table> {
        let Some(table) = self.table(source) else {
            let close = closest(
                self.catalog.tables.iter().map(|t| t.name.as_str()),
                &source.name,
            );
            found.push(Drift {
                level: DriftLevel::Breaks,
                place: place(),
                message: format!("table {} is not in the database", show(source)),
                hint: Some(match close {
                    Some(name) => format!("did you mean \"{name}\"? Otherwise map a table the database has (`toolforge init --from-db` lists them)"),
                    None => "map a table the database has (`toolforge init --from-db` lists them), or remove the entity".to_owned(),
                }),
            });
            return None;
        };
        if let Some(reason) = &table.unreadable {
            found.push(Drift {
                level: DriftLevel::Breaks,
                place: place(),
                message: format!("table {} cannot be read: {reason}", show(source)),
                hint: Some(
                    "grant the role SELECT on the table (and USAGE on its schema)".to_owned(),
                ),
            });
            return None;
        }
        Some(table)
    }

    /// A column the config maps: there, and of a type the field can hold.
    fn field(&self, table: &Table, field: &FieldSpec, place: DriftPlace, found: &mut Vec<Drift>) {
        let name = field.column_name();
        let Some(column) = table.columns.iter().find(|c| self.same(&c.name, name)) else {
            found.push(self.missing_column(table, name, place));
            return;
        };
        let fits = fits(&column.kind, field.ty, self.catalog.backend);
        let expected = field.ty.config_name();
        let declared = if column.declared_type.is_empty() {
            "no declared type".to_owned()
        } else {
            format!("type {}", column.declared_type)
        };
        let (level, fit, hint) = match fits {
            Fit::Exact => return,
            Fit::Loose => (
                DriftLevel::Risky,
                "reads only loosely",
                format!(
                    "its values are read as {} would store them; give the field the type `toolforge init --from-db` writes for this column, or map a view that casts it",
                    backend_name(self.catalog.backend)
                ),
            ),
            Fit::Wrong => (
                DriftLevel::Breaks,
                "cannot hold",
                "give the field the type `toolforge init --from-db` writes for this column, or map a view that casts it".to_owned(),
            ),
        };
        found.push(Drift {
            level,
            place,
            message: format!(
                "table {}: column \"{}\" has {declared}, which a field of type `{expected}` {fit}",
                show_table(table),
                column.name
            ),
            hint: Some(hint),
        });
    }

    /// The user's column a vector index reads: there, and a pgvector column of the index's
    /// dimension.
    fn vector_column(
        &self,
        table: &Table,
        entity: &EntitySpec,
        index: &crate::spec::VectorIndexSpec,
        name: &str,
        found: &mut Vec<Drift>,
    ) {
        let place = DriftPlace::Entity {
            entity: entity.name.clone(),
        };
        let Some(column) = table.columns.iter().find(|c| self.same(&c.name, name)) else {
            found.push(self.missing_column(table, name, place));
            return;
        };
        let ty = column.declared_type.as_str();
        let problem = match column.pgvector_dimension() {
            Some(n) if n == index.dimension => return,
            Some(n) => format!(
                "holds vectors of {n} values, but vector index `{}` has dimension {}",
                index.name, index.dimension
            ),
            None => format!(
                "has {}, and vector index `{}` reads only a pgvector column (`vector({})` or \
                 `halfvec({})`) of PostgreSQL as it is",
                if ty.is_empty() {
                    "no declared type".to_owned()
                } else {
                    format!("type {ty}")
                },
                index.name,
                index.dimension,
                index.dimension
            ),
        };
        found.push(Drift {
            level: DriftLevel::Breaks,
            place,
            message: format!(
                "table {}: column \"{}\" {problem}",
                show_table(table),
                column.name
            ),
            hint: Some(
                "set the index's `dimension` to the column's, or remove `column:` to keep toolforge's own vectors of a `source_field` in its side store".to_owned(),
            ),
        });
    }

    fn missing_column(&self, table: &Table, name: &str, place: DriftPlace) -> Drift {
        let close = closest(table.columns.iter().map(|c| c.name.as_str()), name);
        Drift {
            level: DriftLevel::Breaks,
            place,
            message: format!(
                "table {}: column \"{name}\" is not in the database",
                show_table(table)
            ),
            hint: Some(match close {
                Some(close) => format!(
                    "did you mean \"{close}\"? Set `column:` to the column's name as the table has it"
                ),
                None => format!(
                    "map one of the table's columns ({}), or remove it from the config",
                    listed(table.columns.iter().map(|c| c.name.as_str()))
                ),
            }),
        }
    }

    fn relationship(
        &self,
        spec: &SchemaSpec,
        relationship: &RelationshipSpec,
        found: &mut Vec<Drift>,
    ) {
        let place = || DriftPlace::Relationship {
            source: relationship.source.clone(),
            rel_type: relationship.rel_type.clone(),
            target: relationship.target.clone(),
        };
        match &relationship.mapping {
            None => {}
            Some(EdgeMapping::ForeignKey { column }) => {
                let Some(source) = spec
                    .entity(&relationship.source)
                    .and_then(|e| e.source.as_ref())
                else {
                    return;
                };
                // A table that is gone is reported once, at its entity.
                let Some(table) = self.table(source).filter(|t| t.unreadable.is_none()) else {
                    return;
                };
                if !table.columns.iter().any(|c| self.same(&c.name, column)) {
                    found.push(self.missing_column(table, column, place()));
                }
            }
            Some(EdgeMapping::JoinTable {
                table,
                source_column,
                target_column,
            }) => {
                let Some(join) = self.readable(table, place, found) else {
                    return;
                };
                for column in [source_column, target_column] {
                    if !join.columns.iter().any(|c| self.same(&c.name, column)) {
                        found.push(self.missing_column(join, column, place()));
                    }
                }
                for property in &relationship.properties {
                    let place = DriftPlace::Property {
                        source: relationship.source.clone(),
                        rel_type: relationship.rel_type.clone(),
                        target: relationship.target.clone(),
                        property: property.name.clone(),
                    };
                    self.field(join, property, place, found);
                }
            }
        }
    }
}

/// How well a column's values fit a field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// What `init --from-db` would write, or as good.
    Exact,
    /// The backend still reads them, loosely (SQLite's dynamic typing, a cast to text).
    Loose,
    /// Comparisons or decoding fail.
    Wrong,
}

fn fits(kind: &ColumnKind, ty: FieldType, backend: Backend) -> Fit {
    use ColumnKind as K;
    let sqlite = backend == Backend::Sqlite;
    let loose_on_sqlite = if sqlite { Fit::Loose } else { Fit::Wrong };
    match (ty, kind) {
        (FieldType::String, K::Text | K::Json | K::Enum) => Fit::Exact,
        // PostgreSQL reads a string field as `CAST(column AS TEXT)`, SQLite as stored.
        (FieldType::String, K::Binary | K::Unsupported) => loose_on_sqlite,
        (FieldType::String, _) => Fit::Loose,
        (FieldType::Enum, K::Text | K::Enum) => Fit::Exact,
        (FieldType::Enum, _) => Fit::Loose,
        (FieldType::Integer, K::Integer) => Fit::Exact,
        (FieldType::Integer, K::Number) => Fit::Loose,
        (FieldType::Number, K::Integer | K::Number) => Fit::Exact,
        (FieldType::Integer | FieldType::Number, K::Untyped) => Fit::Loose,
        (FieldType::Boolean, K::Boolean) => Fit::Exact,
        (FieldType::Boolean, K::Integer | K::Untyped) => loose_on_sqlite,
        (FieldType::Datetime, K::DateTime) => Fit::Exact,
        (FieldType::Datetime, K::Text | K::Untyped) => loose_on_sqlite,
        (FieldType::StringArray, K::Array(element))
            if matches!(element.as_ref(), K::Text | K::Json | K::Enum) =>
        {
            Fit::Exact
        }
        (FieldType::StringArray, K::Json | K::Text) => loose_on_sqlite,
        (FieldType::NumberArray, K::Array(element))
            if matches!(element.as_ref(), K::Integer | K::Number) =>
        {
            Fit::Exact
        }
        (FieldType::NumberArray, K::Json | K::Text) => loose_on_sqlite,
        _ => Fit::Wrong,
    }
}

/// Whether the entity's key column is its table's primary key or a unique column of it.
fn is_key(catalog: &Catalog, table: &Table, entity: &EntitySpec) -> bool {
    let key = entity.key_column();
    let same = |a: &str| match catalog.backend {
        Backend::Sqlite => a.eq_ignore_ascii_case(key),
        Backend::Postgres => a == key,
    };
    let single = |columns: &[String]| columns.len() == 1 && same(&columns[0]);
    single(&table.primary_key) || table.unique.iter().any(|set| single(set))
}

/// The tables `spec` maps: its entities' and its join tables.
fn mapped_tables(spec: &SchemaSpec) -> impl Iterator<Item = &TableRef> {
    let entities = spec.entities.iter().filter_map(|e| e.source.as_ref());
    let joins = spec.relationships.iter().filter_map(|r| match &r.mapping {
        Some(EdgeMapping::JoinTable { table, .. }) => Some(table),
        _ => None,
    });
    entities.chain(joins)
}

/// A note per mapped table with columns the config does not read.
fn unmapped_columns(lookup: &Lookup<'_>, spec: &SchemaSpec, found: &mut Vec<Drift>) {
    let mut seen: Vec<*const Table> = Vec::new();
    for source in mapped_tables(spec) {
        let Some(table) = lookup.table(source).filter(|t| t.unreadable.is_none()) else {
            continue;
        };
        if seen.contains(&(table as *const Table)) {
            continue;
        }
        seen.push(table);
        let used = used_columns(spec, lookup, table);
        let left: Vec<&str> = table
            .columns
            .iter()
            .map(|c| c.name.as_str())
            .filter(|name| !used.iter().any(|u| lookup.same(u, name)))
            .collect();
        if left.is_empty() {
            continue;
        }
        let place = spec
            .entities
            .iter()
            .find(|e| {
                e.source
                    .as_ref()
                    .is_some_and(|s| is(lookup.table(s), table))
            })
            .map(|e| DriftPlace::Entity {
                entity: e.name.clone(),
            })
            .or_else(|| {
                spec.relationships.iter().find_map(|r| match &r.mapping {
                    Some(EdgeMapping::JoinTable { table: join, .. })
                        if is(lookup.table(join), table) =>
                    {
                        Some(DriftPlace::Relationship {
                            source: r.source.clone(),
                            rel_type: r.rel_type.clone(),
                            target: r.target.clone(),
                        })
                    }
                    _ => None,
                })
            })
            .unwrap_or(DriftPlace::Database);
        let (noun, verb) = if left.len() == 1 {
            ("column", "is")
        } else {
            ("columns", "are")
        };
        found.push(Drift {
            level: DriftLevel::Addition,
            place,
            message: format!(
                "table {}: {noun} {} {verb} not mapped yet",
                show_table(table),
                listed(left.iter().copied())
            ),
            hint: Some(
                "add a field (with `column:` when its name differs) to let the tools read it"
                    .to_owned(),
            ),
        });
    }
}

/// The columns of `table` the config reads: its fields, foreign keys, join columns and
/// properties.
fn used_columns<'s>(spec: &'s SchemaSpec, lookup: &Lookup<'_>, table: &Table) -> Vec<&'s str> {
    let is_this = |source: &TableRef| is(lookup.table(source), table);
    let mut used = Vec::new();
    for entity in &spec.entities {
        if entity.source.as_ref().is_some_and(is_this) {
            used.extend(entity.fields.iter().map(FieldSpec::column_name));
            used.extend(
                entity
                    .vector_indexes
                    .iter()
                    .filter_map(|index| index.existing_column.as_deref()),
            );
        }
    }
    for relationship in &spec.relationships {
        match &relationship.mapping {
            Some(EdgeMapping::ForeignKey { column }) => {
                let on_this = spec
                    .entity(&relationship.source)
                    .and_then(|e| e.source.as_ref())
                    .is_some_and(is_this);
                if on_this {
                    used.push(column.as_str());
                }
            }
            Some(EdgeMapping::JoinTable {
                table: join,
                source_column,
                target_column,
            }) if is_this(join) => {
                used.push(source_column.as_str());
                used.push(target_column.as_str());
                used.extend(relationship.properties.iter().map(FieldSpec::column_name));
            }
            _ => {}
        }
    }
    used
}

/// One note for the tables of the compared schemas that nothing maps.
fn unmapped_tables(lookup: &Lookup<'_>, spec: &SchemaSpec, found: &mut Vec<Drift>) {
    let mapped: Vec<&Table> = mapped_tables(spec)
        .filter_map(|source| lookup.table(source))
        .collect();
    let left: Vec<String> = lookup
        .catalog
        .tables
        .iter()
        .filter(|table| !mapped.iter().any(|m| std::ptr::eq(*m, *table)))
        .map(show_table)
        .collect();
    if left.is_empty() {
        return;
    }
    let (noun, verb) = if left.len() == 1 {
        ("table", "is")
    } else {
        ("tables", "are")
    };
    found.push(Drift {
        level: DriftLevel::Addition,
        place: DriftPlace::Database,
        message: format!(
            "{} {noun} of the database {verb} not mapped yet: {}",
            left.len(),
            listed_shown(left.iter().map(String::as_str))
        ),
        hint: Some(
            "`toolforge init --from-db` writes an entity for each (with --include to pick them)"
                .to_owned(),
        ),
    });
}

/// `"a", "b" and "c"`, or the first [`LISTED`] and how many more.
fn listed<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = names.map(|name| format!("\"{name}\"")).collect();
    join_listed(quoted)
}

/// As [`listed`], for names already shown as a config writes them.
fn listed_shown<'a>(names: impl Iterator<Item = &'a str>) -> String {
    join_listed(names.map(str::to_owned).collect())
}

fn join_listed(mut items: Vec<String>) -> String {
    if items.len() > LISTED {
        let more = items.len() - LISTED;
        items.truncate(LISTED);
        return format!("{} and {more} more", items.join(", "));
    }
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

fn show(table: &TableRef) -> String {
    format!("\"{}\"", table.to_string().trim_matches('"'))
}

fn show_table(table: &Table) -> String {
    match &table.schema {
        Some(schema) if schema != "public" => format!("\"{schema}.{}\"", table.name),
        _ => format!("\"{}\"", table.name),
    }
}

fn backend_name(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "SQLite",
        Backend::Postgres => "PostgreSQL",
    }
}

#[cfg(test)]
mod tests {
    use super::{Fit, fits, join_listed};
    use crate::spec::FieldType;
    use crate::sql::introspect::{Backend, ColumnKind};

    #[test]
    fn lists_name_at_most_eight() {
        let items = |n: usize| (0..n).map(|i| format!("t{i}")).collect::<Vec<_>>();
        assert_eq!(join_listed(items(1)), "t0");
        assert_eq!(join_listed(items(3)), "t0, t1 and t2");
        assert_eq!(
            join_listed(items(10)),
            "t0, t1, t2, t3, t4, t5, t6, t7 and 2 more"
        );
    }

    #[test]
    fn sqlite_reads_loosely_what_postgres_refuses() {
        let boolean_over_integer =
            |backend| fits(&ColumnKind::Integer, FieldType::Boolean, backend);
        assert_eq!(boolean_over_integer(Backend::Sqlite), Fit::Loose);
        assert_eq!(boolean_over_integer(Backend::Postgres), Fit::Wrong);
        assert_eq!(
            fits(&ColumnKind::Number, FieldType::Integer, Backend::Postgres),
            Fit::Loose
        );
        assert_eq!(
            fits(&ColumnKind::Text, FieldType::Integer, Backend::Sqlite),
            Fit::Wrong
        );
        assert_eq!(
            fits(
                &ColumnKind::Array(Box::new(ColumnKind::Integer)),
                FieldType::NumberArray,
                Backend::Postgres
            ),
            Fit::Exact
        );
    }
}
