#!/usr/bin/env python3
"""Tool retrieval quality of `toolforge catalog` against the `bm25s` library, on the
BFCL_v4_multiple category of the Berkeley Function Calling Leaderboard (PyPI `bfcl-eval`).

Every function of the category's entries goes into one catalogue (deduplicated by name);
each entry's question is a query whose correct tool is the function of its possible answer.
bm25s indexes the same text toolforge indexes (name words, description, parameter names and
descriptions), with English stop words and the Snowball stemmer. Prints Recall@1, Recall@5
and nDCG@10 for bm25s and each toolforge mode.

    pip install bfcl-eval bm25s PyStemmer
    python scripts/catalog-bfcl.py --toolforge target/release/toolforge \
        --model models/all-MiniLM-L6-v2 [--check]

With --check, exits 1 unless `fast` matches or beats bm25s and `balanced` beats it (nDCG@10).
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import bm25s
import bfcl_eval
import Stemmer


def load_category(name):
    data = os.path.join(os.path.dirname(bfcl_eval.__file__), "data")
    with open(os.path.join(data, f"{name}.json")) as f:
        questions = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(data, "possible_answer", f"{name}.json")) as f:
        answers = {row["id"]: row for row in map(json.loads, filter(str.strip, f))}
    return questions, answers


def words(text):
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return re.sub(r"[^0-9A-Za-z]+", " ", text).lower()


def tool_text(tool):
    parts = [words(tool["name"]), tool.get("description", "")]
    for name, prop in (tool.get("parameters", {}).get("properties") or {}).items():
        parts.append(words(name))
        parts.append(str(prop.get("description", "")))
    return " ".join(parts)


def metrics(rankings, truths):
    r1 = r5 = ndcg = 0.0
    for ranking, truth in zip(rankings, truths):
        if ranking[:1] == [truth]:
            r1 += 1
        if truth in ranking[:5]:
            r5 += 1
        if truth in ranking[:10]:
            ndcg += 1 / math.log2(ranking.index(truth) + 2)
    n = len(truths)
    return {"recall@1": r1 / n, "recall@5": r5 / n, "ndcg@10": ndcg / n}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--toolforge", default="target/release/toolforge")
    parser.add_argument("--model", default="models/all-MiniLM-L6-v2")
    parser.add_argument("--category", default="BFCL_v4_multiple")
    parser.add_argument("--modes", default="fast,balanced,accurate")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    questions, answers = load_category(args.category)
    catalogue, queries, truths = {}, [], []
    for entry in questions:
        for function in entry["function"]:
            catalogue.setdefault(function["name"], function)
        turns = entry["question"][0]
        queries.append(" ".join(m["content"] for m in turns if m["role"] == "user").replace("\n", " "))
        truths.append(next(iter(answers[entry["id"]]["ground_truth"][0])))
    tools = list(catalogue.values())
    print(f"{args.category}: {len(tools)} functions, {len(queries)} queries")

    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([tool_text(t) for t in tools], stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    found, _ = retriever.retrieve(
        bm25s.tokenize(queries, stopwords="en", stemmer=stemmer, show_progress=False),
        k=10, show_progress=False,
    )
    results = {"bm25s": metrics([[tools[i]["name"] for i in row] for row in found], truths)}

    with tempfile.TemporaryDirectory() as tmp:
        listing = os.path.join(tmp, "tools.json")
        with open(listing, "w") as f:
            json.dump(tools, f)
        query_file = os.path.join(tmp, "queries.txt")
        with open(query_file, "w") as f:
            f.write("\n".join(queries) + "\n")
        db = os.path.join(tmp, "catalog.db")
        subprocess.run([args.toolforge, "catalog", "index", "--db", db, "--tools", listing, "--source", "bfcl"],
                       check=True, stdout=subprocess.DEVNULL)
        for mode in args.modes.split(","):
            out = subprocess.run(
                [args.toolforge, "catalog", "search", "--db", db, "--queries", query_file,
                 "--mode", mode, "--max-results", "10", "--model", args.model],
                check=True, capture_output=True, text=True,
            ).stdout
            answers_ = [json.loads(line) for line in out.splitlines() if line.strip()]
            if answers_ and answers_[0]["metadata"]["mode_used"] != mode:
                sys.exit(f"toolforge ran `{answers_[0]['metadata']['mode_used']}` for `{mode}`: {answers_[0]['metadata'].get('note')}")
            rankings = [[r["name"] for r in a["results"]] for a in answers_]
            results[f"toolforge {mode}"] = metrics(rankings, truths)

    print(f"{'system':<20} {'Recall@1':>9} {'Recall@5':>9} {'nDCG@10':>9}")
    for system, m in results.items():
        print(f"{system:<20} {m['recall@1']:>9.3f} {m['recall@5']:>9.3f} {m['ndcg@10']:>9.3f}")

    if args.check:
        base = results["bm25s"]["ndcg@10"]
        failures = []
        if "toolforge fast" in results and results["toolforge fast"]["ndcg@10"] < base:
            failures.append("fast is below bm25s")
        if "toolforge balanced" in results and results["toolforge balanced"]["ndcg@10"] <= base:
            failures.append("balanced does not beat bm25s")
        if failures:
            sys.exit("; ".join(failures))


if __name__ == "__main__":
    main()
