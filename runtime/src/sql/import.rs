//! Loading records and relationships, from JSON lines or through the Rust API.
//!
//! Entity lines upsert by the entity's unique field (fields not given keep their value);
//! relationship lines upsert an edge; delete lines remove a record with its edges (and its
//! full-text postings and vectors). Everything runs in ONE transaction: an error anywhere
//! commits nothing, and the error names the line and the field.
//!
//! ```text
//! {"entity":"Book","data":{"isbn":"978-0","title":"Dune","pages":412}}
//! {"relationship":"WRITTEN_BY","from":{"entity":"Book","id":"978-0"},"to":{"entity":"Author","id":"frank-herbert"},"properties":{}}
//! {"delete":{"entity":"Book","id":"978-0"}}
//! ```
//!
//! For entities that track their changes, the import records one change per record it
//! changed, in the same transaction (see the `changes` module).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{BufRead, Read};

use crate::sql::value::SqlValue;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::spec::{EntitySpec, FieldSpec, FieldType, SchemaSpec};

use super::backend::import_sink::{ImportSink, Target, at, exec_error};
use super::changes::Tracker;
use super::database::{Database, DbError};
use super::value::{
    Bound, ValueError, describe_json, json_to_bound, json_to_sql, normalize_datetime,
};
use crate::sql::text::ident::quote;
use crate::sql::text::names::{shorten, unknown_name_message};

pub use super::backend::import_sink::ImportError;

/// The longest import line [`Database::import_jsonl`] reads, in bytes without its newline:
/// 32 MiB. Longer lines are refused with their line number (see
/// [`Database::import_jsonl_with_max_line`] for another bound).
pub const MAX_LINE_BYTES: usize = 32 << 20;

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
    /// Entity lines written: records inserted or updated (a key given twice counts twice).
    pub entities: usize,
    /// Records that were not there before the import (a key given twice counts once; a record
    /// imported and deleted by the same import counts).
    pub new_records: usize,
    /// Relationship edges inserted or updated.
    pub relationships: usize,
    /// What was done to keep the vector indexes up to date (see
    /// `embeddings`).
    pub embeddings: super::vectors::embed_pass::EmbedStats,
    /// Records deleted.
    pub deleted: usize,
    /// Changes recorded in the change log (for entities that track their changes).
    pub changes: usize,
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

/// A field value of a line: text borrowed from the line when possible, or any JSON value.
enum Input<'a> {
    Text(Cow<'a, str>),
    Json(Value),
}

impl<'de: 'a, 'a> Deserialize<'de> for Input<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visitor<'a> {
            type Value = Input<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Input::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Input::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Input::Text(Cow::Owned(v)))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Input::Json(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Input::Json(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Input::Json(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Input::Json(Value::from(v)))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Input::Json(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Input::Json(Value::Null))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<Self::Value, A::Error> {
                Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(Input::Json)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(Input::Json)
            }
        }
        deserializer.deserialize_any(Visitor(std::marker::PhantomData))
    }
}

/// The `data` object of a line, kept as pairs in input order (no map building).
struct Pairs<'a>(Vec<(Cow<'a, str>, Input<'a>)>);

impl<'de: 'a, 'a> Deserialize<'de> for Pairs<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visitor<'a> {
            type Value = Pairs<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of field values")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Pairs<'a>, A::Error> {
                let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(key) = map.next_key::<BorrowedKey<'a>>()? {
                    pairs.push((key.0, map.next_value::<Input<'a>>()?));
                }
                Ok(Pairs(pairs))
            }
        }
        deserializer.deserialize_map(Visitor(std::marker::PhantomData))
    }
}

struct BorrowedKey<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for BorrowedKey<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Input::deserialize(deserializer)? {
            Input::Text(text) => Ok(BorrowedKey(text)),
            Input::Json(_) => Err(serde::de::Error::custom("expected a field name")),
        }
    }
}

/// A borrowed view of one field value.
#[derive(Clone, Copy)]
enum InputRef<'a> {
    Text(&'a str),
    Json(&'a Value),
}

impl<'a> InputRef<'a> {
    fn of_json(value: &'a Value) -> Self {
        match value {
            Value::String(text) => InputRef::Text(text),
            other => InputRef::Json(other),
        }
    }

    fn of_input(input: &'a Input<'a>) -> Self {
        match input {
            Input::Text(text) => InputRef::Text(text),
            Input::Json(value) => InputRef::Json(value),
        }
    }

    fn is_null(self) -> bool {
        matches!(self, InputRef::Json(Value::Null))
    }

    /// Converts to the bound value of a field of type `ty`.
    fn bind(self, ty: FieldType, values: &[String]) -> Result<Bound<'a>, ValueError> {
        match self {
            InputRef::Json(value) => json_to_bound(ty, values, value),
            InputRef::Text(text) => match ty {
                FieldType::String => Ok(Bound::Text(text)),
                FieldType::Enum if values.is_empty() || values.iter().any(|v| v == text) => {
                    Ok(Bound::Text(text))
                }
                FieldType::Datetime => {
                    normalize_datetime(text).map(|t| Bound::Value(SqlValue::Text(t)))
                }
                _ => json_to_sql(ty, values, &Value::String(text.to_string())).map(Bound::Value),
            },
        }
    }

    fn to_value(self) -> Value {
        match self {
            InputRef::Text(text) => Value::String(text.to_string()),
            InputRef::Json(value) => value.clone(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line<'a> {
    #[serde(borrow)]
    entity: Option<Cow<'a, str>>,
    #[serde(borrow)]
    data: Option<Pairs<'a>>,
    relationship: Option<String>,
    from: Option<EndPoint>,
    to: Option<EndPoint>,
    properties: Option<Map<String, Value>>,
    delete: Option<EndPoint>,
}

enum Column<'s> {
    Field(&'s FieldSpec),
    Vector(u32),
}

struct EntityPlan<'s> {
    spec: &'s EntitySpec,
    columns: Vec<(&'s str, Column<'s>)>,
    names: Vec<&'s str>,
}

/// How many ids one statement of the end checks looks up.
const CHECK_BATCH: usize = 500;

/// A fast hasher for the import's sets of ids (the input is the importer's own file).
type FastHash = foldhash::fast::RandomState;

/// The most ids [`WrittenIds`] remembers; past it, further ends are looked up.
const WRITTEN_CAP: usize = 1_000_000;

/// The unique ids of the records an import wrote and has not deleted since, per entity, up to
/// [`WRITTEN_CAP`] in all: a relationship's end among them exists, with no statement to check.
struct WrittenIds {
    ids: Vec<HashSet<Box<str>, FastHash>>,
    count: usize,
}

impl WrittenIds {
    fn new(entities: usize) -> Self {
        WrittenIds {
            ids: (0..entities).map(|_| HashSet::default()).collect(),
            count: 0,
        }
    }

    fn insert(&mut self, entity: usize, id: &str) {
        if self.count < WRITTEN_CAP && self.ids[entity].insert(id.into()) {
            self.count += 1;
        }
    }

    fn remove(&mut self, entity: usize, id: &str) {
        if self.ids[entity].remove(id) {
            self.count -= 1;
        }
    }

    fn holds(&self, entity: usize, id: &str) -> bool {
        self.ids[entity].contains(id)
    }
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
    sink: &'t mut (dyn ImportSink + 't),
    entities: Vec<EntityPlan<'s>>,
    entity_index: HashMap<&'s str, usize>,
    pending: Vec<PendingCheck>,
    /// The records this import wrote (and has not deleted since): ends that need no lookup.
    written: WrittenIds,
    line: usize,
    stats: ImportStats,
    /// What tracked records held before this import touched them.
    tracker: Tracker<'s>,
}

/// The set of columns a statement writes, as a bit mask (`None` past 128 columns: such
/// statements go through rusqlite's own statement cache instead).
fn column_mask(columns: impl Iterator<Item = usize>) -> Option<u128> {
    let mut mask = 0u128;
    for column in columns {
        if column >= 128 {
            return None;
        }
        mask |= 1u128 << column;
    }
    Some(mask)
}

impl<'s, 't> Importer<'s, 't> {
    fn new(spec: &'s SchemaSpec, sink: &'t mut (dyn ImportSink + 't)) -> Self {
        let entities = spec
            .entities
            .iter()
            .map(|entity| {
                let mut columns = Vec::new();
                let mut names = Vec::new();
                for field in &entity.fields {
                    columns.push((field.name.as_str(), Column::Field(field)));
                    names.push(field.name.as_str());
                }
                for vector in &entity.vector_indexes {
                    columns.push((vector.column.as_str(), Column::Vector(vector.dimension)));
                    names.push(vector.column.as_str());
                }
                EntityPlan {
                    spec: entity,
                    columns,
                    names,
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
            sink,
            entities,
            entity_index,
            pending: Vec::new(),
            written: WrittenIds::new(spec.entities.len()),
            line: 0,
            stats: ImportStats::default(),
            tracker: Tracker::new(spec),
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

    /// The spec this import writes to.
    pub fn spec(&self) -> &'s SchemaSpec {
        self.spec
    }

    /// Upserts one record of `entity` by its unique field. Fields not given keep their
    /// current value when the record exists.
    pub fn entity(&mut self, entity: &str, data: &Map<String, Value>) -> Result<(), ImportError> {
        self.line += 1;
        self.entity_at(
            entity,
            data.iter().map(|(k, v)| (k.as_str(), InputRef::of_json(v))),
        )
    }

    fn entity_at<'v>(
        &mut self,
        entity: &str,
        data: impl ExactSizeIterator<Item = (&'v str, InputRef<'v>)>,
    ) -> Result<(), ImportError> {
        let line = self.line;
        let index = self.find_entity(entity, "entity")?;
        let plan = &self.entities[index];
        let unique = plan.spec.unique_field.as_str();
        let mut columns: Vec<(usize, &str, Bound<'v>)> = Vec::with_capacity(data.len());
        let mut has_unique = false;
        for (key, value) in data {
            let field_path = || Some(format!("data.{key}"));
            let found = plan
                .columns
                .iter()
                .enumerate()
                .find(|(_, (name, _))| *name == key);
            let Some((position, (_, column))) = found else {
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
            if columns.iter().any(|c| c.0 == position) {
                return Err(at(line, field_path(), format!("`{key}` is given twice")));
            }
            let sql_value = match (column, value) {
                (Column::Field(field), value) if field.name == unique && value.is_null() => {
                    return Err(at(
                        line,
                        field_path(),
                        format!("the unique field `{unique}` cannot be null"),
                    ));
                }
                (_, value) if value.is_null() => Bound::Value(SqlValue::Null),
                (Column::Field(field), value) => {
                    let ty = if field.name == unique {
                        FieldType::String
                    } else {
                        field.ty
                    };
                    value
                        .bind(ty, &field.values)
                        .map_err(|error| at(line, field_path(), error.to_string()))?
                }
                (Column::Vector(dimension), value) => vector_blob(*dimension, &value.to_value())
                    .map(Bound::Value)
                    .map_err(|error| at(line, field_path(), error.to_string()))?,
            };
            let text = sql_value.as_text();
            if text.is_some_and(|text| text.contains('\0')) {
                return Err(at(
                    line,
                    field_path(),
                    format!(
                        "`{key}` holds a NUL character (\\u0000), which text columns cannot keep \
                         as given (PostgreSQL refuses it, SQLite's text functions stop at it); \
                         remove it, or store the value as base64"
                    ),
                ));
            }
            if key == unique {
                if text.is_some_and(str::is_empty) {
                    return Err(at(
                        line,
                        field_path(),
                        format!(
                            "the unique field `{unique}` is empty; every record needs an id to be \
                             found by"
                        ),
                    ));
                }
                has_unique = true;
            }
            columns.push((position, key, sql_value));
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
        let table = &plan.spec.table;
        let names: Vec<&str> = columns.iter().map(|c| c.1).collect();
        let params: Vec<Bound<'_>> = columns.iter().map(|c| c.2.clone()).collect();
        let key = column_mask(columns.iter().map(|c| c.0)).map(|mask| (index, mask));
        let id = columns.iter().find(|c| c.1 == unique).map(|c| &c.2);
        let tracked_id = match id {
            Some(_) if !self.tracker.tracks(index) => None,
            Some(bound) => Some(match bound.as_text() {
                Some(text) => Cow::Borrowed(text),
                None => Cow::Owned(format!("{:?}", bound.to_value())),
            }),
            None => None,
        };
        self.sink.upsert(
            &mut self.tracker,
            tracked_id.as_deref().map(|id| (index, id)),
            Target::Entity,
            key,
            table,
            &names,
            &[unique],
            &params,
            line,
        )?;
        if let Some(id) = &tracked_id {
            self.tracker.written(index, id, |column| {
                columns.iter().find(|c| c.1 == column).map(|c| &c.2)
            });
        }
        if let Some(text) = id.and_then(Bound::as_text) {
            self.written.insert(index, text);
        }
        if plan.spec.full_text.is_some()
            && let Some(id) = id
        {
            self.sink.full_text_written(index, id);
        }
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
            (0usize, "source_id", Bound::Text(&from.id)),
            (1, "target_id", Bound::Text(&to.id)),
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
                Bound::Value(SqlValue::Null)
            } else {
                json_to_bound(property.ty, &property.values, value).map_err(|error| {
                    at(line, Some(format!("properties.{key}")), error.to_string())
                })?
            };
            if values.iter().any(|v| v.0 == i + 2) {
                return Err(at(
                    line,
                    Some(format!("properties.{key}")),
                    format!("`{key}` is given twice"),
                ));
            }
            values.push((i + 2, key.as_str(), sql_value));
        }
        values.sort_by_key(|v| v.0);
        let params: Vec<Bound<'_>> = values.iter().map(|v| v.2.clone()).collect();
        let key = column_mask(values.iter().map(|v| v.0)).map(|mask| (rel_index, mask));
        let names: Vec<&str> = values.iter().map(|v| v.1).collect();
        self.sink.upsert(
            &mut self.tracker,
            None,
            Target::Edge,
            key,
            &rel.table,
            &names,
            &["source_id", "target_id"],
            &params,
            line,
        )?;
        // An end this import wrote exists (deleting it later takes this edge with it); the
        // others are checked when the import finishes.
        for (field, entity, id) in [
            ("from.id", from_index, &from.id),
            ("to.id", to_index, &to.id),
        ] {
            if !self.written.holds(entity, id) {
                self.pending.push(PendingCheck {
                    line,
                    field,
                    entity,
                    id: id.clone(),
                });
            }
        }
        self.stats.relationships += 1;
        Ok(())
    }

    /// Deletes the record of `entity` whose unique field is `id`, with its edges (its
    /// full-text postings and vectors go with the row). A record that does not exist is no
    /// error: nothing is deleted.
    pub fn delete(&mut self, entity: &str, id: &str) -> Result<(), ImportError> {
        self.line += 1;
        self.delete_at(entity, id)
    }

    fn delete_at(&mut self, entity: &str, id: &str) -> Result<(), ImportError> {
        let line = self.line;
        let index = self.find_entity(entity, "delete.entity")?;
        // Upserts waiting in a batch are written first, so they are deleted too.
        self.sink.flush(&mut self.tracker)?;
        let spec = self.entities[index].spec;
        self.tracker
            .capture(self.sink.writer(), index, id)
            .map_err(|e| exec_error(Some(line), e))?;
        self.tracker.deleted(index, id);
        self.written.remove(index, id);
        let conn = self.sink.writer();
        let params = || vec![SqlValue::Text(id.to_owned())];
        for relationship in &self.spec.relationships {
            for (end, column) in [
                (&relationship.source, "source_id"),
                (&relationship.target, "target_id"),
            ] {
                if end == &spec.name {
                    conn.execute(
                        &format!(
                            "DELETE FROM {} WHERE {} = ?1",
                            quote(&relationship.table),
                            quote(column)
                        ),
                        params(),
                    )
                    .map_err(|e| exec_error(Some(line), e))?;
                }
            }
        }
        let deleted = conn
            .execute(
                &format!(
                    "DELETE FROM {} WHERE {} = ?1",
                    quote(&spec.table),
                    quote(&spec.unique_field)
                ),
                params(),
            )
            .map_err(|e| exec_error(Some(line), e))?;
        if deleted > 0 && !spec.vector_indexes.is_empty() {
            super::vectors::embed_pass::bump_version(conn, &spec.table)
                .map_err(|e| exec_error(Some(line), e))?;
        }
        self.stats.deleted += deleted as usize;
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
                delete: None,
            } => self.entity_at(
                &entity,
                data.0
                    .iter()
                    .map(|(k, v)| (k.as_ref(), InputRef::of_input(v))),
            ),
            Line {
                entity: None,
                data: None,
                relationship: Some(relationship),
                from: Some(from),
                to: Some(to),
                properties,
                delete: None,
            } => self.relationship_at(&relationship, &from, &to, &properties.unwrap_or_default()),
            Line {
                entity: None,
                data: None,
                relationship: None,
                from: None,
                to: None,
                properties: None,
                delete: Some(target),
            } => self.delete_at(&target.entity, &target.id),
            _ => Err(at(
                line,
                None,
                "expected {\"entity\": NAME, \"data\": {...}}, {\"relationship\": TYPE, \"from\": {\"entity\": NAME, \"id\": ID}, \"to\": {...}, \"properties\": {...}} or {\"delete\": {\"entity\": NAME, \"id\": ID}}",
            )),
        }
    }

    /// The import's first error, given that loading stopped with `error`: a batch still on
    /// its way holds earlier lines, so its error (if the server refuses it) comes first.
    fn first_error(&mut self, error: ImportError) -> ImportError {
        self.sink.first_error(&mut self.tracker, error)
    }

    fn finish(mut self) -> Result<ImportStats, ImportError> {
        self.sink.flush(&mut self.tracker)?;
        let entities: Vec<&EntitySpec> = self.entities.iter().map(|plan| plan.spec).collect();
        self.sink.finish_full_text(&entities)?;
        // Every end a relationship named must exist. Ends this import wrote (and did not delete
        // since) do; the other distinct ids of each entity are looked up CHECK_BATCH at a time
        // (one statement each, not one per id: on a server each is a round trip), then the
        // first missing one in line order is the error.
        let written = &self.written;
        self.pending
            .retain(|check| !written.holds(check.entity, &check.id));
        let mut wanted: Vec<Vec<(&str, usize)>> = vec![Vec::new(); self.entities.len()];
        let mut named: HashSet<(usize, &str), FastHash> = HashSet::default();
        for check in &self.pending {
            if named.insert((check.entity, check.id.as_str())) {
                wanted[check.entity].push((check.id.as_str(), check.line));
            }
        }
        let mut found: Vec<HashSet<String, FastHash>> =
            vec![HashSet::default(); self.entities.len()];
        for (entity, ids) in wanted.iter().enumerate() {
            let plan = &self.entities[entity];
            for chunk in ids.chunks(CHECK_BATCH) {
                let placeholders: Vec<String> =
                    (1..=chunk.len()).map(|i| format!("?{i}")).collect();
                let sql = format!(
                    "SELECT {unique} FROM {} WHERE {unique} IN ({})",
                    quote(&plan.spec.table),
                    placeholders.join(", "),
                    unique = quote(&plan.spec.unique_field)
                );
                let chunk_ids: Vec<&str> = chunk.iter().map(|(id, _)| *id).collect();
                found[entity].extend(self.sink.existing(&sql, &chunk_ids, chunk[0].1)?);
            }
        }
        for check in &self.pending {
            if !found[check.entity].contains(check.id.as_str()) {
                let plan = &self.entities[check.entity];
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
        }
        self.stats.changes = self
            .tracker
            .record(self.sink.writer())
            .map_err(|e| exec_error(None, e))?;
        Ok(self.stats)
    }
}

/// How many records the entity tables of `spec` hold.
fn record_count(conn: &dyn super::backend::Writer, spec: &SchemaSpec) -> Result<u64, ImportError> {
    let mut total = 0;
    for entity in &spec.entities {
        total += conn
            .count(
                &format!("SELECT count(*) FROM {}", quote(&entity.table)),
                &[],
            )
            .map_err(|e| exec_error(None, e))?;
    }
    Ok(total)
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
        // Stored as 32-bit floats: a number beyond their range would become an infinity.
        let single = number as f32;
        if !single.is_finite() {
            return Err(format!(
                "element {i} is {item}, beyond what a vector holds (32-bit floats, up to about \
                 3.4e38 either way)"
            ));
        }
        blob.extend_from_slice(&single.to_le_bytes());
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
        self.with_import_sink(|sink| {
            let before = record_count(sink.writer(), spec)?;
            let stats = {
                let mut importer = Importer::new(spec, &mut *sink);
                if let Err(error) = load(&mut importer) {
                    return Err(importer.first_error(error));
                }
                importer.finish()?
            };
            let after = record_count(sink.writer(), spec)?;
            Ok(ImportStats {
                embeddings: self.embedding_pass(sink.writer(), spec)?,
                new_records: (after + stats.deleted as u64).saturating_sub(before) as usize,
                ..stats
            })
        })
    }

    /// Computes the embeddings missing from `spec`'s vector indexes (every one with `force`)
    /// with the database's embedder ([`Database::with_embedder`]), in one transaction: a
    /// provider failure changes nothing. Over existing tables (a mapped `spec`), the vectors
    /// are kept in the side store (see [`Database::refresh_side_store`]): those of new and
    /// changed texts are computed, those of records gone from the tables removed, and the
    /// user's tables only read.
    pub fn embed(
        &self,
        spec: &SchemaSpec,
        force: bool,
    ) -> Result<super::vectors::embed_pass::EmbedStats, ImportError> {
        let Some(embedder) = self.embedder().map(|e| e.as_ref()) else {
            return Err(ImportError {
                line: None,
                field: None,
                message: "no embedding provider: set `toolforge.embeddings` in the config (or give the database one with `Database::with_embedder`)".into(),
            });
        };
        let pass = |conn: &dyn super::backend::Writer,
                    side: Option<crate::sql::side_store::SidePlaces<'_>>| {
            super::vectors::embed_pass::run(
                conn,
                spec,
                super::vectors::embed_pass::Pass {
                    embedder: Some(embedder),
                    force,
                    entities: &[],
                    side,
                },
            )
            .map_err(|error| ImportError {
                line: None,
                field: None,
                message: format!("{error}; nothing was changed"),
            })
        };
        if spec.entities.iter().any(|e| e.has_side_vectors()) {
            // Over existing tables: the user's rows are read, the side store is written.
            return self.write_side_store(spec, |conn, places| pass(conn, Some(places)));
        }
        self.with_import_sink(|sink| pass(sink.writer(), None))
    }

    /// Keeps the vector indexes up to date after a write, in its transaction.
    fn embedding_pass(
        &self,
        conn: &dyn super::backend::Writer,
        spec: &SchemaSpec,
    ) -> Result<super::vectors::embed_pass::EmbedStats, ImportError> {
        let embedder = self.embedder().map(|e| e.as_ref());
        super::vectors::embed_pass::run(
            conn,
            spec,
            super::vectors::embed_pass::Pass {
                embedder,
                force: false,
                entities: &[],
                side: None,
            },
        )
        .map_err(|error| ImportError {
            line: None,
            field: None,
            message: format!("{error}; nothing was imported"),
        })
    }

    /// Loads JSON lines (see the [module docs](self)) in one transaction; a line longer than
    /// [`MAX_LINE_BYTES`] is an error naming it.
    pub fn import_jsonl(
        &self,
        spec: &SchemaSpec,
        reader: impl BufRead,
    ) -> Result<ImportStats, ImportError> {
        self.import_jsonl_with_max_line(spec, reader, MAX_LINE_BYTES)
    }

    /// [`Database::import_jsonl`] with another bound on the length of a line, in bytes
    /// (without its newline): a longer line is an error naming it, read no further than the
    /// bound, so a line with no end cannot exhaust the memory.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let spec: toolforge::spec::SchemaSpec = serde_json::from_value(serde_json::json!({
    /// #   "name": "books", "entities": [{"name": "Book", "table": "book", "unique_field": "isbn",
    /// #   "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
    /// #   "relationships": [], "tools": {"default_limit": 20, "max_limit": 100, "families": []}}))?;
    /// let dir = tempfile::tempdir()?;
    /// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
    /// db.init(&spec)?;
    /// let lines = "{\"entity\":\"Book\",\"data\":{\"isbn\":\"1\"}}\n".repeat(2) + &"x".repeat(100);
    /// let error = db.import_jsonl_with_max_line(&spec, lines.as_bytes(), 64).unwrap_err();
    /// assert_eq!(error.line, Some(3));
    /// assert!(error.message.contains("longer than 64 bytes"), "{error}");
    /// # Ok(()) }
    /// ```
    pub fn import_jsonl_with_max_line(
        &self,
        spec: &SchemaSpec,
        mut reader: impl BufRead,
        max_line_bytes: usize,
    ) -> Result<ImportStats, ImportError> {
        self.import(spec, |importer| {
            let mut buffer = Vec::new();
            let bound = u64::try_from(max_line_bytes)
                .unwrap_or(u64::MAX)
                .saturating_add(1);
            loop {
                buffer.clear();
                let line = importer.line + 1;
                let read = (&mut reader)
                    .take(bound)
                    .read_until(b'\n', &mut buffer)
                    .map_err(|e| ImportError {
                        line: Some(line),
                        field: None,
                        message: format!("could not read the line: {e}"),
                    })?;
                if read == 0 {
                    return Ok(());
                }
                if buffer.last() != Some(&b'\n') && buffer.len() > max_line_bytes {
                    return Err(ImportError {
                        line: Some(line),
                        field: None,
                        message: format!(
                            "the line is longer than {max_line_bytes} bytes, the most an \
                             import line may have (a line without its end?)"
                        ),
                    });
                }
                let text = std::str::from_utf8(&buffer).map_err(|_| ImportError {
                    line: Some(line),
                    field: None,
                    message: "could not read the line: it is not valid UTF-8".into(),
                })?;
                // A byte-order mark (some editors write one) is not part of the first line.
                let text = if line == 1 {
                    text.strip_prefix('\u{feff}').unwrap_or(text)
                } else {
                    text
                };
                importer.json_line(text)?;
            }
        })
    }
}
