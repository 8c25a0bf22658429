//! Full-text search on PostgreSQL, ranked exactly as SQLite ranks it.
//!
//! PostgreSQL's own text search cannot give SQLite's answers: its parser cuts `foo-bar`, paths
//! and URLs differently from `unicode61`, its English stemmer is Porter2 (not Porter), it
//! drops stop words, folds accents only with an extension, and has no BM25. So the index is
//! built from the terms SQLite's FTS5 tokenizer itself produces ([`Tokenizer`]), kept in two
//! tables, and BM25 is computed from them with FTS5's formula:
//!
//! - `<table>__fts_terms (id, field, term, positions)`: one row per term of a field of a
//!   record, with its positions; its primary key `(term, id, field)` is the inverted index
//!   (a B-tree in `C` collation, so a prefix is a range scan).
//! - `<table>__fts_docs (id, length)`: the number of terms of each record (all indexed fields).
//!
//! Both reference the entity's unique field with `ON DELETE CASCADE`, so a delete by any path
//! removes the postings; imports and the records API rewrite the postings of every record they
//! write, in the same transaction. The score of a record is FTS5's: for each phrase,
//! `idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl))` with `f` the phrase's instances
//! weighted by field, `idf = ln((N - n + 0.5) / (n + 0.5))` (at least 1e-6), `k1 = 1.2`,
//! `b = 0.75`. Snippets are cut by FTS5's `snippet()` over the page's rows.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::super::backend::{ExecError, Reader};
use super::super::ident::quote;
use super::super::query::Projection;
use super::super::value::SqlValue;
use super::QueryItem;
use super::pg_tables::{CHUNK, docs_table, field_texts, integer, placeholders, terms_table, text};
use super::ranking::{ELLIPSIS, Hit, MARK, Ranking, SNIPPET_WORDS};
use super::tokens::Tokenizer;
use crate::sql::handler_error::HandlerError;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// One phrase of the query as terms; with `prefix`, its last term matches any term it starts.
struct Phrase {
    terms: Vec<String>,
    prefix: bool,
}

impl Phrase {
    fn matches(&self, j: usize, term: &str) -> bool {
        if self.prefix && j + 1 == self.terms.len() {
            term.starts_with(self.terms[j].as_str())
        } else {
            term == self.terms[j]
        }
    }
}

/// The smallest string above every string starting with `prefix` (byte order).
fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let mut next = last as u32 + 1;
        if (0xD800..0xE000).contains(&next) {
            next = 0xE000;
        }
        if let Some(c) = char::from_u32(next) {
            chars.push(c);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Every record matching `ranking`, scored, best first (equal scores by unique id).
fn scored(conn: &dyn Reader, ranking: &Ranking<'_>) -> Result<Vec<(String, f64)>, HandlerError> {
    let entity = ranking.entity;
    let index = ranking.index;
    let tokenizer = Tokenizer::new(index.analyzer).map_err(ExecError::from)?;
    let mut phrases = Vec::new();
    for item in ranking.query.items() {
        let terms = tokenizer.terms(item.text()).map_err(ExecError::from)?;
        if !terms.is_empty() {
            phrases.push(Phrase {
                terms,
                prefix: ranking.prefix && matches!(item, QueryItem::Word(_)),
            });
        }
    }
    if phrases.is_empty() {
        return Ok(Vec::new());
    }
    let allowed: Vec<i64> = index
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| ranking.fields.is_empty() || ranking.fields.contains(&f.name))
        .map(|(i, _)| i as i64)
        .collect();
    // The postings of every query term (prefixes as ranges).
    let mut params: Vec<SqlValue> = Vec::new();
    let mut alternatives: Vec<String> = Vec::new();
    let mut exact: HashSet<&str> = HashSet::new();
    for phrase in &phrases {
        for (j, term) in phrase.terms.iter().enumerate() {
            if phrase.prefix && j + 1 == phrase.terms.len() {
                params.push(SqlValue::Text(term.clone()));
                let from = params.len();
                match prefix_end(term) {
                    Some(end) => {
                        params.push(SqlValue::Text(end));
                        alternatives.push(format!(
                            "(\"term\" >= ?{from} AND \"term\" < ?{})",
                            from + 1
                        ));
                    }
                    None => alternatives.push(format!("\"term\" >= ?{from}")),
                }
            } else if exact.insert(term) {
                params.push(SqlValue::Text(term.clone()));
                alternatives.push(format!("\"term\" = ?{}", params.len()));
            }
        }
    }
    let fields: Vec<String> = allowed.iter().map(|f| f.to_string()).collect();
    let sql = format!(
        "SELECT \"id\", \"field\", \"term\", \"positions\" FROM {} WHERE ({}) AND \"field\" IN ({})",
        quote(&terms_table(entity)),
        alternatives.join(" OR "),
        fields.join(", ")
    );
    // (phrase, id, field) -> positions of each of the phrase's terms.
    type Positions = Vec<HashSet<u32>>;
    let mut found: HashMap<(usize, String, usize), Positions> = HashMap::new();
    for row in conn.rows(&sql, &params)? {
        let id = text(row.first()).unwrap_or_default();
        let field = integer(row.get(1)) as usize;
        let term = text(row.get(2)).unwrap_or_default();
        let at: Vec<u32> = text(row.get(3))
            .unwrap_or_default()
            .split(' ')
            .filter_map(|p| p.parse().ok())
            .collect();
        for (i, phrase) in phrases.iter().enumerate() {
            for j in 0..phrase.terms.len() {
                if phrase.matches(j, &term) {
                    let sets = found
                        .entry((i, id.clone(), field))
                        .or_insert_with(|| vec![HashSet::new(); phrase.terms.len()]);
                    sets[j].extend(at.iter().copied());
                }
            }
        }
    }
    // Instances of each phrase per record, weighted by field.
    let mut frequency: HashMap<String, Vec<f64>> = HashMap::new();
    for ((i, id, field), sets) in &found {
        let count = sets[0]
            .iter()
            .filter(|&&p| (1..sets.len()).all(|j| sets[j].contains(&(p + j as u32))))
            .count();
        if count == 0 {
            continue;
        }
        let weight = index.fields.get(*field).map_or(1.0, |f| {
            if f.weight.is_finite() && f.weight > 0.0 {
                f.weight
            } else {
                1.0
            }
        });
        let entry = frequency
            .entry(id.clone())
            .or_insert_with(|| vec![0.0; phrases.len()]);
        entry[*i] += weight * count as f64;
    }
    let mut hits_per_phrase = vec![0i64; phrases.len()];
    for frequencies in frequency.values() {
        for (i, f) in frequencies.iter().enumerate() {
            if *f > 0.0 {
                hits_per_phrase[i] += 1;
            }
        }
    }
    let candidates: Vec<(String, Vec<f64>)> = frequency
        .into_iter()
        .filter(|(_, f)| f.iter().all(|f| *f > 0.0))
        .collect();
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let docs = quote(&docs_table(entity));
    let totals = conn.rows(
        &format!("SELECT count(*), coalesce(sum(\"length\"), 0) FROM {docs}"),
        &[],
    )?;
    let rows = totals.first().map_or(0, |row| integer(row.first()));
    let tokens = totals.first().map_or(0, |row| integer(row.get(1)));
    let avgdl = if rows > 0 {
        tokens as f64 / rows as f64
    } else {
        1.0
    };
    let idf: Vec<f64> = hits_per_phrase
        .iter()
        .map(|&hits| {
            let idf = (((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
            if idf <= 0.0 { 1e-6 } else { idf }
        })
        .collect();
    let mut lengths: HashMap<String, i64> = HashMap::new();
    let ids: Vec<&String> = candidates.iter().map(|c| &c.0).collect();
    for chunk in ids.chunks(CHUNK) {
        let params: Vec<SqlValue> = chunk
            .iter()
            .map(|id| SqlValue::Text((*id).clone()))
            .collect();
        let sql = format!(
            "SELECT \"id\", \"length\" FROM {docs} WHERE \"id\" IN ({})",
            placeholders(1, chunk.len())
        );
        for row in conn.rows(&sql, &params)? {
            lengths.insert(text(row.first()).unwrap_or_default(), integer(row.get(1)));
        }
    }
    let mut scored: Vec<(String, f64)> = candidates
        .into_iter()
        .map(|(id, frequencies)| {
            let d = lengths.get(&id).copied().unwrap_or(0) as f64;
            let mut score = 0.0;
            for (i, f) in frequencies.iter().enumerate() {
                score += idf[i] * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / avgdl)));
            }
            (id, score)
        })
        .collect();
    // As SQLite orders `bm25()` (the negated score), then the unique id.
    scored.sort_by(|a, b| (-a.1).total_cmp(&-b.1).then_with(|| a.0.cmp(&b.0)));
    Ok(scored)
}

/// [`rank`](super::rank) on PostgreSQL: the page, and how many records match in all.
pub(crate) fn pg_rank(
    conn: &dyn Reader,
    ranking: &Ranking<'_>,
    limit: u32,
    offset: u64,
    snippets: bool,
) -> Result<(Vec<Hit>, u64), HandlerError> {
    let scored = scored(conn, ranking)?;
    let total = scored.len() as u64;
    let page: Vec<(String, f64)> = scored
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(limit as usize)
        .collect();
    if page.is_empty() {
        return Ok((Vec::new(), total));
    }
    let entity = ranking.entity;
    let names: Vec<String> = entity.display_name_field.iter().cloned().collect();
    let projection = Projection::of(entity, &names, "display_name_field")
        .or_else(|_| Projection::of(entity, &[], "unique_field"))?;
    let ids: Vec<String> = page.iter().map(|p| p.0.clone()).collect();
    let params: Vec<SqlValue> = ids.iter().map(|id| SqlValue::Text(id.clone())).collect();
    let sql = format!(
        "SELECT {} FROM {} AS \"n\" WHERE \"n\".{} IN ({})",
        projection.select_list(),
        quote(&entity.table),
        quote(&entity.unique_field),
        placeholders(1, ids.len())
    );
    let mut display: HashMap<String, Option<Value>> = HashMap::new();
    for row in conn.rows(&sql, &params)? {
        let record = projection.record(&row, 0);
        let id = match record.get(&entity.unique_field) {
            Some(Value::String(id)) => id.clone(),
            _ => continue,
        };
        display.insert(id, names.first().and_then(|n| record.get(n).cloned()));
    }
    let cut = if snippets {
        page_snippets(conn, ranking, &ids)?
    } else {
        HashMap::new()
    };
    let hits = page
        .into_iter()
        .map(|(id, score)| Hit {
            name: display.get(&id).cloned().flatten(),
            snippet: cut.get(&id).cloned(),
            id,
            score,
        })
        .collect();
    Ok((hits, total))
}

/// FTS5's snippets of the records `ids`, cut over an in-memory FTS5 table holding them (a
/// snippet depends only on its record's text and the query).
fn page_snippets(
    conn: &dyn Reader,
    ranking: &Ranking<'_>,
    ids: &[String],
) -> Result<HashMap<String, String>, HandlerError> {
    let index = ranking.index;
    let tokenizer = Tokenizer::new(index.analyzer).map_err(ExecError::from)?;
    let memory = tokenizer.connection();
    let columns: Vec<String> = index.fields.iter().map(|f| quote(&f.name)).collect();
    let setup = format!(
        "CREATE VIRTUAL TABLE s USING fts5({}, tokenize='{}')",
        columns.join(", "),
        super::sqlite_ddl::tokenizer(index.analyzer)
    );
    memory.execute_batch(&setup).map_err(ExecError::from)?;
    let insert = format!(
        "INSERT INTO s(rowid, {}) VALUES (?1, {})",
        columns.join(", "),
        (2..columns.len() + 2)
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let rows = field_texts(conn, ranking.entity, index, Some(ids))?;
    let mut rowids = HashMap::new();
    for (n, (id, texts)) in rows.iter().enumerate() {
        let mut values: Vec<SqlValue> = vec![SqlValue::Integer(n as i64 + 1)];
        values.extend(
            texts
                .iter()
                .map(|t| t.clone().map_or(SqlValue::Null, SqlValue::Text)),
        );
        memory
            .execute(&insert, rusqlite::params_from_iter(values))
            .map_err(ExecError::from)?;
        rowids.insert(n as i64 + 1, id.clone());
    }
    let mut statement = memory
        .prepare(&format!(
            "SELECT rowid, snippet(s, -1, ?2, ?3, ?4, {SNIPPET_WORDS}) FROM s WHERE s MATCH ?1"
        ))
        .map_err(ExecError::from)?;
    let found = statement
        .query_map(
            rusqlite::params![ranking.match_text(), MARK.0, MARK.1, ELLIPSIS],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)),
        )
        .map_err(ExecError::from)?;
    let mut out = HashMap::new();
    for row in found {
        let (rowid, snippet) = row.map_err(ExecError::from)?;
        if let Some(id) = rowids.get(&rowid) {
            out.insert(id.clone(), snippet);
        }
    }
    Ok(out)
}
