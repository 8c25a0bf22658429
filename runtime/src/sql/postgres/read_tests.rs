//! Reads on a real server (`TOOLFORGE_TEST_POSTGRES_URL`, see `scripts/with-postgres`): a
//! read awaits each of its statements once on the caller's runtime, of several threads or of
//! one, a blocking read works from inside such a runtime, a failed statement ends the read
//! with its error, and a dropped read's statement is cancelled in the server. Each test that
//! runs appends its name to the file `TOOLFORGE_POSTGRES_TEST_LOG` names, so CI can check that
//! it ran (`.ci/postgres-tests.txt`).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::sql::backend::{ExecError, Reader};
use crate::sql::postgres::pool::PgDatabase;
use crate::sql::value::SqlValue;

/// The test server's URL, or `None` after saying the test was skipped.
fn server(test: &str) -> Option<String> {
    match std::env::var("TOOLFORGE_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => {
            if let Ok(log) = std::env::var("TOOLFORGE_POSTGRES_TEST_LOG")
                && let Ok(mut file) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
            {
                let _ = file.write_all(format!("postgres::read::{test}\n").as_bytes());
            }
            Some(url)
        }
        _ => {
            eprintln!(
                "skipped {test}: TOOLFORGE_TEST_POSTGRES_URL is not set (run it under \
                 scripts/with-postgres)"
            );
            None
        }
    }
}

/// `length` statements, each adding one to the last one's answer.
async fn chain(conn: &dyn Reader, length: usize) -> Result<i64, ExecError> {
    let mut n = 0;
    for _ in 0..length {
        let rows = conn
            .rows("SELECT CAST(?1 AS BIGINT) + 1", &[SqlValue::Integer(n)])
            .await?;
        n = match rows.first().and_then(|row| row.first()) {
            Some(SqlValue::Integer(next)) => *next,
            other => panic!("not a number: {other:?}"),
        };
    }
    Ok(n)
}

#[test]
fn a_read_awaits_each_statement_once_on_a_runtime_of_one_thread_or_several() {
    let Some(url) =
        server("a_read_awaits_each_statement_once_on_a_runtime_of_one_thread_or_several")
    else {
        return;
    };
    let db = Arc::new(PgDatabase::open(&url, true).expect("the test server"));
    let several = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let one = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    for runtime in [&several, &one] {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = runs.clone();
        let answer = runtime
            .block_on(db.read(None, move |conn| {
                Box::pin(async move {
                    counted.fetch_add(1, Ordering::Relaxed);
                    chain(conn, 20).await
                })
            }))
            .expect("the read");
        assert_eq!(answer.expect("the chain"), 20);
        // The handler ran once, whatever the number of its statements.
        assert_eq!(runs.load(Ordering::Relaxed), 1);
    }
    // A blocking read from the thread of a runtime of one thread, whose connections the
    // reads above may have opened: the driver drives them, so nothing waits on this thread.
    let blocking = one.block_on(async {
        let blocked = db
            .read_blocking(|conn| Box::pin(chain(conn, 3)))
            .expect("a blocking read");
        let statements = db
            .read_statements(|conn| conn.rows("SELECT 1", &[]).map(|rows| rows.len()))
            .expect("a blocking session");
        (blocked, statements)
    });
    assert_eq!(blocking.0.expect("the chain"), 3);
    assert_eq!(blocking.1.expect("one row"), 1);
    // The reads of the first runtime go on after it ends.
    drop(several);
    let after = one
        .block_on(db.read(None, |conn| Box::pin(chain(conn, 2))))
        .expect("the read");
    assert_eq!(after.expect("the chain"), 2);
}

#[test]
fn a_failed_statement_ends_the_read_with_its_error_and_the_pool_reads_on() {
    let Some(url) = server("a_failed_statement_ends_the_read_with_its_error_and_the_pool_reads_on")
    else {
        return;
    };
    let db = Arc::new(PgDatabase::open(&url, true).expect("the test server"));
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let error = runtime
        .block_on(db.read(None, |conn| {
            Box::pin(async move {
                conn.rows("SELECT 1", &[]).await?;
                conn.rows("SELECT 1 / CAST(?1 AS INTEGER)", &[SqlValue::Integer(0)])
                    .await?;
                Ok::<_, ExecError>(())
            })
        }))
        .expect("the read")
        .expect_err("a division by zero fails");
    assert!(error.describe().contains("22012"), "{}", error.describe());
    let next = runtime
        .block_on(db.read(None, |conn| Box::pin(chain(conn, 1))))
        .expect("the read");
    assert!(matches!(next, Ok(1)));
}

#[test]
fn a_dropped_read_has_its_statement_cancelled_in_the_server() {
    let Some(url) = server("a_dropped_read_has_its_statement_cancelled_in_the_server") else {
        return;
    };
    let db = Arc::new(PgDatabase::open(&url, true).expect("the test server"));
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let marker = format!("toolforge_dropped_{}", std::process::id());
    let sleep = format!("SELECT pg_sleep(60), '{marker}'");
    let reader = db.clone();
    let read = runtime.spawn(async move {
        reader
            .read(None, move |conn| {
                Box::pin(async move { conn.rows(&sleep, &[]).await })
            })
            .await
    });
    let running = |db: &PgDatabase| -> u64 {
        db.read_statements(|conn| {
            conn.count(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' \
                 AND query LIKE ?1",
                &[SqlValue::Text(format!("SELECT pg_sleep(60), '{marker}'%"))],
            )
        })
        .expect("a session")
        .expect("the count")
    };
    let started = Instant::now();
    while running(&db) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the read's statement never showed in pg_stat_activity"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The call goes away (as a caller's timeout drops it).
    read.abort();
    let started = Instant::now();
    while running(&db) > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the dropped read's statement still runs in the server"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
