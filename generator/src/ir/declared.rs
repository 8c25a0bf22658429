//! Declared tools (`toolforge.declared_tools`): their parameters checked, their `where:` and
//! `order_by:` compiled against the lowered schema. Every problem is a located diagnostic; a
//! tool with an error is left out of the spec.

use serde_json::Value;
use toolforge::spec::{
    DeclaredOrderSpec, DeclaredSqlSpec, DeclaredToolSpec, ParameterSpec, ParameterType, SchemaSpec,
};
use toolforge_names::validate_tool_name;

use crate::config::Config;
use crate::config::options::{DeclaredParameter, DeclaredSql, DeclaredTool};

use super::declared_sql::{Backend, bind_parameters};
use crate::config::spans::At;
use crate::diagnostics::Severity;
use crate::expr::{
    CompiledClause, ExprError, ParamSource, compile_declared_condition, compile_declared_order,
};
use crate::naming::is_identifier;
use crate::report::{Reporter, suggestion};
use crate::sqlite_check::SqliteCheck;

pub(super) fn lower_declared_tools(config: &Config, spec: &mut SchemaSpec, r: &mut Reporter<'_>) {
    let Some(declared) = config
        .toolforge
        .as_ref()
        .and_then(|t| t.declared_tools.as_ref())
    else {
        return;
    };
    let generated: Vec<String> = spec
        .database_tool_names()
        .into_iter()
        .map(|name| format!("{}{name}", spec.tools.name_prefix))
        .chain(std::iter::once("batch".to_owned()))
        .collect();
    let mut lowered = Vec::new();
    for (i, tool) in declared.iter().enumerate() {
        let base = format!("toolforge.declared_tools[{i}]");
        let errors = r.error_count();
        if let Err(problem) = validate_tool_name(&tool.name) {
            r.error(
                &format!("{base}.name"),
                format!("`{}` is not a valid tool name: {problem}", tool.name),
            )
            .hint("use 1 to 64 letters, digits, `_` and `-`")
            .emit();
        } else if generated.contains(&tool.name) {
            r.error(
                &format!("{base}.name"),
                format!("`{}` is already the name of a generated tool", tool.name),
            )
            .hint("choose another name, or switch the generated tool's family off")
            .emit();
        } else if let Some(first) = declared[..i].iter().position(|t| t.name == tool.name) {
            r.error(
                &format!("{base}.name"),
                format!("declared tool `{}` is declared twice", tool.name),
            )
            .related(
                &format!("toolforge.declared_tools[{first}].name"),
                "first declared here",
            )
            .hint("rename one of them")
            .emit();
        }
        if tool
            .description
            .as_deref()
            .is_none_or(|d| d.trim().is_empty())
        {
            r.error(
                &base,
                format!("declared tool `{}` has no `description`", tool.name),
            )
            .hint(
                "say what the tool returns, for the model: `description: Open loans of one member`",
            )
            .emit();
        }
        let parameters = lower_parameters(tool, &base, r);
        let limit = match tool.limit {
            None => spec.tools.default_limit.min(spec.tools.max_limit),
            Some(n) if n >= 1 && n <= i64::from(spec.tools.max_limit) => n as u32,
            Some(n) => {
                r.error(
                    &format!("{base}.limit"),
                    format!(
                        "`limit` must be between 1 and {} (`toolforge.max_limit`), got {n}",
                        spec.tools.max_limit
                    ),
                )
                .hint("lower it, or raise `toolforge.max_limit`")
                .emit();
                1
            }
        };
        if let Some(sql) = &tool.sql {
            let Some(parameters) = parameters else {
                continue;
            };
            if let Some(lowered_tool) = lower_sql_tool(tool, sql, &base, parameters, limit, spec, r)
                && r.error_count() == errors
            {
                lowered.push(lowered_tool);
            }
            continue;
        }
        if tool.entity.is_empty() {
            r.error(
                &base,
                format!(
                    "declared tool `{}` has neither `entity` nor `sql`",
                    tool.name
                ),
            )
            .hint("name the entity it returns (`entity: Loan`), or give its statement under `sql:`")
            .emit();
            continue;
        }
        if spec.entity(&tool.entity).is_none() {
            let names: Vec<&str> = spec.entities.iter().map(|e| e.name.as_str()).collect();
            r.error(
                &format!("{base}.entity"),
                format!("`{}` is not an entity of this config", tool.entity),
            )
            .hint(suggestion(&tool.entity, names.iter().copied(), "entities"))
            .emit();
            continue;
        }
        let Some(parameters) = parameters else {
            continue;
        };
        let sources: Vec<ParamSource<'_>> = parameters
            .iter()
            .map(|param| ParamSource {
                name: &param.name,
                ty: param.ty,
            })
            .collect();
        let mut used = vec![false; parameters.len()];
        let mut mark = |clause: &CompiledClause| {
            for &index in &clause.params_used {
                used[index] = true;
            }
        };
        let condition = match &tool.where_clause {
            None => None,
            Some(text) => {
                match compile_declared_condition(spec, &tool.entity, &tool.name, text, &sources) {
                    Ok(clause) => {
                        mark(&clause);
                        Some(clause)
                    }
                    Err(error) => {
                        report(r, &format!("{base}.where"), text, &error);
                        None
                    }
                }
            }
        };
        let mut order_by = Vec::new();
        if let Some(text) = &tool.order_by {
            match compile_declared_order(spec, &tool.entity, &tool.name, text, &sources) {
                Ok(items) => {
                    for item in items {
                        mark(&item.clause);
                        order_by.push(DeclaredOrderSpec {
                            sql: item.clause.sql,
                            postgres_sql: item.clause.postgres_sql,
                            descending: item.descending,
                        });
                    }
                }
                Err(error) => report(r, &format!("{base}.order_by"), text, &error),
            }
        }
        if r.error_count() > errors {
            continue;
        }
        for (param, used) in parameters.iter().zip(&used) {
            if !used {
                r.at(
                    Severity::Error,
                    &format!("{base}.parameters.{}", param.name),
                    At::Key,
                    format!(
                        "parameter `{}` of declared tool `{}` is never used",
                        param.name, tool.name
                    ),
                )
                .hint(format!(
                    "use `:{}` in `where` or `order_by`, or remove the parameter",
                    param.name
                ))
                .emit();
            }
        }
        if r.error_count() > errors {
            continue;
        }
        lowered.push(DeclaredToolSpec {
            name: tool.name.clone(),
            description: tool
                .description
                .clone()
                .unwrap_or_default()
                .trim()
                .to_owned(),
            entity: tool.entity.clone(),
            sql: None,
            source_where: tool.where_clause.as_ref().map(|w| w.trim().to_owned()),
            where_sql: condition.as_ref().map(|c| c.sql.clone()),
            postgres_where_sql: condition.map(|c| c.postgres_sql),
            order_by,
            limit,
            parameters,
        });
    }
    spec.declared_tools = lowered;
}

/// A tool in the trusted `sql:` form: its statements scanned and bound, problems reported at
/// their place in the statement text, unused parameters at their key.
fn lower_sql_tool(
    tool: &DeclaredTool,
    sql: &DeclaredSql,
    base: &str,
    parameters: Vec<ParameterSpec>,
    limit: u32,
    spec: &SchemaSpec,
    r: &mut Reporter<'_>,
) -> Option<DeclaredToolSpec> {
    let errors = r.error_count();
    let excluded: Vec<&str> = [
        ("entity", !tool.entity.is_empty()),
        ("where", tool.where_clause.is_some()),
        ("order_by", tool.order_by.is_some()),
    ]
    .into_iter()
    .filter_map(|(key, set)| set.then_some(key))
    .collect();
    for key in &excluded {
        r.at(
            Severity::Error,
            &format!("{base}.{key}"),
            At::Key,
            format!(
                "declared tool `{}` has `sql:`, which excludes `{key}`",
                tool.name
            ),
        )
        .hint("keep either `sql:` (your own statement) or `entity` with `where` / `order_by`")
        .emit();
    }
    if sql.sqlite.is_none() && sql.postgres.is_none() {
        r.error(
            &format!("{base}.sql"),
            format!(
                "the `sql:` of declared tool `{}` has no statement",
                tool.name
            ),
        )
        .hint("give `sqlite:` and / or `postgres:`, each one SELECT statement")
        .emit();
        return None;
    }
    let tables: Vec<String> = spec
        .entities
        .iter()
        .map(|entity| entity.table.clone())
        .chain(spec.relationships.iter().map(|rel| rel.table.clone()))
        .chain([toolforge::spec::CHANGES_TABLE.to_owned()])
        .collect();
    let mut bound = [None, None];
    for (slot, (backend, text)) in bound.iter_mut().zip([
        (Backend::Sqlite, &sql.sqlite),
        (Backend::Postgres, &sql.postgres),
    ]) {
        let Some(text) = text else { continue };
        let path = format!("{base}.sql.{}", backend.key());
        match bind_parameters(text, &parameters, &tables, backend) {
            Ok(statement) => *slot = Some(statement),
            Err(problem) => {
                let location = if problem.span.is_empty() {
                    r.index().locate(&path, At::Value)
                } else {
                    r.index()
                        .locate_in_scalar(&path, text, problem.span.clone())
                };
                r.at_location(
                    Severity::Error,
                    &path,
                    location,
                    format!("declared tool `{}`: {}", tool.name, problem.message),
                )
                .hint(problem.hint)
                .emit();
            }
        }
    }
    if r.error_count() > errors {
        return None;
    }
    let [sqlite, postgres] = bound;
    for (position, param) in parameters.iter().enumerate() {
        let unused_in: Vec<&str> = [(Backend::Sqlite, &sqlite), (Backend::Postgres, &postgres)]
            .into_iter()
            .filter_map(|(backend, statement)| {
                statement
                    .as_ref()
                    .filter(|s| !s.used.contains(&position))
                    .map(|_| backend.key())
            })
            .collect();
        if !unused_in.is_empty() {
            r.at(
                Severity::Error,
                &format!("{base}.parameters.{}", param.name),
                At::Key,
                format!(
                    "parameter `{}` of declared tool `{}` is never used in `sql.{}`",
                    param.name,
                    tool.name,
                    unused_in.join("` / `sql.")
                ),
            )
            .hint(format!(
                "use `:{}` in every statement, or remove the parameter",
                param.name
            ))
            .emit();
        }
    }
    if r.error_count() > errors {
        return None;
    }
    Some(DeclaredToolSpec {
        name: tool.name.clone(),
        description: tool
            .description
            .clone()
            .unwrap_or_default()
            .trim()
            .to_owned(),
        entity: String::new(),
        sql: Some(DeclaredSqlSpec {
            sqlite: sqlite.map(|s| s.sql),
            postgres: postgres.map(|s| s.sql),
        }),
        source_where: None,
        where_sql: None,
        postgres_where_sql: None,
        order_by: Vec::new(),
        limit,
        parameters,
    })
}

/// Reports a clause's compile error at its place in the clause text.
fn report(r: &mut Reporter<'_>, path: &str, text: &str, error: &ExprError) {
    let location = if error.span.is_empty() {
        r.index().locate(path, At::Value)
    } else {
        r.index().locate_in_scalar(path, text, error.span.clone())
    };
    let mut pending = r.at_location(
        Severity::Error,
        path,
        location,
        format!("declared tool `{}`: {}", error.field, error.message),
    );
    if let Some(hint) = &error.hint {
        pending = pending.hint(hint.clone());
    } else {
        pending = pending.hint("use the fields, computed fields and relationship aggregates of the entity, and `:name` for a declared parameter");
    }
    pending.emit();
}

/// The parameters of `tool`, checked; `None` when one of them has an error (reported).
fn lower_parameters(
    tool: &DeclaredTool,
    base: &str,
    r: &mut Reporter<'_>,
) -> Option<Vec<ParameterSpec>> {
    let errors = r.error_count();
    let mut out = Vec::new();
    for (name, param) in tool.parameters.iter().flatten() {
        let path = format!("{base}.parameters.{name}");
        if !is_identifier(name) {
            r.at(
                Severity::Error,
                &path,
                At::Key,
                format!("`{name}` is not a valid parameter name"),
            )
            .hint("use an ASCII letter or `_` followed by letters, digits or `_`")
            .emit();
            continue;
        }
        if name == "limit" || name == "offset" {
            r.at(
                Severity::Error,
                &path,
                At::Key,
                format!("`{name}` is an argument of every declared tool (paging)"),
            )
            .hint("choose another name for the parameter")
            .emit();
            continue;
        }
        if let Some(spec) = lower_parameter(name, param, &path, r) {
            out.push(spec);
        }
    }
    (r.error_count() == errors).then_some(out)
}

fn lower_parameter(
    name: &str,
    param: &DeclaredParameter,
    path: &str,
    r: &mut Reporter<'_>,
) -> Option<ParameterSpec> {
    let (ty, allowed, allowed_key) = parameter_type(name, param, path, r)?;
    let kind = if allowed_key == "values" {
        "an enum".to_owned()
    } else {
        let spelled = param.ty.trim();
        let article = if spelled.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {spelled}")
    };
    let errors = r.error_count();
    let numeric = matches!(ty, ParameterType::Number | ParameterType::Integer);
    for (key, set) in [("min", param.min.is_some()), ("max", param.max.is_some())] {
        if set && !numeric {
            r.error(
                &format!("{path}.{key}"),
                format!("`{key}` applies to numbers, but `{name}` is {kind}"),
            )
            .hint(format!("remove `{key}`, or declare `type: number`"))
            .emit();
        }
    }
    if let (Some(min), Some(max)) = (param.min, param.max)
        && min > max
    {
        r.error(
            &format!("{path}.max"),
            format!("`max` ({max}) is below `min` ({min})"),
        )
        .hint("swap them")
        .emit();
    }
    let pattern = match &param.pattern {
        Some(_) if ty != ParameterType::String => {
            r.error(
                &format!("{path}.pattern"),
                format!("`pattern` applies to strings, but `{name}` is {kind}"),
            )
            .hint("remove `pattern`")
            .emit();
            None
        }
        Some(text) => match regex::Regex::new(text) {
            Ok(regex) => Some(regex),
            Err(error) => {
                r.error(
                    &format!("{path}.pattern"),
                    format!(
                        "`pattern` is not a valid regular expression: {}",
                        last_line(&error.to_string())
                    ),
                )
                .hint("use Rust `regex` syntax, for example `^m[0-9]+$`")
                .emit();
                None
            }
        },
        None => None,
    };
    if allowed.is_some() && !ty.is_scalar() {
        r.error(
            &format!("{path}.{allowed_key}"),
            format!("`{allowed_key}` lists single values, but `{name}` is {kind}"),
        )
        .hint(format!(
            "remove `{allowed_key}`; a {} parameter takes any {}",
            ty.config_name(),
            if ty == ParameterType::Point {
                "place"
            } else {
                "list"
            }
        ))
        .emit();
        return None;
    }
    let listed = allowed.is_some();
    let allowed = allowed.unwrap_or_default();
    for (i, value) in allowed.iter().enumerate() {
        if let Err(problem) = check_value(ty, value, param, pattern.as_ref(), &[]) {
            r.error(
                &format!("{path}.{allowed_key}[{i}]"),
                format!("`{allowed_key}` value of `{name}`: {problem}"),
            )
            .hint(if allowed_key == "values" {
                "list text values only".to_owned()
            } else {
                format!("list {} values only", param.ty.trim())
            })
            .emit();
        }
    }
    if listed && allowed.is_empty() {
        r.error(
            &format!("{path}.{allowed_key}"),
            format!("`{allowed_key}` of `{name}` lists no value"),
        )
        .hint(format!(
            "list the allowed values, or remove `{allowed_key}`"
        ))
        .emit();
    }
    let has_default = param.default.as_ref().is_some_and(|d| !d.is_null());
    if param.required == Some(true) && has_default {
        r.error(
            &format!("{path}.required"),
            format!("`{name}` is required and has a default, which would never be used"),
        )
        .hint("remove `required: true` or the `default`")
        .emit();
    }
    if let Some(default) = param.default.as_ref().filter(|d| !d.is_null())
        && let Err(problem) = check_value(ty, default, param, pattern.as_ref(), &allowed)
    {
        r.error(
            &format!("{path}.default"),
            format!("the default of `{name}`: {problem}"),
        )
        .hint(if allowed_key == "values" {
            "give one of the `values`".to_owned()
        } else {
            format!(
                "give a {} value that passes the parameter's checks",
                param.ty.trim()
            )
        })
        .emit();
    }
    let from_context = check_from_context(name, param, path, has_default, r);
    if r.error_count() > errors {
        return None;
    }
    Some(ParameterSpec {
        name: name.to_owned(),
        ty,
        description: param.description.clone(),
        required: param.required.unwrap_or(!has_default),
        default: param.default.clone().filter(|d| !d.is_null()),
        allowed,
        min: param.min,
        max: param.max,
        pattern: param.pattern.clone(),
        from_context,
    })
}

/// The accepted spellings of a parameter's type, for the help of a refusal.
const TYPE_SPELLINGS: &str = "`string`, `number`, `integer`, `boolean`, `datetime`, \
    `array<string>`, `array<number>`, `point`, or an enum: `type: enum` with `values: [a, b]` \
    (as fields write it) or `type: string` with `enum: [a, b]`";

/// A parameter's type, its allowed values (from `enum`, or `values` of `type: enum`) and the
/// key they were listed under; `None` when the type is refused (reported).
fn parameter_type(
    name: &str,
    param: &DeclaredParameter,
    path: &str,
    r: &mut Reporter<'_>,
) -> Option<(ParameterType, Option<Vec<Value>>, &'static str)> {
    let spelled = param.ty.trim();
    if spelled == "enum" {
        return match (&param.values, &param.allowed) {
            (Some(values), None) => Some((ParameterType::String, Some(values.clone()), "values")),
            (Some(_), Some(_)) => {
                r.error(
                    &format!("{path}.enum"),
                    format!("`{name}` lists its values twice, in `values` and in `enum`"),
                )
                .hint("keep `values` (with `type: enum`), or write `type: string` with `enum`")
                .emit();
                None
            }
            (None, _) => {
                r.error(
                    &format!("{path}.type"),
                    format!("`{name}` is an enum without `values`"),
                )
                .hint(format!("write its values beside it, as fields do: `{name}: {{type: enum, values: [a, b]}}`"))
                .emit();
                None
            }
        };
    }
    let Some(ty) = ParameterType::from_name(spelled) else {
        let close = suggestion(
            spelled,
            ParameterType::NAMES.iter().copied().chain(["enum"]),
            "parameter types",
        );
        r.error(
            &format!("{path}.type"),
            format!("`{}` is not a parameter type", param.ty),
        )
        .hint(format!("{close}; a parameter is {TYPE_SPELLINGS}"))
        .emit();
        return None;
    };
    if param.values.is_some() {
        r.error(
            &format!("{path}.values"),
            format!("`values` lists the values of `type: enum`, but `{name}` is a {spelled}"),
        )
        .hint(format!(
            "write `type: enum`, or `enum: [...]` to allow only some {spelled} values"
        ))
        .emit();
        return None;
    }
    Some((ty, param.allowed.clone(), "enum"))
}

/// The context value a parameter is bound to, checked: a valid name, and neither a default
/// nor `required: false` (a call without the value is refused, never run unbound).
fn check_from_context(
    name: &str,
    param: &DeclaredParameter,
    path: &str,
    has_default: bool,
    r: &mut Reporter<'_>,
) -> Option<String> {
    let context = param.from_context.as_deref()?.trim();
    if !is_identifier(context) {
        r.error(
            &format!("{path}.from_context"),
            format!("`{context}` is not a valid context value name"),
        )
        .hint("use an ASCII letter or `_` followed by letters, digits or `_`, e.g. `from_context: tenant`")
        .emit();
    }
    if has_default {
        r.error(
            &format!("{path}.default"),
            format!(
                "`{name}` takes its value from the context value `{context}` and cannot have a default"
            ),
        )
        .hint("remove `default`: a call without the context value is refused")
        .emit();
    }
    if param.required == Some(false) {
        r.error(
            &format!("{path}.required"),
            format!(
                "`{name}` takes its value from the context value `{context}`, which every call must have"
            ),
        )
        .hint("remove `required: false`: a call without the context value is refused")
        .emit();
    }
    Some(context.to_owned())
}

/// The last non-empty line of a message (`regex` errors end with the problem).
fn last_line(text: &str) -> String {
    text.lines()
        .rfind(|line| !line.trim().is_empty())
        .unwrap_or(text)
        .trim()
        .to_owned()
}

/// Whether `value` is a valid value of the parameter (type, range, pattern, enum).
fn check_value(
    ty: ParameterType,
    value: &Value,
    param: &DeclaredParameter,
    pattern: Option<&regex::Regex>,
    allowed: &[Value],
) -> Result<(), String> {
    match (ty, value) {
        (ParameterType::String, Value::String(text)) => {
            if let Some(pattern) = pattern
                && !pattern.is_match(text)
            {
                return Err(format!("{value} does not match the pattern"));
            }
        }
        (ParameterType::Datetime, Value::String(text)) => {
            if !looks_like_date(text) {
                return Err(format!(
                    "{value} is not an ISO 8601 date or datetime, nor a relative date such as `now` or `7 days ago`"
                ));
            }
        }
        (ParameterType::Boolean, Value::Bool(_)) => {}
        (ParameterType::Number | ParameterType::Integer, Value::Number(number)) => {
            let x = number.as_f64().unwrap_or(f64::NAN);
            if ty == ParameterType::Integer && x.fract() != 0.0 {
                return Err(format!("{value} is not a whole number"));
            }
            if param.min.is_some_and(|min| x < min) || param.max.is_some_and(|max| x > max) {
                return Err(format!("{value} is outside `min`..`max`"));
            }
        }
        (ParameterType::StringArray, Value::Array(items)) if items.iter().all(Value::is_string) => {
        }
        (ParameterType::NumberArray, Value::Array(items)) if items.iter().all(Value::is_number) => {
        }
        (ParameterType::Point, value) => {
            toolforge::sql::places::Point::from_json(value)?;
        }
        _ => return Err(format!("{value} is not a {}", ty.config_name())),
    }
    if !allowed.is_empty() && !allowed.contains(value) {
        return Err(format!("{value} is not one of the `enum` values"));
    }
    Ok(())
}

/// The forms the runtime's date resolver reads: ISO 8601 dates and datetimes, and relative
/// dates (`now`, `today`, `yesterday`, `tomorrow`, `N <unit> ago`, `in N <unit>`,
/// `last/next <unit>`).
fn looks_like_date(text: &str) -> bool {
    const UNIT: &str = r"(second|minute|hour|day|week|month|year)s?";
    let forms = [
        r"^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?$"
            .to_owned(),
        r"^(now|today|yesterday|tomorrow)$".to_owned(),
        format!(r"^\d+ {UNIT} ago$"),
        format!(r"^in \d+ {UNIT}$"),
        format!(r"^(last|next) {UNIT}$"),
    ];
    let text = text.trim().to_ascii_lowercase();
    forms
        .iter()
        .any(|form| regex::Regex::new(form).is_ok_and(|re| re.is_match(&text)))
}

/// Reports each `sql.sqlite` statement `check` cannot prepare as a read, at its key.
pub(crate) fn check_sqlite_statements(
    config: &Config,
    spec: &SchemaSpec,
    check: &SqliteCheck,
    r: &mut Reporter<'_>,
) {
    let declared = config
        .toolforge
        .as_ref()
        .and_then(|t| t.declared_tools.as_deref())
        .unwrap_or_default();
    let statements: Vec<(&str, &str)> = spec
        .declared_tools
        .iter()
        .filter_map(|tool| {
            let sqlite = tool.sql.as_ref()?.sqlite.as_deref()?;
            Some((tool.name.as_str(), sqlite))
        })
        .collect();
    if statements.is_empty() {
        return;
    }
    let texts: Vec<&str> = statements.iter().map(|(_, sql)| *sql).collect();
    let problems = (check.0)(spec, &texts);
    for ((name, _), problem) in statements.iter().zip(problems) {
        let Some(problem) = problem else { continue };
        let index = declared.iter().position(|t| t.name == *name).unwrap_or(0);
        r.error(
            &format!("toolforge.declared_tools[{index}].sql.sqlite"),
            format!("declared tool `{name}`: SQLite cannot run `sql.sqlite`: {problem}"),
        )
        .hint(if spec.is_mapped() {
            "name the tables the config maps (`table:`, `join_table:`) and the columns it maps; one read-only SELECT"
        } else {
            "name the config's tables (snake_case entity names, edge tables) and their columns; one read-only SELECT"
        })
        .emit();
    }
}
