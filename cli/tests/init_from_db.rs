//! `toolforge init --from-db`: the config written from real databases (Chinook and Sakila from
//! `tests/fixtures/sample-databases/`, hostile schemas built here), read only (the SQLite file
//! byte for byte the same, no `-wal` or `-shm` beside it; PostgreSQL as a role with only
//! `USAGE` and `SELECT`), deterministic, and the inputs it refuses. The PostgreSQL tests run
//! under `scripts/with-postgres` (`TOOLFORGE_TEST_POSTGRES_URL`) and are counted by CI.

use std::path::{Path, PathBuf};

use serde_yaml::Value;
use sha2::{Digest, Sha256};

use crate::pg_support;
use crate::sample_databases::{chinook_postgres, chinook_sqlite, sakila_postgres, sqlite_database};

fn run(args: &[&str]) -> (i32, String, String) {
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let code = toolforge_cli::run_with(
        std::iter::once("toolforge").chain(args.iter().copied()),
        &mut toolforge_cli::Output {
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    (
        code,
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

/// Runs `init --from-db source --out out` with `extra`; fails unless it exits 0. Returns the
/// summary line and the config.
fn init(source: &str, out: &Path, extra: &[&str]) -> (String, String) {
    let out_arg = out.to_str().unwrap();
    let mut args = vec!["init", "--from-db", source, "--out", out_arg];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    assert_eq!(stdout.lines().count(), 1, "one summary line: {stdout}");
    (stdout, std::fs::read_to_string(out).unwrap())
}

fn sha256(path: &Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

/// The files of `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("the config is not YAML: {e}\n{text}"))
}

/// The entity named `name`.
fn entity<'v>(config: &'v Value, name: &str) -> &'v Value {
    config["entities"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no entity {name}: {:?}", entity_names(config)))
}

fn entity_names(config: &Value) -> Vec<String> {
    config["entities"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The field named `name` of an entity.
fn field<'v>(entity: &'v Value, name: &str) -> &'v Value {
    entity["searchable_fields"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|f| f["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no field {name} in {}", entity["name"].as_str().unwrap()))
}

fn field_type<'v>(entity: &'v Value, name: &str) -> &'v str {
    field(entity, name)["type"].as_str().unwrap()
}

/// The relationship of `type` of an entity.
fn relationship<'v>(entity: &'v Value, rel_type: &str) -> &'v Value {
    entity["relationships"]
        .as_sequence()
        .unwrap_or_else(|| panic!("no relationships in {:?}", entity["name"]))
        .iter()
        .find(|r| r["type"].as_str() == Some(rel_type))
        .unwrap_or_else(|| panic!("no relationship {rel_type} in {:?}", entity["name"]))
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

#[test]
fn chinook_on_sqlite_maps_ten_entities_and_the_playlist_join_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let before = sha256(&db);
    let listed = files(dir.path());
    let out = dir.path().join("ragforge.config.yaml");
    let (summary, text) = init(db.to_str().unwrap(), &out, &[]);
    assert!(
        summary.contains(
            "10 entities (10 tables), 1 join table as a relationship, 0 tables skipped, 0 columns left out"
        ),
        "{summary}"
    );
    assert!(
        text.starts_with("# Written by `toolforge init --from-db chinook.db`; edit freely.\n"),
        "{text}"
    );
    let config = yaml(&text);
    assert_eq!(config["name"].as_str(), Some("chinook"));
    assert_eq!(
        entity_names(&config),
        [
            "Album",
            "Artist",
            "Customer",
            "Employee",
            "Genre",
            "Invoice",
            "InvoiceLine",
            "MediaType",
            "Playlist",
            "Track"
        ]
    );
    let track = entity(&config, "Track");
    assert_eq!(track["table"].as_str(), Some("Track"));
    assert_eq!(track["unique_field"].as_str(), Some("TrackId"));
    assert_eq!(track["display_name_field"].as_str(), Some("Name"));
    assert_eq!(field_type(track, "TrackId"), "integer");
    assert_eq!(field_type(track, "Name"), "string", "NVARCHAR(200)");
    assert_eq!(field_type(track, "UnitPrice"), "number", "NUMERIC(10,2)");
    assert_eq!(field_type(track, "Milliseconds"), "integer");
    let album = relationship(track, "ALBUM");
    assert_eq!(album["target"].as_str(), Some("Album"));
    assert_eq!(album["foreign_key"].as_str(), Some("AlbumId"));
    assert_eq!(
        relationship(track, "MEDIA_TYPE")["target"].as_str(),
        Some("MediaType")
    );
    let invoice = entity(&config, "Invoice");
    assert_eq!(field_type(invoice, "InvoiceDate"), "datetime", "DATETIME");
    assert_eq!(field_type(invoice, "Total"), "number");
    // The self-reference.
    let employee = entity(&config, "Employee");
    let reports_to = relationship(employee, "REPORTS_TO");
    assert_eq!(reports_to["target"].as_str(), Some("Employee"));
    assert_eq!(reports_to["foreign_key"].as_str(), Some("ReportsTo"));
    assert_eq!(
        relationship(entity(&config, "Customer"), "SUPPORT_REP")["target"].as_str(),
        Some("Employee")
    );
    // The join table: one relationship, declared on the entity of its first key column.
    let playlist = relationship(entity(&config, "Playlist"), "PLAYLIST_TRACK");
    assert_eq!(playlist["target"].as_str(), Some("Track"));
    assert_eq!(
        playlist["join_table"]["table"].as_str(),
        Some("PlaylistTrack")
    );
    assert_eq!(
        playlist["join_table"]["source_column"].as_str(),
        Some("PlaylistId")
    );
    assert_eq!(
        playlist["join_table"]["target_column"].as_str(),
        Some("TrackId")
    );
    assert!(playlist.get("properties").is_none());
    assert!(text.contains("# table \"PlaylistTrack\": a join table, mapped as the relationship PLAYLIST_TRACK of Playlist (to Track)\n"));
    assert!(!text.contains("left out"), "{text}");

    // Read only: the file byte for byte the same, nothing beside it but the config.
    assert_eq!(sha256(&db), before, "the database file changed");
    let mut expected = listed.clone();
    expected.push("ragforge.config.yaml".to_owned());
    expected.sort();
    assert_eq!(
        files(dir.path()),
        expected,
        "no -wal, -shm or temporary file"
    );

    // Deterministic: a second run writes the same bytes.
    let again = dir.path().join("again.yaml");
    let (_, second) = init(db.to_str().unwrap(), &again, &[]);
    assert_eq!(second, text);

    // An existing config is kept without --force, replaced with it.
    std::fs::write(&out, "name: mine\n").unwrap();
    let (code, stdout, stderr) = run(&[
        "init",
        "--from-db",
        db.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stderr.contains("exists") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "name: mine\n");
    let (_, forced) = init(db.to_str().unwrap(), &out, &["--force"]);
    assert_eq!(forced, text);
    assert_eq!(sha256(&db), before);
}

#[test]
fn the_default_out_file_is_the_projects_config() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let (code, stdout, stderr) = run(&[
        "init",
        "--dir",
        project.to_str().unwrap(),
        "--from-db",
        db.to_str().unwrap(),
        "--include",
        "Album",
        "--include",
        "Art*",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("wrote "), "{stdout}");
    assert_eq!(
        files(&project),
        ["ragforge.config.yaml"],
        "no lock or temporary file left"
    );
    let text = std::fs::read_to_string(project.join("ragforge.config.yaml")).unwrap();
    assert!(text.starts_with(
        "# Written by `toolforge init --from-db chinook.db --include Album --include Art*`"
    ));
    let config = yaml(&text);
    assert_eq!(entity_names(&config), ["Album", "Artist"]);
    // A foreign key to a table left out by the patterns is a comment saying so.
    let track_dir = dir.path().join("tracks.yaml");
    let (_, tracks) = init(db.to_str().unwrap(), &track_dir, &["--include", "Track"]);
    assert!(
        tracks.contains(
            "# foreign key (\"AlbumId\") -> \"Album\" (\"AlbumId\") left out: \"Album\" is left out by --include / --exclude"
        ),
        "{tracks}"
    );
    assert_eq!(entity_names(&yaml(&tracks)), ["Track"]);
}

#[test]
fn a_wal_database_gets_no_wal_or_shm_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("wal.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    conn.execute_batch(
        "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT);
         INSERT INTO note (title, body) VALUES ('a', 'b');",
    )
    .unwrap();
    conn.close().unwrap();
    assert_eq!(
        files(dir.path()),
        ["wal.db"],
        "closing removed -wal and -shm"
    );
    let before = sha256(&db);
    let out = dir.path().join("config.yaml");
    let (_, text) = init(db.to_str().unwrap(), &out, &[]);
    assert!(text.contains("display_name_field: title"), "{text}");
    assert_eq!(sha256(&db), before);
    assert_eq!(files(dir.path()), ["config.yaml", "wal.db"]);
}

/// Builds the hostile schema: awkward names, tables without a usable key, types no tool can
/// use, a view, a virtual table, a self join, composite keys.
fn hostile_sqlite(dir: &Path) -> PathBuf {
    let db = dir.join("hostile.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        r#"
        CREATE TABLE "Order Details" (
            "Order ID" INTEGER PRIMARY KEY,
            "Unit Price" NUMERIC(10, 2),
            "we""ird" TEXT,
            "1st" TEXT,
            "select" TEXT,
            "Größe" TEXT,
            "mixedCase" TEXT,
            "mixed_case" TEXT,
            "name" VARCHAR(20)
        );
        CREATE TABLE order_details (id INTEGER PRIMARY KEY, note TEXT);
        CREATE TABLE "a.b""c" (id INTEGER PRIMARY KEY);
        CREATE TABLE "日本" (id INTEGER PRIMARY KEY, "名前" TEXT);
        CREATE TABLE "order" (
            id INTEGER PRIMARY KEY,
            status TEXT NOT NULL CHECK (status IN ('new', 'paid', 'it''s shipped')),
            size TEXT,
            customer INTEGER REFERENCES customer,
            customer_id INTEGER REFERENCES customer (customer_id),
            CHECK ("size" IN ('S', 'M', 'L'))
        );
        CREATE TABLE customer (
            customer_id INTEGER PRIMARY KEY,
            full_name TEXT,
            photo BLOB,
            misc,
            active BOOLEAN,
            born DATE
        );
        CREATE TABLE audit_log (at TEXT, message TEXT);
        CREATE TABLE order_line (
            order_id INTEGER, line_no INTEGER, qty INTEGER,
            PRIMARY KEY (order_id, line_no)
        );
        CREATE TABLE shipment (
            id INTEGER PRIMARY KEY,
            order_id INTEGER,
            line_no INTEGER,
            FOREIGN KEY (order_id, line_no) REFERENCES order_line (order_id, line_no)
        );
        CREATE TABLE note (id INTEGER PRIMARY KEY, log_at TEXT REFERENCES audit_log (at));
        CREATE TABLE tag (label TEXT NOT NULL UNIQUE, colour TEXT);
        CREATE TABLE loose (label TEXT UNIQUE, colour TEXT);
        CREATE TABLE blobkey (k BLOB PRIMARY KEY, v TEXT);
        CREATE TABLE MiXeD (Id INTEGER PRIMARY KEY, "Value" REAL);
        CREATE TABLE friendship (
            a INTEGER REFERENCES customer (customer_id),
            b INTEGER REFERENCES customer (customer_id),
            since DATETIME,
            picture BLOB,
            PRIMARY KEY (a, b)
        );
        CREATE VIEW customer_names AS SELECT customer_id, full_name FROM customer;
        CREATE VIEW stats AS SELECT count(*) AS n FROM customer;
        CREATE VIRTUAL TABLE docs USING fts5(body);
        "#,
    )
    .unwrap();
    let columns: Vec<String> = (1..500).map(|i| format!("c{i} TEXT")).collect();
    conn.execute_batch(&format!(
        "CREATE TABLE wide (id INTEGER PRIMARY KEY, {})",
        columns.join(", ")
    ))
    .unwrap();
    conn.close().unwrap();
    db
}

#[test]
fn hostile_sqlite_schemas_are_mapped_or_commented_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let db = hostile_sqlite(dir.path());
    let before = sha256(&db);
    let out = dir.path().join("hostile.yaml");
    let (summary, text) = init(db.to_str().unwrap(), &out, &[]);
    assert_eq!(sha256(&db), before);
    let config = yaml(&text);
    assert_eq!(
        entity_names(&config),
        [
            "MiXeD",
            "OrderDetails",
            "ABC",
            "Customer",
            "CustomerNames",
            "Note",
            "Order",
            "OrderDetails2",
            "Shipment",
            "Tag",
            "Wide",
            "Table"
        ],
        "{text}"
    );
    assert!(
        summary.contains("12 entities (11 tables, 1 view), 1 join table as a relationship, 6 tables skipped (composite key: 1, key type: 1, no key: 3, virtual table: 1)"),
        "{summary}"
    );

    // Names with spaces, quotes, digits, unicode, reserved words and mixed case.
    let details = entity(&config, "OrderDetails");
    assert_eq!(details["table"].as_str(), Some("Order Details"));
    assert_eq!(details["unique_field"].as_str(), Some("order_id"));
    assert_eq!(details["display_name_field"].as_str(), Some("name"));
    for (name, column, ty) in [
        ("order_id", "Order ID", "integer"),
        ("unit_price", "Unit Price", "number"),
        ("we_ird", "we\"ird", "string"),
        ("field_1st", "1st", "string"),
        ("select", "select", "string"),
        ("gr_e", "Größe", "string"),
        ("mixedCase", "mixedCase", "string"),
        ("mixed_case_2", "mixed_case", "string"),
    ] {
        let f = field(details, name);
        assert_eq!(f["type"].as_str(), Some(ty), "{name}");
        let expected_column = (name != column).then_some(column);
        assert_eq!(f["column"].as_str(), expected_column, "{name}");
    }
    assert_eq!(
        entity(&config, "OrderDetails2")["table"].as_str(),
        Some("order_details")
    );
    assert_eq!(
        entity(&config, "ABC")["table"].as_str(),
        Some("\"a.b\"\"c\"")
    );
    let japan = entity(&config, "Table");
    assert_eq!(japan["table"].as_str(), Some("日本"));
    assert_eq!(field(japan, "field")["column"].as_str(), Some("名前"));
    let mixed = entity(&config, "MiXeD");
    assert_eq!(mixed["unique_field"].as_str(), Some("Id"));
    assert_eq!(field_type(mixed, "Value"), "number");

    // CHECK IN lists are enums; the reserved word is just a name.
    let order = entity(&config, "Order");
    assert_eq!(order["table"].as_str(), Some("order"));
    let status = field(order, "status");
    assert_eq!(status["type"].as_str(), Some("enum"));
    assert_eq!(strings(&status["values"]), ["new", "paid", "it's shipped"]);
    assert_eq!(strings(&field(order, "size")["values"]), ["S", "M", "L"]);
    // A foreign key written without the parent's columns references its primary key.
    let customer_rel = relationship(order, "CUSTOMER");
    assert_eq!(customer_rel["target"].as_str(), Some("Customer"));
    assert_eq!(customer_rel["foreign_key"].as_str(), Some("customer"));
    // Two foreign keys named alike to one target: the second type gets a number.
    let second = relationship(order, "CUSTOMER_2");
    assert_eq!(second["target"].as_str(), Some("Customer"));
    assert_eq!(second["foreign_key"].as_str(), Some("customer_id"));

    // Columns no tool can use.
    let customer = entity(&config, "Customer");
    assert_eq!(customer["display_name_field"].as_str(), Some("full_name"));
    assert_eq!(field_type(customer, "active"), "boolean");
    assert_eq!(field_type(customer, "born"), "datetime");
    assert!(text.contains("      # column \"photo\" (BLOB) left out: no tool can use this type\n"));
    assert!(text.contains("      # column \"misc\" (no type) left out: declared without a type"));
    // The self join: one relationship of Customer to Customer, with its other columns.
    let friends = relationship(customer, "FRIENDSHIP");
    assert_eq!(friends["target"].as_str(), Some("Customer"));
    assert_eq!(friends["join_table"]["source_column"].as_str(), Some("a"));
    assert_eq!(friends["join_table"]["target_column"].as_str(), Some("b"));
    let properties = friends["properties"].as_sequence().unwrap();
    assert_eq!(properties.len(), 1);
    assert_eq!(properties[0]["name"].as_str(), Some("since"));
    assert_eq!(properties[0]["type"].as_str(), Some("datetime"));
    assert!(
        text.contains(
            "          # column \"picture\" (BLOB) left out: no tool can use this type\n"
        )
    );

    // A view: its first column, named like a key, is its unique field.
    let names = entity(&config, "CustomerNames");
    assert_eq!(names["unique_field"].as_str(), Some("customer_id"));
    assert!(text.contains("# a view has no key: \"customer_id\" is taken as its unique field"));

    // A UNIQUE NOT NULL column is a key; a nullable UNIQUE one is not.
    assert_eq!(
        entity(&config, "Tag")["unique_field"].as_str(),
        Some("label")
    );
    for comment in [
        "  # table \"audit_log\" left out: it has no primary key or unique NOT NULL column (map a view with one, or add a key)\n",
        "  # table \"loose\" left out: it has no primary key or unique NOT NULL column",
        "  # table \"order_line\": composite primary key (\"order_id\", \"line_no\") left out: map a view with a single-column key\n",
        "  # table \"blobkey\" left out: its key \"k\" (BLOB) has a type no tool can use",
        "  # table \"stats\" left out: a view has no key",
        "  # table \"docs\" left out: a virtual table (USING fts5)",
        "  # table \"friendship\": a join table, mapped as the relationship FRIENDSHIP of Customer (to Customer)\n",
        "    # foreign key (\"log_at\") -> \"audit_log\" (\"at\") left out: \"audit_log\" is not mapped (see its comment)\n",
        "    # foreign key (\"order_id\", \"line_no\") -> \"order_line\" (\"order_id\", \"line_no\") left out: a composite foreign key cannot be a relationship",
    ] {
        assert!(text.contains(comment), "missing {comment:?} in\n{text}");
    }
    // The FTS5 table's shadow tables are not tables of the user's.
    assert!(
        !text.contains("docs_data") && !text.contains("docs_config"),
        "{text}"
    );

    // 500 columns, each a field, in order.
    let wide = entity(&config, "Wide");
    let fields = wide["searchable_fields"].as_sequence().unwrap();
    assert_eq!(fields.len(), 500);
    assert_eq!(fields[499]["name"].as_str(), Some("c499"));

    let (_, again) = init(db.to_str().unwrap(), &dir.path().join("again.yaml"), &[]);
    assert_eq!(again, text, "two runs write the same bytes");
}

#[test]
fn a_thousand_tables_map_in_catalog_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("many.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut script = String::from("BEGIN;\n");
    for i in 0..1000 {
        let parent = if i == 0 {
            String::new()
        } else {
            format!(", parent_id INTEGER REFERENCES t{:04} (id)", i - 1)
        };
        script.push_str(&format!(
            "CREATE TABLE t{i:04} (id INTEGER PRIMARY KEY, name TEXT{parent});\n"
        ));
    }
    script.push_str("COMMIT;\n");
    conn.execute_batch(&script).unwrap();
    conn.close().unwrap();
    let started = std::time::Instant::now();
    let (summary, text) = init(db.to_str().unwrap(), &dir.path().join("many.yaml"), &[]);
    let elapsed = started.elapsed();
    assert!(summary.contains("1000 entities (1000 tables)"), "{summary}");
    let config = yaml(&text);
    let names = entity_names(&config);
    assert_eq!(names.len(), 1000);
    assert_eq!((names[0].as_str(), names[999].as_str()), ("T0000", "T0999"));
    let last = entity(&config, "T0999");
    assert_eq!(
        relationship(last, "PARENT")["target"].as_str(),
        Some("T0998")
    );
    assert!(elapsed.as_secs() < 30, "{elapsed:?}");
}

#[test]
fn sakila_on_sqlite_maps_its_join_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = sqlite_database(
        dir.path(),
        "sakila.db",
        "sakila/sqlite-sakila-schema.sql.gz",
    );
    let (summary, text) = init(db.to_str().unwrap(), &dir.path().join("sakila.yaml"), &[]);
    let config = yaml(&text);
    assert!(
        summary.contains("2 join tables as a relationship"),
        "{summary}\n{text}"
    );
    let actor = relationship(entity(&config, "Actor"), "FILM_ACTOR");
    assert_eq!(actor["target"].as_str(), Some("Film"));
    assert_eq!(actor["join_table"]["table"].as_str(), Some("film_actor"));
    let category = relationship(entity(&config, "Film"), "FILM_CATEGORY");
    assert_eq!(category["target"].as_str(), Some("Category"));
    assert_eq!(field_type(entity(&config, "Film"), "rental_rate"), "number");
    assert_eq!(
        field_type(entity(&config, "Actor"), "last_update"),
        "datetime"
    );
}

#[test]
fn bad_inputs_exit_1_with_one_line_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text_file = dir.path().join("notes.txt");
    std::fs::write(
        &text_file,
        "just some text, long enough to hold a SQLite header and more: ".repeat(3),
    )
    .unwrap();
    let empty_file = dir.path().join("empty.db");
    std::fs::write(&empty_file, "").unwrap();
    let no_tables = dir.path().join("no-tables.db");
    let conn = rusqlite::Connection::open(&no_tables).unwrap();
    conn.execute_batch("PRAGMA user_version = 7").unwrap();
    conn.close().unwrap();
    let chinook = chinook_sqlite(dir.path());
    let before = files(dir.path());
    let missing = dir.path().join("missing.db");
    let (missing, text_file, empty_file, no_tables, chinook) = (
        missing.to_str().unwrap(),
        text_file.to_str().unwrap(),
        empty_file.to_str().unwrap(),
        no_tables.to_str().unwrap(),
        chinook.to_str().unwrap(),
    );
    let out = dir.path().join("out.yaml");
    let out_arg = out.to_str().unwrap();
    let folder = dir.path().to_str().unwrap();
    for (input, extra, expected) in [
        (missing, &[][..], "does not exist"),
        (text_file, &[], "is not a SQLite database"),
        (empty_file, &[], "has no tables or views to map"),
        (no_tables, &[], "has no tables or views to map"),
        (folder, &[], "is not a file"),
        (
            "postgres://nobody:secret@127.0.0.1:1/none",
            &[],
            "cannot connect to postgres://nobody@127.0.0.1:1/none",
        ),
        (
            chinook,
            &["--schema", "sales"][..],
            "--schema names PostgreSQL schemas",
        ),
        (
            chinook,
            &["--include", "Nothing*"],
            "the include and exclude patterns left out all 11",
        ),
    ] {
        let mut args = vec!["init", "--from-db", input, "--out", out_arg];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 1, "{input}: {stdout}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(expected),
            "{input}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{input}: one line: {stderr}");
        assert!(!stderr.contains("secret"), "{stderr}");
        if !input.starts_with("postgres") && input != folder && !extra.contains(&"--schema") {
            assert!(stderr.contains(input), "{input}: names the input: {stderr}");
        }
        assert!(!out.exists(), "{input}: nothing written");
        assert_eq!(files(dir.path()), before, "{input}: nothing created");
    }
    // Without --from-db, --force and the others are usage errors.
    let (code, _, stderr) = run(&["init", "--force"]);
    assert_eq!(code, 2, "{stderr}");
}

/// A role that may log in and read, as PostgreSQL's `GRANT`s give it, and the URL that logs
/// in as it (the test servers trust local connections).
fn reader_role(url: &str, role: &str, grants: &str) -> String {
    pg_support::batch(
        url,
        &format!(
            "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN \
             CREATE ROLE {role} LOGIN; END IF; END $$; {grants}"
        ),
    );
    let (scheme, rest) = url.split_once("://").unwrap();
    let (_, host) = rest.split_once('@').unwrap();
    format!("{scheme}://{role}@{host}")
}

#[test]
fn sakila_on_postgres_maps_enums_domains_arrays_join_tables_and_views_as_a_read_only_role() {
    let Some(base) = pg_support::url(
        "init_from_db::sakila_on_postgres_maps_enums_domains_arrays_join_tables_and_views_as_a_read_only_role",
    ) else {
        return;
    };
    let (db, url) = pg_support::fresh(&base, "init_sakila");
    drop(db);
    sakila_postgres(&url);
    let role = format!("tf_sakila_reader_{}", std::process::id());
    let reader = reader_role(
        &url,
        &role,
        &format!(
            "REVOKE ALL ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO {role}; \
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};"
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sakila.yaml");
    let (summary, text) = init(&reader, &out, &[]);
    assert!(
        summary.contains("16 entities (13 tables, 3 views), 2 join tables as a relationship"),
        "{summary}"
    );
    let config = yaml(&text);
    let db_name = url.rsplit('/').next().unwrap();
    assert_eq!(config["name"].as_str(), Some(db_name));
    assert!(
        !text.contains(&format!("{role}:")),
        "no password in the header"
    );

    let film = entity(&config, "Film");
    assert_eq!(film["table"].as_str(), Some("public.film"));
    assert_eq!(film["unique_field"].as_str(), Some("film_id"));
    assert_eq!(film["display_name_field"].as_str(), Some("title"));
    let rating = field(film, "rating");
    assert_eq!(rating["type"].as_str(), Some("enum"));
    assert_eq!(
        strings(&rating["values"]),
        ["G", "PG", "PG-13", "R", "NC-17"]
    );
    assert_eq!(
        field_type(film, "release_year"),
        "integer",
        "domain year over integer"
    );
    assert_eq!(field_type(film, "special_features"), "array<string>");
    assert_eq!(field_type(film, "rental_rate"), "number");
    assert_eq!(field_type(film, "length"), "integer", "smallint");
    assert!(
        text.contains(
            "      # column \"fulltext\" (tsvector) left out: no tool can use this type\n"
        )
    );
    assert_eq!(
        relationship(film, "LANGUAGE")["target"].as_str(),
        Some("Language")
    );
    assert_eq!(
        relationship(film, "ORIGINAL_LANGUAGE")["foreign_key"].as_str(),
        Some("original_language_id")
    );
    let categories = relationship(film, "FILM_CATEGORY");
    assert_eq!(categories["target"].as_str(), Some("Category"));
    assert_eq!(
        categories["join_table"]["table"].as_str(),
        Some("public.film_category")
    );
    assert_eq!(
        categories["join_table"]["source_column"].as_str(),
        Some("film_id")
    );
    assert_eq!(
        categories["properties"][0]["type"].as_str(),
        Some("datetime")
    );
    let actors = relationship(entity(&config, "Actor"), "FILM_ACTOR");
    assert_eq!(actors["target"].as_str(), Some("Film"));
    assert_eq!(
        actors["join_table"]["source_column"].as_str(),
        Some("actor_id")
    );
    assert_eq!(
        actors["join_table"]["target_column"].as_str(),
        Some("film_id")
    );
    assert!(!entity_names(&config).contains(&"FilmActor".to_owned()));

    // Views: mapped by a first column named like a key, else commented.
    for (view, key) in [
        ("ActorInfo", "actor_id"),
        ("CustomerList", "id"),
        ("StaffList", "id"),
    ] {
        assert_eq!(
            entity(&config, view)["unique_field"].as_str(),
            Some(key),
            "{view}"
        );
    }
    let zip = field(entity(&config, "CustomerList"), "zip_code");
    assert_eq!(zip["column"].as_str(), Some("zip code"));
    assert!(text.contains("  # table \"public\".\"film_list\" left out: a view has no key"));
    assert!(
        text.contains("  # table \"public\".\"payment_p2007_01\" left out: it has no primary key")
    );
    assert!(
        text.contains("      # column \"picture\" (bytea) left out: no tool can use this type\n")
    );
    assert_eq!(field_type(entity(&config, "Staff"), "active"), "boolean");
    assert_eq!(
        relationship(entity(&config, "Store"), "MANAGER_STAFF")["target"].as_str(),
        Some("Staff")
    );

    let (_, again) = init(&reader, &dir.path().join("again.yaml"), &[]);
    assert_eq!(again, text, "two runs write the same bytes");
}

#[test]
fn chinook_on_postgres_maps_snake_case_names() {
    let Some(base) = pg_support::url("init_from_db::chinook_on_postgres_maps_snake_case_names")
    else {
        return;
    };
    let (db, url) = pg_support::fresh(&base, "init_chinook");
    drop(db);
    chinook_postgres(&url);
    let dir = tempfile::tempdir().unwrap();
    let (summary, text) = init(&url, &dir.path().join("chinook.yaml"), &[]);
    assert!(
        summary.contains("10 entities (10 tables), 1 join table as a relationship, 0 tables skipped, 0 columns left out"),
        "{summary}"
    );
    let config = yaml(&text);
    let employee = entity(&config, "Employee");
    assert_eq!(employee["table"].as_str(), Some("public.employee"));
    let reports_to = relationship(employee, "REPORTS_TO");
    assert_eq!(reports_to["target"].as_str(), Some("Employee"));
    assert_eq!(reports_to["foreign_key"].as_str(), Some("reports_to"));
    assert_eq!(field_type(employee, "birth_date"), "datetime");
    let track = entity(&config, "Track");
    assert_eq!(field_type(track, "unit_price"), "number");
    assert_eq!(field_type(track, "track_id"), "integer");
    let playlist = relationship(entity(&config, "Playlist"), "PLAYLIST_TRACK");
    assert_eq!(playlist["target"].as_str(), Some("Track"));
    assert_eq!(
        playlist["join_table"]["table"].as_str(),
        Some("public.playlist_track")
    );
}

#[test]
fn hostile_postgres_schemas_are_mapped_or_commented_with_the_reason() {
    let Some(base) = pg_support::url(
        "init_from_db::hostile_postgres_schemas_are_mapped_or_commented_with_the_reason",
    ) else {
        return;
    };
    let (db, url) = pg_support::fresh(&base, "init_hostile");
    drop(db);
    pg_support::batch(
        &url,
        r#"
        CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
        CREATE DOMAIN feeling AS mood;
        CREATE DOMAIN size AS text CHECK (VALUE IN ('S', 'M', 'L'));
        CREATE TABLE "Order" (id integer PRIMARY KEY, placed timestamptz NOT NULL);
        COMMENT ON TABLE "Order" IS 'Orders, as the "shop" took them';
        COMMENT ON COLUMN "Order".placed IS 'When it was placed:
        the server''s time';
        CREATE TABLE "order" (
            id bigint PRIMARY KEY,
            "Order_id" integer REFERENCES "Order",
            mood feeling,
            moods mood[],
            size size,
            state varchar(10) CHECK (state IN ('open', 'closed')),
            scores integer[],
            doc jsonb,
            ref uuid,
            took interval,
            price money,
            search tsvector,
            code char(3)
        );
        CREATE SCHEMA hidden;
        CREATE TABLE hidden.secret (id integer PRIMARY KEY);
        CREATE TABLE uses_hidden (id integer PRIMARY KEY, secret_id integer REFERENCES hidden.secret);
        CREATE TABLE payroll (id integer PRIMARY KEY, amount numeric);
        CREATE SCHEMA sales;
        CREATE TABLE sales."Order Lines" (
            "Line Id" bigserial PRIMARY KEY,
            order_id bigint NOT NULL REFERENCES public."order",
            "we""ird" text
        );
        CREATE TABLE sales."order" (id integer PRIMARY KEY);
        CREATE MATERIALIZED VIEW sales.totals AS SELECT order_id, count(*) AS lines FROM sales."Order Lines" GROUP BY order_id;
        CREATE UNIQUE INDEX ON sales.totals (order_id);
        "#,
    );
    let role = format!("tf_hostile_reader_{}", std::process::id());
    let reader = reader_role(
        &url,
        &role,
        &format!(
            "REVOKE ALL ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public, sales TO {role}; \
             GRANT SELECT ON \"Order\", \"order\", uses_hidden TO {role}; \
             GRANT SELECT ON ALL TABLES IN SCHEMA sales TO {role};"
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hostile.yaml");
    let (summary, text) = init(&reader, &out, &["--schema", "public", "--schema", "sales"]);
    assert!(text.starts_with(&format!(
        "# Written by `toolforge init --from-db {reader} --schema public --schema sales`"
    )));
    let config = yaml(&text);
    assert_eq!(
        entity_names(&config),
        [
            "Order",
            "Order2",
            "UsesHidden",
            "OrderLines",
            "SalesOrder",
            "Totals"
        ],
        "{text}"
    );
    assert!(
        summary.contains("1 tables skipped") || summary.contains("1 table skipped"),
        "{summary}"
    );

    let upper = entity(&config, "Order");
    assert_eq!(upper["table"].as_str(), Some("public.\"Order\""));
    assert_eq!(
        upper["description"].as_str(),
        Some("Orders, as the \"shop\" took them")
    );
    let placed = field(upper, "placed");
    assert_eq!(placed["type"].as_str(), Some("datetime"));
    assert_eq!(
        placed["description"].as_str(),
        Some("When it was placed:\n        the server's time")
    );
    let lower = entity(&config, "Order2");
    assert_eq!(lower["table"].as_str(), Some("public.order"));
    assert_eq!(
        relationship(lower, "ORDER")["target"].as_str(),
        Some("Order")
    );
    assert_eq!(
        relationship(lower, "ORDER")["foreign_key"].as_str(),
        Some("Order_id")
    );
    let mood = field(lower, "mood");
    assert_eq!(mood["type"].as_str(), Some("enum"), "a domain over an enum");
    assert_eq!(strings(&mood["values"]), ["sad", "ok", "happy"]);
    assert_eq!(field_type(lower, "moods"), "array<string>");
    assert_eq!(
        strings(&field(lower, "size")["values"]),
        ["S", "M", "L"],
        "a domain's CHECK"
    );
    assert_eq!(
        strings(&field(lower, "state")["values"]),
        ["open", "closed"]
    );
    assert_eq!(field_type(lower, "scores"), "array<number>");
    assert_eq!(field_type(lower, "doc"), "string");
    assert_eq!(field_type(lower, "ref"), "string");
    assert_eq!(field_type(lower, "code"), "string");
    for column in [
        "# column \"took\" (interval) left out",
        "# column \"price\" (money) left out",
        "# column \"search\" (tsvector) left out",
    ] {
        assert!(text.contains(column), "{column}: {text}");
    }

    // A table of another schema, quoted; a name taken by a table of another schema.
    let lines = entity(&config, "OrderLines");
    assert_eq!(lines["table"].as_str(), Some("sales.\"Order Lines\""));
    assert_eq!(lines["unique_field"].as_str(), Some("line_id"));
    assert_eq!(field(lines, "line_id")["column"].as_str(), Some("Line Id"));
    assert_eq!(field(lines, "we_ird")["column"].as_str(), Some("we\"ird"));
    assert_eq!(
        relationship(lines, "ORDER")["target"].as_str(),
        Some("Order2")
    );
    assert_eq!(
        entity(&config, "SalesOrder")["table"].as_str(),
        Some("sales.order")
    );
    // A materialized view keyed by its unique index.
    assert_eq!(
        entity(&config, "Totals")["unique_field"].as_str(),
        Some("order_id")
    );

    // Outside the schemas read, and unreadable.
    assert!(text.contains(
        "    # foreign key (\"secret_id\") -> \"hidden\".\"secret\" (\"id\") left out: \"hidden\".\"secret\" is outside the schemas read (add --schema hidden to map it)\n"
    ), "{text}");
    assert!(text.contains(
        "  # table \"public\".\"payroll\" left out: it cannot be read: the role has no SELECT privilege on it\n"
    ), "{text}");

    // Schema-qualified patterns; a foreign key to a table they leave out is a comment.
    let (_, sales) = init(
        &reader,
        &dir.path().join("sales.yaml"),
        &[
            "--schema",
            "public",
            "--schema",
            "sales",
            "--include",
            "sales.*",
            "--exclude",
            "*totals",
        ],
    );
    assert_eq!(
        entity_names(&yaml(&sales)),
        ["OrderLines", "Order"],
        "{sales}"
    );
    assert!(sales.contains(
        "# foreign key (\"order_id\") -> \"public\".\"order\" (\"id\") left out: \"public\".\"order\" is left out by --include / --exclude"
    ), "{sales}");

    // A schema that does not exist is an error naming it.
    let (code, _, stderr) = run(&[
        "init",
        "--from-db",
        &reader,
        "--schema",
        "nope",
        "--out",
        dir.path().join("nope.yaml").to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("has no schema \"nope\""), "{stderr}");
    assert!(!dir.path().join("nope.yaml").exists());
}
