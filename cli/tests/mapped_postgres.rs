//! Tools over the Chinook sample database on PostgreSQL, as it is (`tests/fixtures/
//! sample-databases/chinook`, MIT): mapped by a config with schema-qualified and plain table
//! names, `column:`, integer keys, `timestamp` and `numeric` columns, foreign keys (one a
//! self-reference) and a join table, read by a role that may only `SELECT`. Answers are
//! compared with hand-written SQL, and every row is the same afterwards.

use std::path::Path;

use serde_json::{Value, json};

use crate::pg_support;
use crate::sample_databases::chinook_postgres;

const CONFIG: &str = r#"
name: chinook
toolforge:
  tools: [schema, query, lookup, relationships, ranges, aggregates, graph]
  declared_tools:
    - name: long_tracks_of_album
      description: The longest tracks of one album
      entity: Track
      where: "album_id = :album AND milliseconds > :min_ms"
      order_by: milliseconds DESC
      parameters:
        album: {type: integer, description: "Album id"}
        min_ms: {type: integer, default: 0}
    - name: album_lengths
      description: Each album's track count and total length, longest first
      parameters:
        min_tracks: {type: integer, default: 1}
      sql:
        sqlite: SELECT 1 WHERE :min_tracks > 0
        postgres: >-
          SELECT a.album_id, a.title, count(*) AS tracks, sum(t.milliseconds) AS ms
          FROM album AS a JOIN track AS t ON t.album_id = a.album_id
          GROUP BY a.album_id HAVING count(*) >= :min_tracks ORDER BY ms DESC, a.album_id
entities:
  - name: Artist
    table: public.artist
    unique_field: artist_id
    display_name_field: name
    searchable_fields:
      - {name: artist_id, type: integer}
      - {name: name, type: string}
  - name: Album
    table: album
    unique_field: album_id
    display_name_field: title
    searchable_fields:
      - {name: album_id, type: integer}
      - {name: title, type: string}
      - {name: artist_id, type: integer}
    relationships:
      - {type: ARTIST, target: Artist, foreign_key: artist_id}
  - name: Track
    table: track
    unique_field: track_id
    display_name_field: name
    searchable_fields:
      - {name: track_id, type: integer}
      - {name: name, type: string}
      - {name: album_id, type: integer}
      - {name: milliseconds, type: integer}
      - {name: price, column: unit_price, type: number}
    computed_fields:
      - {name: minutes, type: number, expression: milliseconds / 60000.0}
    relationships:
      - {type: ALBUM, target: Album, foreign_key: album_id}
      - type: IN_PLAYLIST
        target: Playlist
        join_table: {table: playlist_track, source_column: track_id, target_column: playlist_id}
  - name: Playlist
    table: playlist
    unique_field: playlist_id
    display_name_field: name
    searchable_fields:
      - {name: playlist_id, type: integer}
      - {name: name, type: string}
  - name: Employee
    table: employee
    unique_field: employee_id
    display_name_field: last_name
    searchable_fields:
      - {name: employee_id, type: integer}
      - {name: last_name, type: string}
      - {name: hired, column: hire_date, type: datetime}
      - {name: reports_to, type: integer}
    relationships:
      - {type: REPORTS_TO, target: Employee, foreign_key: reports_to}
"#;

/// The first column of every row of `sql`, as JSON numbers where they are numbers.
fn column(url: &str, sql: &str) -> Vec<Value> {
    let text = pg_support::query_text(
        url,
        &format!(
            "SELECT coalesce(string_agg(CAST(v AS text), ',' ORDER BY n), '') FROM (SELECT row_number() OVER () AS n, q.* FROM ({sql}) AS q(v)) AS r"
        ),
    );
    text.split(',')
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.parse::<i64>()
                .map_or_else(|_| json!(item), |n| json!(n))
        })
        .collect()
}

fn ids(answer: &Value, key: &str) -> Vec<Value> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {answer}"))
        .iter()
        .map(|item| item.pointer(key).cloned().unwrap_or(Value::Null))
        .collect()
}

#[test]
fn the_tools_answer_over_chinook_on_postgres_as_sql_does_with_a_select_only_role() {
    let Some(base) = pg_support::url(
        "mapped_postgres::the_tools_answer_over_chinook_on_postgres_as_sql_does_with_a_select_only_role",
    ) else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "chinook_mapped");
    chinook_postgres(&url);
    let role = format!("tf_reader_{}", std::process::id());
    let reader = crate::mapped_full_text::select_only_role(&url, "tf_reader", "public");
    let before = pg_support::dump(&url);

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("chinook.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let live = toolforge_cli::dynamic::load(&config, Path::new(&reader), &Default::default())
        .unwrap_or_else(|error| panic!("{error}"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let call = |name: &str, arguments: Value| -> Value {
        runtime
            .block_on(live.registry.call(name, arguments.clone()))
            .unwrap_or_else(|error| panic!("{name} {arguments}: {}", error.to_json()))
    };

    let track = call(
        "get_entity_by_id",
        json!({"entity_type": "Track", "id_value": "3"}),
    );
    assert_eq!(track["record"]["track_id"], json!(3));
    assert_eq!(track["record"]["name"], json!("Fast As a Shark"));
    // `numeric(10,2)` is the nearest double of its digits, not a sum of powers of ten.
    assert_eq!(track["record"]["price"], json!(0.99));

    let hired = call(
        "query_entities",
        json!({"entity_type": "Employee", "conditions": [
            {"field": "hired", "operator": ">=", "value": "2003-01-01T00:00:00Z"}],
            "order_by": {"field": "hired", "direction": "ASC"}, "limit": 50}),
    );
    assert_eq!(
        ids(&hired, "/employee_id"),
        column(
            &url,
            "SELECT employee_id FROM employee WHERE hire_date >= '2003-01-01' \
             ORDER BY hire_date, employee_id"
        )
    );
    assert_eq!(hired["results"][0]["hired"], json!("2003-05-03T00:00:00Z"));

    let album_tracks = call(
        "explore_relationships",
        json!({"start_entity_type": "Album", "start_conditions": [
            {"field": "album_id", "operator": "=", "value": 1}],
            "relationship_type": "ALBUM", "direction": "incoming", "limit": 50}),
    );
    assert_eq!(
        ids(&album_tracks, "/record/track_id"),
        column(
            &url,
            "SELECT track_id FROM track WHERE album_id = 1 ORDER BY track_id"
        )
    );
    let playlists = call(
        "explore_relationships",
        json!({"start_entity_type": "Track", "start_conditions": [
            {"field": "track_id", "operator": "=", "value": "1"}],
            "relationship_type": "IN_PLAYLIST", "limit": 50}),
    );
    assert_eq!(
        ids(&playlists, "/record/playlist_id"),
        column(
            &url,
            "SELECT playlist_id FROM playlist_track WHERE track_id = 1 ORDER BY playlist_id"
        )
    );
    let joined = call(
        "join_entities",
        json!({"start_entity_type": "Artist", "start_conditions": [
            {"field": "name", "operator": "=", "value": "AC/DC"}],
            "hops": [
                {"relationship_type": "ARTIST", "direction": "incoming", "entity_type": "Album"},
                {"relationship_type": "ALBUM", "direction": "incoming", "entity_type": "Track"}],
            "limit": 100}),
    );
    assert_eq!(
        json!([joined["total"]]),
        json!(column(
            &url,
            "SELECT count(*) FROM track JOIN album USING (album_id) \
             JOIN artist USING (artist_id) WHERE artist.name = 'AC/DC'"
        ))
    );
    let path = call(
        "find_path",
        json!({"from": {"entity_type": "Employee", "id": 8},
               "to": {"entity_type": "Employee", "id": 1}}),
    );
    assert_eq!(path["found"], json!(true), "{path}");
    let totals = call(
        "aggregate_entities",
        json!({"entity_type": "Track", "aggregation": "SUM", "field": "milliseconds",
               "group_by": ["album_id"], "limit": 1}),
    );
    assert_eq!(
        json!([totals["groups"][0]["album_id"]]),
        json!(column(
            &url,
            "SELECT album_id FROM track GROUP BY album_id \
             ORDER BY sum(milliseconds) DESC, album_id LIMIT 1"
        ))
    );

    // Declared tools: the structured form in the config's names, the `sql:` form over the
    // user's own tables.
    let long = call(
        "long_tracks_of_album",
        json!({"album": 1, "min_ms": 300000}),
    );
    assert_eq!(
        ids(&long, "/track_id"),
        column(
            &url,
            "SELECT track_id FROM track WHERE album_id = 1 AND milliseconds > 300000 \
             ORDER BY milliseconds DESC"
        )
    );
    let lengths = call("album_lengths", json!({"min_tracks": 20}));
    let albums: Vec<Value> = lengths["rows"]
        .as_array()
        .unwrap_or_else(|| panic!("no rows in {lengths}"))
        .iter()
        .map(|row| row["album_id"].clone())
        .collect();
    assert_eq!(
        albums,
        column(
            &url,
            "SELECT a.album_id FROM album AS a JOIN track AS t ON t.album_id = a.album_id \
             GROUP BY a.album_id HAVING count(*) >= 20 \
             ORDER BY sum(t.milliseconds) DESC, a.album_id LIMIT 20"
        )
    );

    drop(live);
    assert!(pg_support::dump(&url) == before, "a row changed");
    pg_support::batch(&url, &format!("DROP OWNED BY {role}"));
    pg_support::batch(&base, &format!("DROP ROLE IF EXISTS {role}"));
}
