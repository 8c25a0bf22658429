//! Ranking an entity's records for a search: the page of best matches (unique id, display
//! name, BM25 score) and their snippets.
//!
//! Scores are BM25 (k1 = 1.2, b = 0.75) with the index's field weights, as SQLite's FTS5
//! computes them, negated so that higher is better. Equal scores are ordered by unique id,
//! so pages are stable.

use serde_json::Value;

use crate::{ErrorCode, ToolError};

use super::super::backend::{Reader, SqlDialect};
use super::super::query::Projection;
use super::super::value::SqlValue;
use super::full_text_table_name;
use super::ranking::{ELLIPSIS, Hit, MARK, Ranking, SNIPPET_WORDS};
use crate::sql::handler_error::HandlerError;
use crate::sql::text::ident::quote;

/// The records matching `ranking`, best first (equal scores by unique id): `limit` of them
/// after skipping `offset`, with snippets when `snippets` is set, and how many match in all
/// (computed only when `total` is set and the page does not tell; otherwise 0).
pub(crate) async fn search(
    conn: &dyn Reader,
    ranking: &Ranking<'_>,
    limit: u32,
    offset: u64,
    snippets: bool,
    total: bool,
) -> Result<(Vec<Hit>, u64), HandlerError> {
    match conn.dialect() {
        SqlDialect::Postgres => {
            super::postgres::pg_rank(conn, ranking, limit, offset, snippets).await
        }
        SqlDialect::Sqlite => {
            let hits = rank(conn, ranking, limit, offset, snippets).await?;
            // The total needs its own pass only when this page may not hold every match.
            let end = hits.len() < limit as usize && (offset == 0 || !hits.is_empty());
            let count = if end {
                offset + hits.len() as u64
            } else if total {
                count(conn, ranking).await?
            } else {
                0
            };
            Ok((hits, count))
        }
        #[allow(unreachable_patterns)]
        other => Err(ToolError::new(
            ErrorCode::Unavailable,
            format!(
                "full-text search is not available on {} databases",
                other.name()
            ),
        )
        .into()),
    }
}

/// The records matching `ranking`, best first (equal scores by unique id): `limit` of them
/// after skipping `offset`, each with its snippet when `snippets` is set (the best passage of
/// the searched fields, at most 24 words, matched terms between `**` marks, `…` where text was
/// left out).
///
/// One statement ranks, joins the entity's rows and cuts the snippets, so the query is
/// evaluated once.
async fn rank(
    conn: &dyn Reader,
    ranking: &Ranking<'_>,
    limit: u32,
    offset: u64,
    snippets: bool,
) -> Result<Vec<Hit>, HandlerError> {
    let entity = ranking.entity;
    let fts = quote(&full_text_table_name(&entity.table));
    let names: Vec<String> = entity.display_name_field.iter().cloned().collect();
    let projection = Projection::of(entity, &names, "display_name_field")
        .or_else(|_| Projection::of(entity, &[], "unique_field"))
        .map_err(HandlerError::from)?;
    let has_name = projection.len() > 1;
    let unique = format!("\"n\".{}", quote(&entity.unique_field));
    let snippet = if snippets {
        format!("snippet({fts}, -1, ?4, ?5, ?6, {SNIPPET_WORDS})")
    } else {
        "NULL".to_owned()
    };
    // The index of a mapped entity is in the side file (found by name there, as the user's
    // database has no table of that name), its keys beside it by rowid.
    let join = if entity.has_side_index() {
        format!(
            "{}.{} AS \"k\" ON \"k\".\"id\" = {fts}.rowid JOIN {} AS \"n\" ON {unique} = \"k\".\"key\"",
            quote(crate::sql::side_store::SQLITE_SCHEMA),
            quote(&crate::sql::side_store::sqlite_keys_table(entity)),
            quote(&entity.table),
        )
    } else {
        format!(
            "{} AS \"n\" ON \"n\".rowid = {fts}.rowid",
            quote(&entity.table)
        )
    };
    let sql = format!(
        "SELECT {select}, {bm25} AS \"score\", {snippet} FROM {fts} JOIN {join} \
         WHERE {fts} MATCH ?1 ORDER BY \"score\", {unique} LIMIT ?2 OFFSET ?3",
        select = projection.select_list(),
        bm25 = ranking.bm25(&fts),
    );
    let mut params = vec![
        SqlValue::Text(ranking.match_text()),
        SqlValue::Integer(i64::from(limit)),
        SqlValue::Integer(i64::try_from(offset).unwrap_or(i64::MAX)),
    ];
    if snippets {
        params.extend([
            SqlValue::Text(MARK.0.into()),
            SqlValue::Text(MARK.1.into()),
            SqlValue::Text(ELLIPSIS.into()),
        ]);
    }
    let width = projection.len();
    let mut hits = Vec::new();
    for row in conn.rows(&sql, &params).await? {
        let record = projection.record(&row, 0);
        let id = match record.get(&entity.unique_field) {
            Some(Value::String(id)) => id.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let name = if has_name {
            record.get(&names[0]).cloned()
        } else {
            None
        };
        let score = match row.get(width) {
            Some(SqlValue::Real(score)) => -score,
            Some(SqlValue::Integer(score)) => -(*score as f64),
            _ => 0.0,
        };
        let snippet = match row.get(width + 1) {
            Some(SqlValue::Text(text)) => Some(text.clone()),
            _ => None,
        };
        hits.push(Hit {
            id,
            name,
            score,
            snippet,
        });
    }
    Ok(hits)
}

/// How many records match `ranking`.
async fn count(conn: &dyn Reader, ranking: &Ranking<'_>) -> Result<u64, HandlerError> {
    let fts = quote(&full_text_table_name(&ranking.entity.table));
    Ok(conn
        .count(
            &format!("SELECT count(*) FROM {fts} WHERE {fts} MATCH ?1"),
            &[SqlValue::Text(ranking.match_text())],
        )
        .await?)
}
