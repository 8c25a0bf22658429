//! What reading a database as it is costs against the same data in toolforge's own tables:
//! the Chinook sample database (`tests/fixtures/sample-databases/chinook`) mapped by a config
//! with `table:` and `foreign_key:`, and its `Track` and `Album` rows imported into a database
//! made by `db init` from the same config without the mapping, with the same indexes. The
//! same calls on both, through the registry every door (`call`, `serve`, generated code)
//! calls: a lookup by key, and a filtered, ordered list.
//!
//! `cargo bench -p toolforge-cli --bench mapped`

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, LazyLock};

use serde_json::{Value, json};
use toolforge::ToolRegistry;

// The sample databases' loaders the integration tests use.
#[path = "../tests/sample_databases.rs"]
mod sample_databases;

fn main() {
    divan::main();
}

const MAPPED: &str = "
name: chinook
entities:
  - name: Album
    table: Album
    unique_field: AlbumId
    searchable_fields:
      - {name: AlbumId, type: integer}
      - {name: Title, type: string}
  - name: Track
    table: Track
    unique_field: TrackId
    searchable_fields:
      - {name: TrackId, type: integer}
      - {name: Name, type: string}
      - {name: AlbumId, type: integer, indexed: true}
      - {name: Milliseconds, type: integer}
      - {name: UnitPrice, type: number}
    relationships:
      - {type: ALBUM, target: Album, foreign_key: AlbumId}
";

/// The same entities in toolforge's own tables (text keys, an edge table).
const OWN: &str = "
name: chinook
entities:
  - name: Album
    unique_field: AlbumId
    searchable_fields:
      - {name: AlbumId, type: string}
      - {name: Title, type: string}
  - name: Track
    unique_field: TrackId
    searchable_fields:
      - {name: TrackId, type: string}
      - {name: Name, type: string}
      - {name: AlbumId, type: integer, indexed: true}
      - {name: Milliseconds, type: integer}
      - {name: UnitPrice, type: number}
    relationships:
      - {type: ALBUM, target: Album}
";

struct Setup {
    _dir: tempfile::TempDir,
    mapped: Arc<ToolRegistry>,
    own: Arc<ToolRegistry>,
    runtime: tokio::runtime::Runtime,
}

/// The Album and Track rows of `chinook` as the JSON lines `db import` reads.
fn export(chinook: &Path) -> Vec<u8> {
    let conn = rusqlite::Connection::open(chinook).unwrap();
    let mut out = Vec::new();
    let mut albums = conn.prepare("SELECT AlbumId, Title FROM Album").unwrap();
    let rows = albums
        .query_map([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .unwrap();
    for row in rows {
        let (id, title) = row.unwrap();
        let line = json!({"entity": "Album", "data": {"AlbumId": id.to_string(), "Title": title}});
        writeln!(out, "{line}").unwrap();
    }
    let mut tracks = conn
        .prepare("SELECT TrackId, Name, AlbumId, Milliseconds, UnitPrice FROM Track")
        .unwrap();
    let rows = tracks
        .query_map([], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<i64>>(2)?,
                row.get::<_, i64>(3)?,
                row.get::<_, f64>(4)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (id, name, album, ms, price) = row.unwrap();
        let line = json!({"entity": "Track", "data": {"TrackId": id.to_string(), "Name": name,
            "AlbumId": album, "Milliseconds": ms, "UnitPrice": price}});
        writeln!(out, "{line}").unwrap();
        if let Some(album) = album {
            let edge = json!({"relationship": "ALBUM",
                "from": {"entity": "Track", "id": id.to_string()},
                "to": {"entity": "Album", "id": album.to_string()}});
            writeln!(out, "{edge}").unwrap();
        }
    }
    out
}

static SETUP: LazyLock<Setup> = LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_databases::chinook_sqlite(dir.path());
    let (mapped_config, own_config) = (dir.path().join("mapped.yaml"), dir.path().join("own.yaml"));
    std::fs::write(&mapped_config, MAPPED).unwrap();
    std::fs::write(&own_config, OWN).unwrap();
    let own_db = dir.path().join("own.db");
    let spec = toolforge_cli::dynamic::compile(&own_config, &Default::default())
        .unwrap()
        .spec;
    let database = toolforge::sql::Database::open(&own_db).unwrap();
    database.init(&spec).unwrap();
    let lines = export(&db);
    database
        .import_jsonl(&spec, std::io::BufReader::new(&lines[..]))
        .unwrap();
    drop(database);
    let load = |config: &Path, db: &Path| {
        toolforge_cli::dynamic::load(config, db, &Default::default())
            .unwrap_or_else(|error| panic!("{error}"))
            .registry
    };
    Setup {
        mapped: load(&mapped_config, &db),
        own: load(&own_config, &own_db),
        _dir: dir,
        runtime: tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
    }
});

fn call(registry: &ToolRegistry, name: &str, arguments: Value) -> Value {
    SETUP
        .runtime
        .block_on(registry.call(name, arguments))
        .unwrap()
}

fn lookup(registry: &ToolRegistry, bencher: divan::Bencher) {
    let mut id = 0u64;
    bencher.bench_local(|| {
        id = id % 3503 + 1;
        call(
            registry,
            "get_entity_by_id",
            json!({"entity_type": "Track", "id_value": id.to_string()}),
        )
    });
}

fn list(registry: &ToolRegistry, bencher: divan::Bencher) {
    let mut album = 0u64;
    bencher.bench_local(|| {
        album = album % 347 + 1;
        call(
            registry,
            "query_entities",
            json!({"entity_type": "Track",
                   "conditions": [{"field": "AlbumId", "operator": "=", "value": album}],
                   "order_by": {"field": "Milliseconds", "direction": "DESC"}, "limit": 20}),
        )
    });
}

/// One record by its key, on the mapped table.
#[divan::bench]
fn lookup_mapped(bencher: divan::Bencher) {
    lookup(&SETUP.mapped, bencher);
}

/// One record by its key, in toolforge's own table.
#[divan::bench]
fn lookup_own(bencher: divan::Bencher) {
    lookup(&SETUP.own, bencher);
}

/// The 20 longest tracks of an album, on the mapped table.
#[divan::bench]
fn list_mapped(bencher: divan::Bencher) {
    list(&SETUP.mapped, bencher);
}

/// The 20 longest tracks of an album, in toolforge's own table.
#[divan::bench]
fn list_own(bencher: divan::Bencher) {
    list(&SETUP.own, bencher);
}
