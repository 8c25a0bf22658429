//! Embedding settings: a provider toolforge has, what it needs (a model folder, a URL), no
//! secrets in the config, and ragforge pipelines that name real entities and fields.

use toolforge::spec::EmbeddingProvider;

use crate::config::Config;
use crate::facts::{DEFAULT_VECTOR_COLUMN, embedding_provider, stored_field_names};
use crate::report::{Reporter, did_you_mean, suggestion};

pub(super) fn check(config: &Config, r: &mut Reporter<'_>) {
    check_provider(config, r);
    check_secrets(config, r);
    check_pipelines(config, r);
}

fn provider_names() -> impl Iterator<Item = &'static str> + Clone {
    EmbeddingProvider::ALL.iter().map(|(name, _)| *name)
}

fn check_provider(config: &Config, r: &mut Reporter<'_>) {
    let options = config
        .toolforge
        .as_ref()
        .and_then(|t| t.embeddings.as_ref());
    let written = [
        (
            "toolforge.embeddings.provider",
            options.and_then(|o| o.provider.as_deref()),
        ),
        (
            "embedding.provider",
            config
                .embedding
                .as_ref()
                .and_then(|e| e.provider.as_deref()),
        ),
        (
            "embeddings.provider",
            config
                .embeddings
                .as_ref()
                .and_then(|e| e.provider.as_deref()),
        ),
    ];
    // Only the provider that wins matters; the others are overridden.
    if let Some((path, Some(name))) = written.iter().find(|(_, name)| name.is_some())
        && EmbeddingProvider::from_name(name).is_none()
    {
        let overridable = !path.starts_with("toolforge");
        let mut diagnostic = r.warning(
            path,
            format!("embedding provider `{name}` is not one toolforge runs; semantic search will have no embedder"),
        );
        diagnostic = match did_you_mean(name, provider_names()) {
            Some(close) => diagnostic.hint(format!("did you mean `{close}`?")),
            None => diagnostic.hint(format!(
                "{}{}",
                suggestion(name, provider_names(), "providers"),
                if overridable {
                    "; or choose one under `toolforge.embeddings.provider`"
                } else {
                    ""
                }
            )),
        };
        diagnostic.emit();
    }
    let Some(options) = options else {
        return;
    };
    let provider = embedding_provider(config);
    if provider == Some(EmbeddingProvider::Local) && options.model_path.is_none() {
        r.error(
            "toolforge.embeddings",
            "embedding provider `local` needs `model_path`, the folder of a sentence-transformers model",
        )
        .hint("add `model_path: models/all-MiniLM-L6-v2` (config.json, tokenizer.json and model.safetensors inside)")
        .emit();
    }
    if provider == Some(EmbeddingProvider::OpenAiCompatible) && options.url.is_none() {
        r.error(
            "toolforge.embeddings",
            "embedding provider `openai-compatible` needs `url`, the server's base URL",
        )
        .hint("add `url: http://127.0.0.1:8080/v1`")
        .emit();
    }
    if options.batch_size == Some(0) {
        r.error(
            "toolforge.embeddings.batch_size",
            "`batch_size` must be at least 1",
        )
        .hint("use 32 or 64 for a local model, up to 100 for Gemini")
        .emit();
    }
}

fn check_secrets(config: &Config, r: &mut Reporter<'_>) {
    let keys = [
        (
            "embedding.api_key",
            config.embedding.as_ref().and_then(|e| e.api_key.as_ref()),
        ),
        (
            "embeddings.api_key",
            config.embeddings.as_ref().and_then(|e| e.api_key.as_ref()),
        ),
    ];
    for (path, key) in keys {
        if key.is_some() {
            r.warning(path, "API keys are never read from the config; this one is ignored")
                .hint("put the key in an environment variable and name it with `toolforge.embeddings.api_key_env`")
                .emit();
        }
    }
}

fn check_pipelines(config: &Config, r: &mut Reporter<'_>) {
    let Some(section) = &config.embeddings else {
        return;
    };
    let default_dimension = section.defaults.as_ref().and_then(|d| d.dimension);
    for (g, group) in section.entities.iter().enumerate() {
        let Some(entity) = config.entities.iter().find(|e| e.name == group.entity) else {
            let names = config.entities.iter().map(|e| e.name.as_str());
            r.warning(
                &format!("embeddings.entities[{g}].entity"),
                format!(
                    "`{}` names no entity; its pipelines are left out",
                    group.entity
                ),
            )
            .hint(suggestion(&group.entity, names, "entities"))
            .emit();
            continue;
        };
        let stored = stored_field_names(entity);
        for (p, pipeline) in group.pipelines.iter().enumerate() {
            let base = format!("embeddings.entities[{g}].pipelines[{p}]");
            if !stored.contains(&pipeline.source.as_str()) {
                r.warning(
                    &format!("{base}.source"),
                    format!(
                        "source `{}` names no field of `{}`; pipeline `{}` is left out",
                        pipeline.source, entity.name, pipeline.name
                    ),
                )
                .hint(suggestion(
                    &pipeline.source,
                    stored.iter().copied(),
                    "fields",
                ))
                .emit();
                continue;
            }
            let existing = entity.all_vector_indexes().into_iter().any(|(_, index)| {
                index.field.as_deref().unwrap_or(DEFAULT_VECTOR_COLUMN) == pipeline.target_property
            });
            if existing {
                continue;
            }
            if stored.contains(&pipeline.target_property.as_str()) {
                r.error(
                    &format!("{base}.target_property"),
                    format!(
                        "target_property `{}` is a field of `{}`; embeddings need a property of their own",
                        pipeline.target_property, entity.name
                    ),
                )
                .hint(format!("use `{}_embedding`", pipeline.source))
                .emit();
                continue;
            }
            match pipeline.dimension.or(default_dimension) {
                None => r
                    .warning(
                        &base,
                        format!(
                            "pipeline `{}` gives no dimension and `embeddings.defaults` none either; it is left out",
                            pipeline.name
                        ),
                    )
                    .hint("add `dimension:` (the model's vector size, 384 for all-MiniLM-L6-v2)")
                    .emit(),
                Some(d) if d <= 0 || d > i64::from(u32::MAX) => r
                    .error(
                        &format!("{base}.dimension"),
                        format!("pipeline `{}` has dimension {d}; it must be a positive number", pipeline.name),
                    )
                    .hint("use the embedding model's output size, for example 384 or 768")
                    .emit(),
                Some(_) => {}
            }
        }
    }
}
