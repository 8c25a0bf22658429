#!/usr/bin/env python3
"""The reference for the local model's throughput: all-MiniLM-L6-v2 in numpy (float32, OpenBLAS
on every core), batched the way toolforge batches, on the same texts.

    python3 scripts/embedding-throughput.py texts CRATE_DIR > texts.jsonl
    python3 scripts/embedding-throughput.py measure MODEL_DIR texts.jsonl [--max-tokens 96]

`texts` writes the doc comments of a Rust source tree (each run of `///` lines, as the code-rag
example stores them), one JSON string per line. `measure` embeds them: texts sorted by length,
batches of 32 padded to their longest, attention masked, mean-pooled and normalised, as
`toolforge::embed::LocalModel` does, and prints texts per second. `scripts/embedding-throughput`
runs both with toolforge's own bench (`runtime/benches/embed_local.rs`) on the same file.

Requirements: scripts/embedding-reference.requirements.txt.
"""

import json
import math
import re
import sys
import time
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

BATCH = 32


def doc_comments(root):
    """Every run of `///` lines of every .rs file under root (sorted), markers removed."""
    texts = []
    for path in sorted(Path(root).rglob("*.rs")):
        if "target" in path.parts:
            continue
        run = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines() + [""]:
            match = re.match(r"\s*///\s?(.*)$", line)
            if match:
                run.append(match.group(1))
            elif run:
                text = "\n".join(run).strip()
                if text:
                    texts.append(text)
                run = []
    return texts


def erf(x):
    # Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7, under float32's resolution
    # at the activations' scale), vectorised; numpy has no erf of its own.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
                + 0.254829592) * t * np.exp(-x * x)
    return sign * y


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def forward(w, config, ids, mask):
    eps = config["layer_norm_eps"]
    batch, n = ids.shape
    heads = config["num_attention_heads"]
    size = config["hidden_size"] // heads
    x = w["embeddings.word_embeddings.weight"][ids]
    x = x + w["embeddings.position_embeddings.weight"][:n]
    x = x + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :].astype(np.float32)
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        linear = lambda v, name: v @ w[p + name + ".weight"].T + w[p + name + ".bias"]
        split = lambda t: t.reshape(batch, n, heads, size).transpose(0, 2, 1, 3)
        q = split(linear(x, "attention.self.query"))
        k = split(linear(x, "attention.self.key"))
        v = split(linear(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(size)) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores = scores / scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, n, heads * size)
        attended = linear(context, "attention.output.dense")
        x = layer_norm(attended + x, w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], eps)
        inner = linear(x, "intermediate.dense")
        inner = 0.5 * inner * (1.0 + erf(inner / np.float32(math.sqrt(2.0))))
        out = linear(inner, "output.dense")
        x = layer_norm(out + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    summed = (x * mask[:, :, None]).sum(1)
    pooled = summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def measure(model, texts_file, max_tokens):
    model = Path(model)
    config = json.loads((model / "config.json").read_text())
    weights = load_file(str(model / "model.safetensors"))
    w = {key.removeprefix("bert."): value.astype(np.float32) for key, value in weights.items()}
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    tokenizer.enable_truncation(max_tokens)
    tokenizer.enable_padding()
    texts = [json.loads(line) for line in Path(texts_file).read_text().splitlines() if line]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    started = time.perf_counter()
    vectors = [None] * len(texts)
    for at in range(0, len(order), BATCH):
        chunk = order[at:at + BATCH]
        encodings = tokenizer.encode_batch([texts[i] for i in chunk])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        for i, vector in zip(chunk, forward(w, config, ids, mask)):
            vectors[i] = vector
    seconds = time.perf_counter() - started
    print(json.dumps({
        "texts": len(texts),
        "max_tokens": max_tokens,
        "seconds": round(seconds, 3),
        "texts_per_second": round(len(texts) / seconds, 1),
    }))


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "texts":
        for text in doc_comments(args[1]):
            print(json.dumps(text))
    elif len(args) in (3, 5) and args[0] == "measure":
        max_tokens = int(args[4]) if len(args) == 5 and args[3] == "--max-tokens" else 96
        measure(args[1], args[2], max_tokens)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
