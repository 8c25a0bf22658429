//! `find_path` over a graph with cycles, two entities and three relationships, against a
//! breadth-first search written here in the order the tool promises (levels; a level's
//! records by entity then id bytes; relationships in spec order, outgoing before incoming;
//! each record's edges by far id; a record reached by the first edge found to it), so that not
//! only the length but every hop must agree:
//!
//! - without row rules, answered from the graph the database keeps (its counters say so);
//! - with a rule that hides nothing, walked statement by statement: the same answers;
//! - with a rule that hides some people, after the kept graph was loaded: the answers of the
//!   search over what the rule leaves, and no hidden id anywhere;
//! - an edge added after the graph was loaded is followed by the next call.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::ToolRegistry;
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;

const PEOPLE: usize = 240;
const TEAMS: usize = 12;

/// The spec, with `rule` (SQL over the row alias `n`) on Person when given.
fn spec(rule: Option<&str>) -> SchemaSpec {
    let mut spec = json!({
        "name": "paths",
        "entities": [
            {"name": "Person", "table": "person", "unique_field": "id", "display_name_field": "name",
             "fields": [{"name": "id", "type": "string", "unique": true},
                        {"name": "name", "type": "string"},
                        {"name": "kind", "type": "string"}]},
            {"name": "Team", "table": "team", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true}]}
        ],
        "relationships": [
            {"type": "KNOWS", "source": "Person", "target": "Person", "table": "person__knows__person"},
            {"type": "MEMBER_OF", "source": "Person", "target": "Team", "table": "person__member_of__team"},
            {"type": "LEADS", "source": "Team", "target": "Person", "table": "team__leads__person"}
        ],
        "tools": {"default_limit": 20, "max_limit": 100, "families": ["graph"]}
    });
    if let Some(rule) = rule {
        spec["access"] = json!([{"entity": "Person", "source": rule, "sql": rule,
                                 "postgres_sql": rule, "context": []}]);
    }
    serde_json::from_value(spec).unwrap()
}

/// Ids of unequal lengths, so that byte order (`p10` < `p9`) and number order differ.
fn person(i: usize) -> String {
    format!("p{i}")
}

fn team(i: usize) -> String {
    format!("t{i}")
}

/// People of kind `closed` (every seventh) are what the hiding rule hides.
fn hidden(i: usize) -> bool {
    i % 7 == 3
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

/// The edges of each relationship, in spec order: KNOWS (cycles: a ring and random links,
/// some both ways), MEMBER_OF, LEADS.
fn edges() -> [Vec<(String, String)>; 3] {
    let mut random = Lcg(57);
    let mut knows = BTreeSet::new();
    for i in 0..PEOPLE {
        knows.insert((person(i), person((i + 1) % PEOPLE)));
    }
    while knows.len() < 3 * PEOPLE {
        let (a, b) = (random.below(PEOPLE), random.below(PEOPLE));
        knows.insert((person(a), person(b)));
        if random.below(4) == 0 {
            knows.insert((person(b), person(a)));
        }
    }
    let mut member = BTreeSet::new();
    for i in 0..PEOPLE {
        member.insert((person(i), team(random.below(TEAMS))));
    }
    let mut leads = BTreeSet::new();
    for t in 0..TEAMS {
        leads.insert((team(t), person(random.below(PEOPLE))));
        leads.insert((team(t), person(random.below(PEOPLE))));
    }
    [knows, member, leads].map(|set| set.into_iter().collect())
}

fn lines(edges: &[Vec<(String, String)>; 3]) -> String {
    let mut out = Vec::new();
    for i in 0..PEOPLE {
        let kind = if hidden(i) { "closed" } else { "open" };
        out.push(json!({"entity": "Person",
                        "data": {"id": person(i), "name": format!("person {i}"), "kind": kind}}));
    }
    for t in 0..TEAMS {
        out.push(json!({"entity": "Team", "data": {"id": team(t)}}));
    }
    let ends = [("Person", "Person"), ("Person", "Team"), ("Team", "Person")];
    for ((name, (from, to)), list) in ["KNOWS", "MEMBER_OF", "LEADS"].iter().zip(ends).zip(edges) {
        for (a, b) in list {
            out.push(
                json!({"relationship": name, "from": {"entity": from, "id": a},
                            "to": {"entity": to, "id": b}}),
            );
        }
    }
    out.iter().map(|line| format!("{line}\n")).collect()
}

/// A hop as the test compares it: from id, relationship type, direction, to id.
type Hop = (String, String, String, String);

/// One way along one relationship: its type, whether outgoing, the near and far entities, and
/// the far ids of each near id (both in byte order).
type Walk<'a> = (
    &'a str,
    bool,
    usize,
    usize,
    BTreeMap<&'a str, BTreeSet<&'a str>>,
);

/// A record: its entity's index and its id.
type End = (usize, String);

/// The path the tool promises, from a search over `edges` written apart from the engine's.
fn expected(
    edges: &[Vec<(String, String)>; 3],
    types: &[&str],
    direction: &str,
    from: (usize, &str),
    to: (usize, &str),
    max_depth: usize,
) -> Option<Vec<Hop>> {
    const RELATIONSHIPS: [(&str, usize, usize); 3] =
        [("KNOWS", 0, 0), ("MEMBER_OF", 0, 1), ("LEADS", 1, 0)];
    // Each walk: type, outgoing, near entity, far entity, far ids by near id (in byte order).
    let mut walks: Vec<Walk> = Vec::new();
    for ((name, source, target), list) in RELATIONSHIPS.iter().zip(edges) {
        if !types.is_empty() && !types.contains(name) {
            continue;
        }
        for outgoing in [true, false] {
            if (outgoing && direction == "incoming") || (!outgoing && direction == "outgoing") {
                continue;
            }
            let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
            for (a, b) in list {
                let (near, far) = if outgoing { (a, b) } else { (b, a) };
                next.entry(near.as_str()).or_default().insert(far.as_str());
            }
            let (near, far) = if outgoing {
                (*source, *target)
            } else {
                (*target, *source)
            };
            walks.push((name, outgoing, near, far, next));
        }
    }
    type Node<'a> = (usize, &'a str);
    let mut parent: BTreeMap<Node, Option<(Node, usize)>> = BTreeMap::from([(from, None)]);
    let mut frontier: Vec<Node> = vec![from];
    let mut depth = 0;
    while !parent.contains_key(&to) && depth < max_depth && !frontier.is_empty() {
        depth += 1;
        frontier.sort();
        let mut next = Vec::new();
        for (index, (_, _, near, far, links)) in walks.iter().enumerate() {
            for &(entity, id) in &frontier {
                if entity != *near {
                    continue;
                }
                for &reached in links.get(id).into_iter().flatten() {
                    let node = (*far, reached);
                    if let std::collections::btree_map::Entry::Vacant(slot) = parent.entry(node) {
                        slot.insert(Some(((entity, id), index)));
                        next.push(node);
                    }
                }
            }
        }
        frontier = next;
    }
    parent.get(&to)?;
    let mut hops = Vec::new();
    let mut at = to;
    while let Some(Some((previous, index))) = parent.get(&at) {
        let (name, outgoing, ..) = &walks[*index];
        let direction = if *outgoing { "outgoing" } else { "incoming" };
        hops.push((
            previous.1.to_owned(),
            (*name).to_owned(),
            direction.to_owned(),
            at.1.to_owned(),
        ));
        at = *previous;
    }
    hops.reverse();
    Some(hops)
}

/// The hops of an answer, or `None` for found: false.
fn hops(answer: &Value) -> Option<Vec<Hop>> {
    if answer["found"] != json!(true) {
        return None;
    }
    let text = |value: &Value| value.as_str().unwrap().to_owned();
    Some(
        answer["hops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hop| {
                let relationship = text(&hop["relationship"]);
                let name = ["KNOWS", "MEMBER_OF", "LEADS"]
                    .into_iter()
                    .find(|name| relationship.contains(name))
                    .unwrap_or_else(|| panic!("{relationship}"));
                (
                    text(&hop["from"]["id"]),
                    name.to_owned(),
                    text(&hop["direction"]),
                    text(&hop["to"]["id"]),
                )
            })
            .collect(),
    )
}

fn registry(spec: SchemaSpec, db: &Database) -> Arc<ToolRegistry> {
    toolforge::sql::tools::register_database_tools(
        ToolRegistry::standard().unwrap(),
        Arc::new(spec),
        db.clone(),
    )
    .unwrap()
    .build()
}

/// The calls: ends of both entities, each direction, some relationship filters, depths 1 to 6.
fn calls(keep: impl Fn(usize) -> bool) -> Vec<(Value, End, End, usize)> {
    let filters: [&[&str]; 4] = [
        &[],
        &["KNOWS"],
        &["MEMBER_OF", "LEADS"],
        &["KNOWS", "LEADS"],
    ];
    let mut random = Lcg(7);
    let mut out = Vec::new();
    while out.len() < 90 {
        let end = |random: &mut Lcg| {
            if random.below(5) == 0 {
                (1, team(random.below(TEAMS)))
            } else {
                let i = random.below(PEOPLE);
                (0, person(i))
            }
        };
        let (from, to) = (end(&mut random), end(&mut random));
        let person_kept =
            |(entity, id): &End| *entity == 1 || keep(id[1..].parse::<usize>().unwrap());
        if !person_kept(&from) || !person_kept(&to) {
            continue;
        }
        let direction = ["outgoing", "incoming", "both"][random.below(3)];
        let types = filters[random.below(filters.len())];
        let max_depth = 1 + random.below(6);
        let name = |entity: usize| ["Person", "Team"][entity];
        let arguments = json!({
            "from": {"entity_type": name(from.0), "id": from.1},
            "to": {"entity_type": name(to.0), "id": to.1},
            "relationship_types": types, "direction": direction, "max_depth": max_depth
        });
        out.push((arguments, from, to, max_depth));
    }
    out
}

async fn call(registry: &ToolRegistry, arguments: &Value) -> Value {
    registry
        .call("find_path", arguments.clone())
        .await
        .unwrap_or_else(|error| panic!("{arguments}: {error}"))
}

fn types_of(arguments: &Value) -> Vec<&str> {
    arguments["relationship_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect()
}

/// Every check of this file on `db` (empty); `stable_stamps` when nothing else writes to the
/// database's server meanwhile, so that one load serves every call.
pub async fn check_paths(db: &Database, stable_stamps: bool) {
    let plain = spec(None);
    db.init(&plain).unwrap();
    let edges = edges();
    db.import_jsonl(&plain, lines(&edges).as_bytes()).unwrap();
    let kept = registry(plain.clone(), db);
    let walked = registry(spec(Some("1 = 1")), db);
    let ruled = registry(spec(Some("\"n\".\"kind\" = 'open'")), db);

    let everyone = calls(|_| true);
    let mut found = 0;
    for (arguments, from, to, max_depth) in &everyone {
        let want = expected(
            &edges,
            &types_of(arguments),
            arguments["direction"].as_str().unwrap(),
            (from.0, &from.1),
            (to.0, &to.1),
            *max_depth,
        );
        found += usize::from(want.is_some());
        let answer = call(&kept, arguments).await;
        assert_eq!(hops(&answer), want, "{arguments}: {answer}");
        let by_statements = call(&walked, arguments).await;
        assert_eq!(by_statements, answer, "{arguments}");
    }
    // Both kinds of answer are among the calls.
    assert!(found >= 20 && found + 20 <= everyone.len(), "{found} found");
    let (loads, handed) = toolforge::__private::path_graph_counts(db);
    assert_eq!(
        handed,
        everyone.len() as u64,
        "every call without rules used the kept graph"
    );
    assert!(loads >= 1, "{loads} loads");
    if stable_stamps {
        assert_eq!(loads, 1, "one load served every call");
    }

    // With a rule that hides people: the search over what the rule leaves, never the kept
    // graph (which holds everyone's edges).
    let visible = |id: &str| !id.starts_with('p') || !hidden(id[1..].parse().unwrap());
    let seen: [Vec<(String, String)>; 3] = edges.clone().map(|list| {
        list.into_iter()
            .filter(|(a, b)| visible(a) && visible(b))
            .collect()
    });
    let some = calls(|i| !hidden(i));
    for (arguments, from, to, max_depth) in &some {
        let want = expected(
            &seen,
            &types_of(arguments),
            arguments["direction"].as_str().unwrap(),
            (from.0, &from.1),
            (to.0, &to.1),
            *max_depth,
        );
        let answer = call(&ruled, arguments).await;
        assert_eq!(hops(&answer), want, "{arguments}: {answer}");
        for hop in hops(&answer).into_iter().flatten() {
            assert!(visible(&hop.0) && visible(&hop.3), "{arguments}: {answer}");
        }
    }
    assert_eq!(
        toolforge::__private::path_graph_counts(db).1,
        handed,
        "no call under rules used the kept graph"
    );

    // An edge added after the graph was loaded: the next call follows it.
    let (a, b) = (0..PEOPLE)
        .flat_map(|a| (0..PEOPLE).map(move |b| (person(a), person(b))))
        .find(|(a, b)| a != b && !edges[0].contains(&(a.clone(), b.clone())))
        .unwrap();
    let direct = json!({"from": {"entity_type": "Person", "id": a}, "to": {"entity_type": "Person", "id": b},
                        "relationship_types": ["KNOWS"], "max_depth": 1});
    assert_eq!(call(&kept, &direct).await["found"], false);
    let line = json!({"relationship": "KNOWS", "from": {"entity": "Person", "id": a},
                      "to": {"entity": "Person", "id": b}});
    db.import_jsonl(&plain, format!("{line}\n").as_bytes())
        .unwrap();
    let answer = call(&kept, &direct).await;
    assert_eq!(answer["length"], 1, "{answer}");
    let (loads_after, handed_after) = toolforge::__private::path_graph_counts(db);
    assert_eq!(handed_after, handed + 2);
    assert!(loads_after > loads, "the write made the graph load again");
}
