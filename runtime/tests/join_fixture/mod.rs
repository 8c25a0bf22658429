//! `join_entities` against paths enumerated here by nested loops over the imported edges:
//! people who know people, work at companies, located in cities; every chain's rows, their
//! order, their paging and their totals compared with the brute force.

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

const PEOPLE: usize = 24;
const COMPANIES: usize = 6;
const CITIES: [&str; 3] = ["oslo", "lima", "pune"];

pub fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "people",
        "entities": [
            {"name": "Person", "table": "person", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true},
                        {"name": "age", "type": "number"}]},
            {"name": "Company", "table": "company", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true},
                        {"name": "size", "type": "number"}]},
            {"name": "City", "table": "city", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true},
                        {"name": "country", "type": "string"}]}
        ],
        "relationships": [
            {"type": "KNOWS", "source": "Person", "target": "Person", "table": "person__knows__person"},
            {"type": "WORKS_AT", "source": "Person", "target": "Company", "table": "person__works_at__company"},
            {"type": "LOCATED_IN", "source": "Company", "target": "City", "table": "company__located_in__city"},
            {"type": "LIKES", "source": "Person", "target": "Company", "table": "person__likes__company"},
            {"type": "LIKES", "source": "Person", "target": "City", "table": "person__likes__city"}
        ],
        "tools": {"default_limit": 10, "max_limit": 500, "families": ["relationships"]}
    }))
    .unwrap()
}

struct World {
    ages: Vec<i64>,
    sizes: Vec<i64>,
    knows: Vec<(usize, usize)>,
    works_at: Vec<(usize, usize)>,
    located_in: Vec<(usize, usize)>,
}

fn person(i: usize) -> String {
    format!("p{i:02}")
}
fn company(i: usize) -> String {
    format!("c{i}")
}

fn world() -> World {
    let mut state = 0x1234_5678_9abc_def1_u64;
    let mut next = move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    let ages = (0..PEOPLE).map(|_| 20 + next(40) as i64).collect();
    let sizes = (0..COMPANIES).map(|_| 10 + next(500) as i64).collect();
    let mut knows = std::collections::BTreeSet::new();
    for _ in 0..60 {
        let (a, b) = (next(PEOPLE as u64) as usize, next(PEOPLE as u64) as usize);
        if a != b {
            knows.insert((a, b));
        }
    }
    // Two pairs that know each other both ways.
    knows.insert((0, 1));
    knows.insert((1, 0));
    let works_at = (0..PEOPLE)
        .filter(|p| p % 7 != 3)
        .map(|p| (p, next(COMPANIES as u64) as usize))
        .collect();
    let located_in = (0..COMPANIES).map(|c| (c, c % CITIES.len())).collect();
    World {
        ages,
        sizes,
        knows: knows.into_iter().collect(),
        works_at,
        located_in,
    }
}

fn lines(world: &World) -> String {
    let mut lines = Vec::new();
    for p in 0..PEOPLE {
        lines.push(json!({"entity": "Person", "data": {"id": person(p), "age": world.ages[p]}}));
    }
    for c in 0..COMPANIES {
        lines
            .push(json!({"entity": "Company", "data": {"id": company(c), "size": world.sizes[c]}}));
    }
    for city in CITIES {
        lines.push(json!({"entity": "City", "data": {"id": city, "country": if city == "oslo" { "no" } else { "other" }}}));
    }
    let edge = |rel: &str, from: (&str, String), to: (&str, String)| {
        json!({"relationship": rel, "from": {"entity": from.0, "id": from.1},
               "to": {"entity": to.0, "id": to.1}})
    };
    for (a, b) in &world.knows {
        lines.push(edge(
            "KNOWS",
            ("Person", person(*a)),
            ("Person", person(*b)),
        ));
    }
    for (p, c) in &world.works_at {
        lines.push(edge(
            "WORKS_AT",
            ("Person", person(*p)),
            ("Company", company(*c)),
        ));
    }
    for (c, city) in &world.located_in {
        lines.push(edge(
            "LOCATED_IN",
            ("Company", company(*c)),
            ("City", CITIES[*city].to_owned()),
        ));
    }
    lines.push(edge(
        "LIKES",
        ("Person", person(2)),
        ("City", "lima".to_owned()),
    ));
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// Everyone a person knows, either way, once each.
fn acquaintances(world: &World, p: usize) -> Vec<usize> {
    let mut found: Vec<usize> = world
        .knows
        .iter()
        .filter_map(|&(a, b)| {
            if a == p {
                Some(b)
            } else if b == p {
                Some(a)
            } else {
                None
            }
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// The rows of `call`'s chain, paged through with `limit`, and the first page's answer.
async fn all_pages(
    spec: &Arc<SchemaSpec>,
    db: &Database,
    args: Value,
    limit: usize,
) -> (Vec<Vec<String>>, Vec<Value>, Value) {
    let mut paths = Vec::new();
    let mut records = Vec::new();
    let mut offset = 0;
    let mut first = None;
    loop {
        let mut page_args = args.clone();
        page_args["limit"] = json!(limit);
        page_args["offset"] = json!(offset);
        let answer = DatabaseTool::JoinEntities
            .call(spec.clone(), db.clone(), page_args.clone())
            .await
            .unwrap_or_else(|error| panic!("{page_args}: {}", error.to_json()));
        for row in answer["results"].as_array().unwrap() {
            paths.push(
                row["path"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|id| id.as_str().unwrap().to_owned())
                    .collect(),
            );
            records.push(row["record"].clone());
        }
        let next = answer["next_offset"].as_u64();
        first.get_or_insert(answer);
        match next {
            Some(next) => offset = next,
            None => break,
        }
    }
    (paths, records, first.unwrap())
}

pub async fn check_joins(db: &Database) {
    let spec = Arc::new(spec());
    db.init(&spec).unwrap();
    let world = world();
    db.import_jsonl(&spec, lines(&world).as_bytes()).unwrap();

    // People of 30 or more, the people they know (either way), where those work, in Oslo.
    let mut expected: Vec<Vec<String>> = Vec::new();
    for p in (0..PEOPLE).filter(|&p| world.ages[p] >= 30) {
        for q in acquaintances(&world, p) {
            for &(_, c) in world.works_at.iter().filter(|(who, _)| *who == q) {
                for &(_, city) in world.located_in.iter().filter(|(co, _)| *co == c) {
                    if CITIES[city] == "oslo" {
                        expected.push(vec![
                            person(p),
                            person(q),
                            company(c),
                            CITIES[city].to_owned(),
                        ]);
                    }
                }
            }
        }
    }
    expected.sort();
    assert!(
        expected.len() > 8,
        "the scenario has paths to page through: {expected:?}"
    );
    let args = json!({
        "start_entity_type": "Person",
        "start_conditions": [{"field": "age", "operator": ">=", "value": 30}],
        "hops": [
            {"relationship_type": "KNOWS"},
            {"relationship_type": "WORKS_AT", "direction": "outgoing"},
            {"relationship_type": "LOCATED_IN", "direction": "outgoing",
             "conditions": [{"field": "country", "operator": "=", "value": "no"}]}
        ]
    });
    let (paths, records, first) = all_pages(&spec, db, args, 4).await;
    assert_eq!(paths, expected, "{first:#}");
    assert!(
        records
            .iter()
            .all(|r| r["id"] == "oslo" && r["country"] == "no"),
        "{records:?}"
    );
    assert_eq!(
        first["path_entity_types"],
        json!(["Person", "Person", "Company", "City"])
    );
    assert_eq!(first["total"], json!(expected.len()), "{first:#}");
    assert_eq!(first["has_more"], json!(true), "{first:#}");

    // Four hops back and forth, with conditions in the middle: cities, their companies of
    // more than 100 people, who works there, whom they know (outgoing), where those work.
    let mut expected: Vec<Vec<String>> = Vec::new();
    for (city, name) in CITIES.iter().enumerate() {
        for &(c, _) in world.located_in.iter().filter(|(_, at)| *at == city) {
            if world.sizes[c] <= 100 {
                continue;
            }
            for &(p, _) in world.works_at.iter().filter(|(_, co)| *co == c) {
                for &(_, q) in world.knows.iter().filter(|(a, _)| *a == p) {
                    for &(_, d) in world.works_at.iter().filter(|(who, _)| *who == q) {
                        expected.push(vec![
                            (*name).to_owned(),
                            company(c),
                            person(p),
                            person(q),
                            company(d),
                        ]);
                    }
                }
            }
        }
    }
    expected.sort();
    let args = json!({
        "start_entity_type": "City",
        "hops": [
            {"relationship_type": "LOCATED_IN", "direction": "incoming",
             "conditions": [{"field": "size", "operator": ">", "value": 100}]},
            {"relationship_type": "WORKS_AT", "direction": "incoming"},
            {"relationship_type": "KNOWS", "direction": "outgoing"},
            {"relationship_type": "WORKS_AT", "direction": "outgoing"}
        ]
    });
    let (paths, records, first) = all_pages(&spec, db, args, 5).await;
    assert_eq!(paths, expected, "{first:#}");
    for (path, record) in paths.iter().zip(&records) {
        let c: usize = path[4][1..].parse().unwrap();
        assert_eq!(record["size"], json!(world.sizes[c]), "{record}");
    }

    // A pair that knows each other both ways is one step, not two.
    let args = json!({"start_entity_type": "Person",
        "start_conditions": [{"field": "id", "operator": "=", "value": "p00"}],
        "hops": [{"relationship_type": "KNOWS"}], "limit": 100});
    let answer = DatabaseTool::JoinEntities
        .call(spec.clone(), db.clone(), args)
        .await
        .unwrap();
    let reached: Vec<String> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["path"][1].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = acquaintances(&world, 0).into_iter().map(person).collect();
    assert_eq!(reached, expected, "{answer:#}");

    // What a chain cannot be, said.
    let refused = |args: Value| {
        let spec = spec.clone();
        let db = db.clone();
        async move {
            DatabaseTool::JoinEntities
                .call(spec, db, args)
                .await
                .unwrap_err()
                .message
        }
    };
    let hop = json!({"relationship_type": "KNOWS"});
    let message =
        refused(json!({"start_entity_type": "Person", "hops": [hop, hop, hop, hop, hop]})).await;
    assert!(message.contains("1 to 4"), "{message}");
    let message =
        refused(json!({"start_entity_type": "Person", "hops": [{"relationship_type": "KNOW"}]}))
            .await;
    assert!(message.contains("KNOWS"), "{message}");
    let message = refused(json!({"start_entity_type": "City",
        "hops": [{"relationship_type": "WORKS_AT"}]}))
    .await;
    assert!(
        message.contains("no WORKS_AT edge leads either from City"),
        "{message}"
    );
    let message =
        refused(json!({"start_entity_type": "Person", "hops": [{"relationship_type": "LIKES"}]}))
            .await;
    assert!(message.contains("City and Company"), "{message}");
    assert!(message.contains("entity_type"), "{message}");
    let message = refused(json!({"start_entity_type": "Person",
        "hops": [{"relationship_type": "LIKES", "entity_type": "City",
                  "conditions": [{"field": "size", "operator": ">", "value": 1}]}]}))
    .await;
    assert!(message.contains("size"), "{message}");
    // With the entity named, the ambiguous relationship answers.
    let answer = DatabaseTool::JoinEntities
        .call(
            spec.clone(),
            db.clone(),
            json!({"start_entity_type": "Person",
                   "hops": [{"relationship_type": "LIKES", "entity_type": "City"}]}),
        )
        .await
        .unwrap();
    assert_eq!(
        answer["results"][0]["path"],
        json!(["p02", "lima"]),
        "{answer:#}"
    );
    assert_eq!(answer["total"], json!(1), "{answer:#}");
}
