//! The tables, edge tables, indexes and change log a spec needs on SQLite, as DDL.

use crate::spec::{EntitySpec, FieldSpec, FieldType, RelationshipSpec, SchemaSpec, ValueType};

use crate::sql::ddl::objects::{
    ColumnDef, ObjectKind, SchemaObject, SpecError, field_index_name, is_reserved_name, literal,
    target_index_name,
};
use crate::sql::places::{Coordinate, coordinate_sql};
use crate::sql::text::ident::{quote, strip_row_alias};

fn field_column(field: &FieldSpec, unique: bool) -> (String, String) {
    let column = quote(&field.name);
    if unique {
        return (format!("{column} TEXT NOT NULL UNIQUE"), "TEXT".into());
    }
    match field.ty {
        FieldType::String | FieldType::Datetime => (format!("{column} TEXT"), "TEXT".into()),
        FieldType::Number => (format!("{column} NUMERIC"), "NUMERIC".into()),
        FieldType::Integer => (format!("{column} INTEGER"), "INTEGER".into()),
        FieldType::Boolean => (
            format!("{column} INTEGER CHECK ({column} IN (0, 1))"),
            "INTEGER".into(),
        ),
        FieldType::Enum => {
            let values: Vec<String> = field.values.iter().map(|v| literal(v)).collect();
            if values.is_empty() {
                (format!("{column} TEXT"), "TEXT".into())
            } else {
                (
                    format!("{column} TEXT CHECK ({column} IN ({}))", values.join(", ")),
                    "TEXT".into(),
                )
            }
        }
        FieldType::StringArray | FieldType::NumberArray | FieldType::Point => (
            format!("{column} TEXT CHECK (json_valid({column}))"),
            "TEXT".into(),
        ),
    }
}

fn value_decl_type(ty: ValueType) -> &'static str {
    match ty {
        ValueType::String | ValueType::Datetime => "TEXT",
        ValueType::Number => "NUMERIC",
        ValueType::Boolean => "INTEGER",
    }
}

/// The CREATE TABLE statement and indexes for one entity.
pub fn entity_objects(entity: &EntitySpec) -> Result<Vec<SchemaObject>, SpecError> {
    let mut definitions = Vec::new();
    let mut columns = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut add = |name: &str, def: String, decl: String, generated: bool| {
        if !seen.insert(name.to_ascii_lowercase()) {
            return Err(SpecError::DuplicateColumn {
                entity: entity.name.clone(),
                column: name.to_owned(),
            });
        }
        definitions.push(def);
        columns.push(ColumnDef {
            name: name.to_string(),
            decl_type: decl,
            generated,
        });
        Ok(())
    };
    if entity.field(&entity.unique_field).is_none() {
        let field = FieldSpec {
            name: entity.unique_field.clone(),
            column: None,
            ty: FieldType::String,
            description: None,

            indexed: false,
            unique: true,
            values: Vec::new(),
        };
        let (def, decl) = field_column(&field, true);
        add(&field.name, def, decl, false)?;
    }
    for field in &entity.fields {
        let (def, decl) = field_column(field, field.name == entity.unique_field);
        add(&field.name, def, decl, false)?;
    }
    for vector in &entity.vector_indexes {
        add(
            &vector.column,
            format!("{} BLOB", quote(&vector.column)),
            "BLOB".into(),
            false,
        )?;
        let hash = vector.hash_column();
        add(
            &hash,
            format!("{} TEXT", quote(&hash)),
            "TEXT".into(),
            false,
        )?;
    }
    for computed in &entity.computed_fields {
        if let Some(column) = &computed.materialized_column {
            if computed.sql.to_ascii_uppercase().contains("SELECT") {
                return Err(SpecError::MaterializedAggregate {
                    entity: entity.name.clone(),
                    field: computed.name.clone(),
                });
            }
            let expression = strip_row_alias(&computed.sql);
            let decl = value_decl_type(computed.ty);
            add(
                column,
                format!(
                    "{} {decl} GENERATED ALWAYS AS ({expression}) STORED",
                    quote(column)
                ),
                decl.into(),
                true,
            )?;
        }
    }
    let mut objects = vec![SchemaObject {
        kind: ObjectKind::Table,
        name: entity.table.clone(),
        table: entity.table.clone(),
        sql: format!(
            "CREATE TABLE {} (\n  {}\n)",
            quote(&entity.table),
            definitions.join(",\n  ")
        ),
        columns,
    }];
    for field in &entity.fields {
        // A point's coordinates have their own indexes (`point_indexes`).
        if field.indexed && field.name != entity.unique_field && field.ty != FieldType::Point {
            let name = field_index_name(&entity.table, &field.name);
            objects.push(SchemaObject {
                kind: ObjectKind::Index,
                sql: format!(
                    "CREATE INDEX {} ON {} ({})",
                    quote(&name),
                    quote(&entity.table),
                    quote(&field.name)
                ),
                name,
                table: entity.table.clone(),
                columns: Vec::new(),
            });
        }
    }
    objects.extend(point_indexes(entity, false));
    objects.extend(crate::sql::full_text::full_text_objects(entity)?);
    Ok(objects)
}

/// The indexes of every `point` field of `entity`, one per coordinate on the expression that
/// reads it ([`coordinate_sql`](crate::sql::places::coordinate_sql)), in SQLite's SQL or
/// (`postgres`) PostgreSQL's: a box or a radius is answered from a range of one of them.
pub fn point_indexes(entity: &EntitySpec, postgres: bool) -> Vec<SchemaObject> {
    let mut objects = Vec::new();
    for field in entity.fields.iter().filter(|f| f.ty == FieldType::Point) {
        for coordinate in Coordinate::BOTH {
            let name = point_index_name(&entity.table, &field.name, coordinate);
            let expression = coordinate_sql(&quote(&field.name), coordinate, postgres);
            objects.push(SchemaObject {
                kind: ObjectKind::Index,
                sql: format!(
                    "CREATE INDEX {} ON {} (({expression}))",
                    quote(&name),
                    quote(&entity.table),
                ),
                name,
                table: entity.table.clone(),
                columns: Vec::new(),
            });
        }
    }
    objects
}

/// The name of the index on one coordinate of a point field: `<table>__<field>__latitude__idx`.
///
/// ```
/// use toolforge::sql::places::Coordinate;
/// assert_eq!(
///     toolforge::sql::ddl::point_index_name("store", "location", Coordinate::Latitude),
///     "store__location__latitude__idx"
/// );
/// ```
pub fn point_index_name(table: &str, field: &str, coordinate: Coordinate) -> String {
    format!("{table}__{field}__{}__idx", coordinate.key())
}

/// The edge table and its `target_id` index for one relationship.
pub fn relationship_objects(
    spec: &SchemaSpec,
    relationship: &RelationshipSpec,
) -> Result<Vec<SchemaObject>, SpecError> {
    for end in [&relationship.source, &relationship.target] {
        if spec.entity(end).is_none() {
            return Err(SpecError::UnknownEntity {
                relationship: relationship.rel_type.clone(),
                entity: end.clone(),
            });
        }
    }
    let mut definitions = vec![
        "\"source_id\" TEXT NOT NULL".to_string(),
        "\"target_id\" TEXT NOT NULL".to_string(),
    ];
    let mut columns = vec![
        ColumnDef {
            name: "source_id".into(),
            decl_type: "TEXT".into(),
            generated: false,
        },
        ColumnDef {
            name: "target_id".into(),
            decl_type: "TEXT".into(),
            generated: false,
        },
    ];
    for property in &relationship.properties {
        if columns
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(&property.name))
        {
            return Err(SpecError::ReservedProperty {
                relationship: relationship.rel_type.clone(),
                property: property.name.clone(),
            });
        }
        let (def, decl) = field_column(property, false);
        definitions.push(def);
        columns.push(ColumnDef {
            name: property.name.clone(),
            decl_type: decl,
            generated: false,
        });
    }
    definitions.push("PRIMARY KEY (\"source_id\", \"target_id\")".into());
    let index = target_index_name(&relationship.table);
    Ok(vec![
        SchemaObject {
            kind: ObjectKind::Table,
            name: relationship.table.clone(),
            table: relationship.table.clone(),
            sql: format!(
                "CREATE TABLE {} (\n  {}\n) WITHOUT ROWID",
                quote(&relationship.table),
                definitions.join(",\n  ")
            ),
            columns,
        },
        SchemaObject {
            kind: ObjectKind::Index,
            sql: format!(
                "CREATE INDEX {} ON {} (\"target_id\", \"source_id\")",
                quote(&index),
                quote(&relationship.table)
            ),
            name: index,
            table: relationship.table.clone(),
            columns: Vec::new(),
        },
    ])
}

/// Every table and index the spec needs, in creation order.
///
/// ```
/// use toolforge::spec::*;
/// let spec = SchemaSpec {
///     name: "books".into(),
///     description: None,
///     entities: vec![EntitySpec {
///         name: "Book".into(), table: "book".into(), source: None, description: None,
///         unique_field: "isbn".into(), display_name_field: None, query_field: None,
///         content_field: None, example_display_fields: vec![],
///         fields: vec![FieldSpec { name: "isbn".into(), column: None, ty: FieldType::String, description: None,
///             indexed: false, unique: true, values: vec![] }],
///         computed_fields: vec![], vector_indexes: vec![], hierarchy: None, full_text: None, change_tracking: None,
///     }],
///     relationships: vec![],
///     tools: ToolOptions::default(),
///     mcp: McpSpec::default(),
///     embedding: None, change_log: None, declared_tools: vec![], access: vec![],
/// };
/// let objects = toolforge::sql::ddl::schema_objects(&spec).unwrap();
/// assert_eq!(objects[0].sql, "CREATE TABLE \"book\" (\n  \"isbn\" TEXT NOT NULL UNIQUE\n)");
/// ```
pub fn schema_objects(spec: &SchemaSpec) -> Result<Vec<SchemaObject>, SpecError> {
    let mut objects = Vec::new();
    // A mapped entity or relationship reads the user's own tables: none of them is ours.
    for entity in spec.entities.iter().filter(|e| !e.is_mapped()) {
        objects.extend(entity_objects(entity)?);
    }
    for relationship in spec.relationships.iter().filter(|r| r.mapping.is_none()) {
        objects.extend(relationship_objects(spec, relationship)?);
    }

    // (Those of entities over existing tables are in the side store.)
    if spec
        .entities
        .iter()
        .any(|e| !e.is_mapped() && !e.vector_indexes.is_empty())
    {
        objects.push(versions_table("TEXT", "BIGINT"));
    }
    // (That of a spec over existing tables is in the side store.)
    if spec.change_log.is_some() && !spec.is_mapped() {
        objects.extend(changes_objects(ChangeLogTypes::SQLITE));
    }
    let mut names = std::collections::HashSet::new();
    for object in &objects {
        if is_reserved_name(&object.name) {
            return Err(SpecError::ReservedName {
                name: object.name.clone(),
            });
        }
        if !names.insert(object.name.to_ascii_lowercase()) {
            return Err(SpecError::DuplicateObject {
                name: object.name.clone(),
            });
        }
    }
    Ok(objects)
}

/// The table toolforge keeps a version number per entity table in, bumped by every write that
/// may change the table's vectors: searches keep vectors in memory and reload them when it
/// changes. Created only for specs with vector indexes.
pub const VERSIONS_TABLE: &str = "toolforge_versions";

/// [`VERSIONS_TABLE`]'s definition, with the backend's names for its two types.
pub fn versions_table(text: &str, bigint: &str) -> SchemaObject {
    SchemaObject {
        kind: ObjectKind::Table,
        name: VERSIONS_TABLE.to_owned(),
        table: VERSIONS_TABLE.to_owned(),
        sql: format!(
            "CREATE TABLE {} (\n  \"name\" {} PRIMARY KEY,\n  \"version\" {} NOT NULL\n)",
            quote(VERSIONS_TABLE),
            text.to_ascii_uppercase(),
            bigint.to_ascii_uppercase()
        ),
        columns: vec![
            ColumnDef {
                name: "name".to_owned(),
                decl_type: text.to_owned(),
                generated: false,
            },
            ColumnDef {
                name: "version".to_owned(),
                decl_type: bigint.to_owned(),
                generated: false,
            },
        ],
    }
}

/// The column types of the change log table on one backend.
#[derive(Debug, Clone, Copy)]
pub struct ChangeLogTypes {
    /// The id column's definition (after its name).
    pub id: &'static str,
    /// The id column's type as the schema check reads it.
    pub id_name: &'static str,
    /// Text columns' definition.
    pub text: &'static str,
    /// Text columns' type as the schema check reads it.
    pub text_name: &'static str,
    /// Integer columns' definition.
    pub integer: &'static str,
    /// Integer columns' type as the schema check reads it.
    pub integer_name: &'static str,
}

impl ChangeLogTypes {
    /// SQLite's.
    pub const SQLITE: ChangeLogTypes = ChangeLogTypes {
        id: "INTEGER PRIMARY KEY",
        id_name: "INTEGER",
        text: "TEXT",
        text_name: "TEXT",
        integer: "INTEGER",
        integer_name: "INTEGER",
    };

    /// PostgreSQL's: an identity key, and text compared byte by byte (`COLLATE "C"`), as
    /// timestamps and ids are ordered.
    pub const POSTGRES: ChangeLogTypes = ChangeLogTypes {
        id: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
        id_name: "bigint",
        text: "TEXT COLLATE \"C\"",
        text_name: "text",
        integer: "BIGINT",
        integer_name: "bigint",
    };
}

/// The change log's check of `change_type`, as comparisons joined by `OR`: SQLite runs a
/// CHECK's `IN (...)` list by building a temporary table each time a statement runs, which
/// made every change row cost microseconds more.
pub(crate) const CHANGE_TYPE_CHECK: &str =
    "\"change_type\" = 'created' OR \"change_type\" = 'updated' OR \"change_type\" = 'deleted'";

/// The change log ([`CHANGES_TABLE`](crate::spec::CHANGES_TABLE)): one row per recorded
/// change of a tracked record, and its indexes (by record, by time). Created only for specs
/// with a [`change_log`](crate::spec::SchemaSpec::change_log).
pub fn changes_objects(types: ChangeLogTypes) -> Vec<SchemaObject> {
    use crate::spec::CHANGES_TABLE;
    let text_columns = |names: &[&'static str], not_null: bool| -> Vec<(&'static str, String)> {
        names
            .iter()
            .map(|name| {
                let definition = if not_null {
                    format!("{} NOT NULL", types.text)
                } else {
                    types.text.to_owned()
                };
                (*name, definition)
            })
            .collect()
    };
    let mut columns: Vec<(&'static str, String)> = vec![("id", types.id.to_owned())];
    columns.extend(text_columns(&["entity", "record_id", "timestamp"], true));
    columns.push((
        "change_type",
        format!("{} NOT NULL CHECK ({CHANGE_TYPE_CHECK})", types.text),
    ));
    columns.extend(text_columns(&["diff"], true));
    columns.push(("lines_added", format!("{} NOT NULL", types.integer)));
    columns.push(("lines_removed", format!("{} NOT NULL", types.integer)));
    columns.extend(text_columns(
        &["metadata_before", "metadata_after", "content"],
        false,
    ));
    let definitions: Vec<String> = columns
        .iter()
        .map(|(name, definition)| format!("{} {definition}", quote(name)))
        .collect();
    let decl = |name: &str| match name {
        "id" => types.id_name,
        "lines_added" | "lines_removed" => types.integer_name,
        _ => types.text_name,
    };
    let table = SchemaObject {
        kind: ObjectKind::Table,
        name: CHANGES_TABLE.to_owned(),
        table: CHANGES_TABLE.to_owned(),
        sql: format!(
            "CREATE TABLE {} (\n  {}\n)",
            quote(CHANGES_TABLE),
            definitions.join(",\n  ")
        ),
        columns: columns
            .iter()
            .map(|(name, _)| ColumnDef {
                name: (*name).to_owned(),
                decl_type: decl(name).to_owned(),
                generated: false,
            })
            .collect(),
    };
    let index = |suffix: &str, columns: &str| SchemaObject {
        kind: ObjectKind::Index,
        name: format!("{CHANGES_TABLE}__{suffix}__idx"),
        table: CHANGES_TABLE.to_owned(),
        sql: format!(
            "CREATE INDEX {} ON {} ({columns})",
            quote(&format!("{CHANGES_TABLE}__{suffix}__idx")),
            quote(CHANGES_TABLE)
        ),
        columns: Vec::new(),
    };
    vec![
        table,
        index("record", "\"entity\", \"record_id\", \"id\""),
        index("timestamp", "\"timestamp\""),
    ]
}

/// The whole DDL as one script (`;`-separated), for printing.
pub fn schema_sql(spec: &SchemaSpec) -> Result<String, SpecError> {
    Ok(schema_objects(spec)?
        .iter()
        .map(|object| format!("{};\n", object.sql))
        .collect::<Vec<_>>()
        .join("\n"))
}
