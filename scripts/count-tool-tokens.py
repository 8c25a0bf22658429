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
    /tmp/tokens/bin/python scripts/count-tool-tokens.py target/debug/toolforge --defer-tools tests/corpus/*.yaml

`--defer-tools` counts what `toolforge serve --defer-tools` lists (progressive discovery:
`tool_search` and the core tools), over stdio on an empty database of each config.

Prints a Markdown table, one row per config, and the totals.
"""

import json
import os
import subprocess
import sys
import tempfile

import bpe_openai


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def served_tools(toolforge, config, flags):
    """`tools/list` of `toolforge serve FLAGS` over stdio, on an empty database of `config`."""
    with tempfile.TemporaryDirectory() as folder:
        db = os.path.join(folder, "tokens.db")
        init = subprocess.run([toolforge, "db", "init", "--config", config, "--db", db],
                              capture_output=True, text=True)
        if init.returncode != 0:
            return None
        server = subprocess.Popen([toolforge, "serve", "--config", config, "--db", db, *flags],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        try:
            def send(message):
                server.stdin.write(json.dumps(message) + "\n")
                server.stdin.flush()

            def answer(wanted):
                for line in server.stdout:
                    message = json.loads(line)
                    if message.get("id") == wanted:
                        return message["result"]
                raise EOFError("the server closed stdout")

            if server.poll() is not None:
                return None
            send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "count-tool-tokens", "version": "1"}}})
            answer(0)
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            tools, cursor, page = [], None, 1
            while True:
                send({"jsonrpc": "2.0", "id": page, "method": "tools/list",
                      "params": {"cursor": cursor} if cursor else {}})
                result = answer(page)
                tools += result["tools"]
                cursor, page = result.get("nextCursor"), page + 1
                if not cursor:
                    return tools
        except (EOFError, BrokenPipeError):
            return None  # `serve` refused the config (its error is what `serve` prints)
        finally:
            server.kill()
            server.wait()


def main():
    args = sys.argv[1:]
    extra = ["--output-schemas"] if "--output-schemas" in args else []
    served = ["--defer-tools"] if "--defer-tools" in args else []
    args = [a for a in args if a not in ("--output-schemas", "--defer-tools")]
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
        if served:
            tools = served_tools(toolforge, config, served + extra)
        else:
            run = subprocess.run(
                [toolforge, "tools", "list", "--config", config, "--format", "mcp", *extra],
                capture_output=True,
                text=True,
            )
            tools = json.loads(run.stdout) if run.returncode == 0 and run.stdout.strip() else None
        if tools is None:
            why = "not served: skipped" if served else "not valid: skipped"
            print(f"| {os.path.basename(config)} | {why} | | | | |")
            continue
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
