//! `find_similar`, `join_entities`, `find_clusters`, `find_near` and `find_path` on SQLite and
//! on PostgreSQL, checked against the brute forces of `similar_fixture`, `join_fixture`,
//! `clusters_fixture`, `places_fixture` and `paths_fixture`.
//! `find_similar` with pgvector: `tests/tests/pgvector.rs`.

use crate::clusters_fixture;
use crate::join_fixture;
use crate::paths_fixture;
#[cfg(feature = "postgres")]
use crate::pg_support;
use crate::places_fixture;
use crate::similar_fixture;

#[tokio::test]
async fn find_similar_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("papers.db")).unwrap();
    similar_fixture::check_similar(&db).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn find_similar_on_postgres() {
    let Some(base) = pg_support::url("graph_tools::find_similar_on_postgres") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "similar");
    similar_fixture::check_similar(&db).await;
}

#[tokio::test]
async fn join_entities_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("people.db")).unwrap();
    join_fixture::check_joins(&db).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn join_entities_on_postgres() {
    let Some(base) = pg_support::url("graph_tools::join_entities_on_postgres") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "joins");
    join_fixture::check_joins(&db).await;
}

#[tokio::test]
async fn find_clusters_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    clusters_fixture::check_clusters(|name| {
        toolforge::sql::Database::open(dir.path().join(format!("{name}.db"))).unwrap()
    })
    .await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn find_clusters_on_postgres() {
    let Some(base) = pg_support::url("graph_tools::find_clusters_on_postgres") else {
        return;
    };
    clusters_fixture::check_clusters(|name| pg_support::fresh(&base, &format!("cl_{name}")).0)
        .await;
}

#[tokio::test]
async fn find_near_and_within_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("stores.db")).unwrap();
    places_fixture::check_places(&db).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn find_near_and_within_on_postgres() {
    let Some(base) = pg_support::url("graph_tools::find_near_and_within_on_postgres") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "places");
    places_fixture::check_places(&db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_path_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = toolforge::sql::Database::open(dir.path().join("paths.db")).unwrap();
    paths_fixture::check_paths(&db, true).await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_path_on_postgres() {
    let Some(base) = pg_support::url("graph_tools::find_path_on_postgres") else {
        return;
    };
    let (db, _url) = pg_support::fresh(&base, "paths");
    // Other tests write to the same server meanwhile: its snapshot, hence the stamp, moves.
    paths_fixture::check_paths(&db, false).await;
}
