//! Change tracking over a database nobody here wrote, as it is: the Chinook sample database
//! (`tests/fixtures/sample-databases/chinook`, MIT) with `change_tracking` on its albums.
//! `db init` takes a baseline in toolforge's side store (a file beside the SQLite database, a
//! schema of its own on PostgreSQL); each `db refresh` then records what the user's own
//! writes changed since, and the change tools answer it: every recorded diff and metadata
//! compared with the rows as the test wrote them. The user's tables are never written.

use std::path::Path;

use serde_json::{Value, json};

use crate::mapped_full_text::{call_tool, side_store_reader, toolforge};
use crate::pg_support;
use crate::sample_databases::{chinook_postgres, chinook_sqlite};

/// The config over Chinook's albums, with `{table}`, `{key}`, `{title}` and `{artist}` for
/// each backend's spelling, `{tracking}` for the metadata fields and `{access}` for a row
/// rule.
const CONFIG: &str = r#"
name: chinook
entities:
  - name: Album
    table: {table}
    unique_field: {key}
    display_name_field: title
    searchable_fields:
      - {name: {key}, type: integer}
      - {name: title, column: {title}, type: string}
      - {name: artist_id, column: {artist}, type: integer}
    change_tracking:
      content_field: title
      metadata_fields: [{tracking}]
toolforge:
  tools: [changes, lookup]
{access}"#;

fn config_for(backend: &str, tracking: &str, access: &str) -> String {
    let (table, key, title, artist) = match backend {
        "sqlite" => ("Album", "AlbumId", "Title", "ArtistId"),
        _ => ("album", "album_id", "title", "artist_id"),
    };
    CONFIG
        .replace("{table}", table)
        .replace("{key}", key)
        .replace("{title}", title)
        .replace("{artist}", artist)
        .replace("{tracking}", tracking)
        .replace("{access}", access)
}

/// The albums of Chinook.
const ALBUMS: u64 = 347;

/// What the user's writes do, in each backend's names: the first round renames album 1,
/// moves album 2 to artist 3 and adds album 9000; the second renames album 1 again and
/// deletes album 9000.
fn rounds(backend: &str) -> [String; 2] {
    let (table, key, title, artist) = match backend {
        "sqlite" => ("Album", "AlbumId", "Title", "ArtistId"),
        _ => ("album", "album_id", "title", "artist_id"),
    };
    [
        format!(
            "UPDATE {table} SET {title} = 'For Those About To Rock' WHERE {key} = 1; \
             UPDATE {table} SET {artist} = 3 WHERE {key} = 2; \
             INSERT INTO {table} ({key}, {title}, {artist}) VALUES (9000, 'A Passing Album', 1);"
        ),
        format!(
            "UPDATE {table} SET {title} = 'We Salute You' WHERE {key} = 1; \
             DELETE FROM {table} WHERE {key} = 9000;"
        ),
    ]
}

/// `tool` called with `arguments` and the context values `context` (`NAME=VALUE`).
fn call(config: &Path, db: &str, tool: &str, arguments: Value, context: &[&str]) -> Value {
    call_tool(config, db, tool, &arguments, context)
}

/// A record's recorded changes, newest first (asked with the key as a number, as a model
/// reading an integer key sends it).
fn history(config: &Path, db: &str, id: i64) -> Vec<Value> {
    let answer = call(
        config,
        db,
        "get_entity_change_history",
        json!({"entity_type": "Album", "id": id}),
        &[],
    );
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {answer}"))
        .clone()
}

/// The one change of `changes` at `index`: its type, the lines its diff removes and adds,
/// and its metadata before and after.
fn assert_change(
    changes: &[Value],
    index: usize,
    change_type: &str,
    (removed, added): (&[&str], &[&str]),
    (before, after): (Value, Value),
) {
    let change = &changes[index];
    assert_eq!(change["change_type"], change_type, "{change}");
    let diff = change["diff"].as_str().unwrap_or_default();
    let lines = |mark: char| -> Vec<&str> {
        diff.lines()
            .filter(|line| line.starts_with(mark) && !line.starts_with("---"))
            .filter(|line| !line.starts_with("+++"))
            .map(|line| line[1..].trim_end())
            .filter(|line| !line.starts_with(" No newline") && !line.is_empty())
            .collect()
    };
    assert_eq!(lines('-'), removed, "{change}");
    assert_eq!(lines('+'), added, "{change}");
    assert_eq!(change["lines_removed"], removed.len(), "{change}");
    assert_eq!(change["lines_added"], added.len(), "{change}");
    assert_eq!(change["metadata_before"], before, "{change}");
    assert_eq!(change["metadata_after"], after, "{change}");
}

/// The refresh report's line for the albums.
fn changes_line(stdout: &str) -> &str {
    stdout
        .lines()
        .find(|line| line.starts_with("changes of Album:"))
        .unwrap_or_else(|| panic!("no line on the albums' changes in {stdout}"))
}

/// The whole story on one backend: a baseline, two rounds of the user's writes each seen by
/// a refresh, a refresh that finds nothing, a row rule, and a changed definition.
fn track_the_users_writes(
    dir: &Path,
    backend: &str,
    db: &str,
    reader: &dyn Fn() -> String,
    write: &dyn Fn(&str),
) {
    let config = dir.join(format!("{backend}.yaml"));
    std::fs::write(&config, config_for(backend, "artist_id", "")).unwrap();
    let config_s = config.to_str().unwrap();
    let refresh = || {
        let run = toolforge(&["db", "refresh", "--config", config_s, "--db", db]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        run.stdout
    };

    // Before `db init`: the change tools are refused, naming what is missing and its command.
    let refused = toolforge(&[
        "call",
        "get_change_statistics",
        "--config",
        config_s,
        "--db",
        db,
        "{}",
    ]);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(
        refused.stderr.contains("toolforge db init --config"),
        "{}",
        refused.stderr
    );

    let init = toolforge(&["db", "init", "--config", config_s, "--db", db]);
    assert_eq!(init.code, 0, "{}{}", init.stdout, init.stderr);
    assert!(
        changes_line(&init.stdout).starts_with(&format!(
            "changes of Album: baseline of {ALBUMS} records taken in "
        )),
        "{}",
        init.stdout
    );
    let reader = &reader();
    assert!(history(&config, reader, 1).is_empty());

    let [first, second] = rounds(backend);
    write(&first);
    let seen = refresh();
    assert_eq!(
        changes_line(&seen),
        format!(
            "changes of Album: 1 created, 2 updated, 0 deleted, {} unchanged",
            ALBUMS - 2
        ),
        "{seen}"
    );
    let one = history(&config, reader, 1);
    assert_eq!(one.len(), 1, "{one:?}");
    assert_change(
        &one,
        0,
        "updated",
        (
            &["For Those About To Rock We Salute You"],
            &["For Those About To Rock"],
        ),
        (json!({"artist_id": 1}), json!({"artist_id": 1})),
    );
    let two = history(&config, reader, 2);
    assert_change(
        &two,
        0,
        "updated",
        (&[], &[]),
        (json!({"artist_id": 2}), json!({"artist_id": 3})),
    );
    // A model that quotes the key names the same record.
    let quoted = call(
        &config,
        reader,
        "get_entity_change_history",
        json!({"entity_type": "Album", "id": "9000"}),
        &[],
    );
    assert_change(
        quoted["results"].as_array().unwrap(),
        0,
        "created",
        (&[], &["A Passing Album"]),
        (Value::Null, json!({"artist_id": 1})),
    );

    write(&second);
    let seen = refresh();
    assert_eq!(
        changes_line(&seen),
        format!(
            "changes of Album: 0 created, 1 updated, 1 deleted, {} unchanged",
            ALBUMS - 1
        ),
        "{seen}"
    );
    let one = history(&config, reader, 1);
    assert_eq!(one.len(), 2, "{one:?}");
    assert_change(
        &one,
        0,
        "updated",
        (&["For Those About To Rock"], &["We Salute You"]),
        (json!({"artist_id": 1}), json!({"artist_id": 1})),
    );
    let gone = history(&config, reader, 9000);
    assert_eq!(gone.len(), 2, "{gone:?}");
    assert_change(
        &gone,
        0,
        "deleted",
        (&["A Passing Album"], &[]),
        (json!({"artist_id": 1}), Value::Null),
    );
    // The earlier version of album 1, as the log kept it.
    let versions = call(
        &config,
        reader,
        "compare_entity_versions",
        json!({"entity_type": "Album", "id": 1, "from": one[1]["change_id"].to_string()}),
        &[],
    );
    let diff = versions["diff"].as_str().unwrap_or_default();
    assert!(
        diff.contains("-For Those About To Rock") && diff.contains("+We Salute You"),
        "{versions}"
    );

    // Nothing changed: nothing recorded.
    let seen = refresh();
    assert_eq!(
        changes_line(&seen),
        format!("changes of Album: 0 created, 0 updated, 0 deleted, {ALBUMS} unchanged"),
        "{seen}"
    );
    let statistics = call(&config, reader, "get_change_statistics", json!({}), &[]);
    assert_eq!(statistics["total_changes"], 5, "{statistics}");

    // Under a row rule, the changes of hidden records are hidden too: album 2 ("Balls to the
    // Wall") is before `W`, and album 9000 is gone.
    let ruled = dir.join(format!("{backend}-ruled.yaml"));
    std::fs::write(
        &ruled,
        config_for(
            backend,
            "artist_id",
            "  access:\n    Album: \"title >= :context.from\"\n",
        ),
    )
    .unwrap();
    let recent = call(
        &ruled,
        reader,
        "find_recently_modified_entities",
        json!({"since": "1 day ago"}),
        &["from=W"],
    );
    let mut ids: Vec<&Value> = recent["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {recent}"))
        .iter()
        .map(|change| &change["id"])
        .collect();
    ids.dedup();
    assert_eq!(ids, [&json!("1")], "{recent}");

    // Another definition (no metadata fields): a new baseline, the log kept.
    let other = dir.join(format!("{backend}-other.yaml"));
    std::fs::write(&other, config_for(backend, "", "")).unwrap();
    let rebuilt = toolforge(&[
        "db",
        "refresh",
        "--config",
        other.to_str().unwrap(),
        "--db",
        db,
    ]);
    assert_eq!(rebuilt.code, 0, "{}{}", rebuilt.stdout, rebuilt.stderr);
    assert!(
        changes_line(&rebuilt.stdout).starts_with(&format!(
            "changes of Album: baseline of {} records taken",
            ALBUMS
        )),
        "{}",
        rebuilt.stdout
    );
    assert_eq!(history(&other, reader, 1).len(), 2);
}

#[test]
fn changes_of_chinook_albums_are_recorded_beside_the_file_by_each_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let db_s = db.to_str().unwrap().to_owned();
    let written = std::cell::RefCell::new(std::fs::read(&db).unwrap());
    let write = |sql: &str| {
        // Every refresh leaves the file as the user's last write did.
        assert_eq!(std::fs::read(&db).unwrap(), *written.borrow());
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        *written.borrow_mut() = std::fs::read(&db).unwrap();
    };
    track_the_users_writes(dir.path(), "sqlite", &db_s, &|| db_s.clone(), &write);
    assert_eq!(std::fs::read(&db).unwrap(), *written.borrow());
    for suffix in ["-wal", "-shm", "-journal"] {
        assert!(
            !dir.path().join(format!("chinook.db{suffix}")).exists(),
            "{suffix}"
        );
    }
}

#[test]
fn changes_of_chinook_albums_on_postgres_are_recorded_in_a_schema_of_their_own() {
    let Some(base) = pg_support::url(
        "mapped_changes::changes_of_chinook_albums_on_postgres_are_recorded_in_a_schema_of_their_own",
    ) else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "chinook_changes");
    chinook_postgres(&url);
    let dir = tempfile::tempdir().unwrap();
    // Served by a role that may only read the user's tables and the side store.
    let reader = || side_store_reader(&url, "tf_changes_reader");
    let written = std::cell::RefCell::new(pg_support::dump(&url));
    let write = |sql: &str| {
        assert_eq!(pg_support::dump(&url), *written.borrow());
        pg_support::batch(&url, sql);
        *written.borrow_mut() = pg_support::dump(&url);
    };
    track_the_users_writes(dir.path(), "postgres", &url, &reader, &write);
    assert_eq!(pg_support::dump(&url), *written.borrow());
}
