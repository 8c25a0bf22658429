//! Shared fixtures for the SQL tests: a code-RAG spec (modelled on the corpus configs) and
//! seeded data.
#![allow(dead_code)]

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;

/// The code-RAG storage spec: Scope, File, three relationships, computed fields, a hierarchy.
pub fn code_rag_spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "code-rag",
        "description": "Code scopes of a TypeScript project",
        "entities": [
            {
                "name": "Scope",
                "table": "scope",
                "description": "A function, class or method",
                "unique_field": "uuid",
                "display_name_field": "name",
                "query_field": "name",
                "content_field": "source",
                "fields": [
                    {"name": "uuid", "type": "string", "unique": true, "description": "Stable id"},
                    {"name": "name", "type": "string", "indexed": true, "description": "Scope name"},
                    {"name": "type", "type": "string", "description": "Scope type (function, class, method)"},
                    {"name": "file", "type": "string", "description": "File path"},
                    {"name": "startLine", "type": "number", "description": "Starting line number"},
                    {"name": "endLine", "type": "number", "description": "Ending line number"},
                    {"name": "source", "type": "string", "description": "Full source code"},
                    {"name": "tags", "type": "string_array", "description": "Tags"},
                    {"name": "kind", "type": "enum", "values": ["function", "class", "method"], "description": "Kind of scope"},
                    {"name": "created_at", "type": "datetime", "description": "When the scope was indexed"},
                    {"name": "is_exported", "type": "boolean", "description": "Exported from its module"}
                ],
                "computed_fields": [
                    {"name": "line_count", "type": "number", "description": "Number of lines",
                     "source": "endLine - startLine + 1",
                     "sql": "(\"n\".\"endLine\" - \"n\".\"startLine\" + 1)"},
                    {"name": "is_large", "type": "boolean", "description": "More than 100 lines",
                     "source": "(endLine - startLine + 1) > 100",
                     "sql": "((\"n\".\"endLine\" - \"n\".\"startLine\" + 1) > 100)"},
                    {"name": "char_count", "type": "number", "description": "Characters of source",
                     "source": "source.length",
                     "sql": "length(\"n\".\"source\")",
                     "materialized_column": "cached_char_count"}
                ],
                "vector_indexes": [
                    {"name": "scope_embedding", "column": "embedding", "source_field": "source", "dimension": 3}
                ],
                "hierarchy": {"relationship": "HAS_PARENT", "child_is_source": true, "content_field": "source"}
            },
            {
                "name": "File",
                "table": "file",
                "unique_field": "path",
                "fields": [
                    {"name": "path", "type": "string", "unique": true, "description": "File path"},
                    {"name": "language", "type": "string", "description": "Language"}
                ]
            }
        ],
        "relationships": [
            {"type": "DEFINED_IN", "source": "Scope", "target": "File", "table": "scope__defined_in__file",
             "description": "The file a scope is defined in"},
            {"type": "CONSUMES", "source": "Scope", "target": "Scope", "table": "scope__consumes__scope",
             "properties": [{"name": "weight", "type": "number"}]},
            {"type": "HAS_PARENT", "source": "Scope", "target": "Scope", "table": "scope__has_parent__scope"}
        ],
        "tools": {"name_prefix": "", "default_limit": 10, "max_limit": 100,
                  "families": ["schema", "query", "lookup", "relationships", "patterns"]}
    }))
    .expect("the fixture spec deserialises")
}

/// A few scopes and files as JSON lines.
pub fn seed_lines() -> Vec<Value> {
    vec![
        json!({"entity": "File", "data": {"path": "src/a.ts", "language": "typescript"}}),
        json!({"entity": "File", "data": {"path": "src/b.ts", "language": "typescript"}}),
        json!({"entity": "Scope", "data": {"uuid": "s1", "name": "parseConfig", "type": "function", "file": "src/a.ts",
            "startLine": 1, "endLine": 150, "source": "function parseConfig() { return 1; }",
            "tags": ["parser", "config"], "kind": "function", "created_at": "2024-05-01T14:00:00+02:00",
            "is_exported": true, "embedding": [0.1, 0.2, 0.3]}}),
        json!({"entity": "Scope", "data": {"uuid": "s2", "name": "Parser", "type": "class", "file": "src/a.ts",
            "startLine": 10, "endLine": 40, "source": "class Parser { parse_it() {} }",
            "tags": ["parser"], "kind": "class", "created_at": "2024-05-02", "is_exported": false}}),
        json!({"entity": "Scope", "data": {"uuid": "s3", "name": "parse_it", "type": "method", "file": "src/a.ts",
            "startLine": 12, "endLine": 14, "source": "parse_it() {}",
            "tags": [], "kind": "method", "created_at": "2024-06-01T00:00:00Z", "is_exported": false}}),
        json!({"entity": "Scope", "data": {"uuid": "s4", "name": "render%_*", "type": "function", "file": "src/b.ts",
            "startLine": 5, "endLine": 9, "source": "function render() { /* 100% */ }",
            "tags": ["ui"], "kind": "function", "created_at": "2023-12-31T23:00:00-02:00", "is_exported": true}}),
        json!({"entity": "Scope", "data": {"uuid": "s5", "name": "helper", "file": "src/b.ts"}}),
        json!({"relationship": "DEFINED_IN", "from": {"entity": "Scope", "id": "s1"}, "to": {"entity": "File", "id": "src/a.ts"}}),
        json!({"relationship": "DEFINED_IN", "from": {"entity": "Scope", "id": "s2"}, "to": {"entity": "File", "id": "src/a.ts"}}),
        json!({"relationship": "DEFINED_IN", "from": {"entity": "Scope", "id": "s3"}, "to": {"entity": "File", "id": "src/a.ts"}}),
        json!({"relationship": "DEFINED_IN", "from": {"entity": "Scope", "id": "s4"}, "to": {"entity": "File", "id": "src/b.ts"}}),
        json!({"relationship": "CONSUMES", "from": {"entity": "Scope", "id": "s1"}, "to": {"entity": "Scope", "id": "s2"}, "properties": {"weight": 2}}),
        json!({"relationship": "CONSUMES", "from": {"entity": "Scope", "id": "s4"}, "to": {"entity": "Scope", "id": "s1"}, "properties": {"weight": 1}}),
        json!({"relationship": "HAS_PARENT", "from": {"entity": "Scope", "id": "s3"}, "to": {"entity": "Scope", "id": "s2"}}),
    ]
}

/// Lines joined as a JSON-lines document.
pub fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A fresh database in a temp dir with the spec's tables and the seed data.
pub fn seeded() -> (tempfile::TempDir, Arc<SchemaSpec>, Database) {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = Arc::new(code_rag_spec());
    let db = Database::open(dir.path().join("code.db")).expect("open");
    db.init(&spec).expect("init");
    db.import_jsonl(&spec, jsonl(&seed_lines()).as_bytes())
        .expect("seed import");
    (dir, spec, db)
}

/// Every row of every table, as text, for before/after comparisons.
pub fn dump(db: &Database) -> String {
    db.read_blocking(|conn| {
        let mut out = String::new();
        // `toolforge_versions` counts writes (every import bumps it): bookkeeping, not data.
        let mut tables = conn
            .prepare(
                "SELECT name FROM sqlite_schema WHERE type = 'table' \
                 AND name <> 'toolforge_versions' ORDER BY name",
            )
            .unwrap();
        let names: Vec<String> = tables
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for name in names {
            out.push_str(&format!("## {name}\n"));
            let mut statement = conn
                .prepare(&format!("SELECT * FROM \"{name}\" ORDER BY 1, 2"))
                .unwrap();
            let columns = statement.column_count();
            let mut rows = statement.query([]).unwrap();
            while let Some(row) = rows.next().unwrap() {
                let values: Vec<String> = (0..columns)
                    .map(|i| format!("{:?}", row.get_ref(i).unwrap()))
                    .collect();
                out.push_str(&values.join(" | "));
                out.push('\n');
            }
        }
        out
    })
    .expect("a SQLite read")
}
