//! MCP `tools/list` entries.

use serde_json::{Map, Value, json};

use super::normalize::{fit_description, normalize_object_root};
use crate::ToolDefinition;

/// `{name, title, description, inputSchema, outputSchema?, annotations}`.
///
/// Every tool has a `title` (its own, or its name in words: `search_code` gives
/// `Search code`), and `annotations` with the hints that are set and that MCP reads.
/// `outputSchema` is
/// included only when the tool's output schema describes an object, as MCP requires
/// (structured content is always an object).
pub(super) fn export(definition: &ToolDefinition) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(definition.name));
    let title = definition
        .title
        .clone()
        .unwrap_or_else(|| title_from_name(&definition.name));
    tool.insert("title".into(), json!(title));
    tool.insert(
        "description".into(),
        json!(fit_description(&definition.description)),
    );
    let mut input = normalize_object_root(&definition.input_schema);
    compact(&mut input);
    tool.insert("inputSchema".into(), input);
    if let Some(output) = &definition.output_schema
        && describes_object(output)
    {
        tool.insert("outputSchema".into(), normalize_object_root(output));
    }
    let hints = &definition.annotations;
    // MCP reads `destructiveHint` and `idempotentHint` only when `readOnlyHint` is false: a
    // read-only tool leaves them out, as it leaves out the title `title` already gives.
    let writes = hints.read_only != Some(true);
    let mut annotations = Map::new();
    for (key, value, said) in [
        ("readOnlyHint", hints.read_only, true),
        ("destructiveHint", hints.destructive, writes),
        ("idempotentHint", hints.idempotent, writes),
        ("openWorldHint", hints.open_world, true),
    ] {
        if let (Some(value), true) = (value, said) {
            annotations.insert(key.into(), json!(value));
        }
    }
    tool.insert("annotations".into(), Value::Object(annotations));
    Value::Object(tool)
}

/// The same schema in fewer tokens, for a list every model request carries: what the keywords
/// already say is not said again. The limit slot's prose bounds (`(1 to 500, default 20)`,
/// there for providers that drop `minimum`, `maximum` and `default`) go where those keywords
/// are kept; an integer's `format` (`int64`, a schemars artifact JSON Schema does not check)
/// goes; an `anyOf` of bare types becomes one `type` list (the array branch's `items` kept:
/// `items` applies only to arrays).
fn compact(schema: &mut Value) {
    match schema {
        Value::Object(node) => {
            drop_restated_bounds(node);
            drop_paging_prose(node);
            if is_condition(node) {
                drop_condition_prose(node);
            }
            if node.get("type").and_then(Value::as_str) == Some("integer") {
                node.remove("format");
            }
            merge_bare_types(node);
            node.values_mut().for_each(compact);
        }
        Value::Array(items) => items.iter_mut().for_each(compact),
        _ => {}
    }
}

/// The engine's paging slots (`limit` and `top_k`: "The most records to return.", `offset`:
/// "Records to skip: ..., then the previous answer's `next_offset`.") say what they are by
/// their names and bounds, and every paged answer carries its `next_offset`.
fn drop_paging_prose(node: &mut Map<String, Value>) {
    let Some(Value::Object(properties)) = node.get_mut("properties") else {
        return;
    };
    for (name, slot) in properties.iter_mut() {
        let Some(slot) = slot.as_object_mut() else {
            continue;
        };
        let Some(text) = slot.get("description").and_then(Value::as_str) else {
            continue;
        };
        let restated = match name.as_str() {
            "limit" | "top_k" => text.starts_with("The most ") && text.contains(" to return"),
            "offset" => text.contains(" to skip") && text.contains("`next_offset`"),
            _ => false,
        };
        if restated
            && slot.get("type").and_then(Value::as_str) == Some("integer")
            && slot.contains_key("minimum")
        {
            slot.remove("description");
        }
    }
}

/// Whether `node` is one condition of the query tools: an object of exactly `field`,
/// `operator` and `value`, all required.
fn is_condition(node: &Map<String, Value>) -> bool {
    const KEYS: [&str; 3] = ["field", "operator", "value"];
    let (Some(Value::Object(properties)), Some(Value::Array(required))) =
        (node.get("properties"), node.get("required"))
    else {
        return false;
    };
    properties.len() == KEYS.len()
        && required.len() == KEYS.len()
        && KEYS
            .iter()
            .all(|key| properties.contains_key(*key) && required.iter().any(|name| name == key))
}

/// A condition's prose goes: the enums say which fields and operators there are, and the
/// description of the tool that takes conditions first (`query_entities`) says what each
/// operator does and what `value` holds.
fn drop_condition_prose(node: &mut Map<String, Value>) {
    node.remove("description");
    if let Some(Value::Object(properties)) = node.get_mut("properties") {
        for slot in properties.values_mut() {
            if let Some(slot) = slot.as_object_mut() {
                slot.remove("description");
            }
        }
    }
}

/// In a list that has `query_entities` (with any name prefix), the other tools' condition
/// lists whose description points to it (`as in query_entities`) keep only `type: object` for
/// their items: the fields, operators and value types are said once, in `query_entities`'s
/// schema, instead of once per tool (five more times in a config with relationships and a
/// vector index). The server checks every condition the same way in every tool.
pub(super) fn refer_conditions(tools: &mut [Value]) {
    let Some(query) = position_of(tools, "query_entities") else {
        return;
    };
    for (index, tool) in tools.iter_mut().enumerate() {
        if index != query
            && let Some(schema) = tool.get_mut("inputSchema")
        {
            refer(schema);
        }
    }
}

/// Where the database tool `name` (with any name prefix) is in the list.
fn position_of(tools: &[Value], name: &str) -> Option<usize> {
    tools.iter().position(|tool| {
        tool["name"]
            .as_str()
            .is_some_and(|listed| listed.ends_with(name))
    })
}

/// In a list that has `explore_relationships` (with any name prefix), another tool's line
/// `Relationships: A -[R]-> B, ...` that lists the same relationships, all of them, becomes
/// `Relationships: as in explore_relationships.`: the directions are said once per list
/// (`join_entities`, `find_path` and `rank_entities` repeat them otherwise). A line listing
/// fewer (`find_clusters`' relationships from an entity to itself) or cut short
/// (`... and 3 more`) stays.
pub(super) fn refer_relationships(tools: &mut [Value]) {
    const LINE: &str = "Relationships: ";
    let Some(explore) = position_of(tools, "explore_relationships") else {
        return;
    };
    let listed = tools[explore]["description"]
        .as_str()
        .and_then(|text| text.lines().find_map(|line| line.strip_prefix(LINE)))
        .unwrap_or_default()
        .to_owned();
    let arrows_listed = listed.matches("]-> ").count();
    if arrows_listed == 0 {
        return;
    }
    for (index, tool) in tools.iter_mut().enumerate() {
        let Some(Value::String(description)) = tool.get_mut("description") else {
            continue;
        };
        if index == explore {
            continue;
        }
        let restated = description.lines().find(|line| {
            line.strip_prefix(LINE)
                .and_then(|list| list.strip_suffix('.'))
                .is_some_and(|list| {
                    let arrows: Vec<&str> = list.split(", ").collect();
                    arrows.len() == arrows_listed
                        && arrows
                            .iter()
                            .all(|arrow| arrow.contains(" -[") && lists(&listed, arrow))
                })
        });
        if let Some(line) = restated {
            *description =
                description.replacen(line, "Relationships: as in explore_relationships.", 1);
        }
    }
}

/// Whether the relationship list `listed` (`A -[R]-> B (its description), C -[S]-> D.`) has
/// `arrow` as one of its items, not inside another one's names.
fn lists(listed: &str, arrow: &str) -> bool {
    listed.match_indices(arrow).any(|(at, _)| {
        let rest = &listed[at + arrow.len()..];
        (at == 0 || listed[..at].ends_with(", "))
            && (rest.starts_with(", ") || rest.starts_with(" (") || rest.starts_with('.'))
    })
}

/// Points the condition lists under `schema` to `query_entities` (see [`refer_conditions`]).
fn refer(schema: &mut Value) {
    match schema {
        Value::Object(node) => {
            let points_to_query = node
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|text| text.contains("query_entities"));
            let of_conditions = node
                .get("items")
                .and_then(Value::as_object)
                .is_some_and(is_condition);
            if points_to_query && of_conditions {
                node.insert("items".into(), json!({"type": "object"}));
            }
            node.values_mut().for_each(refer);
        }
        Value::Array(items) => items.iter_mut().for_each(refer),
        _ => {}
    }
}

/// `"The most records to return (1 to 500, default 20)."` beside `minimum: 1, maximum: 500,
/// default: 20` becomes `"The most records to return."`.
fn drop_restated_bounds(node: &mut Map<String, Value>) {
    let (Some(min), Some(max), Some(default)) = (
        node.get("minimum"),
        node.get("maximum"),
        node.get("default"),
    ) else {
        return;
    };
    let said = format!(" ({min} to {max}, default {default}).");
    if let Some(Value::String(text)) = node.get_mut("description")
        && let Some(what) = text.strip_suffix(&said)
    {
        *text = format!("{what}.");
    }
}

/// `anyOf: [{type: string}, {type: number}, {type: array, items: X}]` becomes
/// `type: [string, number, array], items: X` when every branch is a bare type (at most one
/// of them an array with `items`) and the node has no `type` or `items` of its own.
fn merge_bare_types(node: &mut Map<String, Value>) {
    if node.contains_key("type") || node.contains_key("items") {
        return;
    }
    let Some(Value::Array(branches)) = node.get("anyOf") else {
        return;
    };
    let mut types = Vec::with_capacity(branches.len());
    let mut items = None;
    for branch in branches {
        let Some(branch) = branch.as_object() else {
            return;
        };
        let Some(Value::String(kind)) = branch.get("type") else {
            return;
        };
        match branch.len() {
            1 => {}
            2 if kind == "array" && items.is_none() && branch.contains_key("items") => {
                items = branch.get("items").cloned();
            }
            _ => return,
        }
        if types.contains(&Value::String(kind.clone())) {
            return;
        }
        types.push(Value::String(kind.clone()));
    }
    node.remove("anyOf");
    node.insert("type".into(), Value::Array(types));
    if let Some(items) = items {
        node.insert("items".into(), items);
    }
}

/// A tool name in words: `_` and `-` become spaces, the first letter is upper case.
fn title_from_name(name: &str) -> String {
    let words = name.replace(['_', '-'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => name.to_owned(),
    }
}

/// Whether an output schema's root is an object (explicit `"type": "object"`, or properties
/// without a type).
fn describes_object(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(_) => false,
        None => schema.get("properties").is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::{compact, refer_conditions, refer_relationships, title_from_name};
    use serde_json::{Value, json};

    fn condition() -> Value {
        json!({"description": "One condition on the record.", "type": "object",
               "properties": {
                   "field": {"description": "A field.", "type": "string", "enum": ["name"]},
                   "operator": {"description": "The comparison.", "type": "string", "enum": ["="]},
                   "value": {"description": "Of the field's type.", "type": ["string", "null"]}},
               "required": ["field", "operator", "value"], "additionalProperties": false})
    }

    fn tool(name: &str, conditions: &str) -> Value {
        json!({"name": name, "inputSchema": {"type": "object", "properties": {
            "conditions": {"type": "array", "description": conditions, "items": condition()}}}})
    }

    #[test]
    fn conditions_lose_their_prose_and_keep_their_enums() {
        let mut schema = tool("query_entities", "Conditions.")["inputSchema"].clone();
        compact(&mut schema);
        assert_eq!(
            schema["properties"]["conditions"]["items"],
            json!({"type": "object",
                   "properties": {
                       "field": {"type": "string", "enum": ["name"]},
                       "operator": {"type": "string", "enum": ["="]},
                       "value": {"type": ["string", "null"]}},
                   "required": ["field", "operator", "value"], "additionalProperties": false})
        );
        // Paging prose the engine writes goes; a user's own words about a limit stay.
        let mut schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer", "minimum": 1, "description": "The most records to return."},
            "offset": {"type": "integer", "minimum": 0,
                       "description": "Records to skip: `0` (the default), then the previous answer's `next_offset`."},
            "top_k": {"type": "integer", "minimum": 1, "description": "Only the best few, please."}}});
        compact(&mut schema);
        assert_eq!(schema["properties"]["limit"].get("description"), None);
        assert_eq!(schema["properties"]["offset"].get("description"), None);
        assert_eq!(
            schema["properties"]["top_k"]["description"],
            "Only the best few, please."
        );
    }

    #[test]
    fn a_list_with_query_entities_says_its_conditions_once() {
        let mut tools = vec![
            tool("db_query_entities", "Conditions (AND)."),
            tool("db_join_entities", "Conditions, as in `query_entities`."),
            tool("my_own_tool", "Filters on my rows."),
        ];
        refer_conditions(&mut tools);
        assert_eq!(
            tools[0]["inputSchema"]["properties"]["conditions"]["items"],
            condition(),
            "query_entities keeps the whole schema"
        );
        assert_eq!(
            tools[1]["inputSchema"]["properties"]["conditions"],
            json!({"type": "array", "description": "Conditions, as in `query_entities`.",
                   "items": {"type": "object"}})
        );
        assert_eq!(
            tools[2]["inputSchema"]["properties"]["conditions"]["items"],
            condition(),
            "a list that does not point to query_entities is left whole"
        );
        // Without query_entities in the list, every tool keeps its whole conditions.
        let mut tools = vec![tool("join_entities", "Conditions, as in `query_entities`.")];
        refer_conditions(&mut tools);
        assert_eq!(
            tools[0]["inputSchema"]["properties"]["conditions"]["items"],
            condition()
        );
    }

    #[test]
    fn a_list_with_explore_relationships_says_the_directions_once() {
        let described = |name: &str, relationships: &str| json!({"name": name, "description": format!("Does a thing.\n{relationships}\nExample call: {{}}")});
        let all = "Relationships: Scope -[DEFINED_IN]-> File, Scope -[CALLS]-> Scope.";
        let mut tools = vec![
            described(
                "db_explore_relationships",
                "Relationships: Scope -[DEFINED_IN]-> File (where it is written), Scope -[CALLS]-> Scope.",
            ),
            described("db_find_path", all),
            described("db_find_clusters", "Relationships: Scope -[CALLS]-> Scope."),
            described(
                "db_rank_entities",
                "Relationships: Scope -[DEFINED_IN]-> File and 1 more.",
            ),
            described(
                "my_tool",
                "Relationships: Scope -[CALLS]-> Scope, Scope -[DEFINED_IN]-> File.",
            ),
        ];
        refer_relationships(&mut tools);
        assert_eq!(
            tools[1]["description"],
            "Does a thing.\nRelationships: as in explore_relationships.\nExample call: {}"
        );
        assert!(
            tools[0]["description"]
                .as_str()
                .unwrap()
                .contains("(where it is written)"),
            "explore_relationships keeps its list"
        );
        assert!(
            tools[2]["description"]
                .as_str()
                .unwrap()
                .contains("Relationships: Scope -[CALLS]-> Scope."),
            "a list of fewer relationships stays"
        );
        assert!(
            tools[3]["description"]
                .as_str()
                .unwrap()
                .contains("and 1 more."),
            "a list cut short stays"
        );
        assert_eq!(
            tools[4]["description"],
            "Does a thing.\nRelationships: as in explore_relationships.\nExample call: {}",
            "the same relationships in another order are the same list"
        );
        // An arrow found only inside longer names is not one of explore_relationships'.
        let mut tools = vec![
            described(
                "explore_relationships",
                "Relationships: MyScope -[CALLS]-> Scopes.",
            ),
            described("find_path", "Relationships: Scope -[CALLS]-> Scope."),
        ];
        refer_relationships(&mut tools);
        assert!(
            tools[1]["description"]
                .as_str()
                .unwrap()
                .contains("Relationships: Scope -[CALLS]-> Scope.")
        );
        // Without explore_relationships in the list, every line stays.
        let mut tools = vec![described("find_path", all)];
        refer_relationships(&mut tools);
        assert!(tools[0]["description"].as_str().unwrap().contains(all));
    }

    #[test]
    fn compact_schemas_say_each_thing_once() {
        let mut schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20,
                      "description": "The most records to return (1 to 500, default 20)."},
            "offset": {"type": "integer", "format": "int64", "minimum": 0},
            "value": {"description": "The value.", "anyOf": [
                {"type": "string"}, {"type": "number"},
                {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "boolean"}]}},
                {"type": "null"}]},
            "kept": {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]},
            "other": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2,
                      "description": "Not the same bounds (1 to 9, default 3)."}
        }});
        compact(&mut schema);
        let properties = &schema["properties"];
        assert_eq!(
            properties["limit"],
            json!({"type": "integer", "minimum": 1, "maximum": 500, "default": 20}),
            "the bounds and the name say what the prose said"
        );
        assert_eq!(
            properties["offset"],
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            properties["value"],
            json!({"description": "The value.", "type": ["string", "number", "array", "null"],
                   "items": {"type": ["string", "boolean"]}})
        );
        assert!(
            properties["kept"].get("anyOf").is_some(),
            "a branch with an enum is kept"
        );
        assert_eq!(
            properties["other"]["description"],
            "Not the same bounds (1 to 9, default 3)."
        );
    }

    #[test]
    fn titles_come_from_names_when_a_tool_has_none() {
        assert_eq!(title_from_name("search_code"), "Search code");
        assert_eq!(title_from_name("get-user"), "Get user");
        assert_eq!(title_from_name("x"), "X");
        assert_eq!(title_from_name("_"), "_");
    }
}
