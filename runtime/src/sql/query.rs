//! The query builder: conditions, ordering, projection and limits, checked against the spec
//! before any SQL is built, compiled to SQL with every value a bound parameter.
//!
//! Semantics (all operators are case-sensitive; use `REGEX` with `(?i)` to ignore case):
//!
//! | operator | applies to | meaning |
//! |---|---|---|
//! | `=` `!=` | every type | equal / not equal; with `value: null`, `IS NULL` / `IS NOT NULL` |
//! | `>` `>=` `<` `<=` | string, number, datetime, enum | ordering (strings by code point) |
//! | `CONTAINS` | string, datetime, enum | substring; on arrays: the array has this element |
//! | `STARTS WITH` `ENDS WITH` | string, datetime, enum | prefix / suffix (no wildcards) |
//! | `IN` | string, number, boolean, datetime, enum | value is one of an array of values |
//! | `REGEX` | string, datetime, enum | Rust `regex` syntax, matches anywhere unless anchored |
//! | `GLOB` | string, datetime, enum | SQLite GLOB: `*`, `?`, `[abc]` |
//! | `WITHIN` | point | in the box `[south, west, north, east]` (degrees; west > east crosses the antimeridian) |
//!
//! A record whose field is null matches no condition except `= null`. Datetime operands of
//! `=`, `!=`, ordering and `IN` are normalised to UTC like stored values. Results are ordered
//! by `order_by` and then by the unique field (ascending), so pages are deterministic.

use crate::__private::IntoEngine;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A record as the engine reads it: its fields by name.
type Record = Map<String, Value>;

use crate::ToolError;
use crate::spec::{EntitySpec, FieldType};

use super::backend::{ExecError, Reader, SqlDialect};
use super::database::GLOB_FUNCTION;
use super::value::{SqlValue, json_to_sql, sql_to_json, value_type_as_field_type};
use crate::sql::text::glob::{GlobPattern, prefix_successor};
use crate::sql::text::ident::{qualified, quote};
use crate::sql::text::names::{shorten, unknown_name_message};

/// The alias of the queried entity's row (the computed-field SQL refers to it).
pub const ROW_ALIAS: &str = "n";

/// The most values an `IN` condition may list.
pub const MAX_IN_VALUES: usize = 1000;

/// The longest GLOB pattern SQLite accepts (`SQLITE_MAX_LIKE_PATTERN_LENGTH`).
pub const MAX_GLOB_PATTERN_BYTES: usize = 50_000;

/// A comparison operator of a condition.
#[non_exhaustive]
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    IntoEngine,
)]
pub enum Operator {
    /// `=`
    #[serde(rename = "=")]
    Eq,
    /// `!=`
    #[serde(rename = "!=")]
    Ne,
    /// `>`
    #[serde(rename = ">")]
    Gt,
    /// `>=`
    #[serde(rename = ">=")]
    Ge,
    /// `<`
    #[serde(rename = "<")]
    Lt,
    /// `<=`
    #[serde(rename = "<=")]
    Le,
    /// `CONTAINS`: substring, or array element.
    #[serde(rename = "CONTAINS")]
    Contains,
    /// `STARTS WITH`
    #[serde(rename = "STARTS WITH")]
    StartsWith,
    /// `ENDS WITH`
    #[serde(rename = "ENDS WITH")]
    EndsWith,
    /// `IN` a list of values.
    #[serde(rename = "IN")]
    In,
    /// `REGEX` (Rust regex syntax).
    #[serde(rename = "REGEX")]
    Regex,
    /// `GLOB` (SQLite glob: `*`, `?`, `[...]`).
    #[serde(rename = "GLOB")]
    Glob,
    /// `WITHIN` a latitude–longitude box (point fields).
    #[serde(rename = "WITHIN")]
    Within,
}

impl Operator {
    /// Every operator, in documentation order.
    pub const ALL: [Operator; 13] = [
        Operator::Eq,
        Operator::Ne,
        Operator::Gt,
        Operator::Ge,
        Operator::Lt,
        Operator::Le,
        Operator::Contains,
        Operator::StartsWith,
        Operator::EndsWith,
        Operator::In,
        Operator::Regex,
        Operator::Glob,
        Operator::Within,
    ];

    /// The operator as written in a call (`STARTS WITH`).
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Eq => "=",
            Operator::Ne => "!=",
            Operator::Gt => ">",
            Operator::Ge => ">=",
            Operator::Lt => "<",
            Operator::Le => "<=",
            Operator::Contains => "CONTAINS",
            Operator::StartsWith => "STARTS WITH",
            Operator::EndsWith => "ENDS WITH",
            Operator::In => "IN",
            Operator::Regex => "REGEX",
            Operator::Glob => "GLOB",
            Operator::Within => "WITHIN",
        }
    }

    /// The operators that apply to a field of type `ty`.
    pub fn applicable(ty: FieldType) -> &'static [Operator] {
        use Operator::*;
        match ty {
            FieldType::String | FieldType::Datetime | FieldType::Enum => &[
                Eq, Ne, Gt, Ge, Lt, Le, Contains, StartsWith, EndsWith, In, Regex, Glob,
            ],
            FieldType::Number | FieldType::Integer => &[Eq, Ne, Gt, Ge, Lt, Le, In],

            FieldType::Boolean => &[Eq, Ne, In],
            FieldType::StringArray | FieldType::NumberArray => &[Eq, Ne, Contains],
            FieldType::Point => &[Within, Eq, Ne],
        }
    }
}

/// One condition: `{"field": ..., "operator": ..., "value": ...}`, with the field name as a
/// string (the engine's form) or as a generated field-name enum. An absent `value` reads as
/// `null`, although the tools' schemas require it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema, IntoEngine)]
#[schemars(description = "One condition on the record.")]
#[serde(deny_unknown_fields, bound(deserialize = "F: Deserialize<'de>"))]
pub struct Condition<F = String> {
    /// A field or computed field of the entity.
    #[schemars(extend("x-toolforge-slot" = "field"))]
    pub field: F,
    /// The comparison (see the tool description).
    #[schemars(extend("x-toolforge-slot" = "operator"))]
    pub operator: Operator,
    /// Of the field's type; an array for IN; null with = or != for a missing value.
    #[serde(default)]
    #[schemars(
        schema_with = "condition_value_schema",
        extend("x-toolforge-required" = true)
    )]
    pub value: Value,
}

/// The schema of a condition's value: a scalar, an array of scalars (for `IN`), or null.
fn condition_value_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            {"type": "string"},
            {"type": "number"},
            {"type": "boolean"},
            {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}},
            {"type": "null"}
        ]
    })
}

/// Sort direction.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    IntoEngine,
)]
pub enum Direction {
    /// Ascending (nulls first).
    #[default]
    #[serde(rename = "ASC", alias = "asc")]
    Asc,
    /// Descending (nulls last).
    #[serde(rename = "DESC", alias = "desc")]
    Desc,
}

/// `{"field": ..., "direction": "ASC" | "DESC"}`, with the field name as a string (the
/// engine's form) or as a generated field-name enum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema, IntoEngine)]
#[schemars(description = "A field to sort by, and the direction.")]
#[serde(deny_unknown_fields)]
pub struct OrderBy<F = String> {
    /// A field or computed field of the entity to sort by (not an array field).
    #[schemars(extend("x-toolforge-slot" = "sort_field"))]
    pub field: F,
    /// The direction.
    #[serde(default)]
    pub direction: Direction,
}

/// A field of an entity resolved to its SQL expression.
#[derive(Debug, Clone)]
pub struct FieldRef<'s> {
    /// The config name.
    pub name: &'s str,
    /// The value type (computed types mapped to the stored equivalents).
    pub ty: FieldType,
    /// Allowed values for enums.
    pub values: &'s [String],
    /// The SQL expression over the row alias `n`.
    pub sql: String,
    /// True for computed fields.
    pub computed: bool,
}

/// The names of an entity's fields of type `ty`, stored (the unique field left out) then
/// computed, in config order.
pub fn fields_of_type(entity: &EntitySpec, ty: FieldType) -> Vec<&str> {
    entity
        .fields
        .iter()
        .filter(|field| field.ty.is_like(ty) && field.name != entity.unique_field)
        .map(|field| field.name.as_str())
        .chain(
            entity
                .computed_fields
                .iter()
                .filter(|computed| value_type_as_field_type(computed.ty).is_like(ty))
                .map(|computed| computed.name.as_str()),
        )
        .collect()
}

/// Every queryable name of an entity: stored fields, then computed fields.
pub fn field_names(entity: &EntitySpec) -> Vec<&str> {
    entity
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .chain(entity.computed_fields.iter().map(|c| c.name.as_str()))
        .collect()
}

/// The names of an entity's text fields, the ones `GLOB` and the other text operators apply
/// to: stored string, enum and datetime fields (the unique field included), then computed
/// string and datetime fields.
pub fn text_field_names(entity: &EntitySpec) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    if entity.field(&entity.unique_field).is_none() {
        names.push(&entity.unique_field);
    }
    for field in &entity.fields {
        if (field.name == entity.unique_field && field.ty != FieldType::Integer)
            || matches!(
                field.ty,
                FieldType::String | FieldType::Enum | FieldType::Datetime
            )
        {
            names.push(&field.name);
        }
    }
    for computed in &entity.computed_fields {
        if matches!(
            value_type_as_field_type(computed.ty),
            FieldType::String | FieldType::Datetime
        ) {
            names.push(&computed.name);
        }
    }
    names
}

/// The names of an entity's fields `order_by` accepts: every stored and computed field but the
/// arrays and points.
pub fn sortable_field_names(entity: &EntitySpec) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    if entity.field(&entity.unique_field).is_none() {
        names.push(&entity.unique_field);
    }
    for field in &entity.fields {
        if field.name == entity.unique_field
            || !matches!(
                field.ty,
                FieldType::StringArray | FieldType::NumberArray | FieldType::Point
            )
        {
            names.push(&field.name);
        }
    }
    names.extend(entity.computed_fields.iter().map(|c| c.name.as_str()));
    names
}

/// Resolves a stored or computed field name; an unknown name is an `invalid_arguments` error
/// naming `path`, the nearest names and every valid one.
pub fn resolve_field<'s>(
    entity: &'s EntitySpec,
    name: &str,
    path: &str,
) -> Result<FieldRef<'s>, ToolError> {
    if let Some(field) = entity.field(name) {
        // A unique field is text in toolforge's own tables whatever its type; a mapped table's
        // integer key is an integer.
        let ty = if field.name == entity.unique_field && field.ty != FieldType::Integer {
            FieldType::String
        } else {
            field.ty
        };
        return Ok(FieldRef {
            name: &field.name,
            ty,
            values: &field.values,
            sql: qualified(ROW_ALIAS, &field.name),
            computed: false,
        });
    }
    if let Some(computed) = entity.computed_field(name) {
        let sql = match &computed.materialized_column {
            Some(column) => qualified(ROW_ALIAS, column),
            None => format!("({})", computed.sql),
        };
        return Ok(FieldRef {
            name: &computed.name,
            ty: value_type_as_field_type(computed.ty),
            values: &[],
            sql,
            computed: true,
        });
    }
    if name == entity.unique_field {
        return Ok(FieldRef {
            name: &entity.unique_field,
            ty: FieldType::String,
            values: &[],
            sql: qualified(ROW_ALIAS, &entity.unique_field),
            computed: false,
        });
    }
    let message = if entity.vector_indexes.iter().any(|v| v.column == name) {
        format!(
            "`{path}`: `{name}` is an embedding column of {}; it cannot be filtered, sorted or returned.",
            entity.name
        )
    } else {
        format!(
            "`{path}`: {}",
            unknown_name_message(
                "field",
                name,
                &format!(" on {}", entity.name),
                field_names(entity)
            )
        )
    };
    Err(
        ToolError::invalid_arguments(message).with_details(serde_json::json!({
            "path": path,
            "valid": field_names(entity),
        })),
    )
}

fn operand(field: &FieldRef<'_>, value: &Value, path: &str) -> Result<SqlValue, ToolError> {
    json_to_sql(field.ty, field.values, value).map_err(|message| {
        ToolError::invalid_arguments(format!(
            "`{path}`: field `{}` is {}: {message}",
            field.name,
            field.ty.config_name()
        ))
    })
}

fn text_operand(field: &FieldRef<'_>, value: &Value, path: &str) -> Result<String, ToolError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => Err(ToolError::invalid_arguments(format!(
            "`{path}`: this operator on `{}` needs a string value, got {}",
            field.name,
            super::value::describe_json(other)
        ))),
    }
}

fn push(params: &mut Vec<SqlValue>, value: SqlValue) -> String {
    params.push(value);
    format!("?{}", params.len())
}

/// The condition that the point stored in `column` lies in `bbox`, read through the indexes on
/// its coordinates (the longitude test split in two where the box crosses the antimeridian).
pub(crate) fn within_sql(
    column: &str,
    bbox: &crate::sql::places::BoundingBox,
    params: &mut Vec<SqlValue>,
    dialect: SqlDialect,
) -> String {
    use crate::sql::places::{Coordinate, coordinate_sql};
    let postgres = dialect == SqlDialect::Postgres;
    let latitude = coordinate_sql(column, Coordinate::Latitude, postgres);
    let longitude = coordinate_sql(column, Coordinate::Longitude, postgres);
    let south = push(params, SqlValue::Real(bbox.south));
    let north = push(params, SqlValue::Real(bbox.north));
    let mut sql = format!("{latitude} >= {south} AND {latitude} <= {north}");
    if !bbox.all_longitudes() {
        let west = push(params, SqlValue::Real(bbox.west));
        let east = push(params, SqlValue::Real(bbox.east));
        let join = if bbox.crosses_antimeridian() {
            "OR"
        } else {
            "AND"
        };
        sql.push_str(&format!(
            " AND ({longitude} >= {west} {join} {longitude} <= {east})"
        ));
    }
    format!("({sql})")
}

/// Where a condition's parts sit in the tool's arguments, for error messages
/// (`conditions[0].field`, or `field` / `pattern` for a tool with its own argument names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionPaths {
    /// The argument naming the field.
    pub field: String,
    /// The argument naming the operator.
    pub operator: String,
    /// The argument holding the value.
    pub value: String,
}

impl ConditionPaths {
    /// The paths of a `{field, operator, value}` object at `path`.
    pub fn under(path: &str) -> Self {
        ConditionPaths {
            field: format!("{path}.field"),
            operator: format!("{path}.operator"),
            value: format!("{path}.value"),
        }
    }
}

/// Compiles one condition to an SQL boolean expression, appending its parameters.
pub fn compile_condition(
    entity: &EntitySpec,
    condition: &Condition,
    paths: &ConditionPaths,
    params: &mut Vec<SqlValue>,
    dialect: SqlDialect,
) -> Result<String, ToolError> {
    let field = resolve_field(entity, &condition.field, &paths.field)?;
    let operator = condition.operator;
    let value_path = paths.value.as_str();
    let operator_path = &paths.operator;
    if !Operator::applicable(field.ty).contains(&operator) {
        let valid: Vec<&str> = Operator::applicable(field.ty)
            .iter()
            .map(|o| o.as_str())
            .collect();
        return Err(ToolError::invalid_arguments(format!(
            "`{operator_path}`: `{}` does not apply to `{}` ({}); use one of: {}",
            operator.as_str(),
            field.name,
            field.ty.config_name(),
            valid.join(", ")
        )));
    }
    let column = &field.sql;
    let is_array = matches!(field.ty, FieldType::StringArray | FieldType::NumberArray);
    if condition.value.is_null() {
        return match operator {
            Operator::Eq => Ok(format!("{column} IS NULL")),
            Operator::Ne => Ok(format!("{column} IS NOT NULL")),
            _ => Err(ToolError::invalid_arguments(format!(
                "`{value_path}`: `{}` needs a value (null is only allowed with = and !=)",
                operator.as_str()
            ))),
        };
    }
    let sql = match operator {
        Operator::Eq | Operator::Ne if field.ty == FieldType::Point => {
            return Err(ToolError::invalid_arguments(format!(
                "`{value_path}`: `{}` is a point field: `=` and `!=` take only null (a missing \
                 place); find places with `WITHIN` and a box {}",
                field.name,
                crate::sql::places::BOX_SHAPE
            )));
        }
        Operator::Within => {
            let bbox = crate::sql::places::BoundingBox::from_json(&condition.value).map_err(
                |problem| {
                    ToolError::invalid_arguments(format!(
                        "`{value_path}`: WITHIN on `{}` takes a box: {problem}",
                        field.name
                    ))
                },
            )?;
            within_sql(column, &bbox, params, dialect)
        }
        Operator::Eq | Operator::Ne | Operator::Gt | Operator::Ge | Operator::Lt | Operator::Le => {
            let p = push(params, operand(&field, &condition.value, value_path)?);
            format!("{column} {} {p}", operator.as_str())
        }
        Operator::Contains if is_array => {
            let element_ty = if field.ty == FieldType::StringArray {
                FieldType::String
            } else {
                FieldType::Number
            };
            let element = json_to_sql(element_ty, &[], &condition.value).map_err(|message| {
                ToolError::invalid_arguments(format!(
                    "`{value_path}`: CONTAINS on `{}` ({}) looks for one element: {message}",
                    field.name,
                    field.ty.config_name()
                ))
            })?;
            match dialect {
                SqlDialect::Sqlite => {
                    let p = push(params, element);
                    format!(
                        "EXISTS (SELECT 1 FROM json_each({column}) WHERE json_each.value = {p})"
                    )
                }
                SqlDialect::Postgres => {
                    let p = push(
                        params,
                        SqlValue::Text(Value::Array(vec![condition.value.clone()]).to_string()),
                    );
                    format!("{column} @> CAST({p} AS jsonb)")
                }
            }
        }
        Operator::Contains => {
            let p = push(
                params,
                SqlValue::Text(text_operand(&field, &condition.value, value_path)?),
            );
            dialect.contains(column, &p)
        }
        Operator::StartsWith => {
            let prefix = text_operand(&field, &condition.value, value_path)?;
            // On a stored column the prefix is also a range, which its index serves (text is
            // compared by code point on both backends: SQLite's BINARY, PostgreSQL's "C").
            let mut sql = String::new();
            if !field.computed && !prefix.is_empty() {
                let low = push(params, SqlValue::Text(prefix.clone()));
                sql.push_str(&format!("{column} >= {low} AND "));
                if let Some(high) = prefix_successor(&prefix) {
                    let high = push(params, SqlValue::Text(high));
                    sql.push_str(&format!("{column} < {high} AND "));
                }
            }
            let p = push(params, SqlValue::Text(prefix));
            sql.push_str(&dialect.starts_with(column, &p));
            sql
        }
        Operator::EndsWith => {
            let p = push(
                params,
                SqlValue::Text(text_operand(&field, &condition.value, value_path)?),
            );
            dialect.ends_with(column, &p)
        }
        Operator::Glob => {
            let pattern = text_operand(&field, &condition.value, value_path)?;
            if pattern.len() > MAX_GLOB_PATTERN_BYTES {
                return Err(ToolError::invalid_arguments(format!(
                    "`{value_path}`: GLOB patterns are limited to {MAX_GLOB_PATTERN_BYTES} bytes, got {}",
                    pattern.len()
                )));
            }
            // SQLite's own GLOB recurses once per `*` and can overflow the stack (see
            // `glob`); the registered function does not. A literal prefix becomes a range an
            // index on a stored column can serve, as SQLite does for its GLOB.
            let compiled = GlobPattern::new(&pattern);
            let mut sql = String::new();
            if !field.computed
                && let Some(prefix) = compiled.literal_prefix()
            {
                let low = push(params, SqlValue::Text(prefix.clone()));
                sql.push_str(&format!("{column} >= {low} AND "));
                if let Some(high) = prefix_successor(&prefix) {
                    let high = push(params, SqlValue::Text(high));
                    sql.push_str(&format!("{column} < {high} AND "));
                }
            }
            match dialect {
                SqlDialect::Sqlite => {
                    let p = push(params, SqlValue::Text(pattern));
                    sql.push_str(&format!("{GLOB_FUNCTION}({p}, CAST({column} AS TEXT))"));
                }
                SqlDialect::Postgres => match compiled.to_posix_regex() {
                    Some(regex) => {
                        let p = push(params, SqlValue::Text(regex));
                        sql.push_str(&format!("CAST({column} AS TEXT) ~ {p}"));
                    }
                    None => sql.push_str(dialect.false_sql()),
                },
            }
            format!("({sql})")
        }
        Operator::Regex => {
            let pattern = text_operand(&field, &condition.value, value_path)?;
            regex::RegexBuilder::new(&pattern)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| {
                    ToolError::invalid_arguments(format!(
                        "`{value_path}`: invalid REGEX pattern \"{}\": {}",
                        shorten(&pattern),
                        regex_problem(&e)
                    ))
                })?;
            let p = push(params, SqlValue::Text(pattern));
            dialect.regex_match(column, &p)
        }
        Operator::In => {
            let Value::Array(items) = &condition.value else {
                return Err(ToolError::invalid_arguments(format!(
                    "`{value_path}`: IN needs an array of values, got {}",
                    super::value::describe_json(&condition.value)
                )));
            };
            if items.len() > MAX_IN_VALUES {
                return Err(ToolError::invalid_arguments(format!(
                    "`{value_path}`: IN accepts at most {MAX_IN_VALUES} values, got {}",
                    items.len()
                )));
            }
            if items.is_empty() {
                return Ok(dialect.false_sql().into());
            }
            let mut placeholders = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                placeholders.push(push(
                    params,
                    operand(&field, item, &format!("{value_path}[{i}]"))?,
                ));
            }
            format!("{column} IN ({})", placeholders.join(", "))
        }
    };
    Ok(sql)
}

/// What is wrong with a REGEX pattern, on one line: the regex crate's message draws the pattern
/// with a caret under the problem over several lines; the last `error: ...` line says it.
fn regex_problem(error: &regex::Error) -> String {
    let text = error.to_string();
    let problem = text
        .lines()
        .rev()
        .find_map(|line| line.trim().strip_prefix("error: "))
        .unwrap_or_else(|| text.lines().last().unwrap_or_default().trim());
    shorten(problem)
}

/// The columns a query returns: each is a config name, its type and its SQL.
#[derive(Debug, Clone)]
pub struct Projection<'s> {
    columns: Vec<FieldRef<'s>>,
}

impl<'s> Projection<'s> {
    /// Every stored field (except embeddings) and every computed field, in config order.
    pub fn all(entity: &'s EntitySpec) -> Projection<'s> {
        let mut columns = Vec::new();
        for name in field_names(entity) {
            if let Ok(field) = resolve_field(entity, name, "fields") {
                columns.push(field);
            }
        }
        if entity.field(&entity.unique_field).is_none()
            && let Ok(field) = resolve_field(entity, &entity.unique_field, "fields")
        {
            columns.insert(0, field);
        }
        Projection { columns }
    }

    /// The unique field plus the listed fields (each checked; unknown names are errors).
    pub fn of(entity: &'s EntitySpec, names: &[String], path: &str) -> Result<Self, ToolError> {
        let mut columns = vec![resolve_field(entity, &entity.unique_field, path)?];
        for (i, name) in names.iter().enumerate() {
            let field = resolve_field(entity, name, &format!("{path}[{i}]"))?;
            if !columns.iter().any(|c| c.name == field.name) {
                columns.push(field);
            }
        }
        Ok(Projection { columns })
    }

    /// The SELECT list.
    pub fn select_list(&self) -> String {
        self.columns
            .iter()
            .map(|c| c.sql.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The number of columns.
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// True when there are no columns.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Reads one record from `row`, starting at column `offset`.
    pub fn record(&self, row: &[SqlValue], offset: usize) -> Map<String, Value> {
        let mut record = Map::with_capacity(self.columns.len());
        for (i, column) in self.columns.iter().enumerate() {
            let value = row
                .get(offset + i)
                .map_or(Value::Null, |value| sql_to_json(column.ty, value));
            record.insert(column.name.to_string(), value);
        }
        record
    }
}

/// A checked query over one entity.
#[derive(Debug, Clone)]
pub struct EntityQuery<'s> {
    /// The entity queried.
    pub entity: &'s EntitySpec,
    /// The columns returned.
    pub projection: Projection<'s>,
    /// The WHERE expression (`1` when there is no condition).
    pub where_sql: String,
    /// The ORDER BY list.
    pub order_sql: String,
    /// The bound parameters of `where_sql`.
    pub params: Vec<SqlValue>,
    /// The most records returned.
    pub limit: u32,
    /// How many matching records to skip (in order) before the first one returned.
    pub offset: u64,
}

/// How far a list answer counts its matches when more follow its page: past this many (or
/// past the end of the page, when that is further) it says "at least" instead of counting on.
/// Counting every match was a second full scan for a broad filter, costing as much as the page.
pub const COUNT_CAP: u64 = 1_000;

/// The total of a page of `returned` records from `offset` (`more`: records follow it) and
/// whether it is exact: known from the page when it is the last, else `count(cap)` counted up
/// to [`COUNT_CAP`], and always past the end of the page (so that `has_more` stays exact).
pub(crate) async fn page_total<E>(
    offset: u64,
    returned: usize,
    more: bool,
    limit: u32,
    count: impl AsyncFnOnce(u64) -> Result<u64, E>,
) -> Result<(u64, bool), E> {
    if !more && (returned > 0 || offset == 0) {
        return Ok((offset + returned as u64, true));
    }
    let cap = COUNT_CAP.max(offset + u64::from(limit) + 1);
    let counted = count(cap).await?;
    Ok((counted, counted < cap))
}

/// A page of results (records as JSON, unless `T` says otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T = Value> {
    /// How many records match in total: exactly when [`Page::total_exact`], otherwise at least
    /// this many (counting stopped at [`COUNT_CAP`]).
    pub total: u64,
    /// Whether [`Page::total`] is the exact count.
    pub total_exact: bool,
    /// How many matching records came before this page.
    pub offset: u64,
    /// The records returned (at most the limit).
    pub results: Vec<T>,
}

impl<T> Page<T> {
    /// True when more records matched than were returned (before or after this page).
    pub fn truncated(&self) -> bool {
        self.total > self.results.len() as u64
    }

    /// True when matching records follow this page: ask again from [`Page::next_offset`].
    pub fn has_more(&self) -> bool {
        self.next_offset() < self.total
    }

    /// The offset of the record after this page.
    pub fn next_offset(&self) -> u64 {
        self.offset + self.results.len() as u64
    }
}

/// The most conditions one call may give (more would exceed the databases' expression depth).
pub const MAX_CONDITIONS: usize = 100;

/// Compiles a list of conditions (joined with AND) named `path` (`conditions`).
pub fn compile_conditions(
    entity: &EntitySpec,
    conditions: &[Condition],
    path: &str,
    params: &mut Vec<SqlValue>,
    dialect: SqlDialect,
) -> Result<String, ToolError> {
    if conditions.is_empty() {
        return Ok(dialect.true_sql().into());
    }
    if conditions.len() > MAX_CONDITIONS {
        return Err(ToolError::invalid_arguments(format!(
            "`{path}` has {} conditions; one call takes at most {MAX_CONDITIONS}: keep the \
             conditions that narrow the most, or use `IN` with a list of values for one field",
            conditions.len()
        ))
        .with_details(serde_json::json!({"path": path, "maximum": MAX_CONDITIONS})));
    }
    let mut parts = Vec::with_capacity(conditions.len());
    for (i, condition) in conditions.iter().enumerate() {
        parts.push(format!(
            "({})",
            compile_condition(
                entity,
                condition,
                &ConditionPaths::under(&format!("{path}[{i}]")),
                params,
                dialect
            )?
        ));
    }
    Ok(parts.join(" AND "))
}

/// The ORDER BY list for an optional `order_by`, always ending with the unique field.
pub fn compile_order(
    entity: &EntitySpec,
    order_by: Option<&OrderBy>,
    dialect: SqlDialect,
) -> Result<String, ToolError> {
    let unique = qualified(ROW_ALIAS, &entity.unique_field);
    match order_by {
        None => Ok(format!("{unique} ASC")),
        Some(order) => {
            let field = resolve_field(entity, &order.field, "order_by.field")?;
            if matches!(
                field.ty,
                FieldType::StringArray | FieldType::NumberArray | FieldType::Point
            ) {
                let sortable = sortable_field_names(entity);
                let why = if field.ty == FieldType::Point {
                    "a point field, and places have no order to sort by (find_near orders \
                     them by distance from a place)"
                        .to_owned()
                } else {
                    format!(
                        "an {} field, and arrays have no order to sort by",
                        field.ty.config_name()
                    )
                };
                return Err(ToolError::invalid_arguments(format!(
                    "`order_by.field`: `{}` is {why}; sort by one of: {}",
                    field.name,
                    sortable.join(", ")
                ))
                .with_details(serde_json::json!({
                    "path": "order_by.field",
                    "valid": sortable,
                })));
            }
            // SQLite sorts nulls first when ascending and last when descending; PostgreSQL
            // the other way round unless told.
            let direction = dialect.order(order.direction == Direction::Desc);
            if field.name == entity.unique_field {
                Ok(format!("{unique} {direction}"))
            } else {
                Ok(format!("{} {direction}, {unique} ASC", field.sql))
            }
        }
    }
}

impl<'s> EntityQuery<'s> {
    /// Checks and compiles a query. Nothing touches the database.
    pub fn new(
        entity: &'s EntitySpec,
        conditions: &[Condition],
        order_by: Option<&OrderBy>,
        limit: u32,
        dialect: SqlDialect,
    ) -> Result<Self, ToolError> {
        let mut params = Vec::new();
        let where_sql = compile_conditions(entity, conditions, "conditions", &mut params, dialect)?;
        Self::compiled(entity, where_sql, params, order_by, limit, dialect)
    }

    /// Checks and compiles a query with one condition whose parts come from arguments named
    /// by `paths` (a tool such as `glob_search` with its own argument names).
    pub fn single(
        entity: &'s EntitySpec,
        condition: &Condition,
        paths: &ConditionPaths,
        limit: u32,
        dialect: SqlDialect,
    ) -> Result<Self, ToolError> {
        let mut params = Vec::new();
        let where_sql = compile_condition(entity, condition, paths, &mut params, dialect)?;
        Self::compiled(entity, where_sql, params, None, limit, dialect)
    }

    /// A query over `entity` with an already compiled WHERE expression and its parameters.
    pub(crate) fn compiled(
        entity: &'s EntitySpec,
        where_sql: String,
        params: Vec<SqlValue>,
        order_by: Option<&OrderBy>,
        limit: u32,
        dialect: SqlDialect,
    ) -> Result<Self, ToolError> {
        let order_sql = compile_order(entity, order_by, dialect)?;
        Ok(EntityQuery {
            entity,
            projection: Projection::all(entity),
            where_sql,
            order_sql,
            params,
            limit,
            offset: 0,
        })
    }

    /// The same query, skipping the first `offset` matching records.
    pub fn with_offset(mut self, offset: u64) -> Self {
        self.offset = offset;
        self
    }

    /// The SELECT statement (with `LIMIT limit + 1` to detect truncation).
    pub fn select_sql(&self) -> String {
        format!(
            "SELECT {} FROM {} AS {} WHERE {} ORDER BY {} LIMIT {} OFFSET {}",
            self.projection.select_list(),
            quote(&self.entity.table),
            quote(ROW_ALIAS),
            self.where_sql,
            self.order_sql,
            u64::from(self.limit) + 1,
            self.offset
        )
    }

    /// The COUNT statement, counting at most `cap` matches.
    pub fn count_sql(&self, cap: u64) -> String {
        format!(
            "SELECT count(*) FROM (SELECT 1 FROM {} AS {} WHERE {} LIMIT {cap}) AS \"counted\"",
            quote(&self.entity.table),
            quote(ROW_ALIAS),
            self.where_sql
        )
    }

    /// Runs the query: the page of records, and the total (counted only when it is not known
    /// from the page).
    pub(crate) async fn run(&self, conn: &dyn Reader) -> Result<Page<Record>, ExecError> {
        self.run_taking(conn, |_| true).await
    }

    /// Runs the query, offering each record in order to `take` and ending the page at the
    /// first one it refuses (or after `limit` records): the records taken, and the total.
    pub(crate) async fn run_taking(
        &self,
        conn: &dyn Reader,
        mut take: impl FnMut(&Record) -> bool,
    ) -> Result<Page<Record>, ExecError> {
        let rows = conn.rows(&self.select_sql(), &self.params).await?;
        let mut results = Vec::new();
        let mut more = false;
        for row in &rows {
            if results.len() as u64 >= u64::from(self.limit) {
                more = true;
                break;
            }
            let record = self.projection.record(row, 0);
            if !take(&record) {
                more = true;
                break;
            }
            results.push(record);
        }
        drop(rows);
        let (total, total_exact) =
            page_total(self.offset, results.len(), more, self.limit, async |cap| {
                conn.count(&self.count_sql(cap), &self.params).await
            })
            .await?;
        Ok(Page {
            total,
            total_exact,
            offset: self.offset,
            results,
        })
    }
}

/// The structured error a model sees when a statement fails: the backend's error code only,
/// never SQL text, file paths or server addresses.
pub fn exec_error(error: &ExecError) -> ToolError {
    error.tool_error()
}
