//! Quoting SQL identifiers and rewriting row references.

/// Quotes an identifier for SQLite: wraps it in double quotes and doubles inner quotes.
pub fn quote(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('"');
    for ch in name.chars() {
        if ch == '"' {
            out.push('"');
        }
        out.push(ch);
    }
    out.push('"');
    out
}

/// `"alias"."column"`.
#[cfg_attr(not(feature = "engine"), allow(dead_code))] // only the engine's queries use it
pub fn qualified(alias: &str, column: &str) -> String {
    format!("{}.{}", quote(alias), quote(column))
}

/// The length of the quoted text `rest` starts with (its `quote` doubled inside it is one
/// character), closing quote included; all of `rest` when it is not closed.
fn quoted_len(rest: &str, quote: u8) -> usize {
    let bytes = rest.as_bytes();
    let mut end = 1;
    loop {
        match bytes.get(end) {
            None => break,
            Some(&b) if b == quote && bytes.get(end + 1) == Some(&quote) => end += 2,
            Some(&b) if b == quote => {
                end += 1;
                break;
            }
            Some(_) => end += 1,
        }
    }
    end.min(rest.len())
}

/// Removes the row alias `"n".` from a computed-field SQL expression, outside string literals,
/// so the expression can be used where only bare column names are allowed (generated columns).
pub fn strip_row_alias(sql: &str) -> String {
    const ALIAS: &str = "\"n\".";
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(ch) = rest.chars().next() {
        if ch == '\'' {
            // Copy a string literal ('' is an escaped quote) verbatim.
            let end = quoted_len(rest, b'\'');
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else if rest.starts_with(ALIAS) {
            rest = &rest[ALIAS.len()..];
        } else if ch == '"' {
            // Copy a quoted identifier verbatim.
            let end = quoted_len(rest, b'"');
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else {
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

#[cfg(test)]
mod examples {
    #[test]
    fn quote_as_documented() {
        use super::quote;
        assert_eq!(quote("startLine"), "\"startLine\"");
        assert_eq!(quote("a\"b"), "\"a\"\"b\"");
    }

    #[test]
    fn strip_row_alias_as_documented() {
        use super::strip_row_alias;
        assert_eq!(
            strip_row_alias(r#"("n"."endLine" - "n"."startLine" + 1)"#),
            r#"("endLine" - "startLine" + 1)"#
        );
        assert_eq!(strip_row_alias(r#"'"n".' || "n"."a""#), r#"'"n".' || "a""#);
    }
}
