//! Facts read off a config that validation and lowering both need (so neither imports the
//! other): the fields a reference may name, the full-text fields, the default vector column and
//! the embedding provider.

use crate::config::{Config, Entity};

/// The names a field reference may use on an entity: stored fields and the unique field.
pub(crate) fn stored_field_names(entity: &Entity) -> Vec<&str> {
    let mut names: Vec<&str> = entity
        .searchable_fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    if !names.contains(&entity.unique_field()) {
        names.insert(0, entity.unique_field());
    }
    names
}

/// Config types a full-text index can search: their values are text.
pub(crate) const TEXT_TYPES: [&str; 3] = ["string", "enum", "array<string>"];

/// The stored fields of `entity` a full-text index may list (text fields; the unique field is
/// text even when it is not listed).
pub(crate) fn text_fields(entity: &Entity) -> Vec<&str> {
    stored_field_names(entity)
        .into_iter()
        .filter(|name| {
            entity
                .field(name)
                .is_none_or(|field| TEXT_TYPES.contains(&field.ty.as_str()))
        })
        .collect()
}

/// The embedding column of an index without `field`.
pub(crate) const DEFAULT_VECTOR_COLUMN: &str = "embedding";

/// The provider name a config gives, first of: `toolforge.embeddings.provider`,
/// `embedding.provider`, `embeddings.provider`, the first vector index's `provider`.
pub(crate) fn provider_name(config: &Config) -> Option<&str> {
    let options = config
        .toolforge
        .as_ref()
        .and_then(|t| t.embeddings.as_ref());
    options
        .and_then(|o| o.provider.as_deref())
        .or_else(|| {
            config
                .embedding
                .as_ref()
                .and_then(|e| e.provider.as_deref())
        })
        .or_else(|| {
            config
                .embeddings
                .as_ref()
                .and_then(|e| e.provider.as_deref())
        })
        .or_else(|| {
            config.entities.iter().find_map(|entity| {
                entity
                    .all_vector_indexes()
                    .into_iter()
                    .find_map(|(_, index)| index.provider.as_deref())
            })
        })
}

/// The embedding provider a config names, when toolforge has it.
pub(crate) fn embedding_provider(config: &Config) -> Option<toolforge::spec::EmbeddingProvider> {
    provider_name(config).and_then(toolforge::spec::EmbeddingProvider::from_name)
}
