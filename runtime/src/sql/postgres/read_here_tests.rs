//! Reads awaited on the caller's runtime ([`PgDatabase::read_here`]) on a real server
//! (`TOOLFORGE_TEST_POSTGRES_URL`, see `scripts/with-postgres`): they answer as a blocking
//! read does, a handler of more statements than the rounds allow goes on on a blocking
//! thread, and a failed statement ends the read with its error. Each test that runs appends
//! its name to the file `TOOLFORGE_POSTGRES_TEST_LOG` names, so CI can check that it ran
//! (`.ci/postgres-tests.txt`).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::sql::backend::{ExecError, Reader};
use crate::sql::postgres::pool::{Here, MAX_REPLAYS, PgDatabase};
use crate::sql::postgres::session::CancelSlot;
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
                let _ = file.write_all(format!("postgres::read_here::{test}\n").as_bytes());
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

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A handler of `length` statements, each adding one to the last one's answer; its runs
/// are counted in `runs`.
fn chain(length: usize, runs: &AtomicUsize) -> impl Fn(&dyn Reader) -> Result<i64, ExecError> {
    move |conn| {
        runs.fetch_add(1, Ordering::Relaxed);
        let mut n = 0;
        for _ in 0..length {
            let rows = conn.rows("SELECT CAST(?1 AS BIGINT) + 1", &[SqlValue::Integer(n)])?;
            n = match rows.first().and_then(|row| row.first()) {
                Some(SqlValue::Integer(next)) => *next,
                other => panic!("not a number: {other:?}"),
            };
        }
        Ok(n)
    }
}

#[test]
fn a_read_awaited_here_answers_after_one_run_per_statement() {
    let Some(url) = server("a_read_awaited_here_answers_after_one_run_per_statement") else {
        return;
    };
    let db = Arc::new(PgDatabase::open(&url, true).expect("the test server"));
    let runs = AtomicUsize::new(0);
    let handler = chain(3, &runs);
    let here = runtime().block_on(db.read_here(None, Arc::default(), &handler));
    match here.expect("the read") {
        Here::Answered(answer) => assert_eq!(answer.expect("the chain"), 3),
        Here::Continue(_) => panic!("three statements are within the rounds"),
    }
    // One run for each statement, then the run that answers.
    assert_eq!(runs.load(Ordering::Relaxed), 4);
}

#[test]
fn more_statements_than_the_rounds_go_on_on_a_blocking_thread() {
    let Some(url) = server("more_statements_than_the_rounds_go_on_on_a_blocking_thread") else {
        return;
    };
    let db = Arc::new(PgDatabase::open(&url, true).expect("the test server"));
    let runs = AtomicUsize::new(0);
    let length = MAX_REPLAYS + 4;
    let handler = chain(length, &runs);
    let runtime = runtime();
    let slot = Arc::new(CancelSlot::default());
    let rest = match runtime
        .block_on(db.read_here(None, slot.clone(), &handler))
        .expect("the read")
    {
        Here::Continue(rest) => rest,
        Here::Answered(_) => panic!("{length} statements are more than the rounds"),
    };
    assert_eq!(runs.load(Ordering::Relaxed), MAX_REPLAYS + 1);
    // Served from what was answered, then live on the same connection.
    let answer = db
        .read_continuing(None, slot, rest, &handler)
        .expect("the rest of the read");
    assert_eq!(answer.expect("the chain"), length as i64);
    assert_eq!(runs.load(Ordering::Relaxed), MAX_REPLAYS + 2);
    // A blocking read of the same handler gives the same answer.
    let blocking = db
        .read(None, Arc::default(), |conn| handler(conn))
        .expect("a blocking read");
    assert_eq!(blocking.expect("the chain"), length as i64);
}

#[test]
fn a_failed_statement_ends_the_read_with_its_error() {
    let Some(url) = server("a_failed_statement_ends_the_read_with_its_error") else {
        return;
    };
    let db = Arc::new(PgDatabase::open(&url, true).expect("the test server"));
    let runs = AtomicUsize::new(0);
    let handler = |conn: &dyn Reader| {
        runs.fetch_add(1, Ordering::Relaxed);
        conn.rows("SELECT 1", &[])?;
        conn.rows("SELECT 1 / CAST(?1 AS INTEGER)", &[SqlValue::Integer(0)])?;
        Ok::<_, ExecError>(())
    };
    let here = runtime().block_on(db.read_here(None, Arc::default(), &handler));
    let error = match here.expect("the read") {
        Here::Answered(answer) => answer.expect_err("a division by zero fails"),
        Here::Continue(_) => panic!("two statements are within the rounds"),
    };
    assert!(error.describe().contains("22012"), "{}", error.describe());
    // The failing statement was told to the run after the one that wanted it.
    assert_eq!(runs.load(Ordering::Relaxed), 3);
    // The connection answers the next read.
    let runs = AtomicUsize::new(0);
    let next = runtime().block_on(db.read_here(None, Arc::default(), &chain(1, &runs)));
    assert!(matches!(next, Ok(Here::Answered(Ok(1)))));
}
