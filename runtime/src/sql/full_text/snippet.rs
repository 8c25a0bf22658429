//! FTS5's `snippet()` without FTS5: the same window of a record's text around the query's
//! matches, the same marks and the same ellipses, computed from the terms the port of FTS5's
//! tokenizer cuts (`unicode61.rs`, `porter.rs`). A port of `fts5SnippetFunction`,
//! `fts5SnippetScore`, `fts5SentenceFinderCb`, `fts5CInstIterNext` and `fts5HighlightCb` of
//! SQLite's `ext/fts5/fts5_aux.c`, for a backend that ranks without FTS5.

use crate::spec::Analyzer;

use super::analyzer::{Phrase, term};
use super::unicode61::{Token, tokens};

/// The most tokens a snippet may hold (FTS5 clamps its argument to this).
const MAX_TOKENS: usize = 64;

/// How a snippet is marked: around matches, and where text was left out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Marks<'a> {
    /// Before a match.
    pub open: &'a str,
    /// After a match.
    pub close: &'a str,
    /// Where text was left out.
    pub ellipsis: &'a str,
}

/// One phrase instance: its column, its first token and its phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Instance {
    column: usize,
    offset: usize,
    phrase: usize,
}

/// One column's text cut into tokens, and its terms.
struct Column<'t> {
    text: Option<&'t str>,
    tokens: Vec<Token>,
}

/// The snippet of a record whose fields are `columns` (a `None` is SQL's NULL) for a query of
/// `phrases` matched in the columns `searched`, at most `words` tokens long: what FTS5's
/// `snippet(t, -1, open, close, ellipsis, words)` answers for that row. `None` when the text
/// the snippet would come from is NULL.
pub(crate) fn snippet(
    columns: &[Option<&str>],
    searched: &[usize],
    phrases: &[Phrase],
    analyzer: Analyzer,
    marks: Marks<'_>,
    words: usize,
) -> Option<String> {
    let n_token = words.clamp(1, MAX_TOKENS);
    let cut: Vec<Column<'_>> = columns
        .iter()
        .map(|text| Column {
            text: *text,
            tokens: text.map(tokens).unwrap_or_default(),
        })
        .collect();
    let terms: Vec<Vec<String>> = cut
        .iter()
        .map(|column| {
            column
                .tokens
                .iter()
                .map(|token| term(analyzer, token.text.clone()))
                .collect()
        })
        .collect();
    let mut instances = Vec::new();
    for &column in searched {
        let Some(column_terms) = terms.get(column) else {
            continue;
        };
        for (phrase_index, phrase) in phrases.iter().enumerate() {
            for offset in 0..column_terms.len() {
                if phrase.matches_at(column_terms, offset) {
                    instances.push(Instance {
                        column,
                        offset,
                        phrase: phrase_index,
                    });
                }
            }
        }
    }
    instances.sort_unstable();
    let size = |phrase: usize| phrases[phrase].terms.len();

    let mut best_column = 0;
    let mut best_start = 0;
    let mut best_score = 0;
    let mut best_size = 0;
    for (i, column) in cut.iter().enumerate() {
        let firsts = sentence_starts(column);
        let doc_size = column.tokens.len();
        for instance in instances.iter().filter(|instance| instance.column == i) {
            let io = instance.offset;
            let (score, adjusted) = window_score(&instances, &size, i, io, n_token, doc_size);
            if score > best_score {
                best_score = score;
                best_column = i;
                best_start = adjusted;
                best_size = doc_size;
            }
            if !firsts.is_empty() && doc_size > n_token {
                let mut jj = 0;
                while jj + 1 < firsts.len() && firsts[jj + 1] <= io {
                    jj += 1;
                }
                if firsts[jj] < io {
                    let (score, _) =
                        window_score(&instances, &size, i, firsts[jj], n_token, doc_size);
                    let score = score + if firsts[jj] == 0 { 120 } else { 100 };
                    if score > best_score {
                        best_score = score;
                        best_column = i;
                        best_start = firsts[jj];
                        best_size = doc_size;
                    }
                }
            }
        }
    }
    let column = cut.get(best_column)?;
    let text = column.text?;
    if best_size == 0 {
        best_size = column.tokens.len();
    }
    Some(highlight(
        text,
        &column.tokens,
        &coalesced(&instances, &size, best_column),
        best_start,
        best_start + n_token - 1,
        best_size,
        marks,
    ))
}

/// The tokens of `column` that start a sentence: the first, and each one after `.` or `:`
/// followed by white space.
fn sentence_starts(column: &Column<'_>) -> Vec<usize> {
    let Some(text) = column.text else {
        return Vec::new();
    };
    let bytes = text.as_bytes();
    let mut firsts = Vec::new();
    for (position, token) in column.tokens.iter().enumerate() {
        if position == 0 {
            firsts.push(0);
            continue;
        }
        let mut i = token.start;
        let mut last = 0u8;
        while i > 0 {
            last = bytes[i - 1];
            if !matches!(last, b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            i -= 1;
        }
        if i != token.start && i > 0 && matches!(last, b'.' | b':') {
            firsts.push(position);
        }
    }
    firsts
}

/// The score of the window of `n_token` tokens of column `column` from `start`
/// (`fts5SnippetScore`): 1000 for each phrase's first instance in it, 1 for each later one;
/// and the start that centres its instances.
fn window_score(
    instances: &[Instance],
    size: &impl Fn(usize) -> usize,
    column: usize,
    start: usize,
    n_token: usize,
    doc_size: usize,
) -> (u64, usize) {
    let end = start + n_token;
    let mut seen = std::collections::HashSet::new();
    let mut score = 0u64;
    let mut first: Option<usize> = None;
    let mut last = 0usize;
    for instance in instances {
        if instance.column == column && instance.offset >= start && instance.offset < end {
            score += if seen.insert(instance.phrase) {
                1000
            } else {
                1
            };
            first.get_or_insert(instance.offset);
            last = instance.offset + size(instance.phrase);
        }
    }
    let first = first.map_or(-1, |f| f as i64);
    let mut adjusted = first - (n_token as i64 - (last as i64 - first)) / 2;
    if adjusted + n_token as i64 > doc_size as i64 {
        adjusted = doc_size as i64 - n_token as i64;
    }
    (score, adjusted.max(0) as usize)
}

/// The coalesced instances of `column` (overlapping instances as one), as first and last
/// token (`fts5CInstIterNext`).
fn coalesced(
    instances: &[Instance],
    size: &impl Fn(usize) -> usize,
    column: usize,
) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    for instance in instances.iter().filter(|i| i.column == column) {
        let end = instance.offset + size(instance.phrase) - 1;
        match &mut current {
            None => current = Some((instance.offset, end)),
            Some((_, current_end)) if instance.offset <= *current_end => {
                *current_end = (*current_end).max(end);
            }
            Some(done) => {
                out.push(*done);
                current = Some((instance.offset, end));
            }
        }
    }
    out.extend(current);
    out
}

/// `text`'s tokens from `range_start` to `range_end` with the instances marked
/// (`fts5HighlightCb` and the end of `fts5SnippetFunction`).
fn highlight(
    text: &str,
    tokens: &[Token],
    instances: &[(usize, usize)],
    range_start: usize,
    range_end: usize,
    column_size: usize,
    marks: Marks<'_>,
) -> String {
    let mut out = String::new();
    if range_start > 0 {
        out.push_str(marks.ellipsis);
    }
    let mut next = instances.iter().copied().peekable();
    while next.peek().is_some_and(|&(start, _)| start < range_start) {
        next.next();
    }
    let mut current = next.next();
    let mut offset = 0usize;
    let mut open = false;
    for (position, token) in tokens.iter().enumerate() {
        if position < range_start || position > range_end {
            continue;
        }
        if range_start != 0 && position == range_start {
            offset = token.start;
        }
        let starts_here = current.map(|(start, _)| start);
        if open && starts_here.is_none_or(|start| position <= start) && token.start > offset {
            out.push_str(marks.close);
            open = false;
        }
        if Some(position) == starts_here && !open {
            out.push_str(between(text, offset, token.start));
            out.push_str(marks.open);
            offset = token.start;
            open = true;
        }
        if current.is_some_and(|(_, end)| end == position) {
            if !open {
                out.push_str(marks.open);
                open = true;
            }
            out.push_str(between(text, offset, token.end));
            offset = token.end;
            current = next.next();
        }
        if position == range_end {
            if open {
                if current.is_some_and(|(start, _)| position >= start) {
                    out.push_str(between(text, offset, token.end));
                    offset = token.end;
                }
                out.push_str(marks.close);
                open = false;
            }
            out.push_str(between(text, offset, token.end));
            offset = token.end;
        }
    }
    if open {
        out.push_str(marks.close);
    }
    if range_end + 1 >= column_size {
        out.push_str(between(text, offset, text.len()));
    } else {
        out.push_str(marks.ellipsis);
    }
    out
}

/// `text` from byte `from` to byte `to` (empty when they are out of order; both are token
/// boundaries).
fn between(text: &str, from: usize, to: usize) -> &str {
    text.get(from..to).unwrap_or_default()
}

#[cfg(all(test, feature = "sqlite"))]
mod tests {
    use super::*;
    use crate::sql::full_text::tokens::Tokenizer;

    const MARKS: Marks<'static> = Marks {
        open: "**",
        close: "**",
        ellipsis: "…",
    };

    /// Documents of two columns, long and short, with sentences, NULLs and repeated words.
    fn documents() -> Vec<[Option<String>; 2]> {
        let long = "The parser reads the config. It checks every entity: fields, keys and \
                    relationships. Then the generator writes the code, and the runtime serves \
                    the tools over MCP. Running the server starts the pool; the pool runs \
                    queries. A query that runs long is stopped by its deadline.";
        let mut docs = vec![
            [
                Some(long.to_owned()),
                Some("Running runners ran a run.".to_owned()),
            ],
            [Some("run".to_owned()), None],
            [None, Some("the config of the parser".to_owned())],
            [Some(String::new()), Some("parser".to_owned())],
            [
                Some("Café résumé: naïve façade. Ünïcödé text, Straße and ΣΊΣΥΦΟΣ.".to_owned()),
                Some("e\u{301}cole".to_owned()),
            ],
        ];
        // Generated texts: words from a small vocabulary, sentence marks now and then.
        let words = [
            "parser",
            "config",
            "entity",
            "runs",
            "running",
            "query",
            "tool",
            "server",
            "pool",
            "deadline",
            "the",
            "a",
            "of",
            "generated",
            "code",
        ];
        let mut seed = 7u64;
        for n in 0..60 {
            let mut text = String::new();
            for i in 0..(5 + n * 3) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let word = words[(seed >> 33) as usize % words.len()];
                if i > 0 {
                    text.push_str(if (seed >> 20).is_multiple_of(9) {
                        ". "
                    } else if (seed >> 24).is_multiple_of(13) {
                        ": "
                    } else {
                        " "
                    });
                }
                text.push_str(word);
            }
            docs.push([Some(text.clone()), Some(text.chars().rev().collect())]);
        }
        docs
    }

    /// A query's phrases: each one's words, and whether its last matches as a prefix.
    type Phrases = &'static [(&'static [&'static str], bool)];

    /// The queries: FTS5 text and the phrases it stands for.
    const QUERIES: &[(&str, Phrases)] = &[
        ("\"parser\"", &[(&["parser"], false)]),
        ("\"running\"", &[(&["running"], false)]),
        ("\"the pool\"", &[(&["the", "pool"], false)]),
        (
            "\"config\" \"deadline\"",
            &[(&["config"], false), (&["deadline"], false)],
        ),
        ("\"run\" *", &[(&["run"], true)]),
        ("\"que\" * \"the\"", &[(&["que"], true), (&["the"], false)]),
        ("\"cafe\"", &[(&["cafe"], false)]),
        ("\"ecole\"", &[(&["ecole"], false)]),
        (
            "\"code\" \"generated code\"",
            &[(&["code"], false), (&["generated", "code"], false)],
        ),
    ];

    #[test]
    fn snippets_are_fts5s_own() {
        for analyzer in [Analyzer::Porter, Analyzer::Unicode61] {
            let tokenizer = Tokenizer::new(analyzer).unwrap();
            let conn = tokenizer.connection();
            conn.execute_batch(&format!(
                "CREATE VIRTUAL TABLE s USING fts5(a, b, tokenize='{}')",
                crate::sql::full_text::sqlite_ddl::tokenizer(analyzer)
            ))
            .unwrap();
            let docs = documents();
            for (i, [a, b]) in docs.iter().enumerate() {
                conn.execute(
                    "INSERT INTO s(rowid, a, b) VALUES (?1, ?2, ?3)",
                    rusqlite::params![i as i64 + 1, a, b],
                )
                .unwrap();
            }
            let mut compared = 0;
            for (query, phrases) in QUERIES {
                // The phrases' terms as the tokenizer cuts them (stems, with porter).
                let cut: Vec<Vec<String>> = phrases
                    .iter()
                    .map(|(words, _)| {
                        words
                            .iter()
                            .flat_map(|w| tokenizer.terms(w).unwrap())
                            .collect()
                    })
                    .collect();
                let phrases: Vec<Phrase> = cut
                    .into_iter()
                    .zip(phrases.iter())
                    .map(|(terms, (_, prefix))| Phrase {
                        terms,
                        prefix: *prefix,
                    })
                    .collect();
                for (columns, searched) in
                    [("", vec![0, 1]), ("{a} : ", vec![0]), ("{b} : ", vec![1])]
                {
                    for words in [24, 5, 1, 64] {
                        let mut statement = conn
                            .prepare(&format!(
                                "SELECT rowid, snippet(s, -1, '**', '**', '…', {words}) FROM s \
                                 WHERE s MATCH ?1 ORDER BY rowid"
                            ))
                            .unwrap();
                        let rows: Vec<(i64, Option<String>)> = statement
                            .query_map([format!("{columns}({query})")], |row| {
                                Ok((row.get(0)?, row.get(1)?))
                            })
                            .unwrap()
                            .collect::<Result<_, _>>()
                            .unwrap();
                        for (rowid, expected) in rows {
                            let [a, b] = &docs[rowid as usize - 1];
                            let got = snippet(
                                &[a.as_deref(), b.as_deref()],
                                &searched,
                                &phrases,
                                analyzer,
                                MARKS,
                                words,
                            );
                            assert_eq!(
                                got, expected,
                                "{analyzer:?} {columns}{query} words {words} row {rowid}: {a:?} / {b:?}"
                            );
                            compared += 1;
                        }
                    }
                }
            }
            assert!(compared > 500, "only {compared} snippets compared");
        }
    }
}
