//! Full-text search on PostgreSQL, ranked exactly as SQLite ranks it.
//!
//! PostgreSQL's own text search cannot give SQLite's answers: its parser cuts `foo-bar`, paths
//! and URLs differently from `unicode61`, its English stemmer is Porter2 (not Porter), it
//! drops stop words, folds accents only with an extension, and has no BM25. So the index is
//! built from the terms SQLite's FTS5 tokenizer produces (its port, [`terms`]), kept in two
//! tables, and BM25 is computed from them with FTS5's formula:
//!
//! - `<table>__fts_terms (id, field, term, positions)`: one row per term of a field of a
//!   record, with its positions; its primary key `(term, id, field)` is the inverted index
//!   (a B-tree in `C` collation, so a prefix is a range scan).
//! - `<table>__fts_docs (id, length)`: the number of terms of each record (all indexed fields).
//! - `<table>__fts_totals (documents, tokens)`: their count and sum, kept by triggers, so no
//!   search scans `__fts_docs` for BM25's statistics.
//!
//! Both reference the entity's unique field with `ON DELETE CASCADE`, so a delete by any path
//! removes the postings; imports and the records API rewrite the postings of every record they
//! write, in the same transaction. The score of a record is FTS5's: for each phrase,
//! `idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl))` with `f` the phrase's instances
//! weighted by field, `idf = ln((N - n + 0.5) / (n + 0.5))` (at least 1e-6), `k1 = 1.2`,
//! `b = 0.75`. Snippets are FTS5's `snippet()`, ported, over the page's rows.
//!
//! A query of single words (or prefixes), the common case, is scored and ordered by one
//! statement: a word's frequency in a field is the number of its positions, so only the page
//! leaves the server. A query with a quoted phrase needs its terms' positions side by side:
//! its postings are read and the phrases matched in the process.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::super::backend::{ExecError, Reader};
use super::super::query::Projection;
use super::super::value::SqlValue;
use super::QueryItem;
use super::analyzer::{Phrase, terms};
use super::pg_tables::{
    docs_table, field_texts, integer, placeholders, terms_table, text, totals_table,
};
use super::ranking::{ELLIPSIS, Hit, MARK, Ranking, SNIPPET_WORDS};
use super::snippet::{Marks, snippet};
use crate::sql::handler_error::HandlerError;
use crate::sql::text::ident::quote;

const K1: f64 = 1.2;
const B: f64 = 0.75;

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

/// The query of a ranking as phrases of terms, and the fields searched with their weights.
struct Plan {
    phrases: Vec<Phrase>,
    /// The positions (in the index) of the fields searched.
    fields: Vec<usize>,
}

impl Plan {
    /// The plan of `ranking`; `None` when its query has no terms.
    fn of(ranking: &Ranking<'_>) -> Result<Option<Plan>, HandlerError> {
        let mut phrases = Vec::new();
        for item in ranking.query.items() {
            let terms = terms(ranking.index.analyzer, item.text());
            if !terms.is_empty() {
                phrases.push(Phrase {
                    terms,
                    prefix: ranking.prefix && matches!(item, QueryItem::Word(_)),
                });
            }
        }
        if phrases.is_empty() {
            return Ok(None);
        }
        let fields = ranking
            .index
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| ranking.fields.is_empty() || ranking.fields.contains(&f.name))
            .map(|(i, _)| i)
            .collect();
        Ok(Some(Plan { phrases, fields }))
    }

    /// Whether every phrase is one term (or one prefix): such a query is scored in SQL.
    fn single_terms(&self) -> bool {
        self.phrases.iter().all(|phrase| phrase.terms.len() == 1)
    }

    /// `"field" IN (...)` over the fields searched.
    fn field_condition(&self) -> String {
        let fields: Vec<String> = self.fields.iter().map(|f| f.to_string()).collect();
        format!("\"field\" IN ({})", fields.join(", "))
    }
}

/// The condition on `"term"` matching term `j` of `phrase` (a range for a prefix), its values
/// added to `params`.
fn term_condition(phrase: &Phrase, j: usize, params: &mut Vec<SqlValue>) -> String {
    let term = &phrase.terms[j];
    params.push(SqlValue::Text(term.clone()));
    let from = params.len();
    if !(phrase.prefix && j + 1 == phrase.terms.len()) {
        return format!("\"term\" = ?{from}");
    }
    match prefix_end(term) {
        Some(end) => {
            params.push(SqlValue::Text(end));
            format!("(\"term\" >= ?{from} AND \"term\" < ?{})", from + 1)
        }
        None => format!("\"term\" >= ?{from}"),
    }
}

/// The number of records and of terms in the index (of the visible records, under row rules).
async fn totals(conn: &dyn Reader, ranking: &Ranking<'_>) -> Result<(i64, i64), ExecError> {
    let rows = conn
        .rows(
            &format!(
                "SELECT \"documents\", \"tokens\" FROM {}",
                quote(&totals_table(ranking.entity))
            ),
            &[],
        )
        .await?;
    Ok(rows
        .first()
        .map_or((0, 0), |row| (integer(row.first()), integer(row.get(1)))))
}

/// FTS5's average document length from the index's totals.
fn average_length(documents: i64, tokens: i64) -> f64 {
    if documents > 0 {
        tokens as f64 / documents as f64
    } else {
        1.0
    }
}

/// FTS5's inverse document frequency of a phrase found in `hits` of `documents` records.
fn idf(documents: i64, hits: i64) -> f64 {
    let idf = (((documents - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
    if idf <= 0.0 { 1e-6 } else { idf }
}

/// One page of the records matching `plan`, scored and ordered in one statement (only the
/// page leaves the server), and how many match in all. For queries of single terms and
/// prefixes, where a phrase's frequency in a field is the number of positions of its terms.
async fn ranked_in_sql(
    conn: &dyn Reader,
    ranking: &Ranking<'_>,
    plan: &Plan,
    limit: u32,
    offset: u64,
) -> Result<(Vec<(String, f64)>, u64), HandlerError> {
    let entity = ranking.entity;
    let mut params: Vec<SqlValue> = Vec::new();
    let mut conditions = Vec::new();
    let mut phrases = Vec::new();
    for (i, phrase) in plan.phrases.iter().enumerate() {
        let condition = term_condition(phrase, 0, &mut params);
        phrases.push(format!("({i}, {condition})"));
        conditions.push(condition);
    }
    let mut weights = Vec::new();
    for &field in &plan.fields {
        params.push(SqlValue::Real(ranking.weight(field)));
        weights.push(format!(
            "WHEN {field} THEN CAST(?{} AS DOUBLE PRECISION)",
            params.len()
        ));
    }
    params.push(SqlValue::Real(K1));
    let k1 = format!("CAST(?{} AS DOUBLE PRECISION)", params.len());
    params.push(SqlValue::Real(B));
    let b = format!("CAST(?{} AS DOUBLE PRECISION)", params.len());
    params.push(SqlValue::Integer(i64::from(limit)));
    let limit_at = params.len();
    params.push(SqlValue::Integer(i64::try_from(offset).unwrap_or(i64::MAX)));
    let offset_at = params.len();
    let float = "DOUBLE PRECISION";
    let sql = format!(
        "WITH \"totals\" AS (SELECT \"documents\", CASE WHEN \"documents\" > 0 \
         THEN CAST(\"tokens\" AS {float}) / CAST(\"documents\" AS {float}) ELSE 1.0 END AS \
         \"avgdl\" FROM {totals}), \
         \"hits\" AS (SELECT \"t\".\"id\", \"p\".\"phrase\", sum(CASE \"t\".\"field\" {weights} \
         END * (length(\"t\".\"positions\") - length(replace(\"t\".\"positions\", ' ', '')) + 1)) \
         AS \"f\" FROM {terms} AS \"t\" CROSS JOIN LATERAL (VALUES {phrases}) AS \
         \"p\"(\"phrase\", \"hit\") WHERE ({conditions}) AND \"t\".{fields} AND \"p\".\"hit\" \
         GROUP BY \"t\".\"id\", \"p\".\"phrase\"), \
         \"idf\" AS (SELECT \"h\".\"phrase\", ln((CAST(\"s\".\"documents\" - count(*) AS {float}) \
         + 0.5) / (CAST(count(*) AS {float}) + 0.5)) AS \"idf\" FROM \"hits\" AS \"h\" CROSS JOIN \
         \"totals\" AS \"s\" GROUP BY \"h\".\"phrase\", \"s\".\"documents\"), \
         \"scores\" AS (SELECT \"h\".\"id\", sum(CASE WHEN \"i\".\"idf\" <= 0 THEN 1e-6 ELSE \
         \"i\".\"idf\" END * ((\"h\".\"f\" * ({k1} + 1.0)) / (\"h\".\"f\" + {k1} * (1.0 - {b} + \
         {b} * CAST(\"d\".\"length\" AS {float}) / \"s\".\"avgdl\")))) AS \"score\" \
         FROM \"hits\" AS \"h\" JOIN \"idf\" AS \"i\" ON \"i\".\"phrase\" = \"h\".\"phrase\" \
         JOIN {docs} AS \"d\" ON \"d\".\"id\" = \"h\".\"id\" CROSS JOIN \"totals\" AS \"s\" \
         GROUP BY \"h\".\"id\" HAVING count(*) = {count}) \
         SELECT \"id\", \"score\", count(*) OVER () FROM \"scores\" \
         ORDER BY \"score\" DESC, \"id\" LIMIT ?{limit_at} OFFSET ?{offset_at}",
        totals = quote(&totals_table(entity)),
        terms = quote(&terms_table(entity)),
        docs = quote(&docs_table(entity)),
        weights = weights.join(" "),
        phrases = phrases.join(", "),
        conditions = conditions.join(" OR "),
        fields = plan.field_condition(),
        count = plan.phrases.len(),
    );
    let rows = conn.rows(&sql, &params).await?;
    let total = match rows.first() {
        Some(row) => integer(row.get(2)) as u64,
        // Past the last page: the count alone.
        None if offset > 0 => {
            let n = params.len();
            params[n - 2] = SqlValue::Integer(1);
            params[n - 1] = SqlValue::Integer(0);
            conn.rows(&sql, &params)
                .await?
                .first()
                .map_or(0, |row| integer(row.get(2)) as u64)
        }
        None => 0,
    };
    let page = rows
        .iter()
        .map(|row| {
            let score = match row.get(1) {
                Some(SqlValue::Real(score)) => *score,
                _ => 0.0,
            };
            (text(row.first()).unwrap_or_default(), score)
        })
        .collect();
    Ok((page, total))
}

/// Every record matching `plan`, scored in the process (phrases need their terms' positions),
/// best first (equal scores by unique id).
async fn scored(
    conn: &dyn Reader,
    ranking: &Ranking<'_>,
    plan: &Plan,
) -> Result<Vec<(String, f64)>, HandlerError> {
    let entity = ranking.entity;
    let phrases = &plan.phrases;
    // The postings of every query term (prefixes as ranges), with their record's length.
    let mut params: Vec<SqlValue> = Vec::new();
    let mut alternatives: Vec<String> = Vec::new();
    let mut exact: HashSet<&str> = HashSet::new();
    for phrase in phrases {
        for (j, term) in phrase.terms.iter().enumerate() {
            let prefix = phrase.prefix && j + 1 == phrase.terms.len();
            if prefix || exact.insert(term) {
                alternatives.push(term_condition(phrase, j, &mut params));
            }
        }
    }
    let sql = format!(
        "SELECT \"t\".\"id\", \"t\".\"field\", \"t\".\"term\", \"t\".\"positions\", \
         \"d\".\"length\" FROM {} AS \"t\" JOIN {} AS \"d\" ON \"d\".\"id\" = \"t\".\"id\" \
         WHERE ({}) AND \"t\".{}",
        quote(&terms_table(entity)),
        quote(&docs_table(entity)),
        alternatives.join(" OR "),
        plan.field_condition()
    );
    // (phrase, id, field) -> positions of each of the phrase's terms.
    type Positions = Vec<HashSet<u32>>;
    let mut found: HashMap<(usize, String, usize), Positions> = HashMap::new();
    let mut lengths: HashMap<String, i64> = HashMap::new();
    for row in conn.rows(&sql, &params).await? {
        let id = text(row.first()).unwrap_or_default();
        let field = integer(row.get(1)) as usize;
        let term = text(row.get(2)).unwrap_or_default();
        let at: Vec<u32> = text(row.get(3))
            .unwrap_or_default()
            .split(' ')
            .filter_map(|p| p.parse().ok())
            .collect();
        lengths.insert(id.clone(), integer(row.get(4)));
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
        let entry = frequency
            .entry(id.clone())
            .or_insert_with(|| vec![0.0; phrases.len()]);
        entry[*i] += ranking.weight(*field) * count as f64;
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
    let (documents, tokens) = totals(conn, ranking).await?;
    let avgdl = average_length(documents, tokens);
    let idf: Vec<f64> = hits_per_phrase
        .iter()
        .map(|&hits| idf(documents, hits))
        .collect();
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
pub(crate) async fn pg_rank(
    conn: &dyn Reader,
    ranking: &Ranking<'_>,
    limit: u32,
    offset: u64,
    snippets: bool,
) -> Result<(Vec<Hit>, u64), HandlerError> {
    let Some(plan) = Plan::of(ranking)? else {
        return Ok((Vec::new(), 0));
    };
    let (page, total) = if plan.single_terms() {
        ranked_in_sql(conn, ranking, &plan, limit, offset).await?
    } else {
        let scored = scored(conn, ranking, &plan).await?;
        let total = scored.len() as u64;
        let page = scored
            .into_iter()
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .take(limit as usize)
            .collect();
        (page, total)
    };
    if page.is_empty() {
        return Ok((Vec::new(), total));
    }
    let entity = ranking.entity;
    let names: Vec<String> = entity.display_name_field.iter().cloned().collect();
    let projection = Projection::of(entity, &names, "display_name_field")
        .or_else(|_| Projection::of(entity, &[], "unique_field"))?;
    let ids: Vec<String> = page.iter().map(|p| p.0.clone()).collect();
    let params: Vec<SqlValue> = ids
        .iter()
        .map(|id| crate::sql::key::param(entity, id))
        .collect();
    let sql = format!(
        "SELECT {} FROM {} AS \"n\" WHERE \"n\".{} IN ({})",
        projection.select_list(),
        quote(&entity.table),
        quote(&entity.unique_field),
        placeholders(1, ids.len())
    );
    let mut display: HashMap<String, Option<Value>> = HashMap::new();
    for row in conn.rows(&sql, &params).await? {
        let record = projection.record(&row, 0);
        let id = match record.get(&entity.unique_field) {
            Some(Value::String(id)) => id.clone(),
            Some(Value::Number(id)) => id.to_string(),
            _ => continue,
        };
        display.insert(id, names.first().and_then(|n| record.get(n).cloned()));
    }
    let cut = if snippets {
        page_snippets(conn, ranking, &plan, &ids).await?
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

/// FTS5's snippets of the records `ids` (a snippet depends only on its record's text and the
/// query): `snippet()` as FTS5 cuts it, ported ([`snippet`](super::snippet::snippet)).
async fn page_snippets(
    conn: &dyn Reader,
    ranking: &Ranking<'_>,
    plan: &Plan,
    ids: &[String],
) -> Result<HashMap<String, String>, HandlerError> {
    let index = ranking.index;
    let rows = field_texts(conn, ranking.entity, index, Some(ids)).await?;
    let marks = Marks {
        open: MARK.0,
        close: MARK.1,
        ellipsis: ELLIPSIS,
    };
    let mut out = HashMap::new();
    for (id, texts) in &rows {
        let columns: Vec<Option<&str>> = texts.iter().map(Option::as_deref).collect();
        if let Some(cut) = snippet(
            &columns,
            &plan.fields,
            &plan.phrases,
            index.analyzer,
            marks,
            SNIPPET_WORDS as usize,
        ) {
            out.insert(id.clone(), cut);
        }
    }
    Ok(out)
}
