//! Embeddings: the provider settings ([`EmbeddingSpec`]) from ragforge's `embedding:` /
//! `embeddings:` sections and `toolforge.embeddings`, and ragforge's per-entity pipelines as
//! vector indexes.

use toolforge::spec::{EmbeddingProvider, EmbeddingSpec, SchemaSpec, Similarity, VectorIndexSpec};

use crate::config::Config;
use crate::facts::provider_name;

/// The similarity a config names (cosine when absent or unknown; unknown names are reported
/// by the validator).
pub(crate) fn similarity(name: Option<&str>) -> Similarity {
    match name.map(str::to_ascii_lowercase).as_deref() {
        Some("dot") | Some("dot_product") => Similarity::Dot,
        Some("euclidean") => Similarity::Euclidean,
        _ => Similarity::Cosine,
    }
}

/// The embedding settings, when the config names a provider toolforge has.
pub(super) fn embedding_spec(config: &Config) -> Option<EmbeddingSpec> {
    let provider = EmbeddingProvider::from_name(provider_name(config)?)?;
    let options = config
        .toolforge
        .as_ref()
        .and_then(|t| t.embeddings.as_ref());
    let mut spec = EmbeddingSpec::new(provider);
    spec.model = options
        .and_then(|o| o.model.clone())
        .or_else(|| config.embedding.as_ref().and_then(|e| e.model.clone()))
        .or_else(|| {
            config
                .embeddings
                .as_ref()
                .and_then(|e| e.defaults.as_ref())
                .and_then(|d| d.model.clone())
        })
        .or_else(|| {
            config.entities.iter().find_map(|entity| {
                entity
                    .all_vector_indexes()
                    .into_iter()
                    .find_map(|(_, index)| index.model.clone())
            })
        });
    if let Some(options) = options {
        spec.url = options.url.clone();
        spec.api_key_env = options.api_key_env.clone();
        spec.model_path = options.model_path.clone();
        spec.batch_size = options.batch_size.filter(|n| *n > 0);
    }
    Some(spec)
}

/// Adds each `embeddings.entities[].pipelines[]` to its entity: a pipeline writing an existing
/// vector index's column completes that index (source field, model, similarity); any other
/// becomes a vector index of its own. Pipelines the validator reported are left out.
pub(super) fn add_pipelines(config: &Config, spec: &mut SchemaSpec) {
    let Some(section) = &config.embeddings else {
        return;
    };
    let defaults = section.defaults.clone().unwrap_or_default();
    for group in &section.entities {
        let Some(entity) = spec.entities.iter_mut().find(|e| e.name == group.entity) else {
            continue;
        };
        for pipeline in &group.pipelines {
            if entity.field(&pipeline.source).is_none() {
                continue;
            }
            let similarity_name = pipeline
                .similarity
                .as_deref()
                .or(defaults.similarity.as_deref());
            let model = pipeline.model.clone().or_else(|| defaults.model.clone());
            if let Some(index) = entity
                .vector_indexes
                .iter_mut()
                .find(|index| index.column == pipeline.target_property)
            {
                if index.source_field.is_none() {
                    index.source_field = Some(pipeline.source.clone());
                }
                if index.model.is_none() {
                    index.model = model;
                }
                continue;
            }
            let dimension = pipeline.dimension.or(defaults.dimension);
            let Some(dimension) = dimension
                .and_then(|d| u32::try_from(d).ok())
                .filter(|d| *d > 0)
            else {
                continue;
            };
            if entity.field(&pipeline.target_property).is_some() {
                continue;
            }
            entity.vector_indexes.push(VectorIndexSpec {
                name: pipeline.name.clone(),
                column: pipeline.target_property.clone(),
                source_field: Some(pipeline.source.clone()),
                existing_column: None,
                dimension,
                similarity: similarity(similarity_name),
                model,
            });
        }
    }
}
