//! Tools over a database nobody here wrote, as it is: the Chinook sample database (SQLite,
//! `tests/fixtures/sample-databases/chinook`, MIT), mapped by a config with `table:`,
//! `column:`, integer keys, foreign keys (one of them a self-reference) and a join table with
//! properties. Every answer is compared with a hand-written SQL query on the same file, and
//! the file is byte-identical afterwards, with no `-wal` or `-shm` beside it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::sample_databases::chinook_sqlite;

const CONFIG: &str = r#"
name: chinook
entities:
  - name: Artist
    table: Artist
    unique_field: ArtistId
    display_name_field: Name
    searchable_fields:
      - {name: ArtistId, type: integer}
      - {name: Name, type: string}
  - name: Album
    table: Album
    unique_field: AlbumId
    display_name_field: title
    searchable_fields:
      - {name: AlbumId, type: integer}
      - {name: title, column: Title, type: string}
      - {name: ArtistId, type: integer}
    relationships:
      - {type: ARTIST, target: Artist, foreign_key: ArtistId}
  - name: Track
    table: Track
    unique_field: TrackId
    display_name_field: name
    searchable_fields:
      - {name: TrackId, type: integer}
      - {name: name, column: Name, type: string}
      - {name: AlbumId, type: integer}
      - {name: Milliseconds, type: integer}
      - {name: UnitPrice, type: number}
    computed_fields:
      - {name: minutes, type: number, expression: Milliseconds / 60000.0}
    relationships:
      - {type: ALBUM, target: Album, foreign_key: AlbumId}
      - type: IN_PLAYLIST
        target: Playlist
        join_table: {table: PlaylistTrack, source_column: TrackId, target_column: PlaylistId}
  - name: Playlist
    table: Playlist
    unique_field: PlaylistId
    display_name_field: Name
    searchable_fields:
      - {name: PlaylistId, type: integer}
      - {name: Name, type: string}
  - name: Employee
    table: Employee
    unique_field: EmployeeId
    display_name_field: LastName
    searchable_fields:
      - {name: EmployeeId, type: integer}
      - {name: LastName, type: string}
      - {name: Title, type: string}
      - {name: hired, column: HireDate, type: datetime}
      - {name: ReportsTo, type: integer}
    relationships:
      - {type: REPORTS_TO, target: Employee, foreign_key: ReportsTo}
  - name: Invoice
    table: Invoice
    unique_field: InvoiceId
    searchable_fields:
      - {name: InvoiceId, type: integer}
      - {name: InvoiceDate, type: datetime}
      - {name: BillingCountry, type: string}
      - {name: Total, type: number}
    relationships:
      - type: CONTAINS
        target: Track
        join_table: {table: InvoiceLine, source_column: InvoiceId, target_column: TrackId}
        properties:
          - {name: Quantity, type: integer}
          - {name: price, column: UnitPrice, type: number}
toolforge:
  tools: [schema, query, lookup, relationships, ranges, patterns, aggregates, graph, search]
"#;

struct Fixture {
    _dir: tempfile::TempDir,
    db: PathBuf,
    config: PathBuf,
}

fn fixture(config: &str) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let config_path = dir.path().join("chinook.yaml");
    std::fs::write(&config_path, config).unwrap();
    Fixture {
        _dir: dir,
        db,
        config: config_path,
    }
}

fn digest(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// `sql`'s first column of every row, as JSON.
fn column(db: &Path, sql: &str) -> Vec<Value> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut statement = conn.prepare(sql).unwrap();
    statement
        .query_map([], |row| {
            Ok(match row.get::<_, rusqlite::types::Value>(0)? {
                rusqlite::types::Value::Integer(n) => json!(n),
                rusqlite::types::Value::Real(x) => json!(x),
                rusqlite::types::Value::Text(text) => json!(text),
                _ => Value::Null,
            })
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn ids(answer: &Value, list: &str, key: &str) -> Vec<Value> {
    answer[list]
        .as_array()
        .unwrap_or_else(|| panic!("no `{list}` in {answer}"))
        .iter()
        .map(|item| item.pointer(key).cloned().unwrap_or(Value::Null))
        .collect()
}

/// `explore_relationships` arguments from the record of `entity` whose `key` is `id`.
fn explore(entity: &str, key: &str, id: Value, relationship: &str, direction: &str) -> Value {
    json!({"start_entity_type": entity,
           "start_conditions": [{"field": key, "operator": "=", "value": id}],
           "relationship_type": relationship, "direction": direction, "limit": 50})
}

#[test]
fn every_tool_family_answers_over_chinook_as_sql_does_and_the_file_is_untouched() {
    let f = fixture(CONFIG);
    let before = digest(&f.db);
    let live = toolforge_cli::dynamic::load(&f.config, &f.db, &Default::default())
        .unwrap_or_else(|error| panic!("{error}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = |name: &str, arguments: Value| -> Value {
        runtime
            .block_on(live.registry.call(name, arguments.clone()))
            .unwrap_or_else(|error| panic!("{name} {arguments}: {}", error.to_json()))
    };

    // Lookups: the key is the table's own integer, in arguments (quoted or not) and answers.
    let track = call(
        "get_entity_by_id",
        json!({"entity_type": "Track", "id_value": "3"}),
    );
    assert_eq!(track["record"]["TrackId"], json!(3));
    assert_eq!(
        json!([track["record"]["name"]]),
        json!(column(&f.db, "SELECT Name FROM Track WHERE TrackId = 3"))
    );
    assert_eq!(
        track["record"]["minutes"],
        json!(
            column(
                &f.db,
                "SELECT Milliseconds / 60000.0 FROM Track WHERE TrackId = 3"
            )[0]
        )
    );
    let many = call(
        "get_entities_by_ids",
        json!({"entity_type": "Artist", "ids": [1, "2", "07", 100000]}),
    );
    assert_eq!(
        ids(&many, "results", "/ArtistId"),
        [json!(1), json!(2), json!(7)]
    );
    assert_eq!(many["missing"], json!(["100000"]));
    let missing = runtime
        .block_on(live.registry.call(
            "get_entity_by_id",
            json!({"entity_type": "Track", "id_value": 999999}),
        ))
        .unwrap_err()
        .to_json();
    assert_eq!(missing["error"], "not_found", "{missing}");

    // query_entities: conditions on a mapped column, a datetime column read as ISO-8601, order.
    let invoices = call(
        "query_entities",
        json!({"entity_type": "Invoice", "conditions": [
            {"field": "BillingCountry", "operator": "=", "value": "Germany"},
            {"field": "InvoiceDate", "operator": ">=", "value": "2011-01-01T00:00:00Z"}],
            "order_by": {"field": "Total", "direction": "DESC"}, "limit": 5}),
    );
    assert_eq!(
        ids(&invoices, "results", "/InvoiceId"),
        column(
            &f.db,
            "SELECT InvoiceId FROM Invoice WHERE BillingCountry = 'Germany' \
             AND InvoiceDate >= '2011-01-01' ORDER BY Total DESC, InvoiceId LIMIT 5"
        )
    );
    assert_eq!(
        json!([invoices["total"]]),
        json!(column(
            &f.db,
            "SELECT count(*) FROM Invoice WHERE BillingCountry = 'Germany' \
             AND InvoiceDate >= '2011-01-01'"
        ))
    );
    let date = &invoices["results"][0]["InvoiceDate"];
    assert!(
        date.as_str().is_some_and(|d| d.ends_with("T00:00:00Z")),
        "{date}"
    );
    let titles = call(
        "query_entities",
        json!({"entity_type": "Album", "conditions": [
            {"field": "title", "operator": "CONTAINS", "value": "Rock"}], "limit": 100}),
    );
    assert_eq!(
        ids(&titles, "results", "/AlbumId"),
        column(
            &f.db,
            "SELECT AlbumId FROM Album WHERE instr(Title, 'Rock') > 0 ORDER BY AlbumId"
        )
    );

    // A foreign key, both ways, and a self-reference.
    let album_tracks = call(
        "explore_relationships",
        explore("Album", "AlbumId", json!(1), "ALBUM", "incoming"),
    );
    assert_eq!(
        ids(&album_tracks, "results", "/record/TrackId"),
        column(
            &f.db,
            "SELECT TrackId FROM Track WHERE AlbumId = 1 ORDER BY TrackId"
        )
    );
    let artist = call(
        "explore_relationships",
        explore("Album", "AlbumId", json!("4"), "ARTIST", "outgoing"),
    );
    assert_eq!(
        ids(&artist, "results", "/record/Name"),
        column(
            &f.db,
            "SELECT Artist.Name FROM Album JOIN Artist USING (ArtistId) WHERE AlbumId = 4"
        )
    );
    let reports = call(
        "explore_relationships",
        explore("Employee", "EmployeeId", json!(2), "REPORTS_TO", "incoming"),
    );
    assert_eq!(
        ids(&reports, "results", "/record/EmployeeId"),
        column(
            &f.db,
            "SELECT EmployeeId FROM Employee WHERE ReportsTo = 2 ORDER BY EmployeeId"
        )
    );

    // A join table, its other columns the relationship's properties.
    let playlists = call(
        "explore_relationships",
        explore("Track", "TrackId", json!(1), "IN_PLAYLIST", "outgoing"),
    );
    assert_eq!(
        ids(&playlists, "results", "/record/PlaylistId"),
        column(
            &f.db,
            "SELECT PlaylistId FROM PlaylistTrack WHERE TrackId = 1 ORDER BY PlaylistId"
        )
    );
    let lines = call(
        "explore_relationships",
        explore("Invoice", "InvoiceId", json!(1), "CONTAINS", "outgoing"),
    );
    assert_eq!(
        ids(&lines, "results", "/record/TrackId"),
        column(
            &f.db,
            "SELECT TrackId FROM InvoiceLine WHERE InvoiceId = 1 ORDER BY TrackId"
        )
    );

    // Hops: every track of an artist, through albums.
    let joined = call(
        "join_entities",
        json!({"start_entity_type": "Artist", "start_conditions": [
            {"field": "Name", "operator": "=", "value": "AC/DC"}],
            "hops": [
                {"relationship_type": "ARTIST", "direction": "incoming", "entity_type": "Album"},
                {"relationship_type": "ALBUM", "direction": "incoming", "entity_type": "Track"}],
            "limit": 100}),
    );
    let mut tracks = ids(&joined, "results", "/record/TrackId");
    tracks.sort_by_key(|id| id.as_i64());
    assert_eq!(
        tracks,
        column(
            &f.db,
            "SELECT TrackId FROM Track JOIN Album USING (AlbumId) JOIN Artist USING (ArtistId) \
             WHERE Artist.Name = 'AC/DC' ORDER BY TrackId"
        )
    );

    // Graph tools over the self-reference.
    let path = call(
        "find_path",
        json!({"from": {"entity_type": "Employee", "id": 8},
               "to": {"entity_type": "Employee", "id": 1}}),
    );
    let depth = column(
        &f.db,
        "WITH RECURSIVE up(id, depth) AS (SELECT 8, 0 UNION ALL \
         SELECT e.ReportsTo, up.depth + 1 FROM Employee e JOIN up ON e.EmployeeId = up.id \
         WHERE e.ReportsTo IS NOT NULL) SELECT max(depth) FROM up",
    );
    assert_eq!(path["found"], json!(true), "{path}");
    assert_eq!(json!([path["length"]]), json!(depth));
    let ranked = call(
        "rank_entities",
        json!({"entity_type": "Employee", "relationship_type": "REPORTS_TO",
               "algorithm": "degree", "direction": "incoming", "limit": 1}),
    );
    assert_eq!(
        ids(&ranked, "results", "/id"),
        column(
            &f.db,
            "SELECT ReportsTo FROM Employee WHERE ReportsTo IS NOT NULL \
             GROUP BY ReportsTo ORDER BY count(*) DESC, ReportsTo LIMIT 1"
        )
    );
    let clusters = call("find_clusters", json!({"entity_type": "Employee"}));
    assert_eq!(
        json!([clusters["records"]]),
        json!(column(&f.db, "SELECT count(*) FROM Employee"))
    );
    let similar = call(
        "find_similar",
        json!({"entity_type": "Track", "id": 1, "similarity": "structural", "top_k": 3}),
    );
    assert!(
        !similar["results"].as_array().unwrap().is_empty(),
        "{similar}"
    );

    // Ranges and aggregates over integer and number columns.
    let long = call(
        "query_entities_by_number_range",
        json!({"entity_type": "Track", "field": "Milliseconds", "min": 1000000, "limit": 100}),
    );
    assert_eq!(
        json!([long["total"]]),
        json!(column(
            &f.db,
            "SELECT count(*) FROM Track WHERE Milliseconds >= 1000000"
        ))
    );
    let totals = call(
        "aggregate_entities",
        json!({"entity_type": "Invoice", "aggregation": "SUM", "field": "Total",
               "group_by": ["BillingCountry"], "limit": 1}),
    );
    let best = column(
        &f.db,
        "SELECT BillingCountry FROM Invoice GROUP BY BillingCountry \
         ORDER BY sum(Total) DESC LIMIT 1",
    );
    assert_eq!(
        json!([totals["groups"][0]["BillingCountry"]]),
        json!(best),
        "{totals}"
    );
    let hired = call(
        "query_entities_by_date_range",
        json!({"entity_type": "Employee", "date_field": "hired", "after": "2003-01-01T00:00:00Z"}),
    );
    assert_eq!(
        json!([hired["total"]]),
        json!(column(
            &f.db,
            "SELECT count(*) FROM Employee WHERE HireDate >= '2003-01-01'"
        ))
    );

    // The schema tools speak of the config's names, and `batch` runs over the same views.
    let schema = call("get_schema", json!({}));
    assert!(schema.to_string().contains("IN_PLAYLIST"), "{schema}");
    let batch = call(
        "batch",
        json!({"calls": [
            {"tool": "get_entity_by_id", "arguments": {"entity_type": "Playlist", "id_value": 1}},
            {"tool": "get_entity_by_id", "arguments": {"entity_type": "Artist", "id_value": 2}}]}),
    );
    assert!(batch.to_string().contains("Accept"), "{batch}");

    drop(live);
    assert!(digest(&f.db) == before, "the database file changed");
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = f.db.as_os_str().to_owned();
        name.push(suffix);
        assert!(
            !Path::new(&name).exists(),
            "{suffix} file beside the database"
        );
    }
}

#[test]
fn key_argument_schemas_say_integer_for_integer_keys() {
    let f = fixture(CONFIG);
    let definitions = toolforge_cli::dynamic::definitions(&f.config, &Default::default()).unwrap();
    let lookup = definitions
        .iter()
        .find(|d| d.name == "get_entity_by_id")
        .unwrap();
    assert_eq!(
        lookup.input_schema["properties"]["id_value"]["type"],
        json!(["integer", "string"])
    );
}

#[test]
fn a_mapping_the_database_does_not_have_is_refused_naming_each_gap() {
    let config = CONFIG
        .replace(
            "{name: title, column: Title, type: string}",
            "{name: title, column: Titel, type: string}",
        )
        .replace("table: Playlist\n", "table: Playlists\n");
    let f = fixture(&config);
    let error = toolforge_cli::dynamic::load(&f.config, &f.db, &Default::default())
        .expect_err("a mapping of missing columns is refused")
        .to_string();
    assert!(error.contains("column \"Titel\""), "{error}");
    assert!(error.contains("field Album.title"), "{error}");
    assert!(error.contains("table Playlists"), "{error}");
    assert!(error.contains("lacks what the config"), "{error}");
    assert!(error.contains("init --from-db"), "{error}");
}

#[test]
fn a_config_mixing_mapped_and_own_tables_is_refused() {
    let config = CONFIG.replace("    table: Playlist\n", "");
    let f = fixture(&config);
    let error = toolforge_cli::dynamic::load(&f.config, &f.db, &Default::default())
        .expect_err("refused")
        .to_string();
    assert!(error.contains("`Playlist` names no `table:`"), "{error}");
}

/// `toolforge init --from-db` on a schema of awkward names, then the tools over what it wrote:
/// every identifier is quoted wherever the views and statements name it.
#[test]
fn awkward_names_written_by_init_from_db_serve_every_lookup() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("awkward.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE \"Order Lines\" (\"Line Id\" INTEGER PRIMARY KEY, \"we\"\"ird\" TEXT, \
         \"select\" TEXT, \"naïve\" REAL, \"Order\" INTEGER REFERENCES \"order\");
         CREATE TABLE \"order\" (id TEXT PRIMARY KEY, \"placed at\" DATETIME);
         INSERT INTO \"order\" VALUES ('o-1', '2024-05-01 09:30:00'), ('o-2', '2024-06-01 10:00:00');
         INSERT INTO \"Order Lines\" VALUES (1, 'a\"b', 'x', 1.5, 'o-1'), (2, 'c', 'y', 2.5, 'o-1'),
                                          (3, 'd', 'z', 3.5, 'o-2');",
    )
    .unwrap();
    drop(conn);
    let before = digest(&db);
    let config = dir.path().join("awkward.yaml");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolforge"))
        .args(["init", "--from-db"])
        .arg(&db)
        .arg("--out")
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let live = toolforge_cli::dynamic::load(&config, &db, &Default::default())
        .unwrap_or_else(|error| panic!("{error}\n{}", std::fs::read_to_string(&config).unwrap()));
    let spec = &live.spec;
    let lines = spec
        .entities
        .iter()
        .find(|e| e.source.as_ref().is_some_and(|t| t.name == "Order Lines"))
        .expect("the table with a space is an entity");
    let order = spec
        .entities
        .iter()
        .find(|e| e.source.as_ref().is_some_and(|t| t.name == "order"))
        .expect("the reserved word is an entity");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = |name: &str, arguments: Value| -> Value {
        runtime
            .block_on(live.registry.call(name, arguments.clone()))
            .unwrap_or_else(|error| panic!("{name} {arguments}: {}", error.to_json()))
    };
    let line = call(
        "get_entity_by_id",
        json!({"entity_type": lines.name, "id_value": 1}),
    );
    let values: Vec<&Value> = line["record"].as_object().unwrap().values().collect();
    assert!(values.contains(&&json!("a\"b")), "{line}");
    assert!(values.contains(&&json!(1.5)), "{line}");
    let placed = order
        .fields
        .iter()
        .find(|f| f.column_name() == "placed at")
        .expect("the column with a space is a field");
    let recent = call(
        "query_entities",
        json!({"entity_type": order.name, "conditions": [
            {"field": placed.name, "operator": ">=", "value": "2024-05-15T00:00:00Z"}]}),
    );
    assert_eq!(
        ids(&recent, "results", &format!("/{}", order.unique_field)),
        [json!("o-2")]
    );
    let relationship = spec
        .relationships
        .iter()
        .find(|r| r.source == lines.name && r.target == order.name)
        .expect("the foreign key is a relationship");
    let of_order = call(
        "explore_relationships",
        json!({"start_entity_type": order.name, "start_conditions": [
            {"field": order.unique_field, "operator": "=", "value": "o-1"}],
            "relationship_type": relationship.rel_type, "direction": "incoming"}),
    );
    assert_eq!(of_order["total"], json!(2), "{of_order}");
    drop(live);
    assert!(digest(&db) == before, "the database file changed");
}

/// A row rule on a mapped table: each caller sees the rows its context value allows, in
/// lookups, lists and the relationships that reach them, and none without the value.
#[test]
fn row_rules_apply_to_mapped_tables_and_the_edges_that_reach_them() {
    let config = CONFIG.replace(
        "toolforge:\n",
        "toolforge:\n  access:\n    Invoice: \"BillingCountry = :context.country\"\n",
    );
    let f = fixture(&config);
    let live = toolforge_cli::dynamic::load(&f.config, &f.db, &Default::default())
        .unwrap_or_else(|error| panic!("{error}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = |country: Option<&str>, name: &str, arguments: Value| {
        let values = match country {
            Some(country) => toolforge::ContextValues::new().with("country", country),
            None => toolforge::ContextValues::new(),
        };
        runtime.block_on(live.registry.call_with_values(name, arguments, &values))
    };
    let all = json!({"entity_type": "Invoice", "limit": 500});
    let german = call(Some("Germany"), "query_entities", all.clone()).unwrap();
    assert_eq!(
        json!([german["total"]]),
        json!(column(
            &f.db,
            "SELECT count(*) FROM Invoice WHERE BillingCountry = 'Germany'"
        ))
    );
    let french_invoice = column(
        &f.db,
        "SELECT InvoiceId FROM Invoice WHERE BillingCountry = 'France' ORDER BY InvoiceId LIMIT 1",
    )[0]
    .clone();
    let hidden = call(
        Some("Germany"),
        "get_entity_by_id",
        json!({"entity_type": "Invoice", "id_value": french_invoice}),
    )
    .unwrap_err()
    .to_json();
    assert_eq!(hidden["error"], "not_found", "{hidden}");
    // The invoice lines of a hidden invoice are hidden too.
    let lines = call(
        Some("Germany"),
        "explore_relationships",
        explore("Track", "TrackId", json!(1), "CONTAINS", "incoming"),
    )
    .unwrap();
    let visible = column(
        &f.db,
        "SELECT count(DISTINCT InvoiceId) FROM InvoiceLine JOIN Invoice USING (InvoiceId) \
         WHERE TrackId = 1 AND BillingCountry = 'Germany'",
    );
    assert_eq!(json!([lines["total"]]), json!(visible), "{lines}");
    let nobody = call(None, "query_entities", all).unwrap();
    assert_eq!(nobody["total"], json!(0), "{nobody}");
}

/// Declared tools over the mapped tables: the structured form (its `where` in the config's
/// field names), and the `sql:` form over the user's own tables, checked against the columns
/// the config maps.
const DECLARED: &str = r#"
  declared_tools:
    - name: long_tracks_of_album
      description: The longest tracks of one album
      entity: Track
      where: "AlbumId = :album AND Milliseconds > :min_ms"
      order_by: Milliseconds DESC
      parameters:
        album: {type: integer, description: "Album id"}
        min_ms: {type: integer, default: 0}
    - name: album_lengths
      description: Each album's track count and total length, longest first
      parameters:
        min_tracks: {type: integer, default: 1}
      sql:
        sqlite: >-
          SELECT a.Title AS title, count(*) AS tracks, sum(t.Milliseconds) AS ms
          FROM Album AS a JOIN Track AS t ON t.AlbumId = a.AlbumId
          GROUP BY a.AlbumId HAVING count(*) >= :min_tracks ORDER BY ms DESC, a.AlbumId
        postgres: >-
          SELECT a."Title" AS title, count(*) AS tracks, sum(t."Milliseconds") AS ms
          FROM "Album" AS a JOIN "Track" AS t ON t."AlbumId" = a."AlbumId"
          GROUP BY a."AlbumId" HAVING count(*) >= :min_tracks ORDER BY ms DESC, a."AlbumId"
"#;

#[test]
fn declared_tools_answer_over_chinook_and_sql_tools_read_only_mapped_columns() {
    let f = fixture(&format!("{CONFIG}{DECLARED}"));
    let before = digest(&f.db);
    let live = toolforge_cli::dynamic::load(&f.config, &f.db, &Default::default())
        .unwrap_or_else(|error| panic!("{error}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = |name: &str, arguments: Value| -> Value {
        runtime
            .block_on(live.registry.call(name, arguments.clone()))
            .unwrap_or_else(|error| panic!("{name} {arguments}: {}", error.to_json()))
    };

    let long = call(
        "long_tracks_of_album",
        json!({"album": 1, "min_ms": 300000}),
    );
    assert_eq!(
        ids(&long, "results", "/TrackId"),
        column(
            &f.db,
            "SELECT TrackId FROM Track WHERE AlbumId = 1 AND Milliseconds > 300000 \
             ORDER BY Milliseconds DESC"
        )
    );
    assert!(!long["results"].as_array().unwrap().is_empty());

    let lengths = call("album_lengths", json!({"min_tracks": 20}));
    assert_eq!(
        ids(&lengths, "rows", "/title"),
        column(
            &f.db,
            "SELECT a.Title FROM Album AS a JOIN Track AS t ON t.AlbumId = a.AlbumId \
             GROUP BY a.AlbumId HAVING count(*) >= 20 \
             ORDER BY sum(t.Milliseconds) DESC, a.AlbumId LIMIT 20"
        )
    );
    // Paged as every declared statement is: 22 albums, the first page of 20.
    assert_eq!(lengths["has_more"], json!(true), "{lengths}");
    assert_eq!(digest(&f.db), before);

    // A statement reading a column the config does not map is refused at its line.
    let unmapped = fixture(
        &format!("{CONFIG}{DECLARED}").replace("a.Title AS title", "a.Title AS title, t.Composer"),
    );
    let error =
        match toolforge_cli::dynamic::load(&unmapped.config, &unmapped.db, &Default::default()) {
            Ok(_) => panic!("a statement over an unmapped column was accepted"),
            Err(error) => error.to_string(),
        };
    assert!(error.contains("no such column: t.Composer"), "{error}");
    assert!(error.contains("name the tables the config maps"), "{error}");
}
