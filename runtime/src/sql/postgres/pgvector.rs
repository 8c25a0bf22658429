//! pgvector on a PostgreSQL server: whether the `vector` extension is there (and creating it
//! when the role may), the column types and HNSW indexes of a spec's vector indexes, and the
//! conversion of vectors stored as bytes into pgvector columns.
//!
//! Without the extension, vector indexes are `BYTEA` columns of little-endian 32-bit floats
//! (as on SQLite) and each process searches them in memory; with it, they are `vector(N)` (or
//! `halfvec(N)`) columns with an HNSW index per column, searched by the server.

use crate::spec::{EntitySpec, Similarity, VectorIndexSpec};

use super::super::backend::{BlockingReader, ExecError, Reader};
use super::super::ddl::{ObjectKind, SchemaObject, VERSIONS_TABLE};
use super::super::value::SqlValue;
use super::session::Session;
use crate::sql::text::ident::quote;

/// How a database stores the vectors of its vector indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorStorage {
    /// `BYTEA` columns, searched in each process's memory.
    Bytes,
    /// pgvector columns with HNSW indexes, searched by the server.
    Pgvector,
}

/// The most dimensions pgvector's HNSW indexes take for `vector` (for `halfvec`, twice that).
const HNSW_MAX_DIMENSIONS: u32 = 2000;

/// The installed version of the `vector` extension in the connected database, if any.
pub(crate) fn installed_version(conn: &dyn BlockingReader) -> Result<Option<String>, ExecError> {
    let rows = conn.rows(
        "SELECT extversion FROM pg_extension WHERE extname = 'vector'",
        &[],
    )?;
    Ok(rows
        .into_iter()
        .next()
        .and_then(|row| match row.into_iter().next() {
            Some(SqlValue::Text(version)) => Some(version),
            _ => None,
        }))
}

/// How the connected database stores vectors: in pgvector's types when the extension is
/// installed.
pub(crate) fn storage(conn: &dyn BlockingReader) -> Result<VectorStorage, ExecError> {
    Ok(match installed_version(conn)? {
        Some(_) => VectorStorage::Pgvector,
        None => VectorStorage::Bytes,
    })
}

/// Whether `column` of `table` (the name as the session resolves it) has pgvector's type: the
/// installed pgvector version when it does, `None` otherwise.
pub(crate) async fn server_column(
    conn: &dyn Reader,
    table: &str,
    column: &str,
) -> Result<Option<String>, ExecError> {
    let rows = conn
        .rows(
            "SELECT format_type(a.atttypid, a.atttypmod), \
         (SELECT extversion FROM pg_extension WHERE extname = 'vector') \
         FROM pg_attribute a WHERE a.attrelid = to_regclass(?1) AND a.attname = ?2 \
         AND NOT a.attisdropped",
            &[
                SqlValue::Text(quote(table)),
                SqlValue::Text(column.to_owned()),
            ],
        )
        .await?;
    let mut row = rows.into_iter().next().unwrap_or_default().into_iter();
    Ok(match (row.next(), row.next()) {
        (Some(SqlValue::Text(ty)), Some(SqlValue::Text(version))) if is_vector_type(&ty) => {
            Some(version)
        }
        _ => None,
    })
}

/// Whether `decl_type` (as `format_type` spells it) is a pgvector column type: `vector(N)`,
/// `halfvec(N)`.
pub(crate) fn is_vector_type(decl_type: &str) -> bool {
    decl_type.starts_with("vector(") || decl_type.starts_with("halfvec(")
}

/// What initialisation can use: the extension as installed, or installed now if the server
/// has it and the role may create it (inside the initialisation's transaction, behind a
/// savepoint, so a refusal leaves the transaction usable and vectors stay `BYTEA`).
pub(crate) fn ensure(session: &Session<'_>) -> Result<VectorStorage, ExecError> {
    if storage(session)? == VectorStorage::Pgvector {
        return Ok(VectorStorage::Pgvector);
    }
    let available = BlockingReader::rows(
        session,
        "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'",
        &[],
    )?;
    if available.is_empty() {
        return Ok(VectorStorage::Bytes);
    }
    session.batch("SAVEPOINT toolforge_pgvector")?;
    match session.batch("CREATE EXTENSION IF NOT EXISTS vector") {
        Ok(()) => {
            session.batch("RELEASE SAVEPOINT toolforge_pgvector")?;
            Ok(VectorStorage::Pgvector)
        }
        Err(_) => {
            // Most often: only a superuser may create it. Vectors stay `BYTEA`.
            session.batch(
                "ROLLBACK TO SAVEPOINT toolforge_pgvector; RELEASE SAVEPOINT toolforge_pgvector",
            )?;
            Ok(VectorStorage::Bytes)
        }
    }
}

/// The pgvector type of `index`'s column: `vector(N)`, or `halfvec(N)` at half precision.
pub fn column_type(index: &VectorIndexSpec, half_precision: bool) -> String {
    let name = if half_precision { "halfvec" } else { "vector" };
    format!("{name}({})", index.dimension)
}

/// The HNSW index over `index`'s column, one per similarity, or `None` when pgvector cannot
/// index that many dimensions (searches of that index are then exact).
pub fn hnsw_index(
    entity: &EntitySpec,
    index: &VectorIndexSpec,
    half_precision: bool,
) -> Option<SchemaObject> {
    let limit = HNSW_MAX_DIMENSIONS * if half_precision { 2 } else { 1 };
    if index.dimension > limit {
        return None;
    }
    let family = if half_precision { "halfvec" } else { "vector" };
    let operators = match index.similarity {
        Similarity::Cosine => "cosine_ops",
        Similarity::Euclidean => "l2_ops",
        Similarity::Dot => "ip_ops",
    };
    let name = format!("{}__{}__hnsw", entity.table, index.column);
    Some(SchemaObject {
        kind: ObjectKind::VectorIndex,
        sql: format!(
            "CREATE INDEX {} ON {} USING hnsw ({} {family}_{operators})",
            quote(&name),
            quote(&entity.table),
            quote(&index.column)
        ),
        name,
        table: entity.table.clone(),
        columns: Vec::new(),
    })
}

/// The statements converting `index`'s `BYTEA` column of `table` into a pgvector column of
/// `column_type`, in place (the column keeps its position): each stored vector of the right
/// length is decoded exactly, one of another length (which a search skips) is cleared with
/// its text hash so that `db embed` computes it again, and the table's version is bumped so
/// that every server process reads the column anew.
pub fn conversion_sql(table: &str, index: &VectorIndexSpec, column_type: &str) -> String {
    let (table_name, column, hash) = (
        quote(table),
        quote(&index.column),
        quote(&index.hash_column()),
    );
    let bytes = u64::from(index.dimension) * 4;
    format!(
        "{DECODE_FUNCTION};\n\
         UPDATE {table_name} SET {column} = NULL, {hash} = NULL \
         WHERE {column} IS NOT NULL AND length({column}) <> {bytes};\n\
         ALTER TABLE {table_name} ALTER COLUMN {column} TYPE {column_type} \
         USING CAST(pg_temp.toolforge_f32le({column}) AS {column_type});\n\
         INSERT INTO {versions} (\"name\", \"version\") VALUES ({literal}, 1) \
         ON CONFLICT (\"name\") DO UPDATE SET \"version\" = {versions}.\"version\" + 1",
        versions = quote(VERSIONS_TABLE),
        literal = super::super::ddl::literal(table),
    )
}

/// A function of the session decoding little-endian 32-bit floats into `real[]`, exactly:
/// each value is rebuilt from its sign, exponent and mantissa bits in double precision
/// (where every 32-bit float is exact) and cast to `real`.
const DECODE_FUNCTION: &str = "\
CREATE OR REPLACE FUNCTION pg_temp.toolforge_f32le(bytes bytea) RETURNS real[]
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT array_agg(
    (CASE WHEN exponent = 0 THEN mantissa * 2.0::float8 ^ (-149)
          ELSE (8388608 + mantissa) * 2.0::float8 ^ (exponent - 150) END
     * CASE WHEN sign = 1 THEN -1 ELSE 1 END)::real
    ORDER BY i)
  FROM (SELECT i, (word >> 31) & 1 AS sign, (word >> 23) & 255 AS exponent,
               word & 8388607 AS mantissa
        FROM (SELECT i, (get_byte(bytes, 4 * i)::bigint)
                      | (get_byte(bytes, 4 * i + 1)::bigint << 8)
                      | (get_byte(bytes, 4 * i + 2)::bigint << 16)
                      | (get_byte(bytes, 4 * i + 3)::bigint << 24) AS word
              FROM generate_series(0, length(bytes) / 4 - 1) AS i) AS words) AS parts
$$";
