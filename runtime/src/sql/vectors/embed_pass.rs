//! Embeddings kept up to date inside a write transaction: after an import or a typed write,
//! every vector index with a source field gets a vector for each record whose source text has
//! none yet, or changed since (a content hash of the model and the text is stored next to the
//! vector), computed by an [`Embedder`] in batches. Records whose source text was cleared lose
//! their computed vector. Vectors given explicitly (no hash stored) are kept while their text
//! is unchanged... and recomputed when it changes, if an embedder is given.
//!
//! Every pass bumps the table's version in [`VERSIONS_TABLE`], so searches reload vectors
//! kept in memory. A provider failure fails the pass, and with it the whole transaction.
//!
//! An entity over an existing table keeps its vectors in the side store instead
//! (`side_store.rs`): the pass reads the user's rows through the entity's query joined with
//! them, writes vectors there by key, and removes the vectors of records gone from the table.

use std::time::Instant;

use crate::embed::{EmbedError, Embedder, content_hash, embed_all};
use crate::spec::{EntitySpec, SchemaSpec, VectorIndexSpec};

use crate::sql::backend::{ExecError, SqlDialect, Writer};
use crate::sql::ddl::VERSIONS_TABLE;
use crate::sql::side_store::SidePlaces;
use crate::sql::text::ident::quote;
use crate::sql::value::SqlValue;

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
    /// Where entities over existing tables are: `None` when the spec has none.
    pub side: Option<SidePlaces<'a>>,
}

/// Where one entity's source texts are read and its vectors written.
struct Home {
    /// What the texts are read from (a table, or a parenthesised query with its alias).
    rows: String,
    /// Clears the vector and hash of records whose source text is gone.
    clear: String,
    /// Stores a vector (`?1`), its hash (`?2`) for the record with key `?3`.
    store: String,
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
        side,
    } = pass;
    let mut stats = EmbedStats::default();
    for entity in &spec.entities {
        // (The vectors of a user's own column are theirs: nothing to compute.)
        if entity.vector_indexes.is_empty()
            || (entity.is_mapped() && !entity.has_side_vectors())
            || (!entities.is_empty() && !entities.contains(&entity.name.as_str()))
        {
            continue;
        }
        let db_error = |source| EmbedPassError::Database {
            entity: entity.name.clone(),
            source,
        };
        let mut versions = quote(VERSIONS_TABLE);
        if entity.has_side_vectors() {
            let places = side.ok_or_else(|| {
                db_error(ExecError::Unavailable(format!(
                    "the vectors of {} are kept in the side store, which this pass was not given",
                    entity.name
                )))
            })?;
            stats.cleared += remove_gone(conn, entity, places).map_err(db_error)?;
            versions = format!("{}.{versions}", places.side);
        }
        for index in &entity.vector_indexes {
            if index.source_field.is_some() {
                let home = home(conn, entity, index, side);
                refresh_index(conn, entity, index, &home, (embedder, force), &mut stats)?;
            }
        }
        bump_version_in(conn, &versions, &entity.table).map_err(db_error)?;
    }
    Ok(stats)
}

/// Bumps `table`'s version in [`VERSIONS_TABLE`].
pub(crate) fn bump_version(conn: &dyn Writer, table: &str) -> Result<(), ExecError> {
    bump_version_in(conn, &quote(VERSIONS_TABLE), table)
}

/// Bumps `table`'s version in the versions table `versions` (quoted, maybe qualified).
fn bump_version_in(conn: &dyn Writer, versions: &str, table: &str) -> Result<(), ExecError> {
    conn.execute(
        &format!(
            "INSERT INTO {versions} (\"name\", \"version\") VALUES (?1, 1) \
             ON CONFLICT (\"name\") DO UPDATE SET \"version\" = {versions}.\"version\" + 1"
        ),
        vec![SqlValue::Text(table.to_owned())],
    )?;
    Ok(())
}

/// The vectors table of the mapped `entity` in the side store, quoted and qualified.
fn side_table(entity: &EntitySpec, places: SidePlaces<'_>) -> String {
    format!(
        "{}.{}",
        places.side,
        quote(&crate::sql::mapping::vectors_table(entity))
    )
}

/// The mapped `entity`'s rows joined with their vectors, for a `FROM`.
fn side_rows(entity: &EntitySpec, dialect: SqlDialect, places: SidePlaces<'_>) -> String {
    let query = crate::sql::mapping::entity_query(entity, dialect, places.base, Some(places.side))
        .unwrap_or_default();
    format!("({query}) AS \"t\"")
}

/// Removes the vectors of records gone from the mapped `entity`'s table: how many.
fn remove_gone(
    conn: &dyn Writer,
    entity: &EntitySpec,
    places: SidePlaces<'_>,
) -> Result<usize, ExecError> {
    let key = quote(&entity.unique_field);
    let query = crate::sql::mapping::entity_query(entity, conn.dialect(), places.base, None)
        .unwrap_or_default();
    let removed = conn.execute(
        &format!(
            "DELETE FROM {} WHERE {key} NOT IN (SELECT \"q\".{key} FROM ({query}) AS \"q\")",
            side_table(entity, places)
        ),
        Vec::new(),
    )?;
    Ok(removed as usize)
}

/// Where `index`'s texts and vectors are for `entity`: its own table, or for an entity over
/// an existing table the user's rows and the side store.
fn home(
    conn: &dyn Writer,
    entity: &EntitySpec,
    index: &VectorIndexSpec,
    side: Option<SidePlaces<'_>>,
) -> Home {
    let unique = quote(&entity.unique_field);
    let vector = quote(&index.column);
    let hash = quote(&index.hash_column());
    let source = quote(index.source_field.as_deref().unwrap_or_default());
    match side.filter(|_| entity.has_side_vectors()) {
        None => {
            let table = quote(&entity.table);
            Home {
                clear: format!(
                    "UPDATE {table} SET {vector} = NULL, {hash} = NULL \
                     WHERE {source} IS NULL AND {hash} IS NOT NULL"
                ),
                store: format!("UPDATE {table} SET {vector} = ?1, {hash} = ?2 WHERE {unique} = ?3"),
                rows: table,
            }
        }
        Some(places) => {
            let table = side_table(entity, places);
            let rows = side_rows(entity, conn.dialect(), places);
            Home {
                clear: format!(
                    "UPDATE {table} SET {vector} = NULL, {hash} = NULL WHERE {hash} IS NOT NULL \
                     AND {unique} IN (SELECT \"t\".{unique} FROM {rows} WHERE \"t\".{source} IS NULL)"
                ),
                store: format!(
                    "INSERT INTO {table} ({unique}, {vector}, {hash}) VALUES (?3, ?1, ?2) \
                     ON CONFLICT ({unique}) DO UPDATE SET {vector} = excluded.{vector}, \
                     {hash} = excluded.{hash}"
                ),
                rows,
            }
        }
    }
}

fn refresh_index(
    conn: &dyn Writer,
    entity: &EntitySpec,
    index: &VectorIndexSpec,
    home: &Home,
    (embedder, force): (Option<&dyn Embedder>, bool),
    stats: &mut EmbedStats,
) -> Result<(), EmbedPassError> {
    let Some(source) = &index.source_field else {
        return Ok(());
    };
    let unique = quote(&entity.unique_field);
    let vector = quote(&index.column);
    let hash = quote(&index.hash_column());
    let source_column = quote(source);
    let db_error = |source| EmbedPassError::Database {
        entity: entity.name.clone(),
        source,
    };
    // Text cleared: a computed vector goes with it.
    stats.cleared += conn.execute(&home.clear, Vec::new()).map_err(db_error)? as usize;
    let (mut after, key_type) = crate::sql::side_store::key_paging(entity);
    let page_sql = format!(
        "SELECT {unique}, CAST({source_column} AS TEXT), {hash}, CASE WHEN {vector} IS NULL THEN 1 ELSE 0 END FROM {rows} \
         WHERE {source_column} IS NOT NULL AND {unique} > CAST(?1 AS {key_type}) ORDER BY {unique} LIMIT {PAGE}",
        rows = home.rows,
    );
    let model_id = embedder
        .map(|e| e.model_id().to_owned())
        .unwrap_or_default();
    loop {
        let rows = conn
            .rows(&page_sql, std::slice::from_ref(&after))
            .map_err(db_error)?;
        let Some(last) = rows.last() else {
            break;
        };
        if let Some(id) = last.first() {
            after = id.clone();
        }
        let mut todo: Vec<(SqlValue, String, String)> = Vec::new();
        for row in &rows {
            let [id, text, stored_hash, vector_missing] = row.as_slice() else {
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
                    &home.store,
                    vec![
                        SqlValue::Blob(vector_bytes(&vector)),
                        SqlValue::Text(wanted.clone()),
                        id.clone(),
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
