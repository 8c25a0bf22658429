//! Text cut into terms by SQLite's own FTS5 tokenizer (`porter unicode61` or `unicode61`), run
//! on a private in-memory database: the oracle the ports of the tokenizer, the stemmer and
//! `snippet()` (`unicode61.rs`, `porter.rs`, `snippet.rs`) are checked against, text by text
//! and code point by code point.

use rusqlite::Connection;

use crate::spec::Analyzer;

use super::sqlite_ddl::tokenizer;

/// A tokenizer: an in-memory FTS5 table and its `instance` vocabulary.
pub(crate) struct Tokenizer {
    conn: Connection,
}

impl Tokenizer {
    /// A tokenizer for `analyzer`.
    pub(crate) fn new(analyzer: Analyzer) -> rusqlite::Result<Tokenizer> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{}'); \
             CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 't', 'instance');",
            tokenizer(analyzer)
        ))?;
        Ok(Tokenizer { conn })
    }

    /// The terms of `text`, in order (a term's index in the list is its position).
    pub(crate) fn terms(&self, text: &str) -> rusqlite::Result<Vec<String>> {
        self.conn.execute("DELETE FROM t", [])?;
        self.conn
            .execute("INSERT INTO t(rowid, x) VALUES (1, ?1)", [text])?;
        let mut statement = self
            .conn
            .prepare_cached("SELECT term, \"offset\" FROM temp.v ORDER BY \"offset\"")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
        })?;
        let mut terms: Vec<(String, i64)> = rows.collect::<Result<_, _>>()?;
        terms.sort_by_key(|t| t.1);
        Ok(terms.into_iter().map(|t| t.0).collect())
    }

    /// The connection, for snippets cut by FTS5 itself over a few rows.
    pub(crate) fn connection(&self) -> &Connection {
        &self.conn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The terms of `text` as the Rust port cuts them (`unicode61`, then `porter`).
    fn ported(analyzer: Analyzer, text: &str) -> Vec<String> {
        super::super::analyzer::terms(analyzer, text)
    }

    /// Texts that reach the corners of both tokenizers: case, diacritics (precomposed and
    /// combining), scripts SQLite's tables know, punctuation inside words, every Porter step.
    const TEXTS: &[&str] = &[
        "Running in the Café, foo-bar!",
        "caresses ponies ties caress cats feed agreed plastered bled motoring sing",
        "conflated troubled sized hopping tanned falling hissing fizzed failing filing",
        "happy sky relational conditional rational valenci hesitanci digitizer conformabli",
        "radicalli differentli vileli analogousli vietnamization predication operator",
        "feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti",
        "triplicate formative formalize electriciti electrical hopeful goodness",
        "revival allowance inference airliner gyroscopic adjustable defensible irritant",
        "replacement adjustment dependent adoption homologou communism activate angulariti",
        "homologous effective bowdlerize probate rate cease controll roll generalization",
        "Ünïcödé naïve façade résumé Ångström Øre ŒUVRE straße ǅemal İstanbul ﬁne",
        "e\u{301}cole cafe\u{301} n\u{303}o a\u{308}b",
        "Ελληνικά ΣΊΣΥΦΟΣ Кириллица ПРИВЕТ Հայերեն ქართული עברית العربية",
        "中文字符 日本語のテキスト 한국어 텍스트 ไทย",
        "mixed123numbers 3.14159 1,000 user@example.com http://x.y/z?q=1",
        "under_score snake_case CamelCase dot.separated hyphen-ated apostrophe's",
        "emoji 🚀 rocket ★ star ™ trade ½ half ① circled Ⅻ roman",
        "tabs\tand\nnewlines\r\nand  spaces\u{a0}nbsp\u{2003}em",
        "\u{fffe}\u{ffff} private\u{e000}use \u{10ffff} \u{1d400}math",
        "yes yelling crying played syzygy ay yy y ys",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaational",
        "ses sses ies eed ed ing at bl iz alli ousness",
    ];

    #[test]
    fn the_port_cuts_and_stems_every_text_as_fts5_does() {
        for analyzer in [Analyzer::Porter, Analyzer::Unicode61] {
            let tokenizer = Tokenizer::new(analyzer).unwrap();
            for text in TEXTS {
                assert_eq!(
                    ported(analyzer, text),
                    tokenizer.terms(text).unwrap(),
                    "{analyzer:?}: {text:?}"
                );
            }
        }
    }

    #[test]
    fn the_port_agrees_with_fts5_on_every_code_point() {
        // Each code point alone and between letters: its category, fold and diacritic.
        let tokenizer = Tokenizer::new(Analyzer::Unicode61).unwrap();
        let mut text = String::new();
        let mut checked = 0;
        for code in (0x80..0x3_0000u32).chain(0xE_0000..0xE_0100) {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            text.push('a');
            text.push(c);
            text.push('b');
            text.push(' ');
            text.push(c);
            text.push(' ');
            checked += 1;
            if text.len() > 60_000 {
                assert_eq!(
                    ported(Analyzer::Unicode61, &text),
                    tokenizer.terms(&text).unwrap(),
                    "near U+{code:04X}"
                );
                text.clear();
            }
        }
        assert_eq!(
            ported(Analyzer::Unicode61, &text),
            tokenizer.terms(&text).unwrap()
        );
        assert!(checked > 190_000);
    }

    #[test]
    fn terms_are_stemmed_and_folded_as_fts5_does() {
        let tokenizer = Tokenizer::new(Analyzer::Porter).unwrap();
        assert_eq!(
            tokenizer.terms("Running in the Café, foo-bar!").unwrap(),
            ["run", "in", "the", "cafe", "foo", "bar"]
        );
        let plain = Tokenizer::new(Analyzer::Unicode61).unwrap();
        assert_eq!(plain.terms("Running runs").unwrap(), ["running", "runs"]);
        assert!(plain.terms("*** --").unwrap().is_empty());
    }
}
