//! Change tracking on SQLite and PostgreSQL: the same scenario (imports, typed writes, deletes,
//! a failed import and a rolled-back write) and the same answers from every change tool.

mod changes_fixture;
#[cfg(feature = "postgres")]
mod pg_support;

#[tokio::test]
async fn change_tracking_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("docs.db")).unwrap();
    changes_fixture::check_scenario(&db).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn change_tracking_on_postgres() {
    let Some(base) = pg_support::url("changes::change_tracking_on_postgres") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "changes");
    changes_fixture::check_scenario(&db).await;
}
