//! The upserts an import writes, in the SQL both backends read: `INSERT ... ON CONFLICT (key)
//! DO UPDATE`.

use crate::sql::text::ident::quote;

/// `INSERT ... ON CONFLICT (key) DO UPDATE` for `columns` (positional parameters in that
/// order); the key columns are never updated.
pub(crate) fn upsert_sql(table: &str, columns: &[&str], key: &[&str]) -> String {
    upsert_rows_sql(table, columns, key, 1)
}

/// [`upsert_sql`] for `rows` rows at once (parameters row after row).
pub(crate) fn upsert_rows_sql(table: &str, columns: &[&str], key: &[&str], rows: usize) -> String {
    let names: Vec<String> = columns.iter().map(|c| quote(c)).collect();
    let width = columns.len();
    let placeholders: Vec<String> = (0..rows)
        .map(|row| {
            let row: Vec<String> = (1..=width)
                .map(|i| format!("?{}", row * width + i))
                .collect();
            row.join(", ")
        })
        .collect();
    format!(
        "INSERT INTO {} ({}) VALUES ({}) {}",
        quote(table),
        names.join(", "),
        placeholders.join("), ("),
        on_conflict(columns, key)
    )
}

/// `ON CONFLICT (key) DO UPDATE SET` every other column from the row proposed.
pub(crate) fn on_conflict(columns: &[&str], key: &[&str]) -> String {
    let updates: Vec<String> = columns
        .iter()
        .filter(|c| !key.contains(c))
        .map(|c| format!("{0} = excluded.{0}", quote(c)))
        .collect();
    let action = if updates.is_empty() {
        "NOTHING".to_string()
    } else {
        format!("UPDATE SET {}", updates.join(", "))
    };
    let key: Vec<String> = key.iter().map(|c| quote(c)).collect();
    format!("ON CONFLICT ({}) DO {action}", key.join(", "))
}
