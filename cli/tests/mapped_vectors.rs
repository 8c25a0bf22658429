//! Semantic search over a database nobody here wrote, as it is: the Chinook sample database
//! (`tests/fixtures/sample-databases/chinook`, MIT) with a vector index on a mapped table,
//! embedded by the real local model (all-MiniLM-L6-v2). `db init` creates the vectors table
//! in toolforge's side store (a file beside the SQLite database, a schema of its own on
//! PostgreSQL) and embeds every name; `db embed` follows the user's own writes. Every ranking
//! is compared with the cosine of the model's own vectors, computed by the test over the rows
//! as they are; the user's tables are the same afterwards.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};
use toolforge::embed::{Embedder, LocalModel};

use crate::mapped_full_text::{
    assert_matches_output_schema, call_tool, select_only_role, side_store_reader, toolforge,
};
use crate::pg_support;
use crate::sample_databases::{chinook_postgres, chinook_sqlite};

/// The config over Chinook's artists, with `{table}`, `{key}` and `{name}` for each backend's
/// spelling, `{model}` for the model's folder and `{access}` for a row rule.
const CONFIG: &str = r#"
name: chinook
entities:
  - name: Artist
    table: {table}
    unique_field: {key}
    display_name_field: name
    searchable_fields:
      - {name: {key}, type: integer}
      - {name: name, column: {name}, type: string}
    full_text_index:
      fields: [name]
    vector_indexes:
      - {name: by_name, source_field: name, dimension: 384}
toolforge:
  tools: [search, lookup]
  embeddings:
    provider: local
    model_path: {model}
{access}"#;

fn config_for(backend: &str, access: &str) -> String {
    let (table, key, name) = match backend {
        "sqlite" => ("Artist", "ArtistId", "Name"),
        _ => ("artist", "artist_id", "name"),
    };
    let model = crate::cli_catalog::model_dir();
    CONFIG
        .replace("{table}", table)
        .replace("{key}", key)
        .replace("{name}", name)
        .replace("{model}", &json!(model.to_str().unwrap()).to_string())
        .replace("{access}", access)
}

/// `semantic_search` for `query`, with the context values `context` (`NAME=VALUE`).
fn search(config: &Path, db: &str, query: &str, top_k: u32, context: &[&str]) -> Value {
    let arguments = json!({"entity_type": "Artist", "query": query, "top_k": top_k});
    call_tool(config, db, "semantic_search", &arguments, context)
}

/// The hits of an answer: (key, score), best first. An integer key is a number in answers.
fn hits(answer: &Value) -> Vec<(i64, f64)> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {answer}"))
        .iter()
        .map(|hit| {
            let id = hit["id"].as_i64();
            (
                id.expect("an integer key, as a number"),
                hit["score"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn model() -> &'static LocalModel {
    static MODEL: std::sync::OnceLock<LocalModel> = std::sync::OnceLock::new();
    MODEL.get_or_init(|| LocalModel::load(crate::cli_catalog::model_dir()).expect("the model"))
}

fn embed(texts: &[&str]) -> Vec<Vec<f32>> {
    let mut vectors = Vec::new();
    for chunk in texts.chunks(64) {
        vectors.extend(model().embed(chunk, None).expect("embed"));
    }
    vectors
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

/// Each answer holds the best matches of its query by the model's own cosine over `rows`
/// (key, name): every hit scored as the model scores it, best first, and no row left out
/// that scores better than the last hit.
fn assert_ranked_by_the_model(answer: &Value, query: &str, rows: &[(i64, String)], top_k: usize) {
    let names: Vec<&str> = rows.iter().map(|(_, name)| name.as_str()).collect();
    let vectors = embed(&names);
    let wanted = &embed(&[query])[0];
    let scores: HashMap<i64, f64> = rows
        .iter()
        .zip(&vectors)
        .map(|((key, _), vector)| (*key, cosine(wanted, vector)))
        .collect();
    let got = hits(answer);
    assert_eq!(got.len(), top_k.min(rows.len()), "{query}: {answer}");
    for (key, score) in &got {
        let expected = scores
            .get(key)
            .unwrap_or_else(|| panic!("{query}: {key} is no row of the table: {answer}"));
        assert!(
            (score - expected).abs() < 1e-4,
            "{query}: {key} scored {score}, the model {expected}"
        );
    }
    assert!(
        got.windows(2).all(|pair| pair[0].1 >= pair[1].1),
        "{answer}"
    );
    let last = got.last().map_or(f64::NEG_INFINITY, |(_, score)| *score);
    let returned: Vec<i64> = got.iter().map(|(key, _)| *key).collect();
    for (key, score) in &scores {
        assert!(
            returned.contains(key) || *score <= last + 1e-4,
            "{query}: {key} scores {score}, better than the last hit ({last}): {answer}"
        );
    }
}

fn assert_searches_rank_by_the_model(config: &Path, db: &str, rows: &[(i64, String)]) {
    for query in [
        "heavy metal band",
        "classical orchestra",
        "brazilian singer",
    ] {
        let answer = search(config, db, query, 10, &[]);
        assert_ranked_by_the_model(&answer, query, rows, 10);
        assert_matches_output_schema(config, "semantic_search", &answer);
    }
}

fn sqlite_rows(db: &Path) -> Vec<(i64, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut statement = conn.prepare("SELECT ArtistId, Name FROM Artist").unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn vectors_over_chinook_live_beside_the_file_and_follow_the_users_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let config = dir.path().join("chinook.yaml");
    std::fs::write(&config, config_for("sqlite", "")).unwrap();
    let (config_s, db_s) = (config.to_str().unwrap(), db.to_str().unwrap());
    let before = std::fs::read(&db).unwrap();

    // Before `db init`: refused, naming the side file and the command that makes it.
    let refused = toolforge(&["serve", "--config", config_s, "--db", db_s]);
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("chinook.toolforge.db does not exist")
            && refused.stderr.contains("toolforge db init --config"),
        "{}",
        refused.stderr
    );

    let init = toolforge(&["db", "init", "--config", config_s, "--db", db_s]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(
        init.stdout.contains("vectors of Artist: table created in ")
            && init
                .stdout
                .contains("embeddings: 275 computed, 0 already up to date"),
        "{}",
        init.stdout
    );
    assert_searches_rank_by_the_model(&config, db_s, &sqlite_rows(&db));
    // The user's file is byte-identical, with nothing beside it but the side file.
    assert_eq!(std::fs::read(&db).unwrap(), before);
    for suffix in ["-wal", "-shm", "-journal"] {
        assert!(
            !dir.path().join(format!("chinook.db{suffix}")).exists(),
            "{suffix}"
        );
    }

    // The user's own writes: one new artist embedded, then one renamed, one new, that one gone.
    let write = |sql: &str| {
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap()
    };
    write("INSERT INTO Artist (ArtistId, Name) VALUES (9001, 'A Passing Name')");
    let embed_run = || toolforge(&["db", "embed", "--config", config_s, "--db", db_s]);
    let first = embed_run();
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first
            .stdout
            .contains("embeddings: 1 computed, 275 already up to date"),
        "{}",
        first.stdout
    );
    write(
        "UPDATE Artist SET Name = 'Zyzzyva Thrash Metal' WHERE ArtistId = 1;
         INSERT INTO Artist (ArtistId, Name) VALUES (9000, 'Black Sabbath');
         DELETE FROM Artist WHERE ArtistId = 9001;",
    );
    let after_writes = std::fs::read(&db).unwrap();
    let second = embed_run();
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second
            .stdout
            .contains("embeddings: 2 computed, 274 already up to date, 1 removed"),
        "{}",
        second.stdout
    );
    let rows = sqlite_rows(&db);
    assert_searches_rank_by_the_model(&config, db_s, &rows);
    let metal = hits(&search(&config, db_s, "thrash metal", 3, &[]));
    assert!(metal.iter().any(|(key, _)| *key == 1), "{metal:?}");
    // Hybrid search fuses the side store's full-text ranking and its vectors.
    let refreshed = toolforge(&["db", "refresh", "--config", config_s, "--db", db_s]);
    assert_eq!(refreshed.code, 0, "{}", refreshed.stderr);
    let arguments = json!({"entity_type": "Artist", "query": "zyzzyva metal", "top_k": 3});
    let hybrid = toolforge(&[
        "call",
        "hybrid_search",
        "--config",
        config_s,
        "--db",
        db_s,
        &arguments.to_string(),
    ]);
    assert_eq!(hybrid.code, 0, "{}", hybrid.stderr);
    let hybrid: Value = serde_json::from_str(&hybrid.stdout).unwrap();
    assert_eq!(
        hits(&hybrid).first().map(|(key, _)| *key),
        Some(1),
        "{hybrid}"
    );
    assert_matches_output_schema(&config, "hybrid_search", &hybrid);
    let again = embed_run();
    assert!(
        again
            .stdout
            .contains("embeddings: 0 computed, 276 already up to date"),
        "{}",
        again.stdout
    );

    // A row rule (artists from `M` on) keeps hidden artists out of the ranking.
    let ruled = dir.path().join("ruled.yaml");
    std::fs::write(
        &ruled,
        config_for(
            "sqlite",
            "  access:\n    Artist: \"name >= :context.from\"\n",
        ),
    )
    .unwrap();
    let visible: Vec<(i64, String)> = rows
        .iter()
        .filter(|(_, name)| name.as_str() >= "M")
        .cloned()
        .collect();
    let answer = search(&ruled, db_s, "heavy metal band", 10, &["from=M"]);
    assert_ranked_by_the_model(&answer, "heavy metal band", &visible, 10);

    another_definition_is_rebuilt(dir.path(), "sqlite", db_s, rows.len());
    // The user's own writes are all that changed the file.
    assert_eq!(std::fs::read(&db).unwrap(), after_writes);
}

/// A config with another vector index than the tables built is refused until a refresh
/// rebuilds them, which embeds every record again.
fn another_definition_is_rebuilt(dir: &Path, backend: &str, db: &str, records: usize) {
    let wider = dir.join("wider.yaml");
    std::fs::write(
        &wider,
        config_for(backend, "").replace(
            "      - {name: by_name, source_field: name, dimension: 384}\n",
            "      - {name: by_name, source_field: name, dimension: 384}\n      - {name: again, field: again, source_field: name, dimension: 384}\n",
        ),
    )
    .unwrap();
    let wider_s = wider.to_str().unwrap();
    let refused = toolforge(&["serve", "--config", wider_s, "--db", db]);
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("were made for other vector indexes"),
        "{}",
        refused.stderr
    );
    let rebuilt = toolforge(&["db", "refresh", "--config", wider_s, "--db", db]);
    assert_eq!(rebuilt.code, 0, "{}", rebuilt.stderr);
    assert!(
        rebuilt.stdout.contains("vectors of Artist: table created")
            && rebuilt
                .stdout
                .contains(&format!("embeddings: {} computed, 0 already", 2 * records)),
        "{}",
        rebuilt.stdout
    );
}

fn pg_rows(url: &str) -> Vec<(i64, String)> {
    let text = pg_support::query_text(
        url,
        "SELECT CAST(json_agg(json_build_array(artist_id, name)) AS text) FROM artist",
    );
    serde_json::from_str(&text).unwrap()
}

#[test]
fn vectors_over_chinook_on_postgres_live_in_a_schema_of_their_own() {
    let Some(base) = pg_support::url(
        "mapped_vectors::vectors_over_chinook_on_postgres_live_in_a_schema_of_their_own",
    ) else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "chinook_vectors");
    chinook_postgres(&url);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("chinook.yaml");
    std::fs::write(&config, config_for("postgres", "")).unwrap();
    let config_s = config.to_str().unwrap();
    let before = pg_support::dump(&url);

    let refused = toolforge(&[
        "call",
        "semantic_search",
        "--config",
        config_s,
        "--db",
        &url,
        "{}",
    ]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains("of the schema \"toolforge\""),
        "{}",
        refused.stderr
    );
    let init = toolforge(&["db", "init", "--config", config_s, "--db", &url]);
    assert_eq!(init.code, 0, "{}", init.stderr);
    assert!(
        init.stdout
            .contains("vectors of Artist: table created in schema toolforge")
            && init.stdout.contains("embeddings: 275 computed"),
        "{}",
        init.stdout
    );

    // Served by a role that may only read the user's tables and the side store.
    let reader = side_store_reader(&url, "tf_vec_reader");
    assert_searches_rank_by_the_model(&config, &reader, &pg_rows(&url));
    assert_eq!(
        pg_support::dump(&url),
        before,
        "the user's tables are unchanged"
    );

    pg_support::batch(
        &url,
        "UPDATE artist SET name = 'Zyzzyva Thrash Metal' WHERE artist_id = 1; \
         INSERT INTO artist (artist_id, name) VALUES (9000, 'Black Sabbath')",
    );
    let embedded = toolforge(&["db", "embed", "--config", config_s, "--db", &url]);
    assert_eq!(embedded.code, 0, "{}", embedded.stderr);
    assert!(
        embedded
            .stdout
            .contains("embeddings: 2 computed, 274 already up to date"),
        "{}",
        embedded.stdout
    );
    let rows = pg_rows(&url);
    assert_searches_rank_by_the_model(&config, &reader, &rows);

    // Under a row rule, hidden artists take no place among the best.
    let ruled = dir.path().join("ruled.yaml");
    std::fs::write(
        &ruled,
        config_for(
            "postgres",
            "  access:\n    Artist: \"name >= :context.from\"\n",
        ),
    )
    .unwrap();
    let visible: Vec<i64> = pg_support::query_text(
        &url,
        "SELECT string_agg(CAST(artist_id AS text), ',') FROM artist WHERE name >= 'M'",
    )
    .split(',')
    .map(|id| id.parse().unwrap())
    .collect();
    let visible: Vec<(i64, String)> = rows
        .iter()
        .filter(|(key, _)| visible.contains(key))
        .cloned()
        .collect();
    let answer = search(&ruled, &reader, "heavy metal band", 10, &["from=M"]);
    assert_ranked_by_the_model(&answer, "heavy metal band", &visible, 10);

    another_definition_is_rebuilt(dir.path(), "postgres", &url, rows.len());
}

/// The config over Chinook's artists whose vectors are the user's own pgvector column
/// `embedding` of `{dimension}` values.
const OWN_COLUMN: &str = r#"
name: chinook
entities:
  - name: Artist
    table: artist
    unique_field: artist_id
    display_name_field: name
    searchable_fields:
      - {name: artist_id, type: integer}
      - {name: name, type: string}
    vector_indexes:
      - {name: by_name, column: embedding, dimension: {dimension}}
toolforge:
  tools: [search, lookup]
  embeddings:
    provider: local
    model_path: {model}
"#;

fn own_column_config(dimension: u32) -> String {
    let model = crate::cli_catalog::model_dir();
    OWN_COLUMN
        .replace("{dimension}", &dimension.to_string())
        .replace("{model}", &json!(model.to_str().unwrap()).to_string())
}

/// pgvector's text form of `vector`.
fn pgvector_text(vector: &[f32]) -> String {
    let values: Vec<String> = vector.iter().map(f32::to_string).collect();
    format!("[{}]", values.join(","))
}

#[test]
fn a_pgvector_column_of_the_users_own_is_searched_as_it_is_with_nothing_of_toolforges() {
    let Some(base) = pg_support::pgvector_url(
        "mapped_vectors::a_pgvector_column_of_the_users_own_is_searched_as_it_is_with_nothing_of_toolforges",
    ) else {
        return;
    };
    let (_db, url) = pg_support::fresh(&base, "chinook_own_vectors");
    chinook_postgres(&url);
    // The user's own vectors: a pgvector column with its HNSW index, filled by the model,
    // one artist left without one.
    let rows: Vec<(i64, String)> = pg_rows(&url);
    let names: Vec<&str> = rows.iter().map(|(_, name)| name.as_str()).collect();
    let vectors = embed(&names);
    let mut script = "CREATE EXTENSION IF NOT EXISTS vector; \
         ALTER TABLE artist ADD COLUMN embedding vector(384); \
         CREATE INDEX artist_embedding ON artist USING hnsw (embedding vector_cosine_ops);"
        .to_owned();
    for ((key, _), vector) in rows.iter().zip(&vectors) {
        if *key != 3 {
            script.push_str(&format!(
                "UPDATE artist SET embedding = '{}' WHERE artist_id = {key};",
                pgvector_text(vector)
            ));
        }
    }
    pg_support::batch(&url, &script);
    let reader = select_only_role(&url, "tf_own_vectors", "public");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("own.yaml");
    std::fs::write(&config, own_column_config(384)).unwrap();
    let before = pg_support::dump(&url);

    // No `db init`: nothing of toolforge's is needed, and a role that may only read serves it.
    let with_vectors: Vec<(i64, String)> = rows.iter().filter(|(k, _)| *k != 3).cloned().collect();
    for query in ["heavy metal band", "classical orchestra"] {
        let answer = search(&config, &reader, query, 10, &[]);
        assert_ranked_by_the_model(&answer, query, &with_vectors, 10);
        assert_matches_output_schema(&config, "semantic_search", &answer);
    }
    // The neighbours of artist 1, by the cosine of the stored vectors.
    let similar = call_tool(
        &config,
        &reader,
        "find_similar",
        &json!({"entity_type": "Artist", "id": 1, "top_k": 5}),
        &[],
    );
    let own = &vectors[rows.iter().position(|(k, _)| *k == 1).unwrap()];
    let mut expected: Vec<(i64, f64)> = rows
        .iter()
        .zip(&vectors)
        .filter(|((key, _), _)| *key != 1 && *key != 3)
        .map(|((key, _), vector)| (*key, cosine(own, vector)))
        .collect();
    expected.sort_by(|a, b| b.1.total_cmp(&a.1));
    let got = hits(&similar);
    assert_eq!(got.len(), 5, "{similar}");
    for ((key, score), (want_key, want)) in got.iter().zip(&expected) {
        assert!(
            (score - want).abs() < 1e-4,
            "{key}: {score}, the model {want}"
        );
        assert!(key == want_key || (score - want).abs() < 1e-6, "{similar}");
    }
    assert_eq!(
        pg_support::dump(&url),
        before,
        "the user's tables are unchanged"
    );
    assert_eq!(
        pg_support::query_text(
            &url,
            "SELECT CAST(count(*) AS text) FROM pg_namespace WHERE nspname = 'toolforge'"
        ),
        "0",
        "no schema of toolforge's"
    );

    // `init --from-db` writes the column as a vector index that reads it, and the config it
    // writes validates against the database.
    let written = toolforge(&[
        "init",
        "--from-db",
        &reader,
        "--include",
        "artist",
        "--dir",
        dir.path().to_str().unwrap(),
        "--out",
        "written.yaml",
    ]);
    assert_eq!(written.code, 0, "{}{}", written.stdout, written.stderr);
    let text = std::fs::read_to_string(dir.path().join("written.yaml")).unwrap();
    assert!(
        text.contains(
            "    vector_indexes:\n      - {name: embedding, column: embedding, dimension: 384}\n"
        ),
        "{text}"
    );
    let validated = toolforge(&[
        "validate",
        "--config",
        dir.path().join("written.yaml").to_str().unwrap(),
        "--db",
        &reader,
    ]);
    assert_eq!(
        validated.code, 0,
        "{}{}",
        validated.stdout, validated.stderr
    );

    // A config whose dimension is not the column's: `validate --db` (as `serve` at its start)
    // names the column and the index.
    let wrong = dir.path().join("wrong.yaml");
    std::fs::write(&wrong, own_column_config(512)).unwrap();
    let refused = toolforge(&[
        "validate",
        "--config",
        wrong.to_str().unwrap(),
        "--db",
        &reader,
    ]);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(
        refused
            .stderr
            .contains("column \"embedding\" holds vectors of 384 values, but vector index `by_name` has dimension 512"),
        "{}",
        refused.stderr
    );
}

#[test]
fn a_column_of_bytes_on_sqlite_is_refused_as_a_vector_column() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("ALTER TABLE Artist ADD COLUMN Embedding BLOB")
        .unwrap();
    let before = std::fs::read(&db).unwrap();
    let config = dir.path().join("own.yaml");
    std::fs::write(
        &config,
        own_column_config(384)
            .replace("table: artist", "table: Artist")
            .replace("unique_field: artist_id", "unique_field: ArtistId")
            .replace(
                "{name: artist_id, type: integer}",
                "{name: ArtistId, type: integer}",
            )
            .replace(
                "{name: name, type: string}",
                "{name: name, column: Name, type: string}",
            )
            .replace("column: embedding", "column: Embedding"),
    )
    .unwrap();
    let refused = toolforge(&[
        "call",
        "semantic_search",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        r#"{"entity_type":"Artist","query":"metal"}"#,
    ]);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    let answer: Value = serde_json::from_str(&refused.stdout).unwrap();
    assert!(
        answer["message"]
            .as_str()
            .is_some_and(|message| message.contains(
                "reads the column \"Embedding\" of your table, which is not a pgvector column"
            )),
        "{answer}"
    );
    // `validate --db` (and `serve`, which refuses to start) names the column and the index.
    let validated = toolforge(&[
        "validate",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(validated.code, 1, "{}", validated.stdout);
    assert!(
        validated.stderr.contains(
            "column \"Embedding\" has type BLOB, and vector index `by_name` reads only a pgvector column"
        ),
        "{}{}",
        validated.stdout,
        validated.stderr
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
}
