#!/usr/bin/env python3
"""Reference sentence embeddings for the local model test, computed independently of toolforge.

A BERT encoder written here with numpy in float64 (embeddings, 6 self-attention layers, exact
GELU), the Hugging Face `tokenizers` Python package, mean pooling over the attention mask and
L2 normalisation, as sentence-transformers computes all-MiniLM-L6-v2. Each sentence is run on
its own (no padding), so batching in toolforge is checked too.

    python3 scripts/embedding-reference.py MODEL_DIR > runtime/tests/fixtures/minilm_reference.json
    python3 scripts/embedding-reference.py MODEL_DIR --check runtime/tests/fixtures/minilm_reference.json

Requirements: scripts/embedding-reference.requirements.txt.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A woman is playing violin.",
    "Two men pushed carts through the woods.",
    "A man is riding a white horse on an enclosed ground.",
    "A monkey is playing drums.",
    "Someone in a gorilla costume is playing a set of drums.",
    "Parse a ragforge configuration file and report every error with its line and column.",
    "fn main() { println!(\"hello, world\"); }",
    "SELECT count(*) FROM scope WHERE name GLOB 'parse*'",
    "Über den Wolken muss die Freiheit wohl grenzenlos sein.",
    "日本語の文章も埋め込みます。",
    "",
    "   whitespace   around   words   ",
    " ".join(["a long text that is cut at the model's sequence length"] * 60),
]


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def embed(weights, config, ids):
    w = lambda name: weights[name].astype(np.float64)
    eps = config["layer_norm_eps"]
    n = len(ids)
    x = w("embeddings.word_embeddings.weight")[ids]
    x = x + w("embeddings.position_embeddings.weight")[:n]
    x = x + w("embeddings.token_type_embeddings.weight")[0]
    x = layer_norm(x, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"), eps)
    heads = config["num_attention_heads"]
    size = config["hidden_size"] // heads
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        linear = lambda v, name: v @ w(p + name + ".weight").T + w(p + name + ".bias")
        q = linear(x, "attention.self.query").reshape(n, heads, size).transpose(1, 0, 2)
        k = linear(x, "attention.self.key").reshape(n, heads, size).transpose(1, 0, 2)
        v = linear(x, "attention.self.value").reshape(n, heads, size).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores = scores / scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, heads * size)
        attended = linear(context, "attention.output.dense")
        x = layer_norm(attended + x, w(p + "attention.output.LayerNorm.weight"),
                       w(p + "attention.output.LayerNorm.bias"), eps)
        hidden = gelu(linear(x, "intermediate.dense"))
        out = linear(hidden, "output.dense")
        x = layer_norm(out + x, w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias"), eps)
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def main():
    model = Path(sys.argv[1])
    config = json.loads((model / "config.json").read_text())
    max_length = json.loads((model / "sentence_bert_config.json").read_text())["max_seq_length"]
    weights = load_file(str(model / "model.safetensors"))
    weights = {key.removeprefix("bert."): value for key, value in weights.items()}
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length)
    vectors = [embed(weights, config, tokenizer.encode(s).ids) for s in SENTENCES]
    reference = {
        "model": "all-MiniLM-L6-v2",
        "sentences": SENTENCES,
        "vectors": [[round(float(x), 7) for x in v] for v in vectors],
    }
    if len(sys.argv) > 3 and sys.argv[2] == "--check":
        stored = json.loads(Path(sys.argv[3]).read_text())
        assert stored["sentences"] == SENTENCES, "the sentences differ: regenerate the file"
        worst = min(
            float(np.dot(np.array(a), np.array(b)))
            for a, b in zip(stored["vectors"], reference["vectors"])
        )
        print(f"reference vectors reproduced: lowest cosine {worst:.7f}")
        sys.exit(0 if worst > 0.99999 else 1)
    json.dump(reference, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
