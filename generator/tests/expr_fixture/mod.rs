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
    }
}

pub fn relationship(rel_type: &str, source: &str, target: &str) -> RelationshipSpec {
    RelationshipSpec {
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
