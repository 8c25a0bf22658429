//! Loading records and relationships, from JSON lines or through the Rust API.
//!
//! Entity lines upsert by the entity's unique field (fields not given keep their value);
//! relationship lines upsert an edge. Everything runs in ONE transaction: an error anywhere
//! commits nothing, and the error names the line and the field.
//!
//! ```text
//! {"entity":"Book","data":{"isbn":"978-0","title":"Dune","pages":412}}
//! {"relationship":"WRITTEN_BY","from":{"entity":"Book","id":"978-0"},"to":{"entity":"Author","id":"frank-herbert"},"properties":{}}
//! ```

use std::collections::HashMap;
use std::fmt;
use std::io::BufRead;

use rusqlite::Transaction;
use rusqlite::types::Value as SqlValue;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::spec::{EntitySpec, FieldSpec, FieldType, RelationshipSpec, SchemaSpec};

use super::database::{Database, DbError};
use super::ident::quote;
use super::names::{shorten, unknown_name_message};
use super::value::{describe_json, json_to_sql};

/// An import failure: where (line, field) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// The 1-based line (or record number for the Rust API), if the error belongs to one.
    pub line: Option<usize>,
    /// The field (`data.pages`, `from.id`, ...), if the error belongs to one.
    pub field: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.line, &self.field) {
            (Some(line), Some(field)) => write!(f, "line {line}, field `{field}`: ")?,
            (Some(line), None) => write!(f, "line {line}: ")?,
            (None, Some(field)) => write!(f, "field `{field}`: ")?,
            (None, None) => {}
        }
        write!(f, "{} (nothing was imported)", self.message)
    }
}

impl std::error::Error for ImportError {}

impl From<DbError> for ImportError {
    fn from(error: DbError) -> Self {
        ImportError {
            line: None,
            field: None,
            message: error.to_string(),
        }
    }
}

/// How much an import loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportStats {
    /// Entity records inserted or updated.
    pub entities: usize,
    /// Relationship edges inserted or updated.
    pub relationships: usize,
}

/// One end of a relationship line.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndPoint {
    /// The entity name.
    pub entity: String,
    /// The value of the entity's unique field.
    pub id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    entity: Option<String>,
    data: Option<Map<String, Value>>,
    relationship: Option<String>,
    from: Option<EndPoint>,
    to: Option<EndPoint>,
    properties: Option<Map<String, Value>>,
}

enum Column<'s> {
    Field(&'s FieldSpec),
    Vector(u32),
}

struct EntityPlan<'s> {
    spec: &'s EntitySpec,
    columns: HashMap<&'s str, (usize, Column<'s>)>,
    names: Vec<&'s str>,
    exists_sql: String,
}

struct PendingCheck {
    line: usize,
    field: &'static str,
    entity: usize,
    id: String,
}

/// An open import: a transaction on the writer connection. Create one with
/// [`Database::import`]; add records with [`Importer::entity`] and
/// [`Importer::relationship`].
pub struct Importer<'s, 't> {
    spec: &'s SchemaSpec,
    tx: &'t Transaction<'t>,
    entities: Vec<EntityPlan<'s>>,
    entity_index: HashMap<&'s str, usize>,
    upsert_sql: HashMap<(usize, Vec<usize>), String>,
    edge_sql: HashMap<(usize, Vec<usize>), String>,
    pending: Vec<PendingCheck>,
    line: usize,
    stats: ImportStats,
}

fn at(line: usize, field: Option<String>, message: impl Into<String>) -> ImportError {
    ImportError {
        line: Some(line),
        field,
        message: message.into(),
    }
}

fn sqlite_error(line: Option<usize>, error: rusqlite::Error) -> ImportError {
    let message = match &error {
        rusqlite::Error::SqliteFailure(code, Some(message)) => {
            format!(
                "the database refused the record ({:?}: {message})",
                code.code
            )
        }
        other => format!("the database refused the record ({other})"),
    };
    ImportError {
        line,
        field: None,
        message,
    }
}

impl<'s, 't> Importer<'s, 't> {
    fn new(spec: &'s SchemaSpec, tx: &'t Transaction<'t>) -> Self {
        let entities = spec
            .entities
            .iter()
            .map(|entity| {
                let mut columns = HashMap::new();
                let mut names = Vec::new();
                for (i, field) in entity.fields.iter().enumerate() {
                    columns.insert(field.name.as_str(), (i, Column::Field(field)));
                    names.push(field.name.as_str());
                }
                for (j, vector) in entity.vector_indexes.iter().enumerate() {
                    columns.insert(
                        vector.column.as_str(),
                        (entity.fields.len() + j, Column::Vector(vector.dimension)),
                    );
                    names.push(vector.column.as_str());
                }
                EntityPlan {
                    spec: entity,
                    columns,
                    names,
                    exists_sql: format!(
                        "SELECT 1 FROM {} WHERE {} = ?1",
                        quote(&entity.table),
                        quote(&entity.unique_field)
                    ),
                }
            })
            .collect();
        let entity_index = spec
            .entities
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.as_str(), i))
            .collect();
        Importer {
            spec,
            tx,
            entities,
            entity_index,
            upsert_sql: HashMap::new(),
            edge_sql: HashMap::new(),
            pending: Vec::new(),
            line: 0,
            stats: ImportStats::default(),
        }
    }

    fn find_entity(&self, name: &str, field: &str) -> Result<usize, ImportError> {
        self.entity_index.get(name).copied().ok_or_else(|| {
            at(
                self.line,
                Some(field.into()),
                unknown_name_message(
                    "entity",
                    name,
                    "",
                    self.spec.entities.iter().map(|e| e.name.as_str()),
                ),
            )
        })
    }

    /// Upserts one record of `entity` by its unique field. Fields not given keep their
    /// current value when the record exists.
    pub fn entity(&mut self, entity: &str, data: &Map<String, Value>) -> Result<(), ImportError> {
        self.line += 1;
        self.entity_at(entity, data)
    }

    fn entity_at(&mut self, entity: &str, data: &Map<String, Value>) -> Result<(), ImportError> {
        let line = self.line;
        let index = self.find_entity(entity, "entity")?;
        let plan = &self.entities[index];
        let unique = plan.spec.unique_field.as_str();
        let mut columns: Vec<(usize, &str, SqlValue)> = Vec::with_capacity(data.len());
        let mut has_unique = false;
        for (key, value) in data {
            let field_path = || Some(format!("data.{key}"));
            let Some((position, column)) = plan.columns.get(key.as_str()) else {
                let hint = if plan.spec.computed_field(key).is_some()
                    || plan
                        .spec
                        .computed_fields
                        .iter()
                        .any(|c| c.materialized_column.as_deref() == Some(key))
                {
                    format!(
                        "`{key}` is a computed field of {}; it is calculated, not imported",
                        plan.spec.name
                    )
                } else {
                    unknown_name_message(
                        "field",
                        key,
                        &format!(" on {}", plan.spec.name),
                        plan.names.iter().copied(),
                    )
                };
                return Err(at(line, field_path(), hint));
            };
            let sql_value = match (column, value) {
                (Column::Field(field), Value::Null) if field.name == unique => {
                    return Err(at(
                        line,
                        field_path(),
                        format!("the unique field `{unique}` cannot be null"),
                    ));
                }
                (_, Value::Null) => SqlValue::Null,
                (Column::Field(field), value) => {
                    let ty = if field.name == unique {
                        FieldType::String
                    } else {
                        field.ty
                    };
                    json_to_sql(ty, &field.values, value)
                        .map_err(|message| at(line, field_path(), message))?
                }
                (Column::Vector(dimension), value) => vector_blob(*dimension, value)
                    .map_err(|message| at(line, field_path(), message))?,
            };
            if key == unique {
                has_unique = true;
            }
            columns.push((*position, key.as_str(), sql_value));
        }
        if !has_unique {
            return Err(at(
                line,
                Some(format!("data.{unique}")),
                format!(
                    "the unique field `{unique}` of {} is required to upsert the record",
                    plan.spec.name
                ),
            ));
        }
        columns.sort_by_key(|c| c.0);
        let key = (index, columns.iter().map(|c| c.0).collect::<Vec<_>>());
        let table = &plan.spec.table;
        let sql = self.upsert_sql.entry(key).or_insert_with(|| {
            let names: Vec<String> = columns.iter().map(|c| quote(c.1)).collect();
            let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
            let updates: Vec<String> = columns
                .iter()
                .filter(|c| c.1 != unique)
                .map(|c| format!("{0} = excluded.{0}", quote(c.1)))
                .collect();
            let action = if updates.is_empty() {
                "NOTHING".to_string()
            } else {
                format!("UPDATE SET {}", updates.join(", "))
            };
            format!(
                "INSERT INTO {} ({}) VALUES ({}) ON CONFLICT ({}) DO {action}",
                quote(table),
                names.join(", "),
                placeholders.join(", "),
                quote(unique)
            )
        });
        let mut statement = self
            .tx
            .prepare_cached(sql)
            .map_err(|e| sqlite_error(Some(line), e))?;
        statement
            .execute(rusqlite::params_from_iter(columns.into_iter().map(|c| c.2)))
            .map_err(|e| sqlite_error(Some(line), e))?;
        self.stats.entities += 1;
        Ok(())
    }

    /// Upserts one edge `from -[relationship]-> to`, identified by unique-field values.
    /// Both records must exist when the import finishes.
    pub fn relationship(
        &mut self,
        relationship: &str,
        from: &EndPoint,
        to: &EndPoint,
        properties: &Map<String, Value>,
    ) -> Result<(), ImportError> {
        self.line += 1;
        self.relationship_at(relationship, from, to, properties)
    }

    fn relationship_at(
        &mut self,
        relationship: &str,
        from: &EndPoint,
        to: &EndPoint,
        properties: &Map<String, Value>,
    ) -> Result<(), ImportError> {
        let line = self.line;
        let from_index = self.find_entity(&from.entity, "from.entity")?;
        let to_index = self.find_entity(&to.entity, "to.entity")?;
        let Some((rel_index, rel)) = self.spec.relationships.iter().enumerate().find(|(_, r)| {
            r.rel_type == relationship && r.source == from.entity && r.target == to.entity
        }) else {
            return Err(at(
                line,
                Some("relationship".into()),
                relationship_hint(self.spec, relationship, &from.entity, &to.entity),
            ));
        };
        let mut values = vec![
            (0usize, "source_id", SqlValue::Text(from.id.clone())),
            (1, "target_id", SqlValue::Text(to.id.clone())),
        ];
        for (key, value) in properties {
            let Some((i, property)) = rel
                .properties
                .iter()
                .enumerate()
                .find(|(_, p)| &p.name == key)
            else {
                return Err(at(
                    line,
                    Some(format!("properties.{key}")),
                    unknown_name_message(
                        "property",
                        key,
                        &format!(" on relationship {}", rel.rel_type),
                        rel.properties.iter().map(|p| p.name.as_str()),
                    ),
                ));
            };
            let sql_value = if value.is_null() {
                SqlValue::Null
            } else {
                json_to_sql(property.ty, &property.values, value)
                    .map_err(|message| at(line, Some(format!("properties.{key}")), message))?
            };
            values.push((i + 2, key.as_str(), sql_value));
        }
        values.sort_by_key(|v| v.0);
        let key = (rel_index, values.iter().map(|v| v.0).collect::<Vec<_>>());
        let sql = self
            .edge_sql
            .entry(key)
            .or_insert_with(|| edge_upsert_sql(rel, &values));
        let mut statement = self
            .tx
            .prepare_cached(sql)
            .map_err(|e| sqlite_error(Some(line), e))?;
        statement
            .execute(rusqlite::params_from_iter(values.into_iter().map(|v| v.2)))
            .map_err(|e| sqlite_error(Some(line), e))?;
        self.pending.push(PendingCheck {
            line,
            field: "from.id",
            entity: from_index,
            id: from.id.clone(),
        });
        self.pending.push(PendingCheck {
            line,
            field: "to.id",
            entity: to_index,
            id: to.id.clone(),
        });
        self.stats.relationships += 1;
        Ok(())
    }

    /// Parses and loads one JSON line (blank lines are skipped).
    pub fn json_line(&mut self, text: &str) -> Result<(), ImportError> {
        self.line += 1;
        let line = self.line;
        if text.trim().is_empty() {
            return Ok(());
        }
        let parsed: Line = serde_json::from_str(text)
            .map_err(|e| at(line, None, format!("not a valid import line: {e}")))?;
        match parsed {
            Line {
                entity: Some(entity),
                data: Some(data),
                relationship: None,
                from: None,
                to: None,
                properties: None,
            } => self.entity_at(&entity, &data),
            Line {
                entity: None,
                data: None,
                relationship: Some(relationship),
                from: Some(from),
                to: Some(to),
                properties,
            } => self.relationship_at(&relationship, &from, &to, &properties.unwrap_or_default()),
            _ => Err(at(
                line,
                None,
                "expected {\"entity\": NAME, \"data\": {...}} or {\"relationship\": TYPE, \"from\": {\"entity\": NAME, \"id\": ID}, \"to\": {...}, \"properties\": {...}}",
            )),
        }
    }

    fn finish(self) -> Result<ImportStats, ImportError> {
        let mut cache: HashMap<(usize, &str), bool> = HashMap::new();
        for check in &self.pending {
            if cache.contains_key(&(check.entity, check.id.as_str())) {
                continue;
            }
            let plan = &self.entities[check.entity];
            let mut statement = self
                .tx
                .prepare_cached(&plan.exists_sql)
                .map_err(|e| sqlite_error(Some(check.line), e))?;
            let exists = statement
                .exists([&check.id])
                .map_err(|e| sqlite_error(Some(check.line), e))?;
            if !exists {
                return Err(at(
                    check.line,
                    Some(check.field.into()),
                    format!(
                        "no {} has {} \"{}\"; import the record too (anywhere in the same import)",
                        plan.spec.name,
                        plan.spec.unique_field,
                        shorten(&check.id)
                    ),
                ));
            }
            cache.insert((check.entity, check.id.as_str()), true);
        }
        Ok(self.stats)
    }
}

fn edge_upsert_sql(rel: &RelationshipSpec, values: &[(usize, &str, SqlValue)]) -> String {
    let names: Vec<String> = values.iter().map(|v| quote(v.1)).collect();
    let placeholders: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
    let updates: Vec<String> = values
        .iter()
        .skip(2)
        .map(|v| format!("{0} = excluded.{0}", quote(v.1)))
        .collect();
    let action = if updates.is_empty() {
        "NOTHING".to_string()
    } else {
        format!("UPDATE SET {}", updates.join(", "))
    };
    format!(
        "INSERT INTO {} ({}) VALUES ({}) ON CONFLICT (\"source_id\", \"target_id\") DO {action}",
        quote(&rel.table),
        names.join(", "),
        placeholders.join(", ")
    )
}

fn relationship_hint(spec: &SchemaSpec, rel_type: &str, from: &str, to: &str) -> String {
    let same_type: Vec<String> = spec
        .relationships
        .iter()
        .filter(|r| r.rel_type == rel_type)
        .map(|r| format!("{} -[{}]-> {}", r.source, r.rel_type, r.target))
        .collect();
    if same_type.is_empty() {
        let mut types: Vec<&str> = spec
            .relationships
            .iter()
            .map(|r| r.rel_type.as_str())
            .collect();
        types.dedup();
        unknown_name_message("relationship", rel_type, "", types)
    } else {
        format!(
            "{} -[{}]-> {} is not declared; declared: {}",
            shorten(from),
            shorten(rel_type),
            shorten(to),
            same_type.join(", ")
        )
    }
}

fn vector_blob(dimension: u32, value: &Value) -> Result<SqlValue, String> {
    let Value::Array(items) = value else {
        return Err(format!(
            "expected an array of {dimension} numbers, got {}",
            describe_json(value)
        ));
    };
    if items.len() != dimension as usize {
        return Err(format!("expected {dimension} numbers, got {}", items.len()));
    }
    let mut blob = Vec::with_capacity(items.len() * 4);
    for (i, item) in items.iter().enumerate() {
        let number = item
            .as_f64()
            .ok_or_else(|| format!("element {i} is {}, expected a number", describe_json(item)))?;
        blob.extend_from_slice(&(number as f32).to_le_bytes());
    }
    Ok(SqlValue::Blob(blob))
}

impl Database {
    /// Runs `load` inside one transaction on the writer connection, then checks that every
    /// relationship's ends exist. Commits only if everything succeeded.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
    /// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
    /// #   "fields": [{"name": "isbn", "type": "string", "unique": true},
    /// #              {"name": "pages", "type": "number"}]}],
    /// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100, "families": []}}))?;
    /// let dir = tempfile::tempdir()?;
    /// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
    /// db.init(&spec)?;
    /// let data = serde_json::json!({"isbn": "978-0", "pages": 412});
    /// let stats = db.import(&spec, |import| import.entity("Book", data.as_object().unwrap()))?;
    /// assert_eq!(stats.entities, 1);
    /// # Ok(()) }
    /// ```
    pub fn import<F>(&self, spec: &SchemaSpec, load: F) -> Result<ImportStats, ImportError>
    where
        F: FnOnce(&mut Importer<'_, '_>) -> Result<(), ImportError>,
    {
        self.write_blocking(|conn| {
            let tx = conn.transaction().map_err(|e| sqlite_error(None, e))?;
            let stats = {
                let mut importer = Importer::new(spec, &tx);
                load(&mut importer)?;
                importer.finish()?
            };
            tx.commit().map_err(|e| sqlite_error(None, e))?;
            Ok(stats)
        })?
    }

    /// Loads JSON lines (see the [module docs](self)) in one transaction.
    pub fn import_jsonl(
        &self,
        spec: &SchemaSpec,
        mut reader: impl BufRead,
    ) -> Result<ImportStats, ImportError> {
        self.import(spec, |importer| {
            let mut buffer = String::new();
            loop {
                buffer.clear();
                let read = reader.read_line(&mut buffer).map_err(|e| ImportError {
                    line: Some(importer.line + 1),
                    field: None,
                    message: format!("could not read the line: {e}"),
                })?;
                if read == 0 {
                    return Ok(());
                }
                importer.json_line(&buffer)?;
            }
        })
    }
}
