//! Tools declared in the config (`toolforge.declared_tools`): a parameterised query over one
//! entity whose `where:` and `order_by:` the generator compiled to SQL with `?N` parameters.
//!
//! The input schema is derived from the declared parameters (type, description, `enum`,
//! `minimum` / `maximum`, `pattern`, `default`) plus `limit` (at most the declared limit) and
//! `offset`; arguments are checked against the same declarations before any query runs, and
//! every value is bound. Answers are pages like `query_entities`'s; a tool in the trusted
//! `sql:` form answers pages of rows ([`crate::sql::tools::declared::sql_statement`]).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::spec::{DeclaredToolSpec, ParameterSpec, ParameterType, SchemaSpec};
use crate::{
    ContextValues, ErrorCode, ToolAnnotations, ToolContext, ToolDefinition, ToolError, ToolFuture,
};

use crate::sql::backend::Reader;
use crate::sql::query::{EntityQuery, Projection, ROW_ALIAS};
use crate::sql::text::dates;
use crate::sql::text::ident::qualified;
use crate::sql::text::names::shorten;
use crate::sql::tools::shared::answers;
use crate::sql::tools::shared::common::{self, HandlerError, PageLimits, Shared, list_page};
use crate::sql::tools::shared::source::DatabaseSource;
use crate::sql::value::{SqlValue, describe_json, number_to_sql};

/// The arguments every declared tool takes besides its parameters.
const PAGING_ARGUMENTS: [&str; 2] = ["limit", "offset"];

/// One declared tool bound to where its database comes from.
pub(crate) struct DeclaredTool {
    source: DatabaseSource,
    /// Its position in `spec.declared_tools`.
    index: usize,
    /// Each parameter's pattern, compiled once.
    patterns: Vec<Option<regex::Regex>>,
    /// The parameters bound to context values.
    context_bound: Vec<String>,
    definition: ToolDefinition,
}

impl DeclaredTool {
    /// The declared tool at `index` of the spec of `source`.
    pub(crate) fn new(source: DatabaseSource, index: usize) -> Option<DeclaredTool> {
        let spec = match &source {
            DatabaseSource::Bound(shared) => shared.spec.clone(),
            DatabaseSource::Context(spec) => spec.clone(),
        };
        let tool = spec.declared_tools.get(index)?;
        let patterns = tool
            .parameters
            .iter()
            .map(|param| {
                param
                    .pattern
                    .as_deref()
                    .and_then(|pattern| regex::Regex::new(pattern).ok())
            })
            .collect();
        let context_bound = tool
            .parameters
            .iter()
            .filter(|param| param.from_context.is_some())
            .map(|param| param.name.clone())
            .collect();
        Some(DeclaredTool {
            definition: definition(&spec, tool),
            context_bound,
            source,
            index,
            patterns,
        })
    }
}

/// The definitions of the spec's declared tools, in config order.
pub(crate) fn definitions(spec: &SchemaSpec) -> Vec<ToolDefinition> {
    spec.declared_tools
        .iter()
        .map(|tool| definition(spec, tool))
        .collect()
}

/// The tool's definition: read-only, idempotent, closed world, with the page answer's schema.
fn definition(spec: &SchemaSpec, tool: &DeclaredToolSpec) -> ToolDefinition {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in tool.parameters.iter().filter(|p| p.from_context.is_none()) {
        properties.insert(param.name.clone(), parameter_schema(param));
        if param.required {
            required.push(Value::String(param.name.clone()));
        }
    }
    properties.insert(
        "limit".into(),
        json!({
            "type": "integer", "minimum": 1, "maximum": tool.limit,
            "description": format!("The most records to return (default and at most {}).", tool.limit),
        }),
    );
    properties.insert(
        "offset".into(),
        json!({
            "type": "integer", "minimum": 0,
            "description": "Records to skip: 0 (the default), then the previous answer's `next_offset`.",
        }),
    );
    let mut schema =
        json!({"type": "object", "properties": properties, "additionalProperties": false});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    let mut description = tool.description.clone();
    if !description.ends_with('.') {
        description.push('.');
    }
    let output_schema = match &tool.sql {
        None => {
            description.push_str(&format!(
                " Returns `{}` records, at most {} per page (page with `offset`).",
                tool.entity, tool.limit
            ));
            answers::output_schema::<answers::EntityPage>(spec)
        }
        Some(_) => {
            description.push_str(&format!(
                " Returns rows as objects (column name to value), at most {} per page (page with `offset`).",
                tool.limit
            ));
            crate::sql::tools::declared::sql_statement::output_schema(spec)
        }
    };
    ToolDefinition {
        name: tool.name.clone(),
        title: Some(title(&tool.name)),
        description: crate::dialect::fit_description(&description).into_owned(),
        input_schema: schema,
        output_schema: Some(output_schema),
        annotations: ToolAnnotations {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        },
        capabilities: vec!["database".into(), "read".into()],
        keywords: Vec::new(),
    }
}

/// `open_loans_of_member` → `Open loans of member`.
fn title(name: &str) -> String {
    let spaced = name.replace(['_', '-'], " ");
    let mut chars = spaced.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => name.to_owned(),
    }
}

/// The JSON Schema of one parameter.
fn parameter_schema(param: &ParameterSpec) -> Value {
    let mut schema = Map::new();
    let ty = match param.ty {
        ParameterType::String | ParameterType::Datetime => "string",
        ParameterType::Number => "number",
        ParameterType::Integer => "integer",
        ParameterType::Boolean => "boolean",
        ParameterType::StringArray | ParameterType::NumberArray => "array",
        ParameterType::Point => "object",
    };
    schema.insert("type".into(), json!(ty));
    match param.ty {
        ParameterType::StringArray => {
            schema.insert("items".into(), json!({"type": "string"}));
        }
        ParameterType::NumberArray => {
            schema.insert("items".into(), json!({"type": "number"}));
        }
        ParameterType::Point => {
            schema.insert(
                "properties".into(),
                json!({"latitude": {"type": "number", "minimum": -90, "maximum": 90},
                       "longitude": {"type": "number", "minimum": -180, "maximum": 180}}),
            );
            schema.insert("required".into(), json!(["latitude", "longitude"]));
            schema.insert("additionalProperties".into(), json!(false));
        }
        _ => {}
    }
    let mut description = param.description.clone().unwrap_or_default();
    if param.ty == ParameterType::Datetime {
        if !description.is_empty() && !description.ends_with('.') {
            description.push('.');
        }
        if !description.is_empty() {
            description.push(' ');
        }
        description.push_str("ISO 8601, or relative: `now`, `today`, `7 days ago`, `in 2 weeks`.");
    }
    if !description.is_empty() {
        schema.insert("description".into(), json!(description));
    }
    if !param.allowed.is_empty() {
        schema.insert("enum".into(), Value::Array(param.allowed.clone()));
    }
    if let Some(min) = param.min {
        schema.insert("minimum".into(), json!(min));
    }
    if let Some(max) = param.max {
        schema.insert("maximum".into(), json!(max));
    }
    if let Some(pattern) = &param.pattern {
        schema.insert("pattern".into(), json!(pattern));
    }
    if let Some(default) = &param.default {
        schema.insert("default".into(), default.clone());
    }
    Value::Object(schema)
}

impl crate::Tool for DeclaredTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn context_bound_arguments(&self) -> &[String] {
        &self.context_bound
    }

    fn call<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        let shared = match &self.source {
            DatabaseSource::Bound(shared) => shared.clone(),
            DatabaseSource::Context(spec) => match common::context_database(context) {
                Ok(db) => Arc::new(Shared::new(spec.clone(), db)),
                Err(error) => return Box::pin(async move { Err(error) }),
            },
        };
        let Some(tool) = shared.spec.declared_tools.get(self.index) else {
            return Box::pin(async move {
                Err(ToolError::execution_failed(
                    "the declared tool is not in the spec",
                ))
            });
        };
        let call = match Call::read(tool, &self.patterns, arguments, context.values()) {
            Ok(call) => call,
            Err(error) => return Box::pin(async move { Err(error) }),
        };
        let index = self.index;
        common::run_with(shared, context.values().clone(), move |spec, conn, _| {
            Box::pin(call.execute(spec, index, conn))
        })
    }
}

/// A call's checked arguments: the bound values of the parameters, in order, and the page.
struct Call {
    values: Vec<SqlValue>,
    limit: Option<i64>,
    offset: Option<i64>,
}

impl Call {
    /// Checks `arguments` against the tool's parameters: unknown keys, missing required
    /// values, types, `enum`, `min` / `max` and `pattern`, each a located error. Parameters
    /// bound to context values take them from `context_values`: a call that gives one is refused, and
    /// so is a call without the context value (never run unbound).
    fn read(
        tool: &DeclaredToolSpec,
        patterns: &[Option<regex::Regex>],
        arguments: Value,
        context_values: &ContextValues,
    ) -> Result<Call, ToolError> {
        let arguments = match arguments {
            Value::Null => Map::new(),
            Value::Object(map) => map,
            other => {
                return Err(ToolError::invalid_arguments(format!(
                    "Invalid arguments for {}: expected an object, got {}",
                    tool.name,
                    describe_json(&other)
                )));
            }
        };
        if let Some(bound) = tool
            .parameters
            .iter()
            .find(|param| param.from_context.is_some() && arguments.contains_key(&param.name))
        {
            return Err(crate::tool::context_bound_error(&tool.name, &bound.name));
        }
        let valid: Vec<&str> = tool
            .parameters
            .iter()
            .filter(|param| param.from_context.is_none())
            .map(|param| param.name.as_str())
            .chain(PAGING_ARGUMENTS)
            .collect();
        if let Some(unknown) = arguments.keys().find(|key| !valid.contains(&key.as_str())) {
            return Err(ToolError::invalid_arguments(format!(
                "`{}` is not an argument of {}; its arguments are: {}",
                shorten(unknown),
                tool.name,
                valid.join(", ")
            ))
            .with_details(json!({"path": unknown, "valid": valid})));
        }
        let integer = |key: &str| -> Result<Option<i64>, ToolError> {
            match arguments.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => common::optional_integer(value.clone()).map_err(|_| {
                    ToolError::invalid_arguments(format!(
                        "`{key}` must be an integer, got {}",
                        describe_json(value)
                    ))
                    .with_details(json!({"path": key}))
                }),
            }
        };
        let limit = integer("limit")?;
        let offset = integer("offset")?;
        let now = jiff::Timestamp::now();
        let mut values = Vec::with_capacity(tool.parameters.len());
        for (param, pattern) in tool.parameters.iter().zip(patterns) {
            let from_context;
            let given = match &param.from_context {
                None => arguments.get(&param.name).filter(|value| !value.is_null()),
                Some(name) => {
                    let Some(value) = context_values.get(name) else {
                        return Err(ToolError::new(
                            ErrorCode::Unavailable,
                            format!(
                                "{} needs the context value `{name}` (for `{}`), which the host did not set for this call",
                                tool.name, param.name
                            ),
                        )
                        .with_details(json!({"path": param.name, "context_value": name, "missing": true})));
                    };
                    from_context = context_value(param.ty, value);
                    Some(&from_context)
                }
            };
            let value = match (given, &param.default) {
                (Some(value), _) => value,
                (None, Some(default)) => default,
                (None, None) if param.required => {
                    return Err(ToolError::invalid_arguments(format!(
                        "`{}` is required by {}",
                        param.name, tool.name
                    ))
                    .with_details(json!({"path": param.name, "missing": true})));
                }
                (None, None) => {
                    values.push(SqlValue::Null);
                    continue;
                }
            };
            values.push(
                bind(param, pattern.as_ref(), value, now).map_err(|problem| {
                    match &param.from_context {
                        None => ToolError::invalid_arguments(format!("`{}`: {problem}", param.name))
                            .with_details(json!({"path": param.name})),
                        Some(name) => ToolError::new(
                            ErrorCode::Unavailable,
                            format!(
                                "the context value `{name}` the host set is not a valid `{}` of {}: {problem}",
                                param.name, tool.name
                            ),
                        )
                        .with_details(json!({"path": param.name, "context_value": name})),
                    }
                })?,
            );
        }
        Ok(Call {
            values,
            limit,
            offset,
        })
    }

    /// The call's `limit`, checked against the tool's (its default).
    fn requested(&self, tool: &DeclaredToolSpec) -> Result<u32, ToolError> {
        match self.limit {
            None => Ok(tool.limit),
            Some(n) if n >= 1 && n <= i64::from(tool.limit) => Ok(n as u32),
            Some(n) => Err(ToolError::invalid_arguments(format!(
                "`limit` must be between 1 and {}, got {n}",
                tool.limit
            ))
            .with_details(json!({"path": "limit", "minimum": 1, "maximum": tool.limit}))),
        }
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        index: usize,
        conn: &dyn Reader,
    ) -> Result<Value, HandlerError> {
        let tool = spec
            .declared_tools
            .get(index)
            .ok_or_else(|| ToolError::execution_failed("the declared tool is not in the spec"))?;
        if let Some(sql) = &tool.sql {
            let requested = self.requested(tool)?;
            let offset = common::offset(self.offset)?;
            return crate::sql::tools::declared::sql_statement::run(
                tool,
                sql,
                conn,
                self.values,
                requested,
                offset,
            )
            .await;
        }
        let entity = common::entity(spec, &tool.entity, "entity")?;
        let requested = self.requested(tool)?;
        let limits = PageLimits::capped(requested);
        let offset = common::offset(self.offset)?;
        let dialect = conn.dialect();
        let unique = qualified(ROW_ALIAS, &entity.unique_field);
        let mut order: Vec<String> = tool
            .order_by
            .iter()
            .map(|item| {
                let direction = dialect.order(item.descending);
                format!("{} {direction}", item.sql)
            })
            .collect();
        order.push(format!("{unique} ASC"));
        let query = EntityQuery {
            entity,
            projection: Projection::all(entity),
            where_sql: tool
                .where_sql
                .clone()
                .unwrap_or_else(|| dialect.true_sql().to_owned()),
            order_sql: order.join(", "),
            params: self.values,
            limit: limits.rows,
            offset,
        };
        common::answer_json(list_page(conn, query, &entity.name, &limits).await?)
    }
}

/// A context value (text) as the JSON value a parameter of type `ty` reads: numbers and
/// booleans are parsed, anything else stays text (and then fails the type check).
fn context_value(ty: ParameterType, text: &str) -> Value {
    let parsed = match ty {
        ParameterType::Number | ParameterType::Integer | ParameterType::Boolean => {
            serde_json::from_str::<Value>(text.trim()).ok()
        }
        ParameterType::String | ParameterType::Datetime => None,
        // A list or a place from the context is its JSON text.
        ParameterType::StringArray | ParameterType::NumberArray | ParameterType::Point => {
            return serde_json::from_str::<Value>(text.trim())
                .unwrap_or_else(|_| Value::String(text.to_owned()));
        }
    };
    parsed
        .filter(|value| value.is_number() || value.is_boolean())
        .unwrap_or_else(|| Value::String(text.to_owned()))
}

/// The bound value of `param` for `value`, or what is wrong with it.
fn bind(
    param: &ParameterSpec,
    pattern: Option<&regex::Regex>,
    value: &Value,
    now: jiff::Timestamp,
) -> Result<SqlValue, String> {
    let wrong = |expected: &str| format!("expected {expected}, got {}", describe_json(value));
    if !param.allowed.is_empty() && !param.allowed.contains(value) {
        let allowed: Vec<String> = param.allowed.iter().map(Value::to_string).collect();
        return Err(format!(
            "{} is not one of the allowed values: {}",
            shorten(&value.to_string()),
            allowed.join(", ")
        ));
    }
    match (param.ty, value) {
        (ParameterType::String, Value::String(text)) => {
            if let Some(pattern) = pattern
                && !pattern.is_match(text)
            {
                return Err(format!(
                    "\"{}\" does not match the pattern {}",
                    shorten(text),
                    param.pattern.as_deref().unwrap_or_default()
                ));
            }
            Ok(SqlValue::Text(text.clone()))
        }
        (ParameterType::Datetime, Value::String(text)) => {
            dates::resolve(text, now).map(SqlValue::Text)
        }
        (ParameterType::Boolean, Value::Bool(flag)) => Ok(SqlValue::Integer(i64::from(*flag))),
        (ParameterType::Number | ParameterType::Integer, Value::Number(number)) => {
            let x = number.as_f64().unwrap_or(f64::NAN);
            if param.ty == ParameterType::Integer && x.fract() != 0.0 {
                return Err(wrong("a whole number"));
            }
            if let Some(min) = param.min
                && x < min
            {
                return Err(format!("{number} is below the minimum {min}"));
            }
            if let Some(max) = param.max
                && x > max
            {
                return Err(format!("{number} is above the maximum {max}"));
            }
            if param.ty == ParameterType::Integer {
                Ok(number
                    .as_i64()
                    .map_or_else(|| number_to_sql(number), SqlValue::Integer))
            } else {
                Ok(number_to_sql(number))
            }
        }
        (ParameterType::StringArray | ParameterType::NumberArray, Value::Array(items)) => {
            let (element, fits): (&str, fn(&Value) -> bool) =
                if param.ty == ParameterType::StringArray {
                    ("strings", Value::is_string)
                } else {
                    ("numbers", Value::is_number)
                };
            match items.iter().position(|item| !fits(item)) {
                Some(i) => Err(format!(
                    "expected an array of {element}, but element {i} is {}",
                    describe_json(&items[i])
                )),
                None => Ok(SqlValue::Text(value.to_string())),
            }
        }
        (ParameterType::Point, value) => crate::sql::places::Point::from_json(value)
            .map(|point| SqlValue::Text(point.to_json_text())),
        (ParameterType::StringArray, _) => Err(wrong("an array of strings")),
        (ParameterType::NumberArray, _) => Err(wrong("an array of numbers")),
        (ParameterType::String, _) => Err(wrong("a string")),
        (ParameterType::Datetime, _) => Err(wrong("a date string")),
        (ParameterType::Boolean, _) => Err(wrong("true or false")),
        (ParameterType::Number, _) => Err(wrong("a number")),
        (ParameterType::Integer, _) => Err(wrong("an integer")),
    }
}
