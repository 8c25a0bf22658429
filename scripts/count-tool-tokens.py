#!/usr/bin/env python3
"""What the tool definitions cost a model: tokens (o200k_base) of `tools/list` for every config.

For each config, `toolforge tools list --format mcp` (what `toolforge serve` lists) is encoded
as a client receives it (compact JSON, `{"tools": [...]}`) and split into its parts: tool
descriptions, input schemas, output schemas (listed only with `--output-schemas`, passed on to
`tools list`; a model is usually shown the first two).

    python3 -m venv /tmp/tokens && /tmp/tokens/bin/pip install -r scripts/count-tool-tokens.requirements.txt
    cargo build -p toolforge-cli
    /tmp/tokens/bin/python scripts/count-tool-tokens.py target/debug/toolforge tests/corpus/*.yaml
    /tmp/tokens/bin/python scripts/count-tool-tokens.py target/debug/toolforge --output-schemas tests/corpus/*.yaml

Prints a Markdown table, one row per config, and the totals.
"""

import json
import os
import subprocess
import sys

import bpe_openai


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def main():
    args = sys.argv[1:]
    extra = ["--output-schemas"] if "--output-schemas" in args else []
    args = [a for a in args if a != "--output-schemas"]
    if len(args) < 2:
        print(__doc__.strip().split("\n\n")[2], file=sys.stderr)
        return 2
    toolforge, configs = args[0], args[1:]
    encoding = bpe_openai.get_encoding("o200k_base")
    tokens = lambda text: len(encoding.encode(text))
    print("| config | tools | tools/list | descriptions | input schemas | output schemas |")
    print("|---|---|---|---|---|---|")
    sums = [0, 0, 0, 0]
    for config in configs:
        run = subprocess.run(
            [toolforge, "tools", "list", "--config", config, "--format", "mcp", *extra],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0 or not run.stdout.strip():
            print(f"| {os.path.basename(config)} | not valid: skipped | | | | |")
            continue
        tools = json.loads(run.stdout)
        parts = [
            tokens(compact({"tools": tools})),
            sum(tokens(tool.get("description", "")) for tool in tools),
            sum(tokens(compact(tool.get("inputSchema", {}))) for tool in tools),
            sum(tokens(compact(tool["outputSchema"])) for tool in tools if "outputSchema" in tool),
        ]
        sums = [a + b for a, b in zip(sums, parts)]
        name = os.path.basename(config).removesuffix(".yaml")
        print(f"| {name} | {len(tools)} | " + " | ".join(f"{p:,}" for p in parts) + " |")
    print("| **all** | | " + " | ".join(f"**{p:,}**" for p in sums) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
