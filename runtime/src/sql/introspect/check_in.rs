//! The values of `CHECK` constraints that list what a column may hold: `CHECK (rating IN ('G',
//! 'PG'))` as written in a SQLite `CREATE TABLE`, and PostgreSQL's own spelling of it as
//! `pg_get_constraintdef` answers (`CHECK ((rating = ANY (ARRAY['G'::text, 'PG'::text])))`).
//! Anything else (`NOT IN`, other conditions beside it, numbers) lists nothing.

/// How names are quoted in the text scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quoting {
    /// SQLite: `"x"`, `[x]` and `` `x` `` are names.
    Sqlite,
    /// PostgreSQL: only `"x"` is a name; `[` and `]` are array brackets.
    Postgres,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A bare word: a keyword or an unquoted name.
    Word(String),
    /// A quoted name.
    Quoted(String),
    /// A string literal, unescaped.
    Str(String),
    /// A number.
    Number,
    /// `::`
    Cast,
    /// Any other character.
    Punct(char),
}

fn tokens(sql: &str, quoting: Quoting) -> Vec<Token> {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // The text up to the closing `close` (a doubled one stands for itself), and where it ends.
    let quoted = |start: usize, close: char| -> (String, usize) {
        let mut text = String::new();
        let mut j = start;
        while j < chars.len() {
            if chars[j] == close {
                if close != ']' && chars.get(j + 1) == Some(&close) {
                    text.push(close);
                    j += 2;
                    continue;
                }
                return (text, j + 1);
            }
            text.push(chars[j]);
            j += 1;
        }
        (text, j)
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '-' if chars.get(i + 1) == Some(&'-') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            '\'' => {
                let (text, end) = quoted(i + 1, '\'');
                out.push(Token::Str(text));
                i = end;
            }
            '"' => {
                let (text, end) = quoted(i + 1, '"');
                out.push(Token::Quoted(text));
                i = end;
            }
            '`' if quoting == Quoting::Sqlite => {
                let (text, end) = quoted(i + 1, '`');
                out.push(Token::Quoted(text));
                i = end;
            }
            '[' if quoting == Quoting::Sqlite => {
                let (text, end) = quoted(i + 1, ']');
                out.push(Token::Quoted(text));
                i = end;
            }
            ':' if chars.get(i + 1) == Some(&':') => {
                out.push(Token::Cast);
                i += 2;
            }
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                    i += 1;
                }
                out.push(Token::Number);
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
                {
                    i += 1;
                }
                out.push(Token::Word(chars[start..i].iter().collect()));
            }
            other => {
                out.push(Token::Punct(other));
                i += 1;
            }
        }
    }
    out
}

fn is_word(token: &Token, word: &str) -> bool {
    matches!(token, Token::Word(w) if w.eq_ignore_ascii_case(word))
}

/// Words that continue a type name after its first word (`character varying`, `double
/// precision`, `timestamp without time zone`).
const TYPE_WORDS: &[&str] = &["varying", "precision", "without", "with", "time", "zone"];

/// The tokens without casts (`::text`, `::character varying(10)[]`) and without parentheses.
fn simplified(tokens: &[Token]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Cast => {
                i += 1;
                // The type's name: a (possibly qualified, possibly quoted) word, then the words
                // that continue multi-word names.
                if matches!(tokens.get(i), Some(Token::Word(_) | Token::Quoted(_))) {
                    i += 1;
                }
                while matches!(tokens.get(i), Some(Token::Punct('.')))
                    && matches!(tokens.get(i + 1), Some(Token::Word(_) | Token::Quoted(_)))
                {
                    i += 2;
                }
                while tokens
                    .get(i)
                    .is_some_and(|t| TYPE_WORDS.iter().any(|w| is_word(t, w)))
                {
                    i += 1;
                }
                // A type modifier `(10)` or `(4,2)`.
                if matches!(tokens.get(i), Some(Token::Punct('('))) {
                    let mut j = i + 1;
                    while matches!(tokens.get(j), Some(Token::Number | Token::Punct(','))) {
                        j += 1;
                    }
                    if matches!(tokens.get(j), Some(Token::Punct(')'))) {
                        i = j + 1;
                    }
                }
                while matches!(tokens.get(i), Some(Token::Punct('[')))
                    && matches!(tokens.get(i + 1), Some(Token::Punct(']')))
                {
                    i += 2;
                }
            }
            Token::Punct('(' | ')') => i += 1,
            other => {
                out.push(other.clone());
                i += 1;
            }
        }
    }
    out
}

/// String literals separated by commas, exactly filling `tokens`.
fn string_list(tokens: &[Token]) -> Option<Vec<String>> {
    let mut values: Vec<String> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        match (i % 2, token) {
            (0, Token::Str(value)) => {
                if !values.contains(value) {
                    values.push(value.clone());
                }
            }
            (1, Token::Punct(',')) => {}
            _ => return None,
        }
    }
    (!values.is_empty() && tokens.len() % 2 == 1).then_some(values)
}

/// The column and values of one `CHECK` condition (the text inside `CHECK (...)`, or the whole
/// `CHECK (...)`), when it is `column IN ('a', ...)` or `column = ANY (ARRAY['a', ...])`
/// (casts and parentheses aside); `None` for any other condition.
///
/// ```
/// use toolforge::sql::introspect::{Quoting, check_in_condition};
/// let pg = "CHECK ((rating = ANY (ARRAY['G'::text, 'PG-13'::text])))";
/// let (column, values) = check_in_condition(pg, Quoting::Postgres).unwrap();
/// assert_eq!((column.as_str(), values), ("rating", vec!["G".to_owned(), "PG-13".to_owned()]));
/// assert!(check_in_condition("[size] IN ('S', 'M')", Quoting::Sqlite).is_some());
/// assert!(check_in_condition("size NOT IN ('S')", Quoting::Sqlite).is_none());
/// ```
pub fn check_in_condition(condition: &str, quoting: Quoting) -> Option<(String, Vec<String>)> {
    let mut tokens = tokens(condition, quoting);
    if tokens.first().is_some_and(|t| is_word(t, "CHECK")) {
        tokens.remove(0);
    }
    condition_of(&tokens)
}

/// Every `CHECK (column IN (...))` of a SQLite `CREATE TABLE` statement (column and table
/// constraints alike), in the statement's order.
#[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
pub(crate) fn sqlite_check_ins(create_table: &str) -> Vec<(String, Vec<String>)> {
    let all = tokens(create_table, Quoting::Sqlite);
    let mut found = Vec::new();
    let mut i = 0;
    while i < all.len() {
        if is_word(&all[i], "CHECK") && matches!(all.get(i + 1), Some(Token::Punct('('))) {
            let start = i + 2;
            let mut depth = 1;
            let mut j = start;
            while j < all.len() && depth > 0 {
                match all[j] {
                    Token::Punct('(') => depth += 1,
                    Token::Punct(')') => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            if depth == 0
                && let Some(found_here) = condition_of(&all[start..j - 1])
            {
                found.push(found_here);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    found
}

/// The column and values of a condition's tokens (see [`check_in_condition`]).
fn condition_of(tokens: &[Token]) -> Option<(String, Vec<String>)> {
    let tokens = simplified(tokens);
    let column = match tokens.first()? {
        Token::Word(name) | Token::Quoted(name) => name.clone(),
        _ => return None,
    };
    let rest = &tokens[1..];
    let values = if rest.first().is_some_and(|t| is_word(t, "IN")) {
        string_list(&rest[1..])?
    } else if matches!(rest.first(), Some(Token::Punct('=')))
        && rest.get(1).is_some_and(|t| is_word(t, "ANY"))
        && rest.get(2).is_some_and(|t| is_word(t, "ARRAY"))
        && matches!(rest.get(3), Some(Token::Punct('[')))
        && matches!(rest.last(), Some(Token::Punct(']')))
        && rest.len() > 5
    {
        string_list(&rest[4..rest.len() - 1])?
    } else {
        return None;
    };
    Some((column, values))
}

#[cfg(test)]
mod tests {
    use super::{Quoting, check_in_condition, sqlite_check_ins};

    fn values(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sqlite_column_and_table_checks() {
        let sql = r#"CREATE TABLE "t" (
            id INTEGER PRIMARY KEY,
            [rating] TEXT CHECK ([rating] IN ('G', 'PG', 'PG-13')) NOT NULL, -- (a comment)
            "kind" TEXT,
            size TEXT,
            n INTEGER CHECK (n IN (1, 2)),
            other TEXT CHECK (other IN ('a') OR other IS NULL),
            CONSTRAINT k CHECK ("kind" in ('it''s', "x", 'b')),
            CHECK (size IN ('s', 'm', 's'))
        )"#;
        assert_eq!(
            sqlite_check_ins(sql),
            vec![
                ("rating".to_owned(), values(&["G", "PG", "PG-13"])),
                ("size".to_owned(), values(&["s", "m"])),
            ]
        );
        let sql = "CREATE TABLE u (k TEXT CHECK (k IN ('it''s', 'b')), z CHECK(z NOT IN ('a')))";
        assert_eq!(
            sqlite_check_ins(sql),
            vec![("k".to_owned(), values(&["it's", "b"]))]
        );
    }

    #[test]
    fn postgres_spellings() {
        let text = "CHECK ((rating = ANY (ARRAY['G'::text, 'PG'::text, 'PG-13'::text])))";
        assert_eq!(
            check_in_condition(text, Quoting::Postgres),
            Some(("rating".to_owned(), values(&["G", "PG", "PG-13"])))
        );
        let varchar = "CHECK (((\"Size\")::text = ANY ((ARRAY['s'::character varying, 'm'::character varying(10)])::text[])))";
        assert_eq!(
            check_in_condition(varchar, Quoting::Postgres),
            Some(("Size".to_owned(), values(&["s", "m"])))
        );
        let domain = "CHECK ((VALUE = ANY (ARRAY['a'::text, 'b'::text])))";
        assert_eq!(
            check_in_condition(domain, Quoting::Postgres),
            Some(("VALUE".to_owned(), values(&["a", "b"])))
        );
        for other in [
            "CHECK (((VALUE >= 1901) AND (VALUE <= 2155)))",
            "CHECK ((rating <> ALL (ARRAY['G'::text])))",
            "CHECK ((n = ANY (ARRAY[1, 2])))",
            "CHECK (((a = ANY (ARRAY['x'::text])) AND (b > 0)))",
        ] {
            assert_eq!(
                check_in_condition(other, Quoting::Postgres),
                None,
                "{other}"
            );
        }
    }
}
