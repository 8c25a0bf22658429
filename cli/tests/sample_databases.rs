//! The public sample databases of `tests/fixtures/sample-databases/` (committed gzipped),
//! loaded for real: into a SQLite file in a temporary folder ([`sqlite_database`]), or into a
//! scratch PostgreSQL database ([`load_postgres`], `COPY ... FROM stdin` blocks included).
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};

use futures_util::SinkExt;

/// `tests/fixtures/sample-databases/<path>`.
pub fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/sample-databases")
        .join(path)
}

/// The SQL text of a gzipped fixture (`chinook/Chinook_Sqlite.sql.gz`), checked to be UTF-8
/// and without a byte order mark.
pub fn sql(path: &str) -> String {
    let file = std::fs::File::open(fixture(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut bytes)
        .unwrap_or_else(|e| panic!("{path}: not gzip: {e}"));
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    String::from_utf8(bytes.to_vec()).unwrap_or_else(|e| panic!("{path}: not UTF-8: {e}"))
}

/// A SQLite database file `name` in `dir`, made from the gzipped SQL fixture `path`, closed
/// (so no `-wal` or `-journal` file is left beside it).
pub fn sqlite_database(dir: &Path, name: &str, path: &str) -> PathBuf {
    let file = dir.join(name);
    let conn = rusqlite::Connection::open(&file).expect("create the SQLite file");
    conn.execute_batch(&sql(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    conn.close().expect("close");
    file
}

/// The Chinook database as a SQLite file `chinook.db` in `dir`.
pub fn chinook_sqlite(dir: &Path) -> PathBuf {
    sqlite_database(dir, "chinook.db", "chinook/Chinook_Sqlite.sql.gz")
}

/// Runs `script` on the PostgreSQL database at `url`: its statements as one batch each run of
/// them, each `COPY ... FROM stdin;` block (the lines up to `\.`) streamed as `COPY` data.
pub fn load_postgres(url: &str, script: &str) {
    let (url, script) = (url.to_owned(), script.to_owned());
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(async move {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .expect("connect");
                let task = tokio::spawn(connection);
                let mut pending = String::new();
                let mut lines = script.lines();
                while let Some(line) = lines.next() {
                    let statement = line.trim_end();
                    let copy = statement.starts_with("COPY ")
                        && statement.to_ascii_lowercase().ends_with("from stdin;");
                    if !copy {
                        pending.push_str(line);
                        pending.push('\n');
                        continue;
                    }
                    if !pending.trim().is_empty() {
                        client
                            .batch_execute(&pending)
                            .await
                            .unwrap_or_else(|e| panic!("before `{statement}`: {e:?}"));
                    }
                    pending.clear();
                    let mut data = String::new();
                    for row in lines.by_ref() {
                        if row == "\\." {
                            break;
                        }
                        data.push_str(row);
                        data.push('\n');
                    }
                    let sink = client
                        .copy_in(statement.trim_end_matches(';'))
                        .await
                        .unwrap_or_else(|e| panic!("{statement}: {e:?}"));
                    let mut sink = std::pin::pin!(sink);
                    sink.send(bytes::Bytes::from(data))
                        .await
                        .unwrap_or_else(|e| panic!("{statement}: {e:?}"));
                    sink.as_mut()
                        .finish()
                        .await
                        .unwrap_or_else(|e| panic!("{statement}: {e:?}"));
                }
                if !pending.trim().is_empty() {
                    client
                        .batch_execute(&pending)
                        .await
                        .unwrap_or_else(|e| panic!("the script's end: {e:?}"));
                }
                drop(client);
                let _ = task.await;
            });
    })
    .join()
    .expect("the loading thread panicked");
}

/// The Sakila schema and data loaded into the PostgreSQL database at `url`; the dump's
/// objects, owned by `postgres` there, belong to the current user here.
pub fn sakila_postgres(url: &str) {
    let schema =
        sql("sakila/postgres-sakila-schema.sql.gz").replace(" TO postgres;", " TO CURRENT_USER;");
    load_postgres(url, &schema);
    load_postgres(
        url,
        &sql("sakila/postgres-sakila-insert-data-using-copy.sql.gz"),
    );
}

/// The Chinook schema and data loaded into the PostgreSQL database at `url` (the script's own
/// `DROP DATABASE` / `CREATE DATABASE` / psql `\c` head left out).
pub fn chinook_postgres(url: &str) {
    let script = sql("chinook/Chinook_PostgreSql.sql.gz");
    let start = script
        .find("\\c chinook;")
        .expect("the script connects to chinook");
    let rest = &script[start..];
    let body = &rest[rest.find('\n').expect("a line after \\c")..];
    load_postgres(url, body);
}
