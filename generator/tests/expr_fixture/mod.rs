//! A hand-built schema for the expression compiler tests: `Scope` (with keyword-named and array
//! fields) and `Change`, linked by `Scope -HAS_CHANGE-> Change` and `Scope -CONSUMES-> Scope`.

#![allow(dead_code)]

use toolforge::spec::{
    EntitySpec, FieldSpec, FieldType, RelationshipSpec, SchemaSpec, ToolOptions,
};
use toolforge_generator::__private::expr::{
    CompiledField, ComputedBody, ComputedSource, ExprError, compile_computed_fields,
};

pub fn field(name: &str, ty: FieldType) -> FieldSpec {
    FieldSpec {
        column: None,
        name: name.to_owned(),
        ty,
        description: None,
        indexed: false,
        unique: name == "uuid",
        values: Vec::new(),
    }
}

pub fn entity(name: &str, table: &str, fields: Vec<FieldSpec>) -> EntitySpec {
    EntitySpec {
        source: None,
        name: name.to_owned(),
        table: table.to_owned(),
        description: None,
        unique_field: "uuid".to_owned(),
        display_name_field: None,
        query_field: None,
        content_field: None,
        example_display_fields: Vec::new(),
        fields,
        computed_fields: Vec::new(),
        vector_indexes: Vec::new(),
        hierarchy: None,
        full_text: None,
        change_tracking: None,
    }
}

pub fn relationship(rel_type: &str, source: &str, target: &str) -> RelationshipSpec {
    RelationshipSpec {
        mapping: None,
        rel_type: rel_type.to_owned(),
        source: source.to_owned(),
        target: target.to_owned(),
        table: format!(
            "{}__{}__{}",
            source.to_lowercase(),
            rel_type.to_lowercase(),
            target.to_lowercase()
        ),
        description: None,
        properties: Vec::new(),
    }
}

pub fn schema() -> SchemaSpec {
    let scope = entity(
        "Scope",
        "scope",
        vec![
            field("uuid", FieldType::String),
            field("name", FieldType::String),
            field("type", FieldType::Enum),
            field("startLine", FieldType::Number),
            field("endLine", FieldType::Number),
            field("source", FieldType::String),
            field("docstring", FieldType::String),
            field("tags", FieldType::StringArray),
            field("weights", FieldType::NumberArray),
            field("exported", FieldType::Boolean),
            field("created_at", FieldType::Datetime),
            field("updated_at", FieldType::Datetime),
        ],
    );
    let change = entity(
        "Change",
        "change",
        vec![
            field("uuid", FieldType::String),
            field("timestamp", FieldType::Datetime),
            field("lines_added", FieldType::Number),
            field("author", FieldType::String),
        ],
    );
    SchemaSpec {
        name: "fixture".to_owned(),
        description: None,
        entities: vec![scope, change],
        relationships: vec![
            relationship("HAS_CHANGE", "Scope", "Change"),
            relationship("CONSUMES", "Scope", "Scope"),
        ],
        tools: ToolOptions::default(),
        mcp: Default::default(),
        embedding: None,
        change_log: None,
        declared_tools: Vec::new(),
        access: Vec::new(),
    }
}

/// Compiles one expression as the computed field `f` of `Scope`.
pub fn compile(declared: &str, expression: &str) -> Result<CompiledField, ExprError> {
    compile_body(declared, ComputedBody::Expression(expression))
}

/// Compiles one body as the computed field `f` of `Scope`.
pub fn compile_body(declared: &str, body: ComputedBody<'_>) -> Result<CompiledField, ExprError> {
    let source = ComputedSource {
        name: "f",
        declared_type: declared,
        body,
    };
    compile_computed_fields(&schema(), "Scope", &[source]).remove(0)
}

/// The SQL of an expression that must compile.
pub fn sql(declared: &str, expression: &str) -> String {
    match compile(declared, expression) {
        Ok(compiled) => compiled.sql,
        Err(error) => panic!("`{expression}` did not compile: {error:?}"),
    }
}

/// The error of an expression that must not compile.
pub fn fail(declared: &str, expression: &str) -> ExprError {
    match compile(declared, expression) {
        Ok(compiled) => panic!("`{expression}` compiled to {}", compiled.sql),
        Err(error) => error,
    }
}

/// The text an error's span covers.
pub fn spanned<'a>(text: &'a str, error: &ExprError) -> &'a str {
    &text[error.span.clone()]
}

/// The fixture's tables and rows in SQLite: two scopes, two changes and their edges.
pub const SQLITE_ROWS: &str = r#"
    CREATE TABLE "scope" ("uuid" TEXT NOT NULL UNIQUE, "name" TEXT, "type" TEXT, "startLine" NUMERIC,
        "endLine" NUMERIC, "source" TEXT, "docstring" TEXT, "tags" TEXT, "weights" TEXT,
        "exported" INTEGER, "created_at" TEXT, "updated_at" TEXT);
    CREATE TABLE "change" ("uuid" TEXT NOT NULL UNIQUE, "timestamp" TEXT, "lines_added" NUMERIC, "author" TEXT);
    CREATE TABLE "scope__has_change__change" ("source_id" TEXT NOT NULL, "target_id" TEXT NOT NULL,
        PRIMARY KEY ("source_id", "target_id"));
    CREATE TABLE "scope__consumes__scope" ("source_id" TEXT NOT NULL, "target_id" TEXT NOT NULL,
        PRIMARY KEY ("source_id", "target_id"));
    INSERT INTO "scope" VALUES
        ('a', 'getUser', 'function', 10, 14, 'fn get_user() {}', NULL, '["api","db"]', '[1,2.5]', 1,
         '2020-02-29T12:00:00Z', '2024-02-28T11:00:00Z'),
        ('b', 'Parser', 'class', 1, 200, 'struct Parser;', 'Parses.', '[]', '[]', 0,
         '2023-01-01T00:00:00Z', NULL);
    INSERT INTO "change" VALUES ('c1', '2024-01-01T00:00:00Z', 5, 'ann'), ('c2', '2024-03-01T00:00:00Z', 7, NULL);
    INSERT INTO "scope__has_change__change" VALUES ('a', 'c1'), ('a', 'c2'), ('a', 'gone');
    INSERT INTO "scope__consumes__scope" VALUES ('a', 'b'), ('b', 'b');
"#;
