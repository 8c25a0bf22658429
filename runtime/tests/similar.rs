//! `find_similar` on SQLite and on PostgreSQL (vectors in `BYTEA`, searched in memory), checked
//! against the brute force of `similar_fixture`. With pgvector: `tests/tests/pgvector.rs`.

#[cfg(feature = "postgres")]
mod pg_support;
mod similar_fixture;

#[tokio::test]
async fn find_similar_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("papers.db")).unwrap();
    similar_fixture::check_similar(&db).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn find_similar_on_postgres() {
    let Some(base) = pg_support::url("similar::find_similar_on_postgres") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "similar");
    similar_fixture::check_similar(&db).await;
}
