//! The records nearest a query vector ([`nearest`]), wherever the index's vectors live: in
//! this process's memory ([`VectorCache`](super::cache::VectorCache)), or in a pgvector
//! column that the PostgreSQL server searches with one statement — the query vector bound as a
//! parameter, `ORDER BY` distance, the call's `conditions` and the row rule (through the
//! table's view) in the same `WHERE`, and pgvector's HNSW settings set for the call.
//!
//! Both give the same scores ("higher is closer", as [`VectorMatrix`](crate::search::vector::VectorMatrix)
//! computes them): the cosine, the dot product, or `1 / (1 + d²)` of the Euclidean distance.

use std::collections::HashSet;

use crate::spec::{EntitySpec, SchemaSpec, Similarity, VectorIndexSpec};

use super::cache::VectorHome;
use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::handler_error::HandlerError;
use crate::sql::query::{Condition, ROW_ALIAS, compile_conditions};
use crate::sql::text::ident::quote;
use crate::sql::value::SqlValue;

/// One search: the `k` records of `entity` nearest `vector` in `index` among those matching
/// `conditions` (and the call's row rule).
pub(crate) struct Search<'a> {
    /// The entity searched.
    pub(crate) entity: &'a EntitySpec,
    /// Its vector index.
    pub(crate) index: &'a VectorIndexSpec,
    /// The query vector.
    pub(crate) vector: &'a [f32],
    /// How many records.
    pub(crate) k: usize,
    /// Conditions as in `query_entities`.
    pub(crate) conditions: &'a [Condition],
}

/// The records of `search`, best first, as (unique id, score).
pub(crate) async fn nearest(
    db: &Database,
    conn: &dyn Reader,
    spec: &SchemaSpec,
    search: &Search<'_>,
) -> Result<Vec<(String, f64)>, HandlerError> {
    let Search {
        entity,
        index,
        vector,
        k,
        conditions,
    } = *search;
    match db.vector_home(conn, entity, index).await? {
        home @ VectorHome::Server { .. } => in_server(conn, spec, search, &home).await,
        VectorHome::Process { version } => {
            let allowed = allowed_ids(conn, spec, entity, conditions).await?;
            let vectors = db
                .vector_cache()
                .vectors(conn, (entity, index), version, &spec.tools.vector_search)
                .await?;
            Ok(crate::sync::compute(|| {
                vectors
                    .top_k(vector, k, allowed.as_ref())
                    .into_iter()
                    .map(|hit| (vectors.matrix.id(hit.row).to_owned(), f64::from(hit.score)))
                    .collect()
            }))
        }
    }
}

/// pgvector's distance operator for `similarity`, and the score of a distance `d` as SQL.
fn distance(similarity: Similarity) -> (&'static str, &'static str) {
    match similarity {
        // `<=>` is 1 − cosine; `<#>` the negated inner product; `<->` the Euclidean distance.
        Similarity::Cosine => ("<=>", "1 - d"),
        Similarity::Dot => ("<#>", "-d"),
        Similarity::Euclidean => ("<->", "1 / (1 + d * d)"),
    }
}

/// [`nearest`] by the server: one statement, after the HNSW settings of the call.
async fn in_server(
    conn: &dyn Reader,
    spec: &SchemaSpec,
    search: &Search<'_>,
    home: &VectorHome,
) -> Result<Vec<(String, f64)>, HandlerError> {
    let Search {
        entity,
        index,
        vector: query,
        k,
        conditions,
    } = *search;
    let settings = &spec.tools.vector_search;
    // Set for the connection with the search's statement, so every search runs with its
    // config's.
    let ef_search = settings.ef_search.to_string();
    let mut session = vec![("hnsw.ef_search", ef_search.as_str())];
    if home.iterative_scans() {
        session.push(("hnsw.iterative_scan", settings.iterative_scan.as_str()));
    }
    conn.session_settings(&session);

    let bytes: Vec<u8> = query.iter().flat_map(|value| value.to_le_bytes()).collect();
    let mut params = vec![SqlValue::Blob(bytes)];
    let where_sql = compile_conditions(
        entity,
        conditions,
        "conditions",
        &mut params,
        conn.dialect(),
    )?;
    let (operator, score) = distance(index.similarity);
    let (row, column, id) = (
        quote(ROW_ALIAS),
        quote(&index.column),
        quote(&entity.unique_field),
    );
    // The inner statement is the form pgvector's index scan takes (ORDER BY the distance
    // alone, LIMIT); the outer one breaks ties by id, as the in-memory search does.
    let sql = format!(
        "SELECT id, {score} FROM (\
           SELECT {row}.{id} AS id, {row}.{column} {operator} ?1 AS d \
           FROM {table} AS {row} \
           WHERE {row}.{column} IS NOT NULL AND {where_sql} \
           ORDER BY {row}.{column} {operator} ?1 LIMIT {k}\
         ) AS nearest ORDER BY d, id",
        table = quote(&entity.table),
    );
    Ok(scored(conn.rows(&sql, &params).await?))
}

/// Rows of (unique id, score) as ranked hits, in their order.
pub(crate) fn scored(rows: Vec<Vec<SqlValue>>) -> Vec<(String, f64)> {
    rows.into_iter()
        .filter_map(|row| {
            let mut row = row.into_iter();
            match (row.next().and_then(SqlValue::into_key_text), row.next()) {
                (Some(id), Some(SqlValue::Real(score))) => Some((id, score)),
                _ => None,
            }
        })
        .collect()
}

/// The unique ids of the records matching `conditions`, or `None` (every record) without any.
/// With a row rule on the entity, the ids of the records the call may see (the rule applies
/// through the table's view), so hidden records take no place among the best `top_k`.
pub(crate) async fn allowed_ids(
    conn: &dyn Reader,
    spec: &SchemaSpec,
    entity: &EntitySpec,
    conditions: &[Condition],
) -> Result<Option<HashSet<String>>, HandlerError> {
    if conditions.is_empty() && spec.access_rule(&entity.name).is_none() {
        return Ok(None);
    }
    let mut params = Vec::new();
    let where_sql = compile_conditions(
        entity,
        conditions,
        "conditions",
        &mut params,
        conn.dialect(),
    )?;
    let rows = conn
        .rows(
            &format!(
                "SELECT {}.{} FROM {} AS {} WHERE {}",
                quote(ROW_ALIAS),
                quote(&entity.unique_field),
                quote(&entity.table),
                quote(ROW_ALIAS),
                where_sql
            ),
            &params,
        )
        .await?;
    Ok(Some(
        rows.into_iter()
            .filter_map(|row| row.into_iter().next().and_then(SqlValue::into_key_text))
            .collect(),
    ))
}
