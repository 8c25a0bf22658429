//! The typed record API: batched writes in one transaction, and how records serialise.
#![cfg(feature = "sqlite")]

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::records::{self, Record, RecordField};

fn spec() -> &'static Arc<SchemaSpec> {
    static SPEC: OnceLock<Arc<SchemaSpec>> = OnceLock::new();
    SPEC.get_or_init(|| {
        records::parse_spec(
            r#"{"name": "library", "entities": [
                {"name": "Author", "table": "author", "unique_field": "slug",
                 "fields": [{"name": "slug", "type": "string", "unique": true},
                            {"name": "born", "type": "number"}]},
                {"name": "Book", "table": "book", "unique_field": "isbn",
                 "fields": [{"name": "isbn", "type": "string", "unique": true},
                            {"name": "year", "type": "number"}]}],
              "relationships": [{"type": "WRITTEN_BY", "source": "Book", "target": "Author",
                                 "table": "book__written_by__author"}],
              "tools": {"default_limit": 20, "max_limit": 100, "families": []}}"#,
        )
    })
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Author {
    slug: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    born: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Book {
    isbn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    year: Option<f64>,
}

#[derive(Clone, Copy)]
enum Unused {}

impl RecordField for Unused {
    fn as_str(self) -> &'static str {
        match self {}
    }
}

impl Record for Author {
    const ENTITY: &'static str = "Author";
    type Field = Unused;
    fn spec() -> &'static Arc<SchemaSpec> {
        spec()
    }
    fn id(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.slug)
    }
}

impl Record for Book {
    const ENTITY: &'static str = "Book";
    type Field = Unused;
    fn spec() -> &'static Arc<SchemaSpec> {
        spec()
    }
    fn id(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.isbn)
    }
}

fn database() -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("library.db")).unwrap();
    db.init(spec()).unwrap();
    (dir, db)
}

fn count(db: &Database, table: &str) -> i64 {
    db.read_blocking(|c| {
        c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    })
    .expect("a SQLite read")
}

fn author(slug: &str) -> Author {
    Author {
        slug: slug.into(),
        born: Some(1929.0),
    }
}

fn book(isbn: &str) -> Book {
    Book {
        isbn: isbn.into(),
        year: Some(1968.0),
    }
}

#[test]
fn a_batch_commits_records_and_edges_together() {
    let (_dir, db) = database();
    let authors = [author("le-guin"), author("herbert")];
    let books = [book("1"), book("2")];
    let (value, stats) = records::write(&db, spec(), |w| {
        // An edge may come before its records: ends are checked when the transaction ends.
        w.link("WRITTEN_BY", &books[0], &authors[0])?;
        w.upsert(&authors)?;
        w.upsert(&books)?;
        w.link("WRITTEN_BY", &books[1], &authors[1])?;
        Ok("done")
    })
    .unwrap();
    assert_eq!(value, "done");
    assert_eq!((stats.entities, stats.relationships), (4, 2));
    assert_eq!(count(&db, "author"), 2);
    assert_eq!(count(&db, "book"), 2);
    assert_eq!(count(&db, "book__written_by__author"), 2);
}

#[test]
fn a_batch_whose_last_link_is_invalid_commits_nothing() {
    let (_dir, db) = database();
    let authors = [author("le-guin")];
    let books = [book("1"), book("2")];
    let error = records::write(&db, spec(), |w| {
        w.upsert(&authors)?;
        w.upsert(&books)?;
        w.link("WRITTEN_BY", &books[0], &authors[0])?;
        // No such author: the whole batch is refused.
        w.link("WRITTEN_BY", &books[1], &author("nobody"))
    })
    .unwrap_err();
    assert!(error.message.contains("nobody"), "{error}");
    assert_eq!(count(&db, "author"), 0);
    assert_eq!(count(&db, "book"), 0);
    assert_eq!(count(&db, "book__written_by__author"), 0);
}

#[test]
fn an_error_returned_by_the_closure_commits_nothing() {
    let (_dir, db) = database();
    let error = records::write(&db, spec(), |w| {
        w.upsert(&[author("le-guin")])?;
        w.link("NOT_A_RELATIONSHIP", &book("1"), &author("le-guin"))
    })
    .unwrap_err();
    assert!(error.message.contains("NOT_A_RELATIONSHIP"), "{error}");
    assert_eq!(count(&db, "author"), 0);
}

#[test]
fn single_upsert_and_link_still_write_in_their_own_transaction() {
    let (_dir, db) = database();
    let stats = records::upsert(&db, &[author("le-guin")]).unwrap();
    assert_eq!(stats.entities, 1);
    records::upsert(&db, &[book("1")]).unwrap();
    let stats = records::link(&db, "WRITTEN_BY", &book("1"), &author("le-guin")).unwrap();
    assert_eq!(stats.relationships, 1);
    assert!(records::link(&db, "WRITTEN_BY", &book("2"), &author("le-guin")).is_err());
    assert_eq!(count(&db, "book__written_by__author"), 1);
}

/// A record type whose entity is not in its spec (generated code edited by hand).
#[derive(Debug, Serialize, Deserialize)]
struct Stray {
    id: String,
}

impl Record for Stray {
    const ENTITY: &'static str = "Stray";
    type Field = Unused;
    fn spec() -> &'static Arc<SchemaSpec> {
        spec()
    }
    fn id(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.id)
    }
}

/// The `Author` table read as a struct whose `born` is text: stored rows do not fit it.
#[derive(Debug, Serialize, Deserialize)]
struct TextBorn {
    slug: String,
    born: String,
}

impl Record for TextBorn {
    const ENTITY: &'static str = "Author";
    type Field = Unused;
    fn spec() -> &'static Arc<SchemaSpec> {
        spec()
    }
    fn id(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.slug)
    }
}

#[tokio::test]
async fn read_errors_are_records_errors_with_their_causes() {
    use std::error::Error as _;
    use toolforge::sql::RecordsError;
    use toolforge::{ErrorCode, ToolError};

    let (_dir, db) = database();
    records::upsert(
        &db,
        &[Author {
            slug: "le-guin".into(),
            born: Some(1929.0),
        }],
    )
    .unwrap();

    let error = records::get::<Stray>(&db, "x").await.unwrap_err();
    assert!(matches!(
        error,
        RecordsError::UnknownEntity { entity: "Stray" }
    ));
    assert_eq!(ToolError::from(error).code, ErrorCode::ExecutionFailed);

    let error = records::related::<Author, Book>(&db, "WROTE", records::Follow::Outgoing, "x", 5)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "there is no relationship Author -[WROTE]-> Book"
    );
    assert_eq!(ToolError::from(error).code, ErrorCode::InvalidArguments);

    let error = records::get::<TextBorn>(&db, "le-guin").await.unwrap_err();
    let RecordsError::Decode { entity, .. } = &error else {
        panic!("expected a decode error, got {error:?}");
    };
    assert_eq!(*entity, "Author");
    let cause = error
        .source()
        .expect("the serde error is the source")
        .to_string();
    assert!(cause.contains("invalid type"), "{cause}");
    assert!(
        !error.to_string().contains(&cause),
        "Display does not repeat its source"
    );
    let for_model = ToolError::from(error);
    assert!(for_model.message.contains(&cause), "{}", for_model.message);
}

#[tokio::test]
async fn a_read_whose_closure_panics_is_a_stopped_call() {
    let (_dir, db) = database();
    let error = db
        .read(|_| -> i64 { panic!("the closure fails on purpose") })
        .await
        .unwrap_err();
    assert!(
        matches!(error, toolforge::sql::DbError::Stopped),
        "{error:?}"
    );
    let n: i64 = db
        .read(|conn| conn.query_row("SELECT 1", [], |row| row.get(0)).unwrap())
        .await
        .unwrap();
    assert_eq!(n, 1, "the pool still works");
}
