//! Embedding settings: providers toolforge runs (with did-you-mean), what each needs (a model
//! folder, a URL), no secrets in the config, and ragforge pipelines that name real entities
//! and fields, lowered into vector indexes of the spec.

use crate::common;

use common::{at, fail, find, hint, ok};
use toolforge::spec::{EmbeddingProvider, Similarity};

const ENTITY: &str = "\
name: demo
entities:
  - name: Doc
    searchable_fields:
      - name: title
        type: string
      - name: body
        type: string
";

#[test]
fn an_unknown_provider_warns_with_did_you_mean() {
    let compiled = ok(&format!("{ENTITY}embedding:\n  provider: gemnii\n"));
    let warning = find(&compiled.warnings, "embedding provider `gemnii`");
    at(warning, 10, 13, "embedding.provider");
    assert!(
        hint(warning).contains("did you mean `gemini`?"),
        "{warning}"
    );
    assert!(compiled.spec.embedding.is_none());

    let compiled = ok(&format!(
        "{ENTITY}toolforge:\n  embeddings:\n    provider: loacl\n"
    ));
    let warning = find(&compiled.warnings, "embedding provider `loacl`");
    at(warning, 11, 15, "toolforge.embeddings.provider");
    assert!(hint(warning).contains("did you mean `local`?"), "{warning}");

    // Nothing close: the hint lists the providers instead.
    let compiled = ok(&format!("{ENTITY}embeddings:\n  provider: word2vec\n"));
    let warning = find(&compiled.warnings, "embedding provider `word2vec`");
    at(warning, 10, 13, "embeddings.provider");
    assert!(hint(warning).contains("local"), "{warning}");
    assert!(
        hint(warning).contains("toolforge.embeddings.provider"),
        "{warning}"
    );
}

#[test]
fn local_needs_a_model_path_and_openai_compatible_a_url() {
    let errors = fail(&format!(
        "{ENTITY}toolforge:\n  embeddings:\n    provider: local\n"
    ));
    let error = find(&errors, "`local` needs `model_path`");
    at(error, 11, 5, "toolforge.embeddings");
    assert!(hint(error).contains("model_path:"), "{error}");

    let errors = fail(&format!(
        "{ENTITY}toolforge:\n  embeddings:\n    provider: openai-compatible\n    batch_size: 0\n"
    ));
    let error = find(&errors, "`openai-compatible` needs `url`");
    at(error, 11, 5, "toolforge.embeddings");
    assert!(hint(error).contains("url: http://"), "{error}");
    at(
        find(&errors, "`batch_size` must be at least 1"),
        12,
        17,
        "toolforge.embeddings.batch_size",
    );

    let compiled = ok(&format!(
        "{ENTITY}toolforge:\n  embeddings:\n    provider: openai-compatible\n    url: http://127.0.0.1:8080/v1\n    api_key_env: MY_KEY\n"
    ));
    let embedding = compiled.spec.embedding.expect("embedding settings");
    assert_eq!(embedding.provider, EmbeddingProvider::OpenAiCompatible);
    assert_eq!(embedding.url.as_deref(), Some("http://127.0.0.1:8080/v1"));
    assert_eq!(embedding.api_key_env.as_deref(), Some("MY_KEY"));
}

#[test]
fn an_api_key_in_the_config_warns_and_is_not_kept() {
    let source = format!(
        "{ENTITY}embedding:\n  provider: openai\n  api_key: sk-secret-in-the-config\nembeddings:\n  api_key: another-secret\n"
    );
    let compiled = ok(&source);
    let warnings: Vec<_> = compiled
        .warnings
        .items()
        .iter()
        .filter(|d| {
            d.message
                .contains("API keys are never read from the config")
        })
        .collect();
    assert_eq!(warnings.len(), 2, "{}", compiled.warnings.render());
    at(warnings[0], 11, 12, "embedding.api_key");
    at(warnings[1], 13, 12, "embeddings.api_key");
    assert!(hint(warnings[0]).contains("api_key_env"));
    let spec = serde_json::to_string(&compiled.spec).unwrap();
    assert!(!spec.contains("secret"), "{spec}");
}

#[test]
fn pipelines_naming_unknown_entities_or_fields_warn_and_are_left_out() {
    let source = format!(
        "{ENTITY}embeddings:
  defaults:
    dimension: 384
  entities:
    - entity: Dco
      pipelines:
        - name: doc_vectors
          source: body
          target_property: body_embedding
    - entity: Doc
      pipelines:
        - name: body_vectors
          source: bdy
          target_property: body_embedding
        - name: title_vectors
          source: title
          target_property: body
"
    );
    let errors = fail(&source);
    let field = find(&errors, "target_property `body` is a field of `Doc`");
    at(
        field,
        25,
        28,
        "embeddings.entities[1].pipelines[1].target_property",
    );
    assert!(hint(field).contains("title_embedding"), "{field}");

    // Without the error, the warnings remain and no vector index is made.
    let source = source.replace(
        "target_property: body\n",
        "target_property: title_vectors\n",
    );
    let compiled = ok(&source);
    let entity = find(&compiled.warnings, "`Dco` names no entity");
    at(entity, 13, 15, "embeddings.entities[0].entity");
    assert!(hint(entity).contains("Doc"), "{entity}");
    let source_field = find(&compiled.warnings, "source `bdy` names no field of `Doc`");
    at(
        source_field,
        21,
        19,
        "embeddings.entities[1].pipelines[0].source",
    );
    assert!(hint(source_field).contains("body"), "{source_field}");
    let indexes: Vec<&str> = compiled.spec.entities[0]
        .vector_indexes
        .iter()
        .map(|index| index.name.as_str())
        .collect();
    assert_eq!(indexes, ["title_vectors"]);
}

#[test]
fn a_pipeline_becomes_a_vector_index_of_the_spec() {
    let source = format!(
        "{ENTITY}embedding:
  provider: gemini
  model: text-embedding-004
embeddings:
  defaults:
    dimension: 768
    similarity: dot
  entities:
    - entity: Doc
      pipelines:
        - name: body_vectors
          source: body
          target_property: body_embedding
        - name: title_vectors
          source: title
          target_property: title_embedding
          dimension: 384
"
    );
    let compiled = ok(&source);
    assert!(
        compiled.warnings.is_empty(),
        "{}",
        compiled.warnings.render()
    );
    let indexes = &compiled.spec.entities[0].vector_indexes;
    let lowered: Vec<(&str, &str, Option<&str>, u32, Similarity)> = indexes
        .iter()
        .map(|index| {
            (
                index.name.as_str(),
                index.column.as_str(),
                index.source_field.as_deref(),
                index.dimension,
                index.similarity,
            )
        })
        .collect();
    assert_eq!(
        lowered,
        [
            (
                "body_vectors",
                "body_embedding",
                Some("body"),
                768,
                Similarity::Dot
            ),
            (
                "title_vectors",
                "title_embedding",
                Some("title"),
                384,
                Similarity::Dot
            ),
        ]
    );
    let embedding = compiled
        .spec
        .embedding
        .as_ref()
        .expect("embedding settings");
    assert_eq!(embedding.provider, EmbeddingProvider::Gemini);
    assert!(
        compiled
            .spec
            .database_tool_names()
            .contains(&"semantic_search")
    );

    // A pipeline without any dimension is left out, with a warning saying how to fix it.
    let source = source.replace("    dimension: 768\n", "");
    let compiled = ok(&source);
    let warning = find(
        &compiled.warnings,
        "pipeline `body_vectors` gives no dimension",
    );
    at(warning, 18, 11, "embeddings.entities[0].pipelines[0]");
    let names: Vec<&str> = compiled.spec.entities[0]
        .vector_indexes
        .iter()
        .map(|index| index.name.as_str())
        .collect();
    assert_eq!(names, ["title_vectors"]);
}
