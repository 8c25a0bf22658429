//! Placeholders spelled the PostgreSQL way: statements are written with SQLite-style numbered
//! placeholders (`?1`) whatever the backend.

use crate::sql::text::lex::postgres_quoted_end;

/// `sql` with its SQLite-style numbered placeholders (`?1`) written as `$1`, leaving quoted
/// strings (`'...'`, escape strings `E'...'`, dollar-quoted `$$...$$` and `$tag$...$tag$`),
/// quoted identifiers (`"..."`) and comments alone.
pub(crate) fn numbered_placeholders(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    // The start of the text not yet copied to `out`.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(end) = postgres_quoted_end(sql, i) {
            i = end.unwrap_or(bytes.len());
            continue;
        }
        let next = |at: usize| bytes.get(at).copied();
        i = match bytes[i] {
            b'\'' | b'"' => {
                // A doubled quote reads as the end of one quoted run and the start of the next.
                sql[i + 1..]
                    .find(bytes[i] as char)
                    .map_or(bytes.len(), |n| i + 1 + n + 1)
            }
            b'-' if next(i + 1) == Some(b'-') => {
                sql[i..].find('\n').map_or(bytes.len(), |n| i + n + 1)
            }
            b'/' if next(i + 1) == Some(b'*') => {
                sql[i + 2..].find("*/").map_or(bytes.len(), |n| i + n + 4)
            }
            b'?' if next(i + 1).is_some_and(|b| b.is_ascii_digit()) => {
                out.push_str(&sql[copied..i]);
                out.push('$');
                copied = i + 1;
                i + 1
            }
            _ => i + 1,
        };
    }
    out.push_str(&sql[copied..]);
    out
}

#[cfg(test)]
mod examples {
    #[test]
    fn numbered_placeholders_as_documented() {
        use super::numbered_placeholders;
        assert_eq!(
            numbered_placeholders(
                r#"SELECT "a?1" FROM t WHERE x = ?1 AND y = '?2' AND z IN (?2, ?10)"#
            ),
            r#"SELECT "a?1" FROM t WHERE x = $1 AND y = '?2' AND z IN ($2, $10)"#
        );
        assert_eq!(
            numbered_placeholders(r"SELECT E'\'?1', $$?2$$, $q$?3$q$ /* ?4 */, ?5"),
            r"SELECT E'\'?1', $$?2$$, $q$?3$q$ /* ?4 */, $5"
        );
    }
}
