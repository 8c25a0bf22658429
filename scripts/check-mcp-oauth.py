#!/usr/bin/env python3
"""`toolforge serve --http` with `toolforge.auth`, driven by the official MCP Python SDK's
Streamable HTTP client, with access tokens from a real OpenID provider (scripts/with-oidc sets
TOOLFORGE_TEST_OIDC_ISSUER): alice (branch north, scopes mcp read reports) and bob (branch
south, scopes mcp read) each see exactly their rows, bob is not offered the aggregate tool, and
a client without a token is refused with 401 naming the resource metadata.

    scripts/with-oidc python scripts/check-mcp-oauth.py --toolforge target/debug/toolforge
"""

import argparse
import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

CONFIG = """\
name: branches
entities:
  - name: Loan
    unique_field: id
    searchable_fields:
      - {{name: id, type: string}}
      - {{name: branch, type: string}}
      - {{name: amount, type: number}}
toolforge:
  tools: [schema, query, lookup, aggregates]
  access:
    Loan: "branch = :context.branch"
  auth:
    issuer: {issuer}
    required_scopes: [mcp]
    scopes: {{aggregates: reports}}
    claims: {{branch: org.branch}}
"""

LOANS = [("n1", "north", 10), ("n2", "north", 20), ("s1", "south", 30), ("s2", "south", 40)]


def toolforge_run(toolforge, *args):
    subprocess.run([toolforge, *args], check=True, capture_output=True)


@contextlib.contextmanager
def serving(toolforge, config, db):
    process = subprocess.Popen(
        [toolforge, "serve", "--config", config, "--db", db, "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr] + [lines.put(None)],
                     daemon=True).start()
    url = None
    deadline = time.monotonic() + 60
    while url is None:
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        if line is None:
            raise RuntimeError("toolforge serve did not start")
        found = re.search(r"serving MCP at (http://127\.0\.0\.1:\d+/mcp)", line)
        url = found.group(1) if found else None
    try:
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)


def token(issuer, client, scope, resource):
    form = urllib.parse.urlencode({
        "grant_type": "client_credentials", "client_id": client,
        "client_secret": f"{client}-secret", "scope": scope, "resource": resource,
    }).encode()
    with urllib.request.urlopen(f"{issuer}/token", data=form, timeout=30) as answer:
        return json.load(answer)["access_token"]


async def as_caller(url, access_token):
    headers = {"Authorization": f"Bearer {access_token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30)) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = [tool.name for tool in (await session.list_tools()).tools]
                result = await session.call_tool(
                    "query_entities", {"entity_type": "Loan", "order_by": {"field": "id"}})
                rows = [record["id"] for record in result.structured_content["results"]]
                return tools, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--toolforge", required=True)
    args = parser.parse_args()
    issuer = os.environ.get("TOOLFORGE_TEST_OIDC_ISSUER")
    if not issuer:
        sys.exit("TOOLFORGE_TEST_OIDC_ISSUER is not set: run under scripts/with-oidc")
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        config = os.path.join(folder, "branches.yaml")
        with open(config, "w") as file:
            file.write(CONFIG.format(issuer=issuer))
        data = os.path.join(folder, "loans.jsonl")
        with open(data, "w") as file:
            for id_, branch, amount in LOANS:
                file.write(json.dumps({"entity": "Loan", "data": {"id": id_, "branch": branch, "amount": amount}}) + "\n")
        db = os.path.join(folder, "branches.db")
        toolforge_run(args.toolforge, "db", "init", "--config", config, "--db", db)
        toolforge_run(args.toolforge, "db", "import", "--config", config, "--db", db, data)
        with serving(args.toolforge, config, db) as url:
            for client, scope, expected_rows, offered in [
                ("alice", "mcp read reports", ["n1", "n2"], True),
                ("bob", "mcp read", ["s1", "s2"], False),
            ]:
                tools, rows = anyio.run(as_caller, url, token(issuer, client, scope, url))
                print(f"{client}: rows {rows}, aggregate_entities offered: {'aggregate_entities' in tools}")
                if rows != expected_rows:
                    failures.append(f"{client} saw {rows}, expected {expected_rows}")
                if ("aggregate_entities" in tools) != offered:
                    failures.append(f"{client}: aggregate_entities offered is {not offered}")
            try:
                anyio.run(as_caller, url, "not-a-token")
                failures.append("a client with a bad token was served")
            except BaseException as error:  # the SDK raises inside an exception group
                print(f"a bad token: refused ({type(error).__name__})")
            request = urllib.request.Request(url, data=b"{}", method="POST",
                                             headers={"Content-Type": "application/json"})
            try:
                urllib.request.urlopen(request, timeout=30)
                failures.append("a request without a token was served")
            except urllib.error.HTTPError as error:
                challenge = error.headers.get("WWW-Authenticate", "")
                print(f"no token: {error.code} {challenge}")
                if error.code != 401 or "resource_metadata=" not in challenge:
                    failures.append(f"no token: {error.code} {challenge}")
    if failures:
        print("\n".join(f"FAIL {failure}" for failure in failures), file=sys.stderr)
        sys.exit(1)
    print("the official MCP Python SDK: each caller saw exactly its rows and tools")


if __name__ == "__main__":
    main()
