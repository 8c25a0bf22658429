//! Typed records over the SQL engine: what generated code builds on.
//!
//! The generator writes, per entity, a record struct implementing [`Record`] and a field enum
//! implementing [`RecordField`]. Everything else lives here, once:
//! - [`Query`]: conditions, ordering by stored or computed fields, a limit, run through the
//!   engine's own query builder ([`EntityQuery`]), so a typed query and a `query_entities` call
//!   compile to the same SQL;
//! - [`get`] and [`related`]: one record by its unique field, and relationship traversal;
//! - [`upsert`] and [`link`]: typed inserts/upserts through the engine's [`Importer`], each in
//!   its own transaction; [`write()`] runs many of them in one.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::borrow::Cow;
//! use std::sync::{Arc, OnceLock};
//! use toolforge::spec::SchemaSpec;
//! use toolforge::sql::query::{Direction, Operator};
//! use toolforge::sql::records::{self, Query, Record, RecordField};
//!
//! #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
//! struct Book { isbn: String, #[serde(skip_serializing_if = "Option::is_none")] pages: Option<f64> }
//!
//! #[derive(Clone, Copy)]
//! enum BookField { Isbn, Pages }
//! impl RecordField for BookField {
//!     fn as_str(self) -> &'static str { match self { BookField::Isbn => "isbn", BookField::Pages => "pages" } }
//! }
//!
//! impl Record for Book {
//!     const ENTITY: &'static str = "Book";
//!     type Field = BookField;
//!     fn spec() -> &'static Arc<SchemaSpec> {
//!         static SPEC: OnceLock<Arc<SchemaSpec>> = OnceLock::new();
//!         SPEC.get_or_init(|| records::parse_spec(r#"{"name": "books", "entities": [{"name": "Book",
//!             "table": "book", "unique_field": "isbn", "fields": [{"name": "isbn", "type": "string",
//!             "unique": true}, {"name": "pages", "type": "number"}]}], "relationships": [],
//!             "tools": {"default_limit": 20, "max_limit": 100, "families": []}}"#))
//!     }
//!     fn id(&self) -> Cow<'_, str> { Cow::Borrowed(&self.isbn) }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
//! db.init(Book::spec())?;
//! records::upsert(&db, &[
//!     Book { isbn: "1".into(), pages: Some(120.0) },
//!     Book { isbn: "2".into(), pages: Some(480.0) },
//! ])?;
//! let long = Query::<Book>::new()
//!     .filter(BookField::Pages, Operator::Gt, 200)
//!     .order_by(BookField::Pages, Direction::Desc)
//!     .all(&db)
//!     .await?;
//! assert_eq!(long, [Book { isbn: "2".into(), pages: Some(480.0) }]);
//! assert_eq!(records::get::<Book>(&db, "1").await?.unwrap().pages, Some(120.0));
//! # Ok(()) }
//! ```

pub mod number;

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{ErrorCode, ToolError};

use super::backend::ExecError;
use super::database::DbError;
use super::import::{EndPoint, ImportError, ImportStats, Importer};
use super::query::{Condition, Direction, EntityQuery, OrderBy, Projection, ROW_ALIAS};
use super::value::SqlValue;
use super::{Database, query::Operator};
use crate::sql::text::ident::quote;

/// A field of a record: a stored or computed field, named as in the config.
pub trait RecordField: Copy + Send + Sync + 'static {
    /// The field's name in the config (and in tool arguments and results).
    fn as_str(self) -> &'static str;
}

/// A typed record of one entity. Generated code implements it; see the [module docs](self).
pub trait Record: Serialize + DeserializeOwned + Send + 'static {
    /// The entity's name in the config.
    const ENTITY: &'static str;
    /// The entity's field enum.
    type Field: RecordField;
    /// The storage spec the record belongs to.
    fn spec() -> &'static Arc<SchemaSpec>;
    /// The value of the record's unique field, as text (an integer key in decimal: `"42"`).
    fn id(&self) -> Cow<'_, str>;
}

/// Parses a storage spec embedded as JSON by the generator.
///
/// # Panics
///
/// When `json` is not a spec: embedded specs are written by the generator and checked by its
/// tests, so this only happens if generated code was edited by hand.
pub fn parse_spec(json: &str) -> Arc<SchemaSpec> {
    match serde_json::from_str(json) {
        Ok(spec) => Arc::new(spec),
        Err(error) => panic!("the embedded toolforge spec is invalid ({error}); regenerate it"),
    }
}

/// Why a typed read of records ([`get`], [`related`], [`Query::fetch`] and friends) failed.
///
/// Custom tools can use `?` on it: [`From<RecordsError> for ToolError`](ToolError) turns it
/// into the structured error a model reads (an invalid query stays `invalid_arguments`, with
/// its details; SQLite failures name the SQLite error code only).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordsError {
    /// The database failed while reading the records.
    #[error("reading `{entity}` records failed")]
    Database {
        /// The entity read.
        entity: &'static str,
        /// What failed.
        #[source]
        source: DbError,
    },
    /// The query's conditions, ordering or values do not fit the entity (a value of the wrong
    /// type for its field, an operator the field's type does not support, ...).
    #[error("the query on `{entity}` records is invalid")]
    InvalidQuery {
        /// The entity queried.
        entity: &'static str,
        /// What is wrong, as the engine's query builder says it to a model.
        #[source]
        source: ToolError,
    },
    /// The record type's entity is not in the spec it embeds: the generated code was edited
    /// by hand.
    #[error("entity `{entity}` is not in its embedded spec; regenerate the code")]
    UnknownEntity {
        /// The record type's entity.
        entity: &'static str,
    },
    /// No relationship of that type joins the two entities in that direction.
    #[error("there is no relationship {source_entity} -[{relationship}]-> {target_entity}")]
    UnknownRelationship {
        /// The entity the edge starts from.
        source_entity: &'static str,
        /// The relationship type asked for.
        relationship: String,
        /// The entity the edge points to.
        target_entity: &'static str,
    },
    /// A stored record does not fit its generated struct: the database was made from another
    /// version of the config.
    #[error("a stored `{entity}` record does not fit its generated struct; regenerate the code")]
    Decode {
        /// The record's entity.
        entity: &'static str,
        /// Why the record does not fit.
        #[source]
        source: serde_json::Error,
    },
}

impl RecordsError {
    fn database(entity: &'static str, source: impl Into<DbError>) -> Self {
        RecordsError::Database {
            entity,
            source: source.into(),
        }
    }
}

impl From<RecordsError> for ToolError {
    fn from(error: RecordsError) -> Self {
        if let RecordsError::Database { source, .. } = &error {
            if matches!(source, DbError::Timeout) || source.is_interrupt() {
                return super::handler_error::stopped_error();
            }
            if let Some(tool_error) = source.backend_tool_error() {
                return tool_error;
            }
        }
        match error {
            RecordsError::InvalidQuery { source, .. } => source,
            RecordsError::Database {
                source: DbError::Stopped,
                ..
            } => ToolError::execution_failed(
                "The database call stopped unexpectedly; nothing was changed.",
            ),
            RecordsError::UnknownRelationship { .. } => {
                ToolError::invalid_arguments(error.to_string())
            }
            other => ToolError::new(ErrorCode::ExecutionFailed, with_causes(&other)),
        }
    }
}

/// The error's message followed by its causes': `a: b: c`.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        message.push_str(": ");
        message.push_str(&inner.to_string());
        cause = inner.source();
    }
    message
}

/// The entity of `R` in its spec.
fn entity_of<R: Record>() -> Result<&'static EntitySpec, RecordsError> {
    R::spec()
        .entity(R::ENTITY)
        .ok_or(RecordsError::UnknownEntity { entity: R::ENTITY })
}

/// Checks and runs a query over `R` on a read-only connection: compiled for the database's
/// backend from the spec as that backend runs it ([`Database::spec_for`]), with its errors as
/// [`RecordsError::InvalidQuery`].
async fn run_query<R: Record>(
    db: &Database,
    conditions: Vec<Condition>,
    order_by: Option<OrderBy>,
    limit: u32,
) -> Result<super::query::Page<Map<String, Value>>, RecordsError> {
    let spec = db.spec_for(R::spec());
    let dialect = db.dialect();
    let invalid = |source| RecordsError::InvalidQuery {
        entity: R::ENTITY,
        source,
    };
    let entity = spec
        .entity(R::ENTITY)
        .ok_or(RecordsError::UnknownEntity { entity: R::ENTITY })?;
    EntityQuery::new(entity, &conditions, order_by.as_ref(), limit, dialect).map_err(invalid)?;
    db.read_any(move |conn| {
        Box::pin(async move {
            match spec.entity(R::ENTITY) {
                Some(entity) => {
                    match EntityQuery::new(entity, &conditions, order_by.as_ref(), limit, dialect) {
                        Ok(query) => Ok(match views_of_mapped_tables(conn, &spec).await {
                            Ok(()) => query.run(conn).await,
                            Err(error) => Err(error),
                        }),
                        Err(error) => Err(error),
                    }
                }
                None => Ok(Err(ExecError::Stopped)),
            }
        })
    })
    .await
    .map_err(|error| RecordsError::database(R::ENTITY, error))?
    .map_err(invalid)?
    .map_err(|error| RecordsError::database(R::ENTITY, error))
}

/// On a spec over existing tables, the connection's views that present them in the config's
/// terms (`sql/access.rs`; with row rules, as for a call without context values). Nothing for
/// a spec of toolforge's own tables.
async fn views_of_mapped_tables(
    conn: &dyn super::backend::Reader,
    spec: &Arc<SchemaSpec>,
) -> Result<(), ExecError> {
    if spec.is_mapped() {
        super::access::enter(conn, spec, &crate::ContextValues::new()).await?;
    }
    Ok(())
}

/// A typed query over the records of `R`: built like a `query_entities` call and compiled by the
/// same query builder.
pub struct Query<R> {
    conditions: Vec<Condition>,
    order_by: Option<OrderBy>,
    limit: Option<u32>,
    record: PhantomData<fn() -> R>,
}

impl<R> fmt::Debug for Query<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("conditions", &self.conditions)
            .field("order_by", &self.order_by)
            .field("limit", &self.limit)
            .finish()
    }
}

impl<R> Clone for Query<R> {
    fn clone(&self) -> Self {
        Query {
            conditions: self.conditions.clone(),
            order_by: self.order_by.clone(),
            limit: self.limit,
            record: PhantomData,
        }
    }
}

impl<R: Record> Default for Query<R> {
    fn default() -> Self {
        Self::new()
    }
}

/// A page of typed records.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordPage<R> {
    /// How many records match in total: exactly when `total_exact`, otherwise at least this
    /// many (counting stops at [`COUNT_CAP`](crate::sql::query::COUNT_CAP)).
    pub total: u64,
    /// Whether `total` is the exact count.
    pub total_exact: bool,
    /// The records returned (at most the limit).
    pub records: Vec<R>,
}

impl<R: Record> Query<R> {
    /// Every record, in unique-field order, up to the spec's default limit.
    pub fn new() -> Self {
        Query {
            conditions: Vec::new(),
            order_by: None,
            limit: None,
            record: PhantomData,
        }
    }

    /// Adds a condition (all conditions must hold). `value` is checked against the field's type
    /// when the query runs, exactly as in `query_entities`.
    pub fn filter(mut self, field: R::Field, operator: Operator, value: impl Into<Value>) -> Self {
        self.conditions.push(Condition {
            field: field.as_str().to_string(),
            operator,
            value: value.into(),
        });
        self
    }

    /// Adds `field = value`.
    pub fn eq(self, field: R::Field, value: impl Into<Value>) -> Self {
        self.filter(field, Operator::Eq, value)
    }

    /// Sorts by a stored or computed field (ties by the unique field, ascending).
    pub fn order_by(mut self, field: R::Field, direction: Direction) -> Self {
        self.order_by = Some(OrderBy {
            field: field.as_str().to_string(),
            direction,
        });
        self
    }

    /// Returns at most `limit` records (default: the spec's `default_limit`).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }

    /// The conditions so far, as a `query_entities` call would pass them.
    pub fn conditions(&self) -> &[Condition] {
        &self.conditions
    }

    /// Runs the query: one page of records and the total count.
    pub async fn fetch(self, db: &Database) -> Result<RecordPage<R>, RecordsError> {
        entity_of::<R>()?;
        let limit = self.limit.unwrap_or(R::spec().tools.default_limit).max(1);
        let page = run_query::<R>(db, self.conditions, self.order_by, limit).await?;
        Ok(RecordPage {
            total: page.total,
            total_exact: page.total_exact,
            records: page
                .results
                .into_iter()
                .map(decode::<R>)
                .collect::<Result<_, _>>()?,
        })
    }

    /// Runs the query and returns the records.
    pub async fn all(self, db: &Database) -> Result<Vec<R>, RecordsError> {
        Ok(self.fetch(db).await?.records)
    }

    /// Runs the query with limit 1 and returns the record, if any.
    pub async fn first(self, db: &Database) -> Result<Option<R>, RecordsError> {
        Ok(self.limit(1).fetch(db).await?.records.into_iter().next())
    }
}

fn decode<R: Record>(record: Map<String, Value>) -> Result<R, RecordsError> {
    serde_json::from_value(Value::Object(record)).map_err(|source| RecordsError::Decode {
        entity: R::ENTITY,
        source,
    })
}

/// The record of `R` whose unique field is `id`, if any.
pub async fn get<R: Record>(db: &Database, id: &str) -> Result<Option<R>, RecordsError> {
    let entity = entity_of::<R>()?;
    let condition = Condition {
        field: entity.unique_field.clone(),
        operator: Operator::Eq,
        value: super::key::to_json(entity, id),
    };
    let page = run_query::<R>(db, vec![condition], None, 1).await?;
    page.results.into_iter().next().map(decode::<R>).transpose()
}

/// Which way a relationship is followed from a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// From the edge's source to its target.
    Outgoing,
    /// From the edge's target to its source.
    Incoming,
}

/// The records of `T` linked to the record `id` of `S` by `relationship`, in `T`'s unique-field
/// order, at most `limit`.
pub async fn related<S: Record, T: Record>(
    db: &Database,
    relationship: &str,
    follow: Follow,
    id: &str,
    limit: u32,
) -> Result<Vec<T>, RecordsError> {
    let spec = S::spec();
    let target = entity_of::<T>()?;
    let (source_name, target_name) = match follow {
        Follow::Outgoing => (S::ENTITY, T::ENTITY),
        Follow::Incoming => (T::ENTITY, S::ENTITY),
    };
    let Some(edge) = spec
        .relationships
        .iter()
        .find(|r| r.rel_type == relationship && r.source == source_name && r.target == target_name)
    else {
        return Err(RecordsError::UnknownRelationship {
            source_entity: source_name,
            relationship: relationship.to_owned(),
            target_entity: target_name,
        });
    };
    let (near, far) = match follow {
        Follow::Outgoing => ("source_id", "target_id"),
        Follow::Incoming => ("target_id", "source_id"),
    };
    let id = match spec.entity(S::ENTITY) {
        Some(source) => super::key::param(source, id),
        None => SqlValue::Text(id.to_owned()),
    };
    let spec = db.spec_for(T::spec());
    let target = spec.entity(T::ENTITY).unwrap_or(target);
    let projection = Projection::all(target);
    let width = projection.len();
    let sql = format!(
        "SELECT {} FROM {} AS {alias} JOIN {} AS e ON e.{far} = {alias}.{unique} \
         WHERE e.{near} = ?1 ORDER BY {alias}.{unique} ASC LIMIT ?2",
        projection.select_list(),
        quote(&target.table),
        quote(&edge.table),
        alias = quote(ROW_ALIAS),
        unique = quote(&target.unique_field),
    );
    let views = spec.clone();
    let rows = db
        .read_any(move |conn| {
            Box::pin(async move {
                views_of_mapped_tables(conn, &views).await?;
                conn.rows(&sql, &[id, SqlValue::Integer(i64::from(limit))])
                    .await
            })
        })
        .await
        .map_err(|error| RecordsError::database(T::ENTITY, error))?
        .map_err(|error| RecordsError::database(T::ENTITY, error))?;
    debug_assert!(rows.iter().all(|row| row.len() == width));
    rows.iter()
        .map(|row| decode::<T>(projection.record(row, 0)))
        .collect()
}

/// The record as import data: computed fields and nulls left out (they are never written).
fn data_of<R: Record>(entity: &EntitySpec, record: &R) -> Result<Map<String, Value>, ImportError> {
    let value = serde_json::to_value(record).map_err(|error| ImportError {
        line: None,
        field: None,
        message: format!("a `{}` record cannot be serialised: {error}", R::ENTITY),
    })?;
    let Value::Object(mut data) = value else {
        return Err(ImportError {
            line: None,
            field: None,
            message: format!("a `{}` record is not a JSON object", R::ENTITY),
        });
    };
    data.retain(|key, value| !value.is_null() && entity.computed_field(key).is_none());
    Ok(data)
}

/// Runs `f` in one write transaction over `spec`: everything `f` writes through the [`Writer`]
/// is committed together when it returns `Ok`, and nothing is when it (or a deferred check,
/// such as an edge whose end record does not exist) fails. Returns `f`'s value and how much
/// was written.
///
/// ```
/// # use std::sync::{Arc, OnceLock};
/// # use toolforge::spec::SchemaSpec;
/// # use toolforge::sql::records::{self, Record, RecordField};
/// # #[derive(serde::Serialize, serde::Deserialize)]
/// # struct Author { slug: String }
/// # #[derive(serde::Serialize, serde::Deserialize)]
/// # struct Book { isbn: String }
/// # #[derive(Clone, Copy)] enum F { Id }
/// # impl RecordField for F { fn as_str(self) -> &'static str { "id" } }
/// # fn spec() -> &'static Arc<SchemaSpec> {
/// #     static SPEC: OnceLock<Arc<SchemaSpec>> = OnceLock::new();
/// #     SPEC.get_or_init(|| records::parse_spec(r#"{"name": "books", "entities": [
/// #         {"name": "Author", "table": "author", "unique_field": "slug",
/// #          "fields": [{"name": "slug", "type": "string", "unique": true}]},
/// #         {"name": "Book", "table": "book", "unique_field": "isbn",
/// #          "fields": [{"name": "isbn", "type": "string", "unique": true}]}],
/// #       "relationships": [{"type": "WRITTEN_BY", "source": "Book", "target": "Author",
/// #          "table": "book_written_by_author"}],
/// #       "tools": {"default_limit": 20, "max_limit": 100, "families": []}}"#))
/// # }
/// # impl Record for Author { const ENTITY: &'static str = "Author"; type Field = F;
/// #     fn spec() -> &'static Arc<SchemaSpec> { spec() }
/// #     fn id(&self) -> std::borrow::Cow<'_, str> { self.slug.as_str().into() } }
/// # impl Record for Book { const ENTITY: &'static str = "Book"; type Field = F;
/// #     fn spec() -> &'static Arc<SchemaSpec> { spec() }
/// #     fn id(&self) -> std::borrow::Cow<'_, str> { self.isbn.as_str().into() } }
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let db = toolforge::sql::Database::open(dir.path().join("books.db"))?;
/// db.init(spec())?;
/// let author = Author { slug: "le-guin".into() };
/// let book = Book { isbn: "978-0".into() };
/// let ((), stats) = records::write(&db, spec(), |w| {
///     w.upsert(std::slice::from_ref(&author))?;
///     w.upsert(std::slice::from_ref(&book))?;
///     w.link("WRITTEN_BY", &book, &author)
/// })?;
/// assert_eq!((stats.entities, stats.relationships), (2, 1));
/// # Ok(()) }
/// ```
pub fn write<T>(
    db: &Database,
    spec: &SchemaSpec,
    f: impl FnOnce(&mut Writer<'_, '_, '_>) -> Result<T, ImportError>,
) -> Result<(T, ImportStats), ImportError> {
    if spec.is_mapped() {
        return Err(ImportError {
            line: None,
            field: None,
            message: format!(
                "the config `{}` reads existing tables (`table:`), which toolforge never writes; \
                 change their rows with the database's own tools",
                spec.name
            ),
        });
    }
    let mut output = None;
    let stats = db.import(spec, |importer| {
        let mut writer = Writer { importer };
        output = Some(f(&mut writer)?);
        Ok(())
    })?;
    // `import` returns `Ok` only after the closure did, which set `output`.
    output
        .map(|output| (output, stats))
        .ok_or_else(|| ImportError {
            line: None,
            field: None,
            message: "the write stopped before its closure returned; nothing was changed".into(),
        })
}

/// Typed writes inside one transaction: see [`write()`].
pub struct Writer<'w, 's, 't> {
    importer: &'w mut Importer<'s, 't>,
}

impl fmt::Debug for Writer<'_, '_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Writer")
            .field("spec", &self.importer.spec().name)
            .finish_non_exhaustive()
    }
}

impl Writer<'_, '_, '_> {
    /// Inserts or updates `records` by their unique field. Fields that are `None` keep their
    /// stored value; computed fields are ignored.
    pub fn upsert<R: Record>(&mut self, records: &[R]) -> Result<(), ImportError> {
        let spec = self.importer.spec();
        let entity = spec.entity(R::ENTITY).ok_or_else(|| ImportError {
            line: None,
            field: None,
            message: format!(
                "entity `{}` is not in the spec `{}` this write runs on; write it with its own spec",
                R::ENTITY,
                spec.name
            ),
        })?;
        for record in records {
            self.importer.entity(R::ENTITY, &data_of(entity, record)?)?;
        }
        Ok(())
    }

    /// Deletes the records of `R` whose unique field is one of `ids`, with their edges; ids
    /// with no record are skipped.
    pub fn delete<R: Record>(&mut self, ids: &[&str]) -> Result<(), ImportError> {
        for id in ids {
            self.importer.delete(R::ENTITY, id)?;
        }
        Ok(())
    }

    /// Inserts or updates the edge `from -[relationship]-> to`. Both records must exist when the
    /// transaction ends (they may be written later in the same [`write()`]).
    pub fn link<S: Record, T: Record>(
        &mut self,
        relationship: &str,
        from: &S,
        to: &T,
    ) -> Result<(), ImportError> {
        let from = EndPoint {
            entity: S::ENTITY.to_string(),
            id: from.id().to_string(),
        };
        let to = EndPoint {
            entity: T::ENTITY.to_string(),
            id: to.id().to_string(),
        };
        self.importer
            .relationship(relationship, &from, &to, &Map::new())
    }
}

/// Inserts or updates `records` by their unique field, in one transaction. Fields that are
/// `None` keep their stored value; computed fields are ignored. To write several entities and
/// edges in one transaction, use [`write()`].
pub fn upsert<R: Record>(db: &Database, records: &[R]) -> Result<ImportStats, ImportError> {
    Ok(write(db, R::spec(), |writer| writer.upsert(records))?.1)
}

/// Deletes the records of `R` whose unique field is one of `ids` (with their edges), in one
/// transaction; ids with no record are skipped.
pub fn delete<R: Record>(db: &Database, ids: &[&str]) -> Result<ImportStats, ImportError> {
    Ok(write(db, R::spec(), |writer| writer.delete::<R>(ids))?.1)
}

/// Inserts or updates the edge `from -[relationship]-> to` (both records must exist), in its own
/// transaction. To write several edges in one transaction, use [`write()`].
pub fn link<S: Record, T: Record>(
    db: &Database,
    relationship: &str,
    from: &S,
    to: &T,
) -> Result<ImportStats, ImportError> {
    Ok(write(db, S::spec(), |writer| writer.link(relationship, from, to))?.1)
}
