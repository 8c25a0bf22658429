//! Resource URIs: the schema's, the documents', and each entity's template with one `{id}`
//! (default `toolforge://ENTITY/{id}`), the unique value percent-encoded in it.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use crate::spec::SchemaSpec;

/// What is left unencoded in a URI's variable part: RFC 3986's unreserved characters.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The query that asks for a record as JSON rather than Markdown.
pub(super) const JSON_QUERY: &str = "?format=json";

/// `text` encoded for a URI's variable part.
pub(in crate::mcp) fn encode(text: &str) -> String {
    utf8_percent_encode(text, UNRESERVED).to_string()
}

/// One entity's URI template, split around its `{id}`.
pub(super) struct EntityUri {
    /// What comes before and after the id.
    prefix: String,
    suffix: String,
    /// Records `resources/list` shows, and their order (field, descending).
    pub(super) listed: u32,
    pub(super) order_by: Option<(String, bool)>,
}

impl EntityUri {
    /// Every entity's template, in the spec's order.
    pub(super) fn all(spec: &SchemaSpec) -> Vec<EntityUri> {
        let resources = &spec.mcp.resources;
        spec.entities
            .iter()
            .map(|entity| {
                let options = resources.entities.iter().find(|e| e.entity == entity.name);
                let template = options
                    .and_then(|options| options.uri.clone())
                    .unwrap_or_else(|| format!("toolforge://{}/{{id}}", encode(&entity.name)));
                let (prefix, suffix) = template
                    .split_once("{id}")
                    .map(|(prefix, suffix)| (prefix.to_owned(), suffix.to_owned()))
                    .unwrap_or((template.clone(), String::new()));
                EntityUri {
                    prefix,
                    suffix,
                    listed: options
                        .and_then(|options| options.listed)
                        .unwrap_or(resources.listed),
                    order_by: options.and_then(|options| options.order_by.clone()),
                }
            })
            .collect()
    }

    /// The template as MCP writes it (RFC 6570).
    pub(super) fn template(&self) -> String {
        format!("{}{{id}}{}", self.prefix, self.suffix)
    }

    /// The URI of the record whose unique value is `id`.
    pub(super) fn uri(&self, id: &str) -> String {
        format!("{}{}{}", self.prefix, encode(id), self.suffix)
    }

    /// The length of what comes before the id.
    pub(super) fn prefix_len(&self) -> usize {
        self.prefix.len()
    }

    /// The unique value `uri` names, if it is one of this entity's.
    pub(super) fn id_in(&self, uri: &str) -> Option<String> {
        let id = uri.strip_prefix(&self.prefix)?.strip_suffix(&self.suffix)?;
        if id.is_empty() || id.contains('/') {
            return None;
        }
        percent_decode_str(id)
            .decode_utf8()
            .ok()
            .map(|id| id.into_owned())
    }
}

/// What a resource URI names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::mcp) enum Target {
    /// The schema.
    Schema,
    /// The config's document at this position.
    Document(usize),
    /// A record: the entity (its position in the spec) and its unique value; `json` when the
    /// URI asks for JSON.
    Record {
        entity: usize,
        id: String,
        json: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(uri: &str) -> EntityUri {
        let (prefix, suffix) = uri.split_once("{id}").unwrap();
        EntityUri {
            prefix: prefix.into(),
            suffix: suffix.into(),
            listed: 10,
            order_by: None,
        }
    }

    #[test]
    fn ids_round_trip_through_their_uri_encoded() {
        let entity = template("test://template/{id}/data");
        for id in ["123", "a/b", "ünï côde", "50%", "x?format=json", "#frag"] {
            let uri = entity.uri(id);
            assert!(!encode(id).contains(['/', '?', '#', ' ']), "{uri}");
            assert_eq!(entity.id_in(&uri).as_deref(), Some(id), "{uri}");
        }
        assert_eq!(entity.uri("123"), "test://template/123/data");
    }

    #[test]
    fn other_uris_are_not_records() {
        let entity = template("toolforge://Member/{id}");
        assert_eq!(entity.id_in("toolforge://Member/"), None);
        assert_eq!(entity.id_in("toolforge://Member/a/b"), None);
        assert_eq!(entity.id_in("toolforge://Loan/1"), None);
        assert_eq!(entity.id_in("toolforge://Member/%FF"), None, "not UTF-8");
    }
}
