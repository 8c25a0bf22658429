#!/usr/bin/env python3
"""Checks `toolforge serve` with the official MCP Python SDK, over stdio and Streamable HTTP.

The server runs on seeded data: the code-rag config of tests/corpus (its `mcp:` section, which
names tools this config does not generate, replaced by one listing the real tools, plus a
`toolforge.toolsets` entry) with tests/fixtures/code-rag.jsonl imported by `toolforge db`.

Over stdio (`stdio_client`, tools listed in pages of 3) and over Streamable HTTP
(`streamable_http_client`), with the 2025-11-25 handshake (`initialize`) and the 2026-07-28
`server/discover`:
- the server's name and version are those of `mcp.server`;
- `tools/list`, every page followed, lists the config's tools in the same order twice, each
  with a title, annotations and an input schema that is valid JSON Schema, with `ttlMs` and
  `cacheScope` caching hints;
- every tool is called on the seeded data and answers what the data holds; its
  `structuredContent` equals the JSON of its text content and, when the tool has an
  `outputSchema`, validates against it (`jsonschema`);
- invalid arguments come back as a result with `isError: true` naming the argument;
- an unknown tool comes back as the JSON-RPC error -32602 whose `data.candidates` holds the
  nearest name; `batch` runs calls in order, one failure not stopping the others.
Over HTTP only: `/mcp/{toolset}` serves only its tools; `--read-only` only read-only tools;
with `--token-env` a request without the bearer token gets 401 and one with it works; a
foreign `Origin` or `Host` gets 403 while a loopback `Origin` works; a body over
`--max-body-bytes` gets 413 while one just under it is served.
Over stdio and HTTP, 2025-11-25 sessions, each on its own copy of the database: resources
(listed, a record read as Markdown with links to its related records and as JSON, the schema,
unknown URIs refused), prompts (generated ones rendered with their arguments, missing and
disallowed arguments refused), completions (record ids by prefix, entity names), logging (a
failed call's record at `warning`, without the argument's value) and subscriptions (a
`toolforge db import` that changes a subscribed record sends `notifications/resources/updated`
for it and not for the record unsubscribed from; over HTTP with 2026-07-28's
`subscriptions/listen` too, the unknown URI left out of the acknowledgment).

Prints what was checked and exits 1 on any failure (or when a group of checks ran none).

Usage: check-mcp-server.py [--toolforge PATH] [--require-output-schemas]
       check-mcp-server.py --seed DIR     only write DIR/config.yaml and DIR/data.db
"""

import argparse
import contextlib
import http.client
import importlib.metadata
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
import warnings
from collections import Counter

import anyio
import httpx2
import jsonschema
import jsonschema.validators
import mcp.types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ResourceUpdated, listen
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS_CONFIG = os.path.join(ROOT, "tests", "corpus", "ragforge__examples__code-rag__ragforge.config.yaml")
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "code-rag.jsonl")

SERVER_NAME = "code-rag-check"
SERVER_VERSION = "9.8.7"
TOOLS = [
    "get_schema", "describe_entity", "query_entities", "glob_search", "get_entity_by_id",
    "get_entities_by_ids", "explore_relationships", "batch",
]
# The default families and `patterns`, which builds `glob_search` (off unless listed).
FAMILIES = ["schema", "query", "patterns", "lookup", "relationships", "search", "graph"]
TOOLSET = "lookup"
TOOLSET_TOOLS = ["get_schema", "get_entity_by_id", "get_entities_by_ids"]
SERVING = f"""
mcp:
  server:
    name: {SERVER_NAME}
    version: {SERVER_VERSION}
  tools:
{"".join(f"    - name: {name}{chr(10)}" for name in TOOLS)}
toolforge:
  tools: [{", ".join(FAMILIES)}]
  toolsets:
    {TOOLSET}: [{", ".join(TOOLSET_TOOLS)}]
"""
STDIO_PAGE_SIZE = 3
TOKEN_VARIABLE = "TOOLFORGE_CHECK_TOKEN"
BODY_LIMIT = 64 * 1024

# Groups of checks that must each run at least once for the run to count.
REQUIRED = [
    "identity", "listing", "tool metadata", "tool calls", "structured = text",
    "invalid arguments", "unknown tool", "batch", "toolset", "read-only", "bearer token",
    "origin and host", "body limit", "resources", "prompts", "completions", "logging",
    "subscriptions",
]


class Checks:
    """Counts passed checks by group and collects failures."""

    def __init__(self):
        self.passed = Counter()
        self.failures = []

    def check(self, group, where, ok, message):
        if ok:
            self.passed[group] += 1
        else:
            self.failures.append(f"{where}: {message}")
        return ok

    def fail(self, where, message):
        self.failures.append(f"{where}: {message}")


# ---------------------------------------------------------------------------------------------
# Seeding


def seed(toolforge, folder):
    """Writes folder/config.yaml (the corpus config with a real `mcp:` section and a toolset)
    and folder/data.db (the fixture imported); returns both paths."""
    with open(CORPUS_CONFIG, encoding="utf-8") as file:
        text = file.read()
    section = re.search(r"^mcp:\n(?:[ \t#].*\n|\n)*", text, re.M)
    if section is None:
        raise SystemExit(f"{CORPUS_CONFIG}: no top-level `mcp:` section to replace")
    if re.search(r"^toolforge:", text, re.M):
        raise SystemExit(f"{CORPUS_CONFIG}: already has a `toolforge:` section; merge the toolset by hand")
    text = text[: section.start()] + text[section.end():] + SERVING
    config = os.path.join(folder, "config.yaml")
    db = os.path.join(folder, "data.db")
    with open(config, "w", encoding="utf-8") as file:
        file.write(text)
    for command in (
        ["validate", "--config", config, "--strict"],
        ["db", "init", "--config", config, "--db", db],
        ["db", "import", "--config", config, "--db", db, FIXTURE],
    ):
        done = subprocess.run([toolforge, *command], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"toolforge {' '.join(command)} failed:\n{done.stderr}{done.stdout}")
    return config, db


# ---------------------------------------------------------------------------------------------
# The calls, and what the seeded data makes them answer


def names_of(records):
    return [record.get("name") for record in records]


CALLS = [
    (
        "get_schema", {"include_tips": False},
        lambda s: [e["name"] for e in s["entities"]] == ["Scope", "File", "Project"]
        and {r["type"] for r in s["relationships"]} == {"CONSUMES", "CONSUMED_BY", "BELONGS_TO", "DEFINED_IN"},
        "entities Scope, File, Project and the 4 relationships",
    ),
    (
        "describe_entity", {"entity_name": "File"},
        lambda s: s["name"] == "File" and s["unique_field"] == "uuid"
        and [f["name"] for f in s["fields"]] == ["uuid", "path", "extension", "directory"],
        "File with fields uuid, path, extension, directory",
    ),
    (
        "query_entities",
        {
            "entity_type": "Scope",
            "conditions": [{"field": "language", "operator": "=", "value": "typescript"}],
            "order_by": {"field": "startLine", "direction": "ASC"},
        },
        lambda s: s["total"] == 3 and names_of(s["results"]) == ["handleLogin", "SessionStore", "validateToken"],
        "the 3 typescript scopes by start line",
    ),
    (
        "glob_search", {"entity_type": "File", "field": "path", "pattern": "src/*/*.py"},
        lambda s: [r["uuid"] for r in s["results"]] == ["f-db"],
        "only src/db/pool.py",
    ),
    (
        "get_entity_by_id", {"entity_type": "Scope", "id_value": "s-login"},
        lambda s: s["record"]["name"] == "handleLogin" and s["record"]["endLine"] == 42,
        "handleLogin, lines 10 to 42",
    ),
    (
        "get_entities_by_ids", {"entity_type": "Scope", "ids": ["s-main", "s-pool", "nope"], "fields": ["name"]},
        lambda s: names_of(s["results"]) == ["main", "ConnectionPool"] and s["missing"] == ["nope"],
        "main and ConnectionPool, `nope` missing",
    ),
    (
        "explore_relationships",
        {
            "start_entity_type": "Scope",
            "start_conditions": [{"field": "uuid", "operator": "=", "value": "s-login"}],
            "relationship_type": "CONSUMES",
            "direction": "outgoing",
        },
        lambda s: sorted(r["record"]["uuid"] for r in s["results"]) == ["s-session", "s-validate"],
        "handleLogin consumes SessionStore and validateToken",
    ),
]


# ---------------------------------------------------------------------------------------------
# Checks over one MCP session


async def list_all(session):
    """Every tool, following `nextCursor`; returns (tools, pages, first page)."""
    tools, pages, first, cursor = [], 0, None, None
    while True:
        params = mcp.types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        pages += 1
        first = first or page
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            return tools, pages, first
        if pages > 100:
            raise RuntimeError("tools/list did not end after 100 pages")


def schema_problems(schema):
    """Why `schema` is not valid JSON Schema, or None."""
    try:
        jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator).check_schema(schema)
    except jsonschema.SchemaError as error:
        return error.message
    return None


def output_problems(schema, value):
    """Why `value` does not validate against `schema`, or None."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    errors = sorted(cls(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    return "; ".join(f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:3])


def text_json(result):
    """The JSON of a result's single text block."""
    texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
    if len(texts) != 1 or len(result.content) != 1:
        raise ValueError(f"expected one text block, got {[getattr(b, 'type', '?') for b in result.content]}")
    return json.loads(texts[0])


async def session_checks(session, where, checks, stats, expected_pages=1):
    """The checks every transport and protocol version passes."""
    # Identity.
    info = session.server_info
    checks.check(
        "identity", where, info is not None and (info.name, info.version) == (SERVER_NAME, SERVER_VERSION),
        f"server info {info!r}, expected {SERVER_NAME} {SERVER_VERSION} from mcp.server",
    )
    capabilities = session.server_capabilities
    checks.check("identity", where, capabilities is not None and capabilities.tools is not None,
                 "the server does not declare the tools capability")

    # Listing: every page, twice, same order; metadata on every tool.
    tools, pages, first = await list_all(session)
    again, _, _ = await list_all(session)
    names = [tool.name for tool in tools]
    checks.check("listing", where, names == TOOLS, f"tools/list gave {names}, expected {TOOLS}")
    checks.check("listing", where, names == [tool.name for tool in again],
                 f"two listings differ: {names} then {[t.name for t in again]}")
    checks.check("listing", where, pages == expected_pages, f"{pages} pages, expected {expected_pages}")
    hints = first.model_dump(by_alias=True)
    checks.check(
        "listing", where, isinstance(hints.get("ttlMs"), int) and hints.get("cacheScope") is not None,
        f"tools/list without caching hints (ttlMs {hints.get('ttlMs')!r}, cacheScope {hints.get('cacheScope')!r})",
    )
    by_name = {tool.name: tool for tool in tools}
    for tool in tools:
        at = f"{where} {tool.name}"
        checks.check("tool metadata", at, bool(tool.title), "no title")
        checks.check("tool metadata", at, tool.annotations is not None
                     and isinstance(tool.annotations.read_only_hint, bool), "no annotations (readOnlyHint)")
        problem = schema_problems(tool.input_schema)
        checks.check("tool metadata", at, problem is None, f"inputSchema is not valid JSON Schema: {problem}")
        if tool.output_schema is not None:
            problem = schema_problems(tool.output_schema)
            checks.check("tool metadata", at, problem is None, f"outputSchema is not valid JSON Schema: {problem}")
            stats["tools with outputSchema"].add(tool.name)
        else:
            stats["tools without outputSchema"].add(tool.name)

    # Every tool on the seeded data.
    called = set()
    for name, arguments, expect, meaning in CALLS:
        at = f"{where} {name}"
        called.add(name)
        try:
            result = await session.call_tool(name, arguments)
        except Exception as error:  # the SDK's own output-schema check raises here too
            checks.fail(at, f"call raised {type(error).__name__}: {error}")
            continue
        if not checks.check("tool calls", at, not result.is_error, f"isError: {result.content}"):
            continue
        structured = result.structured_content
        try:
            mirrored = text_json(result)
        except ValueError as error:
            checks.fail(at, f"text content is not one JSON text: {error}")
            continue
        checks.check("structured = text", at, isinstance(structured, dict) and mirrored == structured,
                     "structuredContent is not an object equal to the text content's JSON")
        try:
            answered = expect(structured)
        except (KeyError, TypeError, IndexError) as error:
            answered = False
            meaning += f" ({type(error).__name__}: {error})"
        checks.check("tool calls", at, answered, f"expected {meaning}, got {json.dumps(structured)[:400]}")
        schema = by_name[name].output_schema if name in by_name else None
        if schema is not None:
            problem = output_problems(schema, structured)
            checks.check("output schemas", at, problem is None, f"structuredContent fails its outputSchema: {problem}")
    missing = [name for name in names if name not in called and name != "batch"]
    checks.check("tool calls", where, not missing, f"tools listed but not called by this check: {missing}")

    # Invalid arguments: a result the model reads, not a protocol error.
    for arguments, path in (
        ({"entity_type": "Nope"}, "/entity_type"),
        ({"entity_type": "Scope", "limit": "ten"}, "/limit"),
    ):
        at = f"{where} query_entities {json.dumps(arguments)}"
        try:
            result = await session.call_tool("query_entities", arguments)
        except Exception as error:
            checks.fail(at, f"invalid arguments raised {type(error).__name__}: {error} instead of an isError result")
            continue
        body = text_json(result) if result.content else {}
        problems = body.get("details", {}).get("problems", [])
        checks.check(
            "invalid arguments", at,
            result.is_error is True and body.get("error") == "invalid_arguments"
            and any(p.get("path") == path for p in problems),
            f"expected isError with invalid_arguments at {path}, got isError={result.is_error} {body}",
        )

    # An unknown tool: JSON-RPC -32602 with the nearest names.
    at = f"{where} query_entitys"
    try:
        await session.call_tool("query_entitys", {"entity_type": "Scope"})
        checks.fail(at, "an unknown tool was answered with a result, expected JSON-RPC error -32602")
    except MCPError as error:
        data = error.data if isinstance(error.data, dict) else {}
        checks.check(
            "unknown tool", at,
            error.code == -32602 and data.get("candidates", [None])[0] == "query_entities"
            and data.get("requested") == "query_entitys",
            f"expected -32602 with candidates [query_entities, ...], got {error.code} {error.data}",
        )

    # batch: in order, one failure not stopping the others.
    at = f"{where} batch"
    result = await session.call_tool("batch", {"calls": [
        {"tool": "get_entity_by_id", "args": {"entity_type": "Project", "id_value": "p-cli"}},
        {"tool": "query_entitys", "args": {}},
        {"tool": "query_entities", "args": {"entity_type": "Nope"}},
        {"tool": "glob_search", "args": {"entity_type": "Scope", "field": "name", "pattern": "*Pool"}},
    ]})
    results = (result.structured_content or {}).get("results", [])
    checks.check(
        "batch", at,
        not result.is_error
        and [r.get("tool") for r in results] == ["get_entity_by_id", "query_entitys", "query_entities", "glob_search"]
        and [r.get("ok") for r in results] == [True, False, False, True]
        and results[0]["result"]["record"]["name"] == "cli"
        and results[1]["error"]["candidates"][:1] == ["query_entities"]
        and results[2]["error"]["error"] == "invalid_arguments"
        and [r["uuid"] for r in results[3]["result"]["results"]] == ["s-pool"],
        f"unexpected batch answer {json.dumps(result.structured_content)[:600]}",
    )
    checks.check("structured = text", at, text_json(result) == result.structured_content,
                 "structuredContent differs from the text content's JSON")
    return tools


async def open_session(session, protocol):
    if protocol == "handshake":
        await session.initialize()
    else:
        await session.discover()


# ---------------------------------------------------------------------------------------------
# Servers


class HttpServer:
    """`toolforge serve --http 127.0.0.1:0`, its port read from the line it prints."""

    def __init__(self, toolforge, config, db, *extra, env=None):
        self.command = [toolforge, "serve", "--config", config, "--db", db, "--http", "127.0.0.1:0", *extra]
        self.env = {**os.environ, **(env or {})}
        self.log = []
        self.url = None

    def __enter__(self):
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, env=self.env,
        )
        lines = queue.Queue()

        def drain():
            for line in self.process.stderr:
                self.log.append(line)
                lines.put(line)
            lines.put(None)

        threading.Thread(target=drain, daemon=True).start()
        deadline = time.monotonic() + 60
        while self.url is None:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                self.__exit__(None, None, None)
                raise RuntimeError(f"{' '.join(self.command)} did not start:\n{''.join(self.log[-20:])}")
            found = re.search(r"serving MCP at (http://127\.0\.0\.1:\d+)/mcp", line)
            if found:
                self.url = found.group(1)
        return self

    def __exit__(self, *_):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return False

    @property
    def host_port(self):
        return self.url.removeprefix("http://")


def raw_post(server, path, body, headers=None):
    """POSTs `body` to the server; returns (status, headers). Does not read a success body,
    which may be an event stream."""
    host, port = server.host_port.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        sent = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **(headers or {}),
        }
        connection.request("POST", path, body=body, headers=sent)
        response = connection.getresponse()
        return response.status, dict(response.getheaders())
    finally:
        connection.close()


def leaves(error):
    """The exceptions inside (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def initialize_body(padding=0):
    request = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "check-mcp-server", "version": "1"},
        },
    }
    return (json.dumps(request) + " " * padding).encode()


@contextlib.asynccontextmanager
async def http_session(url, protocol, headers=None):
    async with httpx2.AsyncClient(headers=headers or {}, timeout=httpx2.Timeout(30, read=120)) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await open_session(session, protocol)
                yield session


# ---------------------------------------------------------------------------------------------
# Resources, prompts, completions, logging and subscriptions


def notification_collector():
    """A message handler for ClientSession that keeps the server's notifications."""
    seen = []

    async def handler(message):
        if isinstance(message, mcp.types.ServerNotification):
            seen.append(message.root if hasattr(message, "root") else message)
        elif not isinstance(message, Exception):
            seen.append(message)

    return seen, handler


async def wait_for(seen, predicate, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = [n for n in seen if predicate(n)]
        if found:
            return found[0]
        await anyio.sleep(0.1)
    return None


async def offer_checks(session, seen, where, checks, toolforge, config, db):
    """What a server offers besides tools, through the official client; `db` is a copy the
    check may change. Logging and resources/subscribe are of 2025-11-25 sessions (2026-07-28
    deprecates them), which the SDK warns of."""
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    capabilities = session.server_capabilities
    checks.check(
        "resources", where,
        capabilities.resources is not None and capabilities.resources.subscribe
        and capabilities.prompts is not None and capabilities.completions is not None
        and capabilities.logging is not None,
        f"capabilities without resources, prompts, completions or logging: {capabilities!r}",
    )
    listed = await session.list_resources()
    uris = [str(r.uri) for r in listed.resources]
    checks.check("resources", where,
                 "toolforge://schema" in uris and "toolforge://Scope/s-login" in uris
                 and "toolforge://Project/p-core" in uris,
                 f"resources/list gave {uris}")
    templates = await session.list_resource_templates()
    checks.check("resources", where,
                 [t.uri_template for t in templates.resource_templates]
                 == ["toolforge://Scope/{id}", "toolforge://File/{id}", "toolforge://Project/{id}"],
                 f"templates {[t.uri_template for t in templates.resource_templates]}")
    read = await session.read_resource("toolforge://Scope/s-login")
    text = read.contents[0].text
    checks.check("resources", where,
                 read.contents[0].mime_type == "text/markdown" and "handleLogin" in text
                 and "(toolforge://File/f-auth)" in text and "(toolforge://Project/p-core)" in text,
                 f"the record's Markdown lacks its fields or related records:\n{text[:800]}")
    read = await session.read_resource("toolforge://Scope/s-login?format=json")
    record = json.loads(read.contents[0].text)
    checks.check("resources", where,
                 read.contents[0].mime_type == "application/json" and record.get("name") == "handleLogin",
                 f"the record as JSON: {read.contents[0].text[:300]}")
    schema = json.loads((await session.read_resource("toolforge://schema")).contents[0].text)
    checks.check("resources", where, "Scope" in json.dumps(schema.get("entities", schema))[:100000],
                 "the schema resource does not describe Scope")
    for missing in ("toolforge://Scope/no-such-scope", "toolforge://Nothing/1"):
        try:
            await session.read_resource(missing)
            checks.fail(where, f"reading {missing} did not fail")
        except MCPError as error:
            checks.check("resources", where, error.error.code in (-32002, -32602),
                         f"reading {missing}: code {error.error.code}")

    prompts = [p.name for p in (await session.list_prompts()).prompts]
    checks.check("prompts", where, {"explore_entity", "find_records_about"} <= set(prompts),
                 f"prompts/list gave {prompts}")
    got = await session.get_prompt("find_records_about", {"topic": "session handling", "entity": "Scope"})
    said = got.messages[0].content.text
    checks.check("prompts", where,
                 "session handling" in said and "Scope" in said and "`get_entity_by_id`" in said,
                 f"find_records_about rendered as: {said}")
    for arguments, expected in (({}, "needs the argument `topic`"),
                                ({"topic": "x", "entity": "Nothing"}, "is not a value of the argument `entity`")):
        try:
            await session.get_prompt("find_records_about", arguments)
            checks.fail(where, f"prompts/get with {arguments} did not fail")
        except MCPError as error:
            checks.check("prompts", where, expected in error.error.message,
                         f"prompts/get with {arguments}: {error.error.message}")

    ref = mcp.types.ResourceTemplateReference(type="ref/resource", uri="toolforge://Scope/{id}")
    done = await session.complete(ref, {"name": "id", "value": "s-p"})
    values = done.completion.values
    checks.check("completions", where, values and all(v.startswith("s-p") for v in values) and "s-pool" in values,
                 f"ids completed from `s-p`: {values}")
    prompt = mcp.types.PromptReference(type="ref/prompt", name="explore_entity")
    done = await session.complete(prompt, {"name": "entity", "value": "f"})
    checks.check("completions", where, done.completion.values == ["File"],
                 f"entity names completed from `f`: {done.completion.values}")

    await session.set_logging_level("warning")
    secret = "no-such-scope-" + os.urandom(4).hex()
    result = await session.call_tool("get_entity_by_id", {"entity_type": "Scope", "id_value": secret})
    record = await wait_for(seen, lambda n: isinstance(n, mcp.types.LoggingMessageNotification)
                            and isinstance(n.params.data, dict) and n.params.data.get("tool") == "get_entity_by_id")
    checks.check("logging", where,
                 result.is_error and record is not None and record.params.level == "warning"
                 and record.params.data.get("error") == "not_found" and secret not in json.dumps(record.params.data),
                 f"the failed call's log record: {record!r}")

    await session.subscribe_resource("toolforge://Scope/s-login")
    await session.subscribe_resource("toolforge://Scope/s-main")
    await session.unsubscribe_resource("toolforge://Scope/s-main")
    change = os.path.join(os.path.dirname(db), "change.jsonl")
    with open(change, "w", encoding="utf-8") as file:
        for uuid, name, path, language in (("s-login", "handleLoginRenamed", "src/auth/login.ts", "typescript"),
                                           ("s-main", "mainRenamed", "src/main.js", "javascript")):
            file.write(json.dumps({"entity": "Scope", "data": {
                "uuid": uuid, "name": name, "type": "function", "file": path, "language": language}}) + "\n")
    subprocess.run([toolforge, "db", "import", "--config", config, "--db", db, change],
                   check=True, capture_output=True)
    updated = await wait_for(seen, lambda n: isinstance(n, mcp.types.ResourceUpdatedNotification))
    await anyio.sleep(2.5)  # two more watch intervals: no notification for the unsubscribed record
    updates = [str(n.params.uri) for n in seen if isinstance(n, mcp.types.ResourceUpdatedNotification)]
    checks.check("subscriptions", where, updated is not None and updates == ["toolforge://Scope/s-login"],
                 f"notifications after the import: {updates}")
    text = (await session.read_resource("toolforge://Scope/s-login")).contents[0].text
    checks.check("subscriptions", where, "handleLoginRenamed" in text, "the record read after the import is the old one")


def write_change(db, name):
    """A JSON-lines file renaming s-login to `name`, beside `db`."""
    change = os.path.join(os.path.dirname(db), f"change-{name}.jsonl")
    with open(change, "w", encoding="utf-8") as file:
        file.write(json.dumps({"entity": "Scope", "data": {
            "uuid": "s-login", "name": name, "type": "function",
            "file": "src/auth/login.ts", "language": "typescript"}}) + "\n")
    return change


async def listen_checks(session, checks, toolforge, config, db):
    """2026-07-28: `subscriptions/listen` with resource subscriptions; the server honours the
    URIs it serves and sends the change an import makes on the stream."""
    where = "offers/http/listen"
    async with listen(session, resource_subscriptions=["toolforge://Scope/s-login", "toolforge://Nothing/1"]) as sub:
        checks.check("subscriptions", where, sub.honored.resource_subscriptions == ["toolforge://Scope/s-login"],
                     f"honoured {sub.honored!r}")
        subprocess.run([toolforge, "db", "import", "--config", config, "--db", db,
                        write_change(db, "handleLoginListened")], check=True, capture_output=True)
        with anyio.fail_after(15):
            event = await sub.__anext__()
        checks.check("subscriptions", where,
                     isinstance(event, ResourceUpdated) and event.uri == "toolforge://Scope/s-login",
                     f"the event after the import: {event!r}")


async def check_offers(toolforge, config, db, checks, folder, log):
    """offer_checks over stdio and over HTTP (2025-11-25 sessions), each on its own copy of
    the database, which it changes."""
    for where in ("stdio", "http"):
        copy = os.path.join(folder, f"offers-{where}.db")
        with open(db, "rb") as source, open(copy, "wb") as target:
            target.write(source.read())
        seen, handler = notification_collector()
        try:
            if where == "stdio":
                parameters = StdioServerParameters(
                    command=toolforge, args=["serve", "--config", config, "--db", copy])
                async with stdio_client(parameters, errlog=log) as (read, write):
                    async with ClientSession(read, write, message_handler=handler) as session:
                        await session.initialize()
                        await offer_checks(session, seen, "offers/stdio", checks, toolforge, config, copy)
            else:
                with HttpServer(toolforge, config, copy) as server:
                    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120)) as client:
                        async with streamable_http_client(server.url + "/mcp", http_client=client) as (read, write):
                            async with ClientSession(read, write, message_handler=handler) as session:
                                await session.initialize()
                                await offer_checks(session, seen, "offers/http", checks, toolforge, config, copy)
                    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120)) as client:
                        async with streamable_http_client(server.url + "/mcp", http_client=client) as (read, write):
                            async with ClientSession(read, write) as session:
                                await session.discover()
                                await listen_checks(session, checks, toolforge, config, copy)
        except Exception as error:
            details = "; ".join(f"{type(e).__name__}: {e}" for e in leaves(error))
            checks.fail(f"offers/{where}", details)


# ---------------------------------------------------------------------------------------------
# The runs


async def check_stdio(toolforge, config, db, checks, stats, log):
    for protocol in ("handshake", "discover"):
        where = f"stdio/{protocol}"
        parameters = StdioServerParameters(
            command=toolforge,
            args=["serve", "--config", config, "--db", db, "--page-size", str(STDIO_PAGE_SIZE),
                  "--output-schemas"],
        )
        try:
            async with stdio_client(parameters, errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    await open_session(session, protocol)
                    pages = -(-len(TOOLS) // STDIO_PAGE_SIZE)
                    await session_checks(session, where, checks, stats, expected_pages=pages)
        except Exception as error:
            checks.fail(where, f"{type(error).__name__}: {error}")


async def check_http(toolforge, config, db, checks, stats):
    with HttpServer(toolforge, config, db, "--output-schemas") as server:
        try:
            await check_default_http(server, checks, stats)
        except Exception as error:
            checks.fail("http", f"{type(error).__name__}: {error}\nserver log:\n{''.join(server.log[-20:])}")
    with HttpServer(toolforge, config, db, "--read-only") as server:
        try:
            await check_read_only(server, checks, stats)
        except Exception as error:
            checks.fail("http --read-only", f"{type(error).__name__}: {error}")
    token = "check-" + os.urandom(12).hex()
    with HttpServer(
        toolforge, config, db, "--token-env", TOKEN_VARIABLE, "--max-body-bytes", str(BODY_LIMIT),
        env={TOKEN_VARIABLE: token},
    ) as server:
        try:
            await check_token_and_body(server, token, checks)
        except Exception as error:
            checks.fail("http --token-env", f"{type(error).__name__}: {error}")


async def check_default_http(server, checks, stats):
    listed = {}
    for protocol in ("handshake", "discover"):
        where = f"http/{protocol}"
        async with http_session(f"{server.url}/mcp", protocol) as session:
            listed[protocol] = await session_checks(session, where, checks, stats)
    stats["full listing"] = listed["handshake"]

    # A toolset serves only its tools.
    where = f"http /mcp/{TOOLSET}"
    async with http_session(f"{server.url}/mcp/{TOOLSET}", "handshake") as session:
        tools, _, _ = await list_all(session)
        names = [tool.name for tool in tools if tool.name != "batch"]
        checks.check("toolset", where, names == TOOLSET_TOOLS, f"lists {names}, expected {TOOLSET_TOOLS}")
        result = await session.call_tool("get_entity_by_id", {"entity_type": "File", "id_value": "f-main"})
        checks.check("toolset", where, not result.is_error and result.structured_content["record"]["path"] == "src/main.js",
                     f"get_entity_by_id answered {result.content}")
        try:
            await session.call_tool("query_entities", {"entity_type": "Scope"})
            checks.fail(where, "query_entities (not in the toolset) was served")
        except MCPError as error:
            checks.check("toolset", where, error.code == -32602, f"query_entities gave {error.code}, expected -32602")
        if "batch" in [tool.name for tool in tools]:
            result = await session.call_tool("batch", {"calls": [{"tool": "query_entities", "args": {"entity_type": "Scope"}}]})
            outcome = (result.structured_content or {}).get("results", [{}])[0]
            checks.check("toolset", where, outcome.get("ok") is False,
                         f"batch reached query_entities outside the toolset: {outcome}")

    # Origin and Host (DNS rebinding); no token needed on this server.
    status, _ = raw_post(server, "/mcp", initialize_body())
    checks.check("origin and host", "http no Origin", status == 200, f"status {status}, expected 200")
    status, _ = raw_post(server, "/mcp", initialize_body(), {"Origin": "http://evil.example"})
    checks.check("origin and host", "http Origin http://evil.example", status == 403, f"status {status}, expected 403")
    status, _ = raw_post(server, "/mcp", initialize_body(), {"Origin": server.url})
    checks.check("origin and host", f"http Origin {server.url}", status == 200, f"status {status}, expected 200")
    status, _ = raw_post(server, "/mcp", initialize_body(), {"Host": "evil.example"})
    checks.check("origin and host", "http Host evil.example", status == 403, f"status {status}, expected 403")


async def check_read_only(server, checks, stats):
    where = "http --read-only"
    full = stats.get("full listing") or []
    expected = [t.name for t in full if t.name == "batch" or (t.annotations and t.annotations.read_only_hint is True)]
    async with http_session(f"{server.url}/mcp", "handshake") as session:
        tools, _, _ = await list_all(session)
        names = [tool.name for tool in tools]
        checks.check("read-only", where, bool(full) and names == expected,
                     f"lists {names}, expected the read-only tools of the full listing {expected}")
        for tool in tools:
            checks.check("read-only", f"{where} {tool.name}",
                         tool.annotations is not None and tool.annotations.read_only_hint is True,
                         "served without readOnlyHint: true")
            # Without --output-schemas, tools/list carries none (results stay structured).
            checks.check("read-only", f"{where} {tool.name}", tool.output_schema is None,
                         "lists an outputSchema without --output-schemas")
        result = await session.call_tool("get_entity_by_id", {"entity_type": "Scope", "id_value": "s-main"})
        checks.check("read-only", where, not result.is_error, f"a read-only call failed: {result.content}")


async def check_token_and_body(server, token, checks):
    where = "http --token-env"
    status, headers = raw_post(server, "/mcp", initialize_body())
    checks.check("bearer token", f"{where} without a token", status == 401
                 and headers.get("www-authenticate", headers.get("WWW-Authenticate", "")).startswith("Bearer"),
                 f"status {status} {headers}, expected 401 with WWW-Authenticate: Bearer")
    status, _ = raw_post(server, "/mcp", initialize_body(), {"Authorization": f"Bearer {token}x"})
    checks.check("bearer token", f"{where} with a wrong token", status == 401, f"status {status}, expected 401")
    try:
        async with http_session(f"{server.url}/mcp", "handshake") as session:
            await session.list_tools()
        checks.fail(f"{where} SDK client without a token", "was served")
    except Exception as error:  # the SDK reports the 401 as an MCPError inside task groups
        refused = any(isinstance(e, MCPError) for e in leaves(error))
        checks.check("bearer token", f"{where} SDK client without a token", refused,
                     f"failed otherwise than by the server's refusal: {error!r}")
    async with http_session(f"{server.url}/mcp", "handshake", {"Authorization": f"Bearer {token}"}) as session:
        tools, _, _ = await list_all(session)
        result = await session.call_tool("get_entity_by_id", {"entity_type": "Scope", "id_value": "s-login"})
        checks.check("bearer token", f"{where} SDK client with the token",
                     [t.name for t in tools] == TOOLS and not result.is_error
                     and result.structured_content["record"]["name"] == "handleLogin",
                     f"listed {[t.name for t in tools]}, call answered {result.content}")

    auth = {"Authorization": f"Bearer {token}"}
    under = initialize_body(BODY_LIMIT - len(initialize_body()) - 16)
    status, _ = raw_post(server, "/mcp", under, auth)
    checks.check("body limit", f"{where} body of {len(under)} bytes (limit {BODY_LIMIT})", status == 200,
                 f"status {status}, expected 200")
    over = initialize_body(BODY_LIMIT + 1024)
    status, _ = raw_post(server, "/mcp", over, auth)
    checks.check("body limit", f"{where} body of {len(over)} bytes (limit {BODY_LIMIT})", status == 413,
                 f"status {status}, expected 413")
    status, _ = raw_post(server, "/mcp", initialize_body(), {**auth, "Origin": "http://evil.example"})
    checks.check("origin and host", f"{where} Origin http://evil.example with the token", status == 403,
                 f"status {status}, expected 403")


async def run(toolforge, require_output_schemas):
    checks = Checks()
    stats = {"tools with outputSchema": set(), "tools without outputSchema": set()}
    with tempfile.TemporaryDirectory(prefix="toolforge-mcp-check-") as folder:
        config, db = seed(toolforge, folder)
        with open(os.path.join(folder, "stdio-server.log"), "w+", encoding="utf-8") as log:
            await check_stdio(toolforge, config, db, checks, stats, log)
            if checks.failures:
                log.seek(0)
                print("stdio server log (last lines):\n" + "".join(log.readlines()[-20:]), file=sys.stderr)
        await check_http(toolforge, config, db, checks, stats)
        with open(os.path.join(folder, "offers-server.log"), "w+", encoding="utf-8") as log:
            await check_offers(toolforge, config, db, checks, folder, log)

    with_schema = sorted(stats["tools with outputSchema"])
    without = sorted(stats["tools without outputSchema"] - {"batch"})
    if require_output_schemas and without:
        checks.fail("output schemas", f"database tools without an outputSchema: {without}")

    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in ["mcp", "jsonschema"])
    print(f"checked `toolforge serve` with {versions}: stdio and Streamable HTTP, handshake and server/discover")
    for group in REQUIRED + ["output schemas"]:
        print(f"  {group:18} {checks.passed[group]:4} passed")
    print(f"  tools with an outputSchema: {', '.join(with_schema) or 'none'}")
    if without:
        print(f"  tools without one (their results are checked as structured = text only): {', '.join(without)}")
    empty = [group for group in REQUIRED if checks.passed[group] == 0]
    for group in empty:
        checks.fail(group, "no check of this group ran")
    if require_output_schemas and checks.passed["output schemas"] == 0:
        checks.fail("output schemas", "no result was validated against an outputSchema")
    total = sum(checks.passed.values())
    print(f"mcp-server: {total} passed, {len(checks.failures)} failed")
    if checks.failures:
        print(f"{len(checks.failures)} failures:", file=sys.stderr)
        for failure in checks.failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toolforge", default=os.path.join(ROOT, "target", "debug", "toolforge"))
    parser.add_argument("--require-output-schemas", action="store_true",
                        help="fail when a database tool has no outputSchema")
    parser.add_argument("--seed", metavar="DIR", help="only write DIR/config.yaml and DIR/data.db, then exit")
    args = parser.parse_args()
    toolforge = os.path.abspath(args.toolforge)
    if args.seed:
        os.makedirs(args.seed, exist_ok=True)
        config, db = seed(toolforge, args.seed)
        print(f"{config}\n{db}")
        return 0
    return anyio.run(run, toolforge, args.require_output_schemas)


if __name__ == "__main__":
    sys.exit(main())
