//! Cursor paging of MCP lists (`tools/list`, `resources/list`): the cursor is the offset of
//! the page's first item.

use rmcp::model::ErrorData;

/// The page of `total` items that `cursor` asks for, `page_size` at most: its bounds, and the
/// cursor of the next page when there is one. A cursor that is not an offset within the list
/// is `-32602`.
pub(super) fn page(
    cursor: Option<&str>,
    total: usize,
    page_size: usize,
) -> Result<(std::ops::Range<usize>, Option<String>), ErrorData> {
    let start = match cursor {
        None => 0,
        Some(cursor) => match cursor.parse::<usize>() {
            Ok(start) if start <= total => start,
            _ => {
                return Err(ErrorData::invalid_params(
                    format!("invalid cursor `{cursor}`: use the `nextCursor` of the previous page"),
                    None,
                ));
            }
        },
    };
    let end = start.saturating_add(page_size.max(1)).min(total);
    let next = (end < total).then(|| end.to_string());
    Ok((start..end, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_follow_their_cursors_and_refuse_others() {
        assert_eq!(page(None, 5, 2).unwrap(), (0..2, Some("2".to_owned())));
        assert_eq!(page(Some("4"), 5, 2).unwrap(), (4..5, None));
        assert_eq!(page(Some("5"), 5, 2).unwrap(), (5..5, None));
        assert!(page(Some("6"), 5, 2).is_err());
        assert!(page(Some("x"), 5, 2).is_err());
    }
}
