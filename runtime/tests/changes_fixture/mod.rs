//! The change-tracking scenario both backends run: seeded records, then a sequence of imports,
//! typed writes and deletes; every change tool's answer is checked against the sequence.

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

/// Docs whose `body` is tracked (metadata: `title`), linked to each other; Tags untracked.
pub fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "docs",
        "entities": [
            {"name": "Doc", "table": "doc", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true},
                        {"name": "title", "type": "string"},
                        {"name": "body", "type": "string"},
                        {"name": "views", "type": "number"}],
             "change_tracking": {"content_field": "body", "metadata_fields": ["title"]}},
            {"name": "Tag", "table": "tag", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true}]}
        ],
        "relationships": [{"type": "LINKS", "source": "Doc", "target": "Doc", "table": "doc__links__doc"}],
        "tools": {"default_limit": 20, "max_limit": 100, "families": ["changes"]},
        "change_log": {"max_changes_per_record": 50}
    }))
    .unwrap()
}

fn import(db: &Database, spec: &SchemaSpec, lines: &[Value]) -> toolforge::sql::ImportStats {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    db.import_jsonl(spec, text.as_bytes()).unwrap()
}

/// Calls `tool`; its answer must match the tool's `outputSchema`.
async fn call(spec: &Arc<SchemaSpec>, db: &Database, tool: DatabaseTool, args: Value) -> Value {
    let answer = tool
        .call(spec.clone(), db.clone(), args.clone())
        .await
        .unwrap();
    let schema = tool.definition(spec).output_schema;
    let schema = schema.unwrap_or_else(|| panic!("{} has no outputSchema", tool.name()));
    let validator = jsonschema::validator_for(&schema).unwrap();
    let problems: Vec<String> = validator
        .iter_errors(&answer)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "the answer of {} {args} does not match its outputSchema: {problems:?}\n{answer:#}",
        tool.name()
    );
    answer
}

/// Applies a unified diff to `old` (the hunks `similar` writes).
pub fn apply(old: &str, diff: &str) -> String {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut at = 0usize;
    let mut last_added: Option<usize> = None;
    let lines = diff.lines();
    for line in lines {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@ -") {
            let start: usize = rest.split([',', ' ']).next().unwrap().parse().unwrap();
            let start = start.saturating_sub(1).max(at);
            while at < start {
                out.push_str(old_lines[at]);
                at += 1;
            }
            // An empty old side is written `-0,0`: nothing to keep.
            continue;
        }
        if line.starts_with('\\') {
            // `\ No newline at end of file`: the line before has no end.
            if out.ends_with('\n') && last_added.is_some() {
                out.pop();
            }
            continue;
        }
        let (tag, text) = line.split_at(1);
        match tag {
            " " => {
                out.push_str(old_lines[at]);
                at += 1;
                last_added = Some(out.len());
            }
            "-" => {
                at += 1;
                last_added = None;
            }
            "+" => {
                out.push_str(text);
                out.push('\n');
                last_added = Some(out.len());
            }
            other => panic!("unexpected diff line tag {other:?}"),
        }
    }
    while at < old_lines.len() {
        out.push_str(old_lines[at]);
        at += 1;
    }
    out
}

/// Runs the whole scenario on `db` (initialized, empty).
pub async fn check_scenario(db: &Database) {
    let spec = Arc::new(spec());
    db.init(&spec).unwrap();
    // Seed: two docs, a tag, a link. Two changes (created), none for the tag or the link.
    let stats = import(
        db,
        &spec,
        &[
            json!({"entity": "Doc", "data": {"id": "a", "title": "A", "body": "one\ntwo\nthree\n", "views": 1}}),
            json!({"entity": "Doc", "data": {"id": "b", "title": "B", "body": "alpha\n"}}),
            json!({"entity": "Tag", "data": {"id": "t"}}),
            json!({"relationship": "LINKS", "from": {"entity": "Doc", "id": "a"}, "to": {"entity": "Doc", "id": "b"}}),
        ],
    );
    assert_eq!(stats.changes, 2);
    // The same records again, and a field that is not tracked: nothing is recorded.
    let stats = import(
        db,
        &spec,
        &[
            json!({"entity": "Doc", "data": {"id": "a", "title": "A", "body": "one\ntwo\nthree\n", "views": 7}}),
            json!({"entity": "Doc", "data": {"id": "b"}}),
        ],
    );
    assert_eq!(stats.changes, 0);
    // An update of a's body (and title), twice in one import: one change, the net one.
    let stats = import(
        db,
        &spec,
        &[
            json!({"entity": "Doc", "data": {"id": "a", "body": "one\n2\nthree\n"}}),
            json!({"entity": "Doc", "data": {"id": "a", "title": "A2", "body": "one\n2\nthree\nfour"}}),
        ],
    );
    assert_eq!(stats.changes, 1);
    // A failed import (an edge to a missing record) records nothing.
    let failed = db.import_jsonl(
        &spec,
        concat!(
            "{\"entity\":\"Doc\",\"data\":{\"id\":\"a\",\"body\":\"gone\"}}\n",
            "{\"relationship\":\"LINKS\",\"from\":{\"entity\":\"Doc\",\"id\":\"a\"},\"to\":{\"entity\":\"Doc\",\"id\":\"zz\"}}\n"
        )
        .as_bytes(),
    );
    assert!(failed.is_err());
    // The Rust import API: b updated, then a rolled-back write of a records nothing.
    db.import(&spec, |import| {
        import.entity(
            "Doc",
            json!({"id": "b", "body": "alpha\nbeta\n"})
                .as_object()
                .unwrap(),
        )
    })
    .unwrap();
    let rolled_back = db.import(&spec, |import| {
        import.entity(
            "Doc",
            json!({"id": "a", "body": "nope\n"}).as_object().unwrap(),
        )?;
        Err(toolforge::sql::ImportError {
            line: None,
            field: None,
            message: "stop".into(),
        })
    });
    assert!(rolled_back.is_err());
    // A delete line: b and its edge are gone, one `deleted` change.
    let stats = import(
        db,
        &spec,
        &[json!({"delete": {"entity": "Doc", "id": "b"}})],
    );
    assert_eq!((stats.deleted, stats.changes), (1, 1));

    // History of a: created, updated (newest first).
    let history = call(
        &spec,
        db,
        DatabaseTool::GetEntityChangeHistory,
        json!({"entity_type": "Doc", "id": "a"}),
    )
    .await;
    let changes = history["results"].as_array().unwrap();
    let types: Vec<&str> = changes
        .iter()
        .map(|c| c["change_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["updated", "created"], "{history}");
    assert_eq!(history["total"], 2);
    assert_eq!(changes[0]["metadata_before"], json!({"title": "A"}));
    assert_eq!(changes[0]["metadata_after"], json!({"title": "A2"}));
    assert_eq!(
        (
            changes[0]["lines_added"].as_i64(),
            changes[0]["lines_removed"].as_i64()
        ),
        (Some(2), Some(1))
    );
    // The diffs re-applied in order give each version.
    let created = apply("", changes[1]["diff"].as_str().unwrap());
    assert_eq!(created, "one\ntwo\nthree\n");
    let updated = apply(&created, changes[0]["diff"].as_str().unwrap());
    assert_eq!(updated, "one\n2\nthree\nfour");

    // History of b: created, updated, deleted.
    let history = call(
        &spec,
        db,
        DatabaseTool::GetEntityChangeHistory,
        json!({"entity_type": "Doc", "id": "b", "limit": 2}),
    )
    .await;
    let types: Vec<&str> = history["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["change_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["deleted", "updated"]);
    assert_eq!(
        (history["total"].as_u64(), history["has_more"].as_bool()),
        (Some(3), Some(true))
    );

    // Recently modified: b (deleted last), then a.
    let recent = call(
        &spec,
        db,
        DatabaseTool::FindRecentlyModifiedEntities,
        json!({"since": "1 hour ago"}),
    )
    .await;
    let ids: Vec<&str> = recent["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["b", "a"], "{recent}");
    assert_eq!(recent["results"][0]["last_change_type"], "deleted");
    let only_created = call(
        &spec,
        db,
        DatabaseTool::FindRecentlyModifiedEntities,
        json!({"since": "1 hour ago", "change_types": ["deleted"]}),
    )
    .await;
    assert_eq!(only_created["total"], 1);
    let future = call(
        &spec,
        db,
        DatabaseTool::FindRecentlyModifiedEntities,
        json!({"since": "in 1 day"}),
    )
    .await;
    assert_eq!(future["total"], 0);

    // Most modified: b (3 changes), a (2).
    let most = call(&spec, db, DatabaseTool::GetMostModifiedEntities, json!({})).await;
    let counts: Vec<(String, i64)> = most["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_owned(),
                r["change_count"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counts, [("b".to_owned(), 3), ("a".to_owned(), 2)]);

    // Statistics: 5 changes over 2 records.
    let stats = call(
        &spec,
        db,
        DatabaseTool::GetChangeStatistics,
        json!({"entity_type": "Doc", "bucket": "day"}),
    )
    .await;
    assert_eq!(stats["total_changes"], 5, "{stats}");
    assert_eq!(stats["records_changed"], 2);
    assert_eq!(
        stats["by_type"],
        json!({"created": 2, "deleted": 1, "updated": 2})
    );
    assert_eq!(stats["by_entity"], json!({"Doc": 5}));
    let frequency = stats["frequency"].as_array().unwrap();
    assert_eq!(frequency.len(), 1);
    assert_eq!(frequency[0]["changes"], 5);

    // Compare: from a's first change to its latest gives the update's diff.
    let first_id = changes[1]["change_id"].as_i64().unwrap();
    let compared = call(
        &spec,
        db,
        DatabaseTool::CompareEntityVersions,
        json!({"entity_type": "Doc", "id": "a", "from": first_id.to_string()}),
    )
    .await;
    assert_eq!(
        apply("one\ntwo\nthree\n", compared["diff"].as_str().unwrap()),
        "one\n2\nthree\nfour"
    );
    assert_eq!(compared["lines_added"], 2);

    // An untracked entity is refused with the tracked ones named.
    let error = DatabaseTool::GetEntityChangeHistory
        .call(
            spec.clone(),
            db.clone(),
            json!({"entity_type": "Tag", "id": "t"}),
        )
        .await
        .unwrap_err();
    assert!(
        error.message.contains("does not track"),
        "{}",
        error.message
    );
}

/// One change row written straight into the change log by [`check_churn`].
struct LoggedChange {
    record: String,
    at: i64,
    change_type: &'static str,
    added: i64,
    removed: i64,
    /// The JSON text of the `title` member of the metadata, or `None` for no member.
    title: Option<&'static str>,
}

/// `analyze_churn` over a change log written by the test itself (instants it chose), checked
/// against sums, spans and medians computed here from the same rows. `insert` runs SQL on the
/// database (both backends take the statement as written).
pub async fn check_churn(db: &Database, insert: impl Fn(&str)) {
    let spec = Arc::new(spec());
    db.init(&spec).unwrap();
    // A deterministic sequence: 12 records, 1 to 6 changes each, at irregular instants of 2026.
    let base = jiff::Timestamp::from_second(1_767_225_600).unwrap(); // 2026-01-01T00:00:00Z
    let titles = [
        Some("\"alpha\""),
        Some("\"beta\""),
        None,
        Some("7"),
        Some("null"),
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound
    };
    let mut changes = Vec::new();
    for record in 0..12 {
        let count = 1 + next(6) as i64;
        let mut at = next(86_400 * 20) as i64;
        for i in 0..count {
            changes.push(LoggedChange {
                record: format!("d{record}"),
                at,
                change_type: if i == 0 { "created" } else { "updated" },
                added: next(40) as i64,
                removed: next(25) as i64,
                title: titles[next(titles.len() as u64) as usize],
            });
            // Gaps from a second to four days; sometimes two changes in the same second.
            at += if next(5) == 0 {
                0
            } else {
                1 + next(86_400 * 4) as i64
            };
        }
    }
    // Written in time order, so the log's ids follow the instants.
    changes.sort_by_key(|change| change.at);
    let instant = |at: i64| {
        jiff::Timestamp::from_second(base.as_second() + at)
            .unwrap()
            .to_string()
    };
    let rows: Vec<String> = changes
        .iter()
        .map(|change| {
            let metadata = match change.title {
                Some(value) => format!("'{{\"title\":{value}}}'"),
                None => "'{}'".to_owned(),
            };
            format!(
                "('Doc', '{}', '{}', '{}', '', {}, {}, {metadata})",
                change.record,
                instant(change.at),
                change.change_type,
                change.added,
                change.removed
            )
        })
        .collect();
    insert(&format!(
        "INSERT INTO toolforge_changes (entity, record_id, timestamp, change_type, diff, \
         lines_added, lines_removed, metadata_after) VALUES {}",
        rows.join(", ")
    ));

    // The expected answer, from the rows above: keyed, summed, ranked.
    let expected = |key_of: &dyn Fn(&LoggedChange) -> String,
                    window: (i64, i64),
                    by_lines: bool,
                    limit: usize|
     -> (usize, Vec<Value>) {
        let mut keys: Vec<String> = Vec::new();
        let mut groups: Vec<Vec<(usize, &LoggedChange)>> = Vec::new();
        for (index, change) in changes.iter().enumerate() {
            if change.at < window.0 || change.at >= window.1 {
                continue;
            }
            let key = key_of(change);
            match keys.iter().position(|k| *k == key) {
                Some(at) => groups[at].push((index, change)),
                None => {
                    keys.push(key);
                    groups.push(vec![(index, change)]);
                }
            }
        }
        let hours = |seconds: f64| (seconds / 3600.0 * 1000.0).round() / 1000.0;
        let mut entries: Vec<(i64, i64, usize, Value)> = keys
            .iter()
            .zip(&groups)
            .map(|(key, group)| {
                let n = group.len();
                let added: i64 = group.iter().map(|(_, c)| c.added).sum();
                let removed: i64 = group.iter().map(|(_, c)| c.removed).sum();
                let (last_index, last) = group.last().unwrap();
                let first = group.first().unwrap().1;
                let mut gaps: Vec<i64> = group.windows(2).map(|w| w[1].1.at - w[0].1.at).collect();
                gaps.sort_unstable();
                let median = match gaps.len() {
                    0 => None,
                    len if len % 2 == 1 => Some(gaps[len / 2] as f64),
                    len => Some((gaps[len / 2 - 1] + gaps[len / 2]) as f64 / 2.0),
                };
                let mut records: Vec<&str> = group.iter().map(|(_, c)| c.record.as_str()).collect();
                records.sort_unstable();
                records.dedup();
                let entry = json!({
                    "key": key,
                    "records": records.len(),
                    "change_count": n,
                    "lines_added": added,
                    "lines_removed": removed,
                    "first_change": instant(first.at),
                    "last_change": instant(last.at),
                    "last_change_type": last.change_type,
                    "mean_hours_between_changes":
                        (n > 1).then(|| hours((last.at - first.at) as f64 / (n - 1) as f64)),
                    "median_hours_between_changes": median.map(hours),
                });
                let rank = if by_lines { added + removed } else { n as i64 };
                (rank, n as i64, *last_index, entry)
            })
            .collect();
        entries.sort_by_key(|e| std::cmp::Reverse((e.0, e.1, e.2)));
        let total = entries.len();
        (
            total,
            entries.into_iter().take(limit).map(|e| e.3).collect(),
        )
    };
    let check = |answer: &Value, expected: (usize, Vec<Value>), key: &str, what: &str| {
        assert_eq!(answer["total"], json!(expected.0), "{what}: {answer:#}");
        let results = answer["results"].as_array().unwrap();
        assert_eq!(results.len(), expected.1.len(), "{what}: {answer:#}");
        for (got, want) in results.iter().zip(&expected.1) {
            let got_key = match key {
                "id" => got["id"].as_str().unwrap().to_owned(),
                _ => got["value"].to_string(),
            };
            assert_eq!(got_key, want["key"].as_str().unwrap(), "{what}: {got:#}");
            for name in [
                "change_count",
                "lines_added",
                "lines_removed",
                "first_change",
                "last_change",
                "last_change_type",
            ] {
                assert_eq!(got[name], want[name], "{what}: `{name}` of {got:#}");
            }
            if key == "value" {
                assert_eq!(got["records"], want["records"], "{what}: {got:#}");
            }
            for name in ["mean_hours_between_changes", "median_hours_between_changes"] {
                match (got[name].as_f64(), want[name].as_f64()) {
                    (Some(g), Some(w)) => {
                        assert!(
                            (g - w).abs() < 0.0015,
                            "{what}: `{name}` {g} != {w}: {got:#}"
                        )
                    }
                    (g, w) => assert_eq!(g, w, "{what}: `{name}` of {got:#}"),
                }
            }
        }
    };
    let by_record = |c: &LoggedChange| c.record.clone();
    let by_title = |c: &LoggedChange| c.title.unwrap_or("null").to_owned();
    let everything = (i64::MIN, i64::MAX);

    let answer = call(&spec, db, DatabaseTool::AnalyzeChurn, json!({"limit": 100})).await;
    check(
        &answer,
        expected(&by_record, everything, false, 100),
        "id",
        "per record",
    );
    assert!(answer.get("group_by").is_none(), "{answer:#}");

    let answer = call(
        &spec,
        db,
        DatabaseTool::AnalyzeChurn,
        json!({"entity_type": "Doc", "rank_by": "lines", "limit": 5}),
    )
    .await;
    check(
        &answer,
        expected(&by_record, everything, true, 5),
        "id",
        "by lines",
    );
    assert_eq!(answer["truncated"], json!(true), "{answer:#}");

    // A window: the second week to the end of the third.
    let window = (86_400 * 7, 86_400 * 21);
    let answer = call(
        &spec,
        db,
        DatabaseTool::AnalyzeChurn,
        json!({"entity_type": "Doc", "group_by": "title", "since": instant(window.0),
               "until": instant(window.1)}),
    )
    .await;
    assert_eq!(answer["group_by"], json!("title"), "{answer:#}");
    check(
        &answer,
        expected(&by_title, window, false, 20),
        "value",
        "by title in a window",
    );
    let answer = call(
        &spec,
        db,
        DatabaseTool::AnalyzeChurn,
        json!({"entity_type": "Doc", "group_by": "title", "rank_by": "lines"}),
    )
    .await;
    check(
        &answer,
        expected(&by_title, everything, true, 20),
        "value",
        "by title, lines",
    );

    // What `group_by` needs, said.
    let refused = |args: Value| {
        let spec = spec.clone();
        let db = db.clone();
        async move {
            DatabaseTool::AnalyzeChurn
                .call(spec, db, args)
                .await
                .unwrap_err()
                .message
        }
    };
    let message = refused(json!({"group_by": "title"})).await;
    assert!(message.contains("give `entity_type`"), "{message}");
    let message = refused(json!({"entity_type": "Doc", "group_by": "views"})).await;
    assert!(message.contains("`views`"), "{message}");
    assert!(
        message.contains("change_tracking.metadata_fields"),
        "{message}"
    );
    let message = refused(json!({"entity_type": "Tag", "group_by": "id"})).await;
    assert!(message.contains("does not track its changes"), "{message}");
    let message = refused(json!({"until": "whenever"})).await;
    assert!(message.contains("`until`"), "{message}");
}
