//! A real PostgreSQL server for tests: its URL comes from `TOOLFORGE_TEST_POSTGRES_URL`
//! (`scripts/with-postgres` starts a throwaway one and sets it). Without it, PostgreSQL tests
//! print that they were skipped. Each test that runs appends its name to the file named by
//! `TOOLFORGE_POSTGRES_TEST_LOG`, so CI can check that the tests listed in
//! `.ci/postgres-tests.txt` ran, and no other.
#![allow(dead_code)]

use std::io::Write;

use toolforge::sql::Database;

/// The server's URL, or `None` (after printing that `test` was skipped).
pub fn url(test: &str) -> Option<String> {
    server(
        test,
        "TOOLFORGE_TEST_POSTGRES_URL",
        "TOOLFORGE_POSTGRES_TEST_LOG",
        "scripts/with-postgres",
    )
}

/// The URL of the server with pgvector (`TOOLFORGE_TEST_PGVECTOR_URL`, set by
/// `scripts/with-pgvector`), or `None` (after printing that `test` was skipped). Each test
/// that runs appends its name to the file named by `TOOLFORGE_PGVECTOR_TEST_LOG`.
pub fn pgvector_url(test: &str) -> Option<String> {
    server(
        test,
        "TOOLFORGE_TEST_PGVECTOR_URL",
        "TOOLFORGE_PGVECTOR_TEST_LOG",
        "scripts/with-pgvector",
    )
}

/// The URL in the variable `var`, with `test` logged to the file `log` names; or `None`, after
/// printing that `test` was skipped and which `script` sets the variable.
pub fn server(test: &str, var: &str, log: &str, script: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.is_empty() => {
            if let Ok(log) = std::env::var(log)
                && let Ok(mut file) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
            {
                // One write per line: tests run at once append to the same file, and a line
                // written in pieces could interleave with another's (and count as neither).
                let _ = file.write_all(format!("{test}\n").as_bytes());
            }
            Some(url)
        }
        _ => {
            eprintln!("skipped {test}: {var} is not set (run it under {script})");
            None
        }
    }
}

/// The first column of the first row of `sql` on the database at `url`, as text (empty for
/// none or NULL).
pub fn query_text(url: &str, sql: &str) -> String {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    run(async move {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("connect");
        let task = tokio::spawn(connection);
        let mut text = String::new();
        for message in client.simple_query(&sql).await.expect("query") {
            if let tokio_postgres::SimpleQueryMessage::Row(row) = message {
                text = row.get(0).unwrap_or("").to_owned();
                break;
            }
        }
        drop(client);
        let _ = task.await;
        text
    })
}

/// Runs `future` to completion on a runtime of its own, on a thread of its own (so that async
/// tests can call these helpers too).
fn run<T: Send + 'static>(future: impl std::future::Future<Output = T> + Send + 'static) -> T {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(future)
    })
    .join()
    .expect("the helper thread panicked")
}

/// Runs `sql` (several statements allowed) on the database at `url`.
pub fn batch(url: &str, sql: &str) {
    let (url, sql) = (url.to_owned(), sql.to_owned());
    run(async move {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("connect");
        let task = tokio::spawn(connection);
        client.batch_execute(&sql).await.expect("batch");
        drop(client);
        let _ = task.await;
    });
}

/// A new, empty database named after `name` (dropped first if a previous run left it), and
/// its URL.
pub fn fresh(base: &str, name: &str) -> (Database, String) {
    let db_name = format!("tf_{name}_{}", std::process::id()).to_ascii_lowercase();
    batch(
        base,
        &format!("DROP DATABASE IF EXISTS {db_name} WITH (FORCE)"),
    );
    batch(base, &format!("CREATE DATABASE {db_name}"));
    let (head, _) = base.rsplit_once('/').expect("URL with a database name");
    let url = format!("{head}/{db_name}");
    let db = Database::open(&url).expect("open the PostgreSQL database");
    (db, url)
}

/// Empties the database at `url` (every table of its schema dropped).
pub fn reset(url: &str) {
    batch(url, "DROP SCHEMA public CASCADE; CREATE SCHEMA public");
}

/// Every row of every table, as text, for before/after comparisons.
pub fn dump(url: &str) -> String {
    let url = url.to_owned();
    run(async move {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("connect");
        let task = tokio::spawn(connection);
        let tables = client
            .query(
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = 'public' ORDER BY 1",
                &[],
            )
            .await
            .expect("tables");
        let mut out = String::new();
        for table in tables {
            let name: String = table.get(0);
            out.push_str(&format!("## {name}\n"));
            let rows = client
                .simple_query(&format!("SELECT t::text FROM \"{name}\" AS t ORDER BY 1"))
                .await
                .expect("rows");
            for message in rows {
                if let tokio_postgres::SimpleQueryMessage::Row(row) = message {
                    out.push_str(row.get(0).unwrap_or("NULL"));
                    out.push('\n');
                }
            }
        }
        drop(client);
        let _ = task.await;
        out
    })
}

/// How many statements of other connections are running on the database at `url`.
pub fn running_statements(url: &str) -> usize {
    let url = url.to_owned();
    run(async move {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("connect");
        let task = tokio::spawn(connection);
        let row = client
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
                 AND state = 'active' AND pid <> pg_backend_pid()",
                &[],
            )
            .await
            .expect("activity");
        let count: i64 = row.get(0);
        drop(client);
        let _ = task.await;
        count as usize
    })
}
