//! Where PostgreSQL's own forms of quoted text end, for the scanners that must not read
//! inside them: the generator's check of `sql:` statements and the `?N`-to-`$N` rewrite of
//! PostgreSQL's statements (`postgres/placeholders.rs`).

/// Whether `b` can be part of a name.
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end (just past it) of the PostgreSQL quoted text opening at byte `start` of `sql`, when
/// one opens there: dollar-quoted text (`$$…$$`, `$tag$…$tag$`) or an escape string (`E'…'`,
/// where a backslash escapes the byte after it). `None` when neither opens at `start` (a `$`
/// or `E` inside a name opens nothing); `Some(Err(closer))` when it never closes, with the
/// text that would close it.
pub fn postgres_quoted_end(sql: &str, start: usize) -> Option<Result<usize, &str>> {
    let bytes = sql.as_bytes();
    if start > 0 && word_byte(bytes[start - 1]) {
        return None;
    }
    match bytes.get(start)? {
        b'$' => {
            let mut tag_end = start + 1;
            if bytes
                .get(tag_end)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            {
                while bytes.get(tag_end).copied().is_some_and(word_byte) {
                    tag_end += 1;
                }
            }
            if bytes.get(tag_end) != Some(&b'$') {
                return None;
            }
            let tag = &sql[start..=tag_end];
            Some(
                sql[tag_end + 1..]
                    .find(tag)
                    .map(|n| tag_end + 1 + n + tag.len())
                    .ok_or(tag),
            )
        }
        b'E' | b'e' if bytes.get(start + 1) == Some(&b'\'') => {
            let mut i = start + 2;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'\'' if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                    b'\'' => return Some(Ok(i + 1)),
                    _ => i += 1,
                }
            }
            Some(Err("'"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod examples {
    #[test]
    fn postgres_quoted_end_as_documented() {
        use super::postgres_quoted_end;
        let sql = "SELECT $q$it's$q$, E'a\\'b', a$b$";
        assert_eq!(postgres_quoted_end(sql, 7), Some(Ok(17)));
        assert_eq!(postgres_quoted_end(sql, 19), Some(Ok(26)));
        assert_eq!(postgres_quoted_end(sql, 29), None);
        assert_eq!(postgres_quoted_end("SELECT $t$ open", 7), Some(Err("$t$")));
    }
}
