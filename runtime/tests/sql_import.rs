//! DDL, idempotent init, schema differences and JSON-lines import.
#![cfg(feature = "sqlite")]

use crate::sql_fixtures;

use serde_json::json;
use sql_fixtures::{code_rag_spec, dump, jsonl, seed_lines, seeded};
use toolforge::sql::{Database, DbError};

#[test]
fn init_creates_tables_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let spec = code_rag_spec();
    let db = Database::open(dir.path().join("x.db")).unwrap();
    let first = db.init(&spec).unwrap();
    assert_eq!(
        first.created,
        vec![
            "scope",
            "scope__name__idx",
            "file",
            "scope__defined_in__file",
            "scope__defined_in__file__target_id__idx",
            "scope__consumes__scope",
            "scope__consumes__scope__target_id__idx",
            "scope__has_parent__scope",
            "scope__has_parent__scope__target_id__idx",
            "toolforge_versions",
        ]
    );
    let before = db
        .read_blocking(|c| {
            c.query_row(
                "SELECT group_concat(sql, ';') FROM sqlite_schema",
                [],
                |r| r.get::<_, String>(0),
            )
            .unwrap()
        })
        .expect("a SQLite read");
    let second = db.init(&spec).unwrap();
    assert!(second.created.is_empty());
    assert_eq!(second.unchanged.len(), 10);
    let after = db
        .read_blocking(|c| {
            c.query_row(
                "SELECT group_concat(sql, ';') FROM sqlite_schema",
                [],
                |r| r.get::<_, String>(0),
            )
            .unwrap()
        })
        .expect("a SQLite read");
    assert_eq!(before, after);
    assert!(db.check_schema(&spec).unwrap().is_empty());
}

#[test]
fn ddl_declares_types_checks_and_generated_columns() {
    let sql = toolforge::sql::ddl::schema_sql(&code_rag_spec()).unwrap();
    for expected in [
        "\"uuid\" TEXT NOT NULL UNIQUE",
        "\"startLine\" NUMERIC",
        "\"tags\" TEXT CHECK (json_valid(\"tags\"))",
        "\"kind\" TEXT CHECK (\"kind\" IN ('function', 'class', 'method'))",
        "\"is_exported\" INTEGER CHECK (\"is_exported\" IN (0, 1))",
        "\"embedding\" BLOB",
        "\"cached_char_count\" NUMERIC GENERATED ALWAYS AS (length(\"source\")) STORED",
        "PRIMARY KEY (\"source_id\", \"target_id\")",
        "CREATE INDEX \"scope__name__idx\" ON \"scope\" (\"name\")",
    ] {
        assert!(sql.contains(expected), "missing {expected} in\n{sql}");
    }
}

#[test]
fn init_reports_differences_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("x.db")).unwrap();
    db.write_blocking(|c| {
        c.execute_batch(
            "CREATE TABLE \"scope\" (\"uuid\" TEXT NOT NULL UNIQUE, \"name\" INTEGER, \"extra\" TEXT);",
        )
    })
    .unwrap()
    .unwrap();
    let spec = code_rag_spec();
    let error = db.init(&spec).unwrap_err();
    let DbError::SchemaMismatch(differences) = &error else {
        panic!("expected a mismatch, got {error}");
    };
    let text: Vec<String> = differences.iter().map(|d| d.to_string()).collect();
    assert!(
        text.contains(
            &"table \"scope\": column \"name\" has type INTEGER, expected TEXT".to_string()
        ),
        "{text:#?}"
    );
    assert!(
        text.contains(&"table \"scope\": column \"startLine\" (NUMERIC) is missing".to_string()),
        "{text:#?}"
    );
    assert!(
        text.contains(&"table \"scope\": column \"extra\" (TEXT) is not in the config".to_string()),
        "{text:#?}"
    );
    assert!(error.to_string().contains("nothing was changed"));
    // Nothing was created: the file table does not exist.
    let tables: i64 = db
        .read_blocking(|c| {
            c.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
                .unwrap()
        })
        .expect("a SQLite read");
    assert_eq!(tables, 2, "only the pre-existing table and its autoindex");
}

#[test]
fn constraint_only_differences_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path().join("x.db")).unwrap();
    let mut spec = code_rag_spec();
    db.init(&spec).unwrap();
    spec.entities[0].fields[8].values.push("interface".into());
    let differences = db.check_schema(&spec).unwrap();
    assert_eq!(differences.len(), 1, "{differences:#?}");
    assert!(differences[0].message.contains("constraints differ"));
    assert!(differences[0].message.contains("'interface'"));
}

#[test]
fn import_normalises_and_upserts() {
    let (_dir, spec, db) = seeded();
    let row: (String, i64, String, i64, i64) = db.read_blocking(|c| {
        c.query_row(
            "SELECT created_at, is_exported, tags, cached_char_count, length(embedding) FROM scope WHERE uuid = 's1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap()
    }).expect("a SQLite read");
    assert_eq!(row.0, "2024-05-01T12:00:00Z");
    assert_eq!(row.1, 1);
    assert_eq!(row.2, "[\"parser\",\"config\"]");
    assert_eq!(row.3, "function parseConfig() { return 1; }".len() as i64);
    assert_eq!(row.4, 12);
    // Upsert: update one field, keep the others.
    let stats = db
        .import_jsonl(
            &spec,
            jsonl(&[json!({"entity": "Scope", "data": {"uuid": "s1", "name": "parseConfig2"}})])
                .as_bytes(),
        )
        .unwrap();
    assert_eq!(stats.entities, 1);
    let (name, file, count): (String, String, i64) = db
        .read_blocking(|c| {
            c.query_row(
                "SELECT name, file, (SELECT count(*) FROM scope) FROM scope WHERE uuid = 's1'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap()
        })
        .expect("a SQLite read");
    assert_eq!(
        (name.as_str(), file.as_str(), count),
        ("parseConfig2", "src/a.ts", 5)
    );
    // Re-importing the seed restores it exactly: same rows, no duplicates.
    db.import_jsonl(&spec, jsonl(&seed_lines()).as_bytes())
        .unwrap();
    let (_dir2, _spec2, fresh) = seeded();
    assert_eq!(dump(&db), dump(&fresh));
}

fn import_error(lines: &[serde_json::Value]) -> (toolforge::sql::ImportError, String, String) {
    let (_dir, spec, db) = seeded();
    let before = dump(&db);
    let error = db.import_jsonl(&spec, jsonl(lines).as_bytes()).unwrap_err();
    let after = dump(&db);
    (error, before, after)
}

#[test]
fn import_errors_name_line_and_field_and_commit_nothing() {
    let good = json!({"entity": "File", "data": {"path": "src/new.ts", "language": "ts"}});
    let cases = [
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "startLine": "ten"}}),
            "data.startLine",
            "expected a number, got a string (\"ten\")",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "kind": "interface"}}),
            "data.kind",
            "allowed values: \"function\", \"class\", \"method\"",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "created_at": "last week"}}),
            "data.created_at",
            "expected a datetime",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "tags": [1]}}),
            "data.tags",
            "element 0 is a number",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "nmae": "a"}}),
            "data.nmae",
            "Did you mean `name`?",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "line_count": 3}}),
            "data.line_count",
            "computed field",
        ),
        (
            json!({"entity": "Scope", "data": {"name": "no id"}}),
            "data.uuid",
            "is required",
        ),
        (
            json!({"entity": "Scop", "data": {"uuid": "x"}}),
            "entity",
            "Did you mean `Scope`?",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "embedding": [1, 2]}}),
            "data.embedding",
            "expected 3 numbers",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "embedding": [1, 1e39, 2]}}),
            "data.embedding",
            "element 1 is 1e+39, beyond what a vector holds",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "", "name": "no id"}}),
            "data.uuid",
            "the unique field `uuid` is empty",
        ),
        (
            json!({"entity": "Scope", "data": {"uuid": "x", "name": "a\u{0}b"}}),
            "data.name",
            "holds a NUL character",
        ),
        (
            json!({"relationship": "DEFINED_IN", "from": {"entity": "File", "id": "src/a.ts"}, "to": {"entity": "Scope", "id": "s1"}}),
            "relationship",
            "Scope -[DEFINED_IN]-> File",
        ),
        (
            json!({"relationship": "DEFINED_IN", "from": {"entity": "Scope", "id": "missing"}, "to": {"entity": "File", "id": "src/a.ts"}}),
            "from.id",
            "no Scope has uuid \"missing\"",
        ),
        (
            json!({"relationship": "CONSUMES", "from": {"entity": "Scope", "id": "s1"}, "to": {"entity": "Scope", "id": "s3"}, "properties": {"weight": "heavy"}}),
            "properties.weight",
            "expected a number",
        ),
    ];
    for (bad, field, message) in cases {
        let (error, before, after) = import_error(&[good.clone(), good.clone(), bad.clone()]);
        assert_eq!(error.line, Some(3), "{error}");
        assert_eq!(error.field.as_deref(), Some(field), "{error}");
        assert!(
            error.to_string().contains(message),
            "{error} should contain {message}"
        );
        assert!(
            error
                .to_string()
                .starts_with(&format!("line 3, field `{field}`")),
            "{error}"
        );
        assert_eq!(before, after, "nothing is committed after: {error}");
    }
    let (error, before, after) = import_error(&[good.clone(), json!("not an object")]);
    assert_eq!(error.line, Some(2));
    assert_eq!(before, after);
    let (_dir, spec, db) = seeded();
    let error = db
        .import_jsonl(
            &spec,
            "{\"entity\": \"File\", \"data\": {\"path\": \"a\"}}\n{oops\n".as_bytes(),
        )
        .unwrap_err();
    assert_eq!(error.line, Some(2), "{error}");
}

#[test]
fn relationships_may_precede_their_records() {
    let (_dir, spec, db) = seeded();
    let lines = [
        json!({"relationship": "DEFINED_IN", "from": {"entity": "Scope", "id": "s9"}, "to": {"entity": "File", "id": "src/c.ts"}}),
        json!({"entity": "Scope", "data": {"uuid": "s9"}}),
        json!({"entity": "File", "data": {"path": "src/c.ts"}}),
    ];
    let stats = db.import_jsonl(&spec, jsonl(&lines).as_bytes()).unwrap();
    assert_eq!((stats.entities, stats.relationships), (2, 1));
}

#[test]
fn read_only_handle_refuses_writes() {
    let (dir, spec, _db) = seeded();
    let reader = Database::open_read_only(dir.path().join("code.db")).unwrap();
    assert!(matches!(reader.init(&spec), Err(DbError::ReadOnly)));
    let error = reader
        .read_blocking(|c| c.execute("DELETE FROM scope", []))
        .expect("a SQLite read")
        .unwrap_err();
    assert!(
        error.to_string().contains("readonly") || error.to_string().contains("read-only"),
        "{error}"
    );
}

#[test]
fn specs_that_cannot_become_tables_are_refused() {
    let mut spec = code_rag_spec();
    spec.entities[0].computed_fields[2].sql =
        "(SELECT count(*) FROM \"scope__consumes__scope\" AS \"e\" WHERE \"e\".\"source_id\" = \"n\".\"uuid\")".into();
    let error = toolforge::sql::ddl::schema_sql(&spec).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`char_count` of `Scope` is materialized but aggregates"),
        "{error}"
    );
    let mut spec = code_rag_spec();
    spec.relationships[1].properties[0].name = "source_id".into();
    let error = toolforge::sql::ddl::schema_sql(&spec).unwrap_err();
    assert!(
        error.to_string().contains("property named `source_id`"),
        "{error}"
    );
    let mut spec = code_rag_spec();
    spec.relationships[0].target = "Folder".into();
    let error = toolforge::sql::ddl::schema_sql(&spec).unwrap_err();
    assert!(
        error.to_string().contains("unknown entity `Folder`"),
        "{error}"
    );
}

#[test]
fn opening_a_missing_read_only_database_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = Database::open_read_only(dir.path().join("missing.db")).unwrap_err();
    assert!(matches!(error, DbError::Sqlite(_)), "{error}");
}

/// After a write the database file alone holds everything: copying only the `.db` (as `cp`, a
/// Docker `COPY` or `git add` do) while the database is still open gives every row.
#[test]
fn the_database_file_alone_holds_every_write() {
    let (dir, spec, db) = seeded();
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("copy.db");
    std::fs::copy(dir.path().join("code.db"), &copy).unwrap();
    let copied = Database::open_read_only(&copy).unwrap();
    assert_eq!(count(&copied, "scope"), 5);
    assert_eq!(dump(&copied), dump(&db));
    let wal = dir.path().join("code.db-wal");
    assert!(
        !wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0,
        "the -wal file holds nothing after the import"
    );
    // A later write is checkpointed too.
    db.import_jsonl(
        &spec,
        r#"{"entity":"File","data":{"path":"src/c.ts","language":"rust"}}"#.as_bytes(),
    )
    .unwrap();
    std::fs::copy(dir.path().join("code.db"), &copy).unwrap();
    let copied = Database::open_read_only(&copy).unwrap();
    assert_eq!(count(&copied, "file"), 3);
}

fn count(db: &Database, table: &str) -> i64 {
    db.read_blocking(|c| {
        c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    })
    .expect("a SQLite read")
}

/// A reader of endless `a`s (a line with no end) that fails once it has given `limit` bytes.
struct Endless {
    given: usize,
    limit: usize,
}

impl std::io::Read for Endless {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.given >= self.limit {
            return Err(std::io::Error::other("read past the bound"));
        }
        let n = buffer.len().min(self.limit - self.given);
        buffer[..n].fill(b'a');
        self.given += n;
        Ok(n)
    }
}

/// A line with no end is refused at the bound, naming the line, instead of growing memory
/// until the process aborts: the reader is never asked for more than the bound allows.
#[test]
fn a_line_with_no_end_is_refused_at_the_bound() {
    let (_dir, spec, db) = seeded();
    let before = dump(&db);
    let first = format!(
        "{}\n",
        json!({"entity": "File", "data": {"path": "src/z.ts", "language": "ts"}})
    );
    let endless = Endless {
        given: 0,
        limit: toolforge::sql::import::MAX_LINE_BYTES + (1 << 20),
    };
    let reader = std::io::BufReader::new(std::io::Read::chain(first.as_bytes(), endless));
    let error = db.import_jsonl(&spec, reader).unwrap_err();
    assert_eq!(error.line, Some(2), "{error}");
    assert!(
        error.message.contains("longer than 33554432 bytes"),
        "{error}"
    );
    assert_eq!(dump(&db), before, "nothing was imported");
}

#[test]
fn a_byte_order_mark_before_the_first_line_is_not_part_of_it() {
    let (_dir, spec, db) = seeded();
    let lines = format!(
        "\u{feff}{}",
        jsonl(&[json!({"entity": "File", "data": {"path": "src/bom.ts", "language": "ts"}})])
    );
    let stats = db.import_jsonl(&spec, lines.as_bytes()).unwrap();
    assert_eq!(stats.entities, 1);
    // Anywhere else it is text like any other: not a JSON value.
    let later = format!(
        "{}\u{feff}{}",
        jsonl(&[json!({"entity": "File", "data": {"path": "src/a.ts"}})]),
        jsonl(&[json!({"entity": "File", "data": {"path": "src/b.ts"}})])
    );
    let error = db.import_jsonl(&spec, later.as_bytes()).unwrap_err();
    assert_eq!(error.line, Some(2), "{error}");
}

/// The ends of relationships an import did not write are looked up hundreds at a time (one
/// statement per 500 ids, not one per id): with more than a batch of them, the first missing
/// end in line order is still the one named, whichever batch it falls in, and nothing is
/// written.
#[test]
fn missing_ends_are_found_among_many_and_named_by_their_first_line() {
    let (_dir, spec, db) = seeded();
    let records: Vec<serde_json::Value> = (0..1_200)
        .map(|i| json!({"entity": "Scope", "data": {"uuid": format!("m{i}")}}))
        .collect();
    db.import_jsonl(&spec, jsonl(&records).as_bytes()).unwrap();
    let mut lines: Vec<serde_json::Value> = (1..1_200)
        .map(|i| json!({"relationship": "CONSUMES", "from": {"entity": "Scope", "id": format!("m{}", i - 1)}, "to": {"entity": "Scope", "id": format!("m{i}")}}))
        .collect();
    // Line 801 names a record that does not exist, after 800 edges (past the first batch of
    // distinct ids), and line 901 another.
    lines.insert(800, json!({"relationship": "CONSUMES", "from": {"entity": "Scope", "id": "m5"}, "to": {"entity": "Scope", "id": "ghost-1"}}));
    lines.insert(900, json!({"relationship": "CONSUMES", "from": {"entity": "Scope", "id": "ghost-0"}, "to": {"entity": "Scope", "id": "m6"}}));
    let before = dump(&db);
    let error = db
        .import_jsonl(&spec, jsonl(&lines).as_bytes())
        .unwrap_err();
    assert_eq!(error.line, Some(801), "{error}");
    assert_eq!(error.field.as_deref(), Some("to.id"), "{error}");
    assert!(
        error.to_string().contains("no Scope has uuid \"ghost-1\""),
        "{error}"
    );
    assert_eq!(dump(&db), before, "a refused import writes nothing");

    // Without them, every edge is written.
    let lines: Vec<_> = lines
        .into_iter()
        .filter(|line| !line.to_string().contains("ghost"))
        .collect();
    let stats = db.import_jsonl(&spec, jsonl(&lines).as_bytes()).unwrap();
    assert_eq!(stats.relationships, 1_199);
}

/// The records an import writes are the ends its relationships may name, before or after the
/// edge's line; a record it deletes is not, from the delete on, and takes its edges with it.
#[test]
fn ends_written_by_the_same_import_need_no_lookup_and_deletes_count() {
    let (_dir, spec, db) = seeded();
    let edge = |from: &str, to: &str| json!({"relationship": "CONSUMES", "from": {"entity": "Scope", "id": from}, "to": {"entity": "Scope", "id": to}});
    let scope = |id: &str| json!({"entity": "Scope", "data": {"uuid": id}});
    let delete = |id: &str| json!({"delete": {"entity": "Scope", "id": id}});
    // The edge comes before one of its ends, after the other.
    let lines = [scope("w1"), edge("w1", "w2"), scope("w2")];
    let stats = db.import_jsonl(&spec, jsonl(&lines).as_bytes()).unwrap();
    assert_eq!(stats.relationships, 1);
    // Written, named, deleted: the edge goes with its end, and nothing dangles.
    let lines = [scope("w3"), scope("w4"), edge("w3", "w4"), delete("w4")];
    db.import_jsonl(&spec, jsonl(&lines).as_bytes()).unwrap();
    let edges: Vec<(String, String)> = db
        .read_blocking(|c| {
            let mut statement = c
                .prepare("SELECT source_id, target_id FROM scope__consumes__scope WHERE source_id LIKE 'w%' ORDER BY 1")
                .unwrap();
            let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            rows.map(Result::unwrap).collect()
        })
        .expect("a SQLite read");
    assert_eq!(edges, [("w1".to_owned(), "w2".to_owned())]);
    // Deleted, then named: the end is missing.
    let lines = [scope("w5"), delete("w5"), edge("w1", "w5")];
    let before = dump(&db);
    let error = db
        .import_jsonl(&spec, jsonl(&lines).as_bytes())
        .unwrap_err();
    assert_eq!(error.line, Some(3), "{error}");
    assert!(
        error.to_string().contains("no Scope has uuid \"w5\""),
        "{error}"
    );
    assert_eq!(dump(&db), before, "a refused import writes nothing");
}
