//! The vectors of each index, read once into memory ([`VectorMatrix`]) and read again only when
//! the table's version in [`VERSIONS_TABLE`] changed (every write path bumps it), so a search
//! costs one small query plus the scoring, whatever the backend.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::search::vector::VectorMatrix;
use crate::spec::{EntitySpec, VectorIndexSpec};

use super::backend::{ExecError, Reader};
use super::ddl::VERSIONS_TABLE;
use super::ident::quote;
use super::value::SqlValue;

/// A loaded matrix by (table, column), with the table version it was read at.
type Entries = HashMap<(String, String), (i64, Arc<VectorMatrix>)>;

/// The matrices loaded so far.
#[derive(Debug, Default)]
pub(crate) struct VectorCache {
    entries: Mutex<Entries>,
}

impl VectorCache {
    /// The vectors of `index` as they are now: from memory when the table has not changed
    /// since they were read.
    pub(crate) fn matrix(
        &self,
        conn: &dyn Reader,
        entity: &EntitySpec,
        index: &VectorIndexSpec,
    ) -> Result<Arc<VectorMatrix>, ExecError> {
        let version = table_version(conn, &entity.table)?;
        let key = (entity.table.clone(), index.column.clone());
        if let Some((seen, matrix)) = self.lock().get(&key)
            && *seen == version
        {
            return Ok(matrix.clone());
        }
        let matrix = Arc::new(load(conn, entity, index)?);
        self.lock().insert(key, (version, matrix.clone()));
        Ok(matrix)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The version of `table` (0 before its first write).
fn table_version(conn: &dyn Reader, table: &str) -> Result<i64, ExecError> {
    let rows = conn.rows(
        &format!(
            "SELECT \"version\" FROM {} WHERE \"name\" = ?1",
            quote(VERSIONS_TABLE)
        ),
        &[SqlValue::Text(table.to_owned())],
    )?;
    Ok(match rows.first().and_then(|row| row.first()) {
        Some(SqlValue::Integer(version)) => *version,
        _ => 0,
    })
}

/// Every stored vector of `index` (ordered by unique id); values of the wrong length are
/// skipped.
fn load(
    conn: &dyn Reader,
    entity: &EntitySpec,
    index: &VectorIndexSpec,
) -> Result<VectorMatrix, ExecError> {
    let rows = conn.rows(
        &format!(
            "SELECT {}, {} FROM {} WHERE {} IS NOT NULL ORDER BY {}",
            quote(&entity.unique_field),
            quote(&index.column),
            quote(&entity.table),
            quote(&index.column),
            quote(&entity.unique_field),
        ),
        &[],
    )?;
    let dimension = index.dimension as usize;
    let mut matrix = VectorMatrix::new(dimension, index.similarity);
    let mut vector = Vec::with_capacity(dimension);
    for row in rows {
        let mut row = row.into_iter();
        let (Some(SqlValue::Text(id)), Some(SqlValue::Blob(bytes))) = (row.next(), row.next())
        else {
            continue;
        };
        if bytes.len() != dimension * 4 {
            continue;
        }
        vector.clear();
        vector.extend(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        matrix.push(id, &vector);
    }
    Ok(matrix)
}
