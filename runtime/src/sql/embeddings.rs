//! Embeddings kept up to date inside a write transaction: after an import or a typed write,
//! every vector index with a source field gets a vector for each record whose source text has
//! none yet, or changed since (a content hash of the model and the text is stored next to the
//! vector), computed by an [`Embedder`] in batches. Records whose source text was cleared lose
//! their computed vector. Vectors given explicitly (no hash stored) are kept while their text
//! is unchanged... and recomputed when it changes, if an embedder is given.
//!
//! Every pass bumps the table's version in [`VERSIONS_TABLE`], so searches reload vectors
//! kept in memory. A provider failure fails the pass, and with it the whole transaction.

use std::time::Instant;

use crate::embed::{EmbedError, Embedder, content_hash, embed_all};
use crate::spec::{EntitySpec, SchemaSpec, VectorIndexSpec};

use super::backend::{ExecError, Writer};
use super::ddl::VERSIONS_TABLE;
use super::ident::quote;
use super::value::SqlValue;

/// Records read (and embedded) per round: bounds the memory one pass holds.
const PAGE: usize = 256;

/// What an embedding pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EmbedStats {
    /// Texts embedded.
    pub embedded: usize,
    /// Records whose vector was already up to date.
    pub unchanged: usize,
    /// Records without a vector because no embedder was given.
    pub missing: usize,
    /// Computed vectors removed because their source text was cleared.
    pub cleared: usize,
}

/// Why an embedding pass failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedPassError {
    /// The embedder failed.
    #[error("embedding {entity}.{index}: {source}")]
    Embed {
        /// The entity.
        entity: String,
        /// The vector index.
        index: String,
        /// The embedder's error.
        #[source]
        source: EmbedError,
    },
    /// A statement failed.
    #[error("embedding {entity}: {source}")]
    Database {
        /// The entity.
        entity: String,
        /// The backend's error.
        #[source]
        source: ExecError,
    },
}

/// What a pass should do.
pub(crate) struct Pass<'a> {
    /// Computes missing vectors; without one, records needing a vector are only counted.
    pub embedder: Option<&'a dyn Embedder>,
    /// Recompute every vector, even those up to date.
    pub force: bool,
    /// Only these entities (all when empty).
    pub entities: &'a [&'a str],
}

/// Runs the pass over `spec`'s vector indexes on `conn` (inside the caller's transaction).
pub(crate) fn run(
    conn: &dyn Writer,
    spec: &SchemaSpec,
    pass: Pass<'_>,
) -> Result<EmbedStats, EmbedPassError> {
    let Pass {
        embedder,
        force,
        entities,
    } = pass;
    let mut stats = EmbedStats::default();
    for entity in &spec.entities {
        if entity.vector_indexes.is_empty()
            || (!entities.is_empty() && !entities.contains(&entity.name.as_str()))
        {
            continue;
        }
        let db_error = |source| EmbedPassError::Database {
            entity: entity.name.clone(),
            source,
        };
        for index in &entity.vector_indexes {
            if index.source_field.is_some() {
                refresh_index(conn, entity, index, embedder, force, &mut stats)?;
            }
        }
        bump_version(conn, &entity.table).map_err(db_error)?;
    }
    Ok(stats)
}

/// Bumps `table`'s version in [`VERSIONS_TABLE`].
pub(crate) fn bump_version(conn: &dyn Writer, table: &str) -> Result<(), ExecError> {
    conn.execute(
        &format!(
            "INSERT INTO {versions} (\"name\", \"version\") VALUES (?1, 1) \
             ON CONFLICT (\"name\") DO UPDATE SET \"version\" = {versions}.\"version\" + 1",
            versions = quote(VERSIONS_TABLE)
        ),
        vec![SqlValue::Text(table.to_owned())],
    )?;
    Ok(())
}

fn refresh_index(
    conn: &dyn Writer,
    entity: &EntitySpec,
    index: &VectorIndexSpec,
    embedder: Option<&dyn Embedder>,
    force: bool,
    stats: &mut EmbedStats,
) -> Result<(), EmbedPassError> {
    let Some(source) = &index.source_field else {
        return Ok(());
    };
    let table = quote(&entity.table);
    let unique = quote(&entity.unique_field);
    let vector = quote(&index.column);
    let hash = quote(&index.hash_column());
    let source_column = quote(source);
    let db_error = |source| EmbedPassError::Database {
        entity: entity.name.clone(),
        source,
    };
    // Text cleared: a computed vector goes with it.
    stats.cleared += conn
        .execute(
            &format!(
                "UPDATE {table} SET {vector} = NULL, {hash} = NULL \
                 WHERE {source_column} IS NULL AND {hash} IS NOT NULL"
            ),
            Vec::new(),
        )
        .map_err(db_error)? as usize;
    let page_sql = format!(
        "SELECT {unique}, CAST({source_column} AS TEXT), {hash}, CASE WHEN {vector} IS NULL THEN 1 ELSE 0 END FROM {table} \
         WHERE {source_column} IS NOT NULL AND {unique} > ?1 ORDER BY {unique} LIMIT {PAGE}"
    );
    let update_sql = format!("UPDATE {table} SET {vector} = ?1, {hash} = ?2 WHERE {unique} = ?3");
    let model_id = embedder
        .map(|e| e.model_id().to_owned())
        .unwrap_or_default();
    let mut after = String::new();
    loop {
        let rows = conn
            .rows(&page_sql, &[SqlValue::Text(after.clone())])
            .map_err(db_error)?;
        let Some(last) = rows.last() else {
            break;
        };
        if let Some(SqlValue::Text(id)) = last.first() {
            after = id.clone();
        }
        let mut todo: Vec<(String, String, String)> = Vec::new();
        for row in &rows {
            let [SqlValue::Text(id), text, stored_hash, vector_missing] = row.as_slice() else {
                continue;
            };
            let text = match text {
                SqlValue::Text(text) => text.clone(),
                _ => continue,
            };
            let missing = matches!(vector_missing, SqlValue::Integer(1));
            let stored_hash = match stored_hash {
                SqlValue::Text(hash) => Some(hash.as_str()),
                _ => None,
            };
            if embedder.is_none() {
                if missing {
                    stats.missing += 1;
                }
                continue;
            }
            let wanted = content_hash(&model_id, &text);
            // A vector given explicitly (no hash) is kept; a computed one is kept while its
            // text and model are unchanged.
            let up_to_date = !missing && stored_hash.is_none_or(|stored| stored == wanted);
            if up_to_date && !force {
                stats.unchanged += 1;
                continue;
            }
            todo.push((id.clone(), text, wanted));
        }
        if let Some(embedder) = embedder
            && !todo.is_empty()
        {
            let texts: Vec<&str> = todo.iter().map(|(_, text, _)| text.as_str()).collect();
            let vectors = embed_all(
                embedder,
                &texts,
                &index.name,
                index.dimension as usize,
                None::<Instant>,
                |_| {},
            )
            .map_err(|source| EmbedPassError::Embed {
                entity: entity.name.clone(),
                index: index.name.clone(),
                source,
            })?;
            for ((id, _, wanted), vector) in todo.iter().zip(vectors) {
                conn.execute(
                    &update_sql,
                    vec![
                        SqlValue::Blob(vector_bytes(&vector)),
                        SqlValue::Text(wanted.clone()),
                        SqlValue::Text(id.clone()),
                    ],
                )
                .map_err(db_error)?;
            }
            stats.embedded += todo.len();
        }
        if rows.len() < PAGE {
            break;
        }
    }
    Ok(())
}

/// A vector as stored: little-endian f32 values.
pub(crate) fn vector_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}
