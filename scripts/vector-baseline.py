#!/usr/bin/env python3
"""The numpy brute force that `cargo bench -p toolforge-runtime --bench vector_search` compares
exact top-k search with, on the same vectors.

Reads a little-endian float32 file of ROWS x DIM row vectors followed by QUERIES x DIM query
vectors, normalises the rows once (as the cosine index does when it is built), then times,
for each query in turn: normalise the query, score every row (one matrix-vector product),
keep the best K (argpartition, then sort). Prints one JSON line with the median (p50) and the
fastest time in milliseconds, and the rows found for the first query.

    python3 scripts/vector-baseline.py FILE ROWS DIM QUERIES K ROUNDS

Requirements: scripts/vector-baseline.requirements.txt.
"""

import json
import sys
import time

import numpy as np


def main():
    path, rows, dim, queries, k, rounds = sys.argv[1:7]
    rows, dim, queries, k, rounds = int(rows), int(dim), int(queries), int(k), int(rounds)
    data = np.fromfile(path, dtype="<f4")
    if data.size != (rows + queries) * dim:
        sys.exit(f"{path} holds {data.size} values, expected {(rows + queries) * dim}")
    matrix = data[: rows * dim].reshape(rows, dim).copy()
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query_vectors = data[rows * dim :].reshape(queries, dim)

    def top_k(query):
        query = query / np.linalg.norm(query)
        scores = matrix @ query
        best = np.argpartition(-scores, k)[:k]
        return best[np.argsort(-scores[best], kind="stable")]

    first = top_k(query_vectors[0])
    times = []
    for round_ in range(rounds):
        query = query_vectors[round_ % queries]
        start = time.perf_counter()
        top_k(query)
        times.append((time.perf_counter() - start) * 1000.0)
    times.sort()
    print(
        json.dumps(
            {
                "p50_ms": times[len(times) // 2],
                "fastest_ms": times[0],
                "rounds": rounds,
                "numpy": np.__version__,
                "first_query_rows": [int(row) for row in first],
            }
        )
    )


main()
