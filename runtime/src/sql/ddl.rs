//! DDL from a [`SchemaSpec`]: one table per entity, one edge table per relationship, indexes.
//!
//! Column types: `string`, `datetime` and `enum` → `TEXT` (enum with a `CHECK` on its values),
//! `number` → `NUMERIC`, `boolean` → `INTEGER` with `CHECK (x IN (0, 1))`, arrays → `TEXT` with
//! `CHECK (json_valid(x))`, embeddings → `BLOB`. The unique field is `TEXT NOT NULL UNIQUE`.
//! Materialized computed fields become `STORED` generated columns (computed once on write,
//! indexable, read like any column). An entity with a `full_text_index` gets an FTS5 table and
//! the triggers that keep it in sync ([`full_text`](super::full_text)).

use crate::spec::{EntitySpec, FieldSpec, FieldType, RelationshipSpec, SchemaSpec, ValueType};

use super::ident::{quote, strip_row_alias};

/// The kind of a schema object.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// A table.
    Table,
    /// An index.
    Index,
    /// A full-text (FTS5) table over an entity's table.
    FullTextTable,
    /// A trigger keeping a full-text table in sync (its `table` is that full-text table).
    Trigger,
}

impl ObjectKind {
    /// `table`, `index` or `trigger`, as in `sqlite_schema.type`.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectKind::Table | ObjectKind::FullTextTable => "table",
            ObjectKind::Index => "index",
            ObjectKind::Trigger => "trigger",
        }
    }
}

/// One expected column of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    /// The column name.
    pub name: String,
    /// The declared type (`TEXT`, `NUMERIC`, ...).
    pub decl_type: String,
    /// True for generated columns.
    pub generated: bool,
}

/// One CREATE statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaObject {
    /// Table or index.
    pub kind: ObjectKind,
    /// The object's name.
    pub name: String,
    /// The table an index belongs to (the table itself for tables).
    pub table: String,
    /// The exact CREATE statement (SQLite stores it verbatim).
    pub sql: String,
    /// The table's columns (empty for indexes).
    pub columns: Vec<ColumnDef>,
}

/// A spec that cannot be turned into tables.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// Two columns of one table have the same name (a field, a vector index or a materialized
    /// computed field), compared ignoring ASCII case as SQLite does.
    #[error("entity `{entity}` has two columns named `{column}`")]
    DuplicateColumn {
        /// The entity.
        entity: String,
        /// The repeated column name.
        column: String,
    },
    /// A materialized computed field aggregates over a relationship, which a generated column
    /// cannot do.
    #[error(
        "computed field `{field}` of `{entity}` is materialized but aggregates over a \
         relationship; a generated column can only use the record's own fields (remove \
         `materialized`)"
    )]
    MaterializedAggregate {
        /// The entity.
        entity: String,
        /// The computed field.
        field: String,
    },
    /// A relationship names an entity the spec does not have.
    #[error("relationship `{relationship}` refers to the unknown entity `{entity}`")]
    UnknownEntity {
        /// The relationship type.
        relationship: String,
        /// The missing entity.
        entity: String,
    },
    /// A relationship property is named like an edge column or like another property.
    #[error(
        "relationship `{relationship}` has a property named `{property}`, which is reserved or \
         repeated"
    )]
    ReservedProperty {
        /// The relationship type.
        relationship: String,
        /// The property.
        property: String,
    },
    /// Two tables or indexes have the same name (compared ignoring ASCII case, as SQLite does).
    #[error("two schema objects are named `{name}`")]
    DuplicateObject {
        /// The name.
        name: String,
    },
    /// A field of a full-text index is named like a column FTS5 keeps for itself (`rank`,
    /// `rowid`) or like the full-text table.
    #[error(
        "the full-text index of `{entity}` lists the field `{field}`, a name the full-text \
         table keeps for itself; index another field, or rename this one"
    )]
    ReservedFullTextColumn {
        /// The entity.
        entity: String,
        /// The field.
        field: String,
    },
    /// A table or index name starts with `sqlite_`, which SQLite reserves for itself.
    #[error("the name `{name}` starts with `sqlite_`, which SQLite reserves for itself")]
    ReservedName {
        /// The name.
        name: String,
    },
}

/// The name of the index on an entity's `indexed` field: `<table>__<field>__idx`.
///
/// ```
/// assert_eq!(toolforge::sql::ddl::field_index_name("scope", "name"), "scope__name__idx");
/// ```
pub fn field_index_name(table: &str, field: &str) -> String {
    format!("{table}__{field}__idx")
}

/// The name of an edge table's index on its target: `<edge_table>__target_id__idx`.
///
/// ```
/// assert_eq!(
///     toolforge::sql::ddl::target_index_name("scope__defined_in__file"),
///     "scope__defined_in__file__target_id__idx"
/// );
/// ```
pub fn target_index_name(edge_table: &str) -> String {
    format!("{edge_table}__target_id__idx")
}

/// The columns every edge table has before the relationship's properties.
pub const EDGE_COLUMNS: [&str; 2] = ["source_id", "target_id"];

/// True when SQLite reserves `name` for itself: names starting with `sqlite_`, in any case.
///
/// ```
/// use toolforge::sql::ddl::is_reserved_name;
/// assert!(is_reserved_name("sqlite_master") && is_reserved_name("SQLite_stat1"));
/// assert!(!is_reserved_name("sqlite") && !is_reserved_name("my_sqlite_table"));
/// ```
pub fn is_reserved_name(name: &str) -> bool {
    name.get(..7)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("sqlite_"))
}

/// A SQL string literal: `'it''s'`.
pub fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn field_column(field: &FieldSpec, unique: bool) -> (String, String) {
    let column = quote(&field.name);
    if unique {
        return (format!("{column} TEXT NOT NULL UNIQUE"), "TEXT".into());
    }
    match field.ty {
        FieldType::String | FieldType::Datetime => (format!("{column} TEXT"), "TEXT".into()),
        FieldType::Number => (format!("{column} NUMERIC"), "NUMERIC".into()),
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
        FieldType::StringArray | FieldType::NumberArray => (
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
        if field.indexed && field.name != entity.unique_field {
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
    objects.extend(super::full_text::full_text_objects(entity)?);
    Ok(objects)
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
///         name: "Book".into(), table: "book".into(), description: None,
///         unique_field: "isbn".into(), display_name_field: None, query_field: None,
///         content_field: None, example_display_fields: vec![],
///         fields: vec![FieldSpec { name: "isbn".into(), ty: FieldType::String, description: None,
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
    for entity in &spec.entities {
        objects.extend(entity_objects(entity)?);
    }
    for relationship in &spec.relationships {
        objects.extend(relationship_objects(spec, relationship)?);
    }
    if spec.entities.iter().any(|e| !e.vector_indexes.is_empty()) {
        objects.push(versions_table("TEXT", "BIGINT"));
    }
    if spec.change_log.is_some() {
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
}

/// The change log's check of `change_type`, as comparisons joined by `OR`: SQLite runs a
/// CHECK's `IN (...)` list by building a temporary table each time a statement runs, which
/// made every change row cost microseconds more.
const CHANGE_TYPE_CHECK: &str =
    "\"change_type\" = 'created' OR \"change_type\" = 'updated' OR \"change_type\" = 'deleted'";

/// The same check as databases created by earlier versions have it.
#[cfg(feature = "sqlite")]
const LEGACY_CHANGE_TYPE_CHECK: &str = "\"change_type\" IN ('created', 'updated', 'deleted')";

/// Whether `found`, the SQL of an object in a database, is an earlier version's form of
/// `expected` that means the same: the change log with its check written as `IN (...)`.
#[cfg(feature = "sqlite")]
pub(crate) fn is_earlier_form(expected: &SchemaObject, found: &str) -> bool {
    expected.kind == ObjectKind::Table
        && expected.name == crate::spec::CHANGES_TABLE
        && found
            == expected
                .sql
                .replace(CHANGE_TYPE_CHECK, LEGACY_CHANGE_TYPE_CHECK)
}

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
