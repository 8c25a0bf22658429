//! BM25 over postings held in memory, read from the FTS5 index itself.
//!
//! FTS5's `bm25()` runs once for every row that matches a query and reads that row's size
//! with a lookup of its own, which is most of a search's time when a common word matches a
//! large share of the catalog. [`Postings`] holds what `bm25()` reads — each token's rows with
//! the token's count in every column, each row's size in tokens, the row count — read once
//! from FTS5's `fts5vocab` view of the index (so the tokens are FTS5's own: `porter
//! unicode61`), and scores a query with the same formula, the same constants and the same
//! order of floating-point operations: the scores are equal to `bm25()`'s, bit for bit, and so
//! are the rankings. FTS5 stays the source of truth: the postings are read again whenever the
//! catalog changes.
//!
//! A query's words become FTS5 tokens through FTS5's own tokenizer too: they are written to a
//! temporary FTS5 table and read back through its vocabulary, and each word's tokens are
//! remembered ([`QueryTokenizer`]).

use std::collections::HashMap;
use std::sync::Mutex;

use rusqlite::Connection;

use crate::error::{CatalogError, sqlite};
use crate::weights::Weights;

/// The indexed columns of `tools_fts`, in their order (a column's index is its `bm25()`
/// weight's position).
const COLUMNS: [&str; 5] = [
    "name_terms",
    "description_terms",
    "capabilities",
    "keywords",
    "parameters",
];

/// The most token instances held in memory (about 24 bytes each): a larger index is ranked
/// by FTS5 itself.
const MAX_INSTANCES: i64 = 10_000_000;

/// FTS5's `bm25()` constants.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The temporary tables this module reads and writes, created on the catalog's connection.
pub(crate) const TEMP_TABLES: &str = r#"
PRAGMA temp_store = MEMORY;
CREATE VIRTUAL TABLE IF NOT EXISTS temp.tools_fts_instance
    USING fts5vocab(main, tools_fts, instance);
CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words
    USING fts5(word, tokenize='porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words_instance
    USING fts5vocab(temp, query_words, instance);
"#;

/// One row holding a token: the row (its index in [`Postings::rowids`]) and the token's
/// count in each column.
#[derive(Debug, Clone, Copy)]
struct Posting {
    row: u32,
    counts: [u32; COLUMNS.len()],
}

/// The FTS5 index's postings, in memory.
#[derive(Debug, Default)]
pub(crate) struct Postings {
    /// Token → the rows holding it.
    tokens: HashMap<String, Vec<Posting>>,
    /// The rowid of each row with tokens.
    rowids: Vec<i64>,
    /// The size in tokens (all columns) of each row with tokens.
    sizes: Vec<u32>,
    /// Rows in the index.
    rows: i64,
    /// Tokens in the index.
    total_tokens: i64,
}

impl Postings {
    /// Reads the postings of `tools_fts`; `None` when the index holds more than
    /// [`MAX_INSTANCES`] token instances.
    pub(crate) fn read(connection: &Connection) -> Result<Option<Postings>, CatalogError> {
        let context = "cannot read the index's postings";
        let rows: i64 = connection
            .prepare_cached("SELECT count(*) FROM tools")
            .and_then(|mut statement| statement.query_row([], |row| row.get(0)))
            .map_err(sqlite(context))?;
        let mut postings = Postings {
            rows,
            ..Postings::default()
        };
        let mut statement = connection
            .prepare_cached("SELECT term, doc, col FROM temp.tools_fts_instance")
            .map_err(sqlite(context))?;
        let mut instances = statement.query([]).map_err(sqlite(context))?;
        // Instances come by token, then row, then column and offset.
        let mut row_of: HashMap<i64, u32> = HashMap::new();
        let mut current: Option<(String, Vec<Posting>)> = None;
        while let Some(instance) = instances.next().map_err(sqlite(context))? {
            let token = instance.get_ref(0).map_err(sqlite(context))?;
            let token = token.as_str().map_err(|e| sqlite(context)(e.into()))?;
            let rowid: i64 = instance.get(1).map_err(sqlite(context))?;
            let column = instance.get_ref(2).map_err(sqlite(context))?;
            let column = column.as_str().map_err(|e| sqlite(context)(e.into()))?;
            let Some(column) = COLUMNS.iter().position(|c| *c == column) else {
                continue;
            };
            if current.as_ref().is_none_or(|(t, _)| t != token) {
                if let Some((done, list)) = current.take() {
                    postings.tokens.insert(done, list);
                }
                current = Some((token.to_owned(), Vec::new()));
            }
            let Some((_, list)) = current.as_mut() else {
                continue;
            };
            let row = *row_of.entry(rowid).or_insert_with(|| {
                postings.rowids.push(rowid);
                postings.sizes.push(0);
                // A catalog has far fewer than 2^32 tools.
                (postings.rowids.len() - 1) as u32
            });
            match list.last_mut() {
                Some(last) if last.row == row => last.counts[column] += 1,
                _ => {
                    let mut counts = [0; COLUMNS.len()];
                    counts[column] = 1;
                    list.push(Posting { row, counts });
                }
            }
            postings.sizes[row as usize] += 1;
            postings.total_tokens += 1;
            if postings.total_tokens > MAX_INSTANCES {
                return Ok(None);
            }
        }
        if let Some((done, list)) = current {
            postings.tokens.insert(done, list);
        }
        Ok(Some(postings))
    }

    /// The `pool` best rows for `phrases` (one FTS5 token each, in query order) and their
    /// scores, best first, ties by rowid: what `ORDER BY -bm25(...) DESC, rowid LIMIT pool`
    /// over `MATCH 'phrase1 OR phrase2 ...'` returns.
    pub(crate) fn best(
        &self,
        phrases: &[String],
        weights: &Weights,
        pool: usize,
    ) -> Vec<(i64, f64)> {
        if self.rows <= 0 || phrases.is_empty() {
            return Vec::new();
        }
        let weights = [
            weights.name,
            weights.description,
            weights.capabilities,
            weights.keywords,
            weights.parameters,
        ];
        let average_size = self.total_tokens as f64 / self.rows as f64;
        let lists: Vec<&[Posting]> = phrases
            .iter()
            .map(|token| self.tokens.get(token).map_or(&[][..], Vec::as_slice))
            .collect();
        let idf: Vec<f64> = lists
            .iter()
            .map(|list| {
                let hits = list.len() as i64;
                let idf = (((self.rows - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
                if idf <= 0.0 { 1e-6 } else { idf }
            })
            .collect();
        // Each matching row's weighted frequency of every phrase, phrase by phrase.
        let mut slot_of: Vec<u32> = vec![u32::MAX; self.rowids.len()];
        let mut matched: Vec<u32> = Vec::new();
        let mut frequencies: Vec<f64> = Vec::new();
        for (phrase, list) in lists.iter().enumerate() {
            for posting in *list {
                let slot = &mut slot_of[posting.row as usize];
                if *slot == u32::MAX {
                    *slot = matched.len() as u32;
                    matched.push(posting.row);
                    frequencies.extend(std::iter::repeat_n(0.0, phrases.len()));
                }
                // As FTS5 does: the column's weight added once per instance, in column order.
                let frequency = &mut frequencies[*slot as usize * phrases.len() + phrase];
                for (count, weight) in posting.counts.iter().zip(weights) {
                    for _ in 0..*count {
                        *frequency += weight;
                    }
                }
            }
        }
        let mut scored: Vec<(i64, f64)> = matched
            .iter()
            .zip(frequencies.chunks_exact(phrases.len()))
            .map(|(&row, row_frequencies)| {
                let size = f64::from(self.sizes[row as usize]);
                let mut score = 0.0;
                for (frequency, idf) in row_frequencies.iter().zip(&idf) {
                    score += idf
                        * ((frequency * (K1 + 1.0))
                            / (frequency + K1 * (1.0 - B + B * size / average_size)));
                }
                (self.rowids[row as usize], score)
            })
            .collect();
        let better = |a: &(i64, f64), b: &(i64, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > pool {
            scored.select_nth_unstable_by(pool, better);
            scored.truncate(pool);
        }
        scored.sort_by(better);
        scored
    }
}

/// The most words a [`QueryTokenizer`] remembers; it forgets them all when it has more.
const REMEMBERED_WORDS: usize = 10_000;

/// FTS5's tokenizer applied to query words, remembering what it made of each word (the
/// tokenizer is fixed, so a word's tokens never change).
#[derive(Debug, Default)]
pub(crate) struct QueryTokenizer {
    known: Mutex<HashMap<String, Vec<String>>>,
}

impl QueryTokenizer {
    /// What FTS5's tokenizer makes of each word: its tokens, in order (none for a word it
    /// drops, several for a word it splits).
    pub(crate) fn tokens(
        &self,
        connection: &Connection,
        words: &[String],
    ) -> Result<Vec<Vec<String>>, CatalogError> {
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        let unknown: Vec<String> = words
            .iter()
            .filter(|word| !known.contains_key(*word))
            .cloned()
            .collect();
        if !unknown.is_empty() {
            let tokens = tokenize(connection, &unknown)?;
            if known.len() + unknown.len() > REMEMBERED_WORDS {
                known.clear();
            }
            known.extend(unknown.into_iter().zip(tokens));
        }
        Ok(words
            .iter()
            .map(|word| known.get(word).cloned().unwrap_or_default())
            .collect())
    }
}

/// What FTS5's tokenizer makes of each word, through a temporary FTS5 table.
fn tokenize(connection: &Connection, words: &[String]) -> Result<Vec<Vec<String>>, CatalogError> {
    let context = "cannot tokenize the query";
    let list = serde_json::Value::from(words.to_vec()).to_string();
    connection
        .prepare_cached(
            "INSERT INTO temp.query_words (rowid, word) SELECT key + 1, value FROM json_each(?1)",
        )
        .and_then(|mut statement| statement.execute([&list]))
        .map_err(sqlite(context))?;
    let read = (|| {
        let mut statement =
            connection.prepare_cached("SELECT doc, offset, term FROM temp.query_words_instance")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?, row.get(2)?))
        })?;
        rows.collect::<Result<Vec<(i64, i64, String)>, _>>()
    })();
    let cleared = connection
        .prepare_cached("DELETE FROM temp.query_words")
        .and_then(|mut statement| statement.execute([]));
    let mut instances = read.map_err(sqlite(context))?;
    cleared.map_err(sqlite(context))?;
    instances.sort_by_key(|(doc, offset, _)| (*doc, *offset));
    let mut tokens = vec![Vec::new(); words.len()];
    for (doc, _, term) in instances {
        if let Some(list) = usize::try_from(doc - 1)
            .ok()
            .and_then(|i| tokens.get_mut(i))
        {
            list.push(term);
        }
    }
    Ok(tokens)
}
