#!/usr/bin/env python3
"""toolforge against MCP Toolbox and DBHub: the same data, the same questions, one load generator.

Run through `scripts/bench-peers` (it installs the peers and builds toolforge); this file does
the rest:

1. writes a bookshop (books, authors, WRITTEN_BY; seeded, so every run has the same data) and
   loads it with `toolforge db import` into SQLite and, when TOOLFORGE_TEST_POSTGRES_URL is set,
   PostgreSQL;
2. gives each peer the statement tools a user would write for the same questions, over the
   same tables (Toolbox: `tools.yaml`; DBHub: `dbhub.toml`, custom tools);
3. starts the three servers on loopback (Streamable HTTP), timing each start-up until it
   answers `tools/list`;
4. checks that the three answer every question with the same records, in the same order;
5. drives each (server, question) with wrk (16 connections) for `--seconds`, in `--rounds`
   interleaved rounds (the order of the servers rotating), after a warm-up run, and counts an
   answer that is not a successful tool result as an error;
6. prints calls/s, p50 and p99 (the median over the rounds), the peak memory of each server,
   its start-up time and its `tools/list` in bytes and o200k_base tokens, and the ratios.

With `--existing`, the database is the one a team already has: tables of its own design
(`books`, `authors`, `book_authors`; a FTS5 table over `books` on SQLite, a GIN index over its
tsvector on PostgreSQL) written by this script, not by toolforge. toolforge reads them through a
config that maps them (`table:`, `join_table:`, its full-text index in its side store, made by
`toolforge db init`), the peers through statements over the same tables; and a fourth server,
toolforge over the same data imported into its own schema, measures what the mapping costs.

With `--baseline TOOLFORGE`, another toolforge binary (an earlier build) serves the same
database beside the others, in the same interleaved rounds: the report gives the current
build's calls/s and p99 as ratios of the baseline's, measured in the same run.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

CONFIG = """\
name: bookshop
version: 1.0.0
description: The books of a bookshop and the authors who wrote them
entities:
  - name: Book
    description: A book of the catalogue
    unique_field: isbn
    display_name_field: title
    searchable_fields:
      - {name: isbn, type: string, description: The ISBN-13}
      - {name: title, type: string, description: The title}
      - {name: genre, type: string, description: The genre}
      - {name: year, type: number, description: Year of publication}
      - {name: pages, type: number, description: Number of pages}
      - {name: blurb, type: string, description: The back-cover text}
    full_text_index: {fields: [title, blurb]}
    relationships:
      - {type: WRITTEN_BY, direction: outgoing, target: Author, description: The book's authors}
  - name: Author
    description: A person who wrote books of the catalogue
    unique_field: slug
    display_name_field: name
    searchable_fields:
      - {name: slug, type: string, description: Lower-case id}
      - {name: name, type: string, description: Full name}
      - {name: born, type: number, description: Year of birth}
    relationships:
      - {type: WRITTEN_BY, direction: incoming, target: Book, description: The books the author wrote}
toolforge:
  tools: [schema, query, lookup, relationships, search]
"""

# The same bookshop as a team's own tables, read where they are (`--existing`).
EXISTING_CONFIG = """\
name: bookshop
version: 1.0.0
description: The books of a bookshop and the authors who wrote them
entities:
  - name: Book
    description: A book of the catalogue
    table: books
    unique_field: isbn
    display_name_field: title
    searchable_fields:
      - {name: isbn, type: string, description: The ISBN-13}
      - {name: title, type: string, description: The title}
      - {name: genre, type: string, description: The genre}
      - {name: year, type: integer, description: Year of publication}
      - {name: pages, type: integer, description: Number of pages}
      - {name: blurb, type: string, description: The back-cover text}
    full_text_index: {fields: [title, blurb]}
    relationships:
      - type: WRITTEN_BY
        target: Author
        description: The book's authors
        join_table: {table: book_authors, source_column: isbn, target_column: slug}
  - name: Author
    description: A person who wrote books of the catalogue
    table: authors
    unique_field: slug
    display_name_field: name
    searchable_fields:
      - {name: slug, type: string, description: Lower-case id}
      - {name: name, type: string, description: Full name}
      - {name: born, type: integer, description: Year of birth}
toolforge:
  tools: [schema, query, lookup, relationships, search]
"""

EXISTING_SCHEMA = """\
CREATE TABLE books (isbn TEXT PRIMARY KEY, title TEXT NOT NULL, genre TEXT, year INTEGER,
                    pages INTEGER, blurb TEXT);
CREATE TABLE authors (slug TEXT PRIMARY KEY, name TEXT, born INTEGER);
CREATE TABLE book_authors (isbn TEXT REFERENCES books, slug TEXT REFERENCES authors,
                           PRIMARY KEY (isbn, slug));
CREATE INDEX book_authors_slug ON book_authors (slug);
"""

GENRES = [
    "novel", "science-fiction", "fantasy", "crime", "thriller", "romance", "horror",
    "history", "biography", "essay", "poetry", "drama", "travel", "cooking", "science",
    "philosophy", "art", "children", "humour", "religion",
]
BOOK_COLUMNS = "isbn, title, genre, year, pages, blurb"

# The questions: what each server is asked, and the statement each peer is given for it.
# `{ph}` is a placeholder (`?` on SQLite, `$1` on PostgreSQL).
QUESTIONS = {
    "lookup": {
        "what": "one record by its unique id",
        "parameter": ("isbn", "The book's ISBN-13"),
        "statement": f"SELECT {BOOK_COLUMNS} FROM book WHERE isbn = {{ph}}",
    },
    "list": {
        "what": "20 records of one genre, newest first (no index on genre)",
        "parameter": ("genre", "The genre"),
        "statement": f"SELECT {BOOK_COLUMNS} FROM book WHERE genre = {{ph}} "
        "ORDER BY year DESC, isbn LIMIT 20",
    },
    "hop": {
        "what": "the books an author wrote (a relationship hop), 20 of them",
        "parameter": ("slug", "The author's slug"),
        "statement": f"SELECT {', '.join('b.' + c.strip() for c in BOOK_COLUMNS.split(','))} "
        "FROM book__written_by__author e JOIN book b ON b.isbn = e.source_id "
        "WHERE e.target_id = {ph} ORDER BY b.isbn LIMIT 20",
    },
    "full_text": {
        "what": "the 10 best matches of a word (BM25)",
        "parameter": ("word", "A word to search for"),
        "sqlite": f"SELECT {', '.join('b.' + c.strip() for c in BOOK_COLUMNS.split(','))} "
        "FROM book__fts f JOIN book b ON b.rowid = f.rowid WHERE book__fts MATCH {ph} "
        "ORDER BY bm25(book__fts), b.isbn LIMIT 10",
        # PostgreSQL's own full text: a GIN index over a tsvector (made for the peers below);
        # ts_rank is not BM25, so only the number of records is compared there.
        "postgres": f"SELECT {BOOK_COLUMNS} FROM book "
        "WHERE to_tsvector('english', title || ' ' || blurb) @@ plainto_tsquery('english', {ph}) "
        "ORDER BY ts_rank(to_tsvector('english', title || ' ' || blurb), "
        "plainto_tsquery('english', {ph})) DESC, isbn LIMIT 10",
    },
}


# The peers' statements over the team's own tables (`--existing`).
EXISTING_STATEMENTS = {
    "lookup": {"statement": f"SELECT {BOOK_COLUMNS} FROM books WHERE isbn = {{ph}}"},
    "list": {"statement": f"SELECT {BOOK_COLUMNS} FROM books WHERE genre = {{ph}} "
             "ORDER BY year DESC, isbn LIMIT 20"},
    "hop": {"statement": f"SELECT {', '.join('b.' + c.strip() for c in BOOK_COLUMNS.split(','))} "
            "FROM book_authors e JOIN books b ON b.isbn = e.isbn "
            "WHERE e.slug = {ph} ORDER BY b.isbn LIMIT 20"},
    "full_text": {
        "sqlite": f"SELECT {', '.join('b.' + c.strip() for c in BOOK_COLUMNS.split(','))} "
        "FROM books_fts f JOIN books b ON b.rowid = f.rowid WHERE books_fts MATCH {ph} "
        "ORDER BY bm25(books_fts), b.isbn LIMIT 10",
        "postgres": f"SELECT {BOOK_COLUMNS} FROM books "
        "WHERE to_tsvector('english', title || ' ' || blurb) @@ plainto_tsquery('english', {ph}) "
        "ORDER BY ts_rank(to_tsvector('english', title || ' ' || blurb), "
        "plainto_tsquery('english', {ph})) DESC, isbn LIMIT 10",
    },
}

# Which statements the peers are given: QUESTIONS' own, or EXISTING_STATEMENTS'.
STATEMENTS = {"existing": False}


def log(message):
    print(f"bench-peers: {message}", file=sys.stderr, flush=True)


# ---- the data ----------------------------------------------------------------------------

def syllable_words(rng, count):
    onsets = ["b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "br", "cr",
              "st", "tr", "pl", "gr", "ch"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ou", "ea"]
    codas = ["", "n", "r", "s", "l", "m", "th", "ck"]
    words = set()
    while len(words) < count:
        words.add("".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                          for _ in range(rng.randint(2, 3))))
    return sorted(words)


def write_data(path, books, seed=7):
    """The bookshop as `toolforge db import` reads it; returns samples for the questions."""
    rng = random.Random(seed)
    vocabulary = syllable_words(rng, 6000)
    # Zipf-like: word k drawn with weight 1/(k+1).
    weights = [1.0 / (k + 1) for k in range(len(vocabulary))]
    cumulative, total = [], 0.0
    for w in weights:
        total += w
        cumulative.append(total)
    authors = max(books // 10, 10)
    first = ["Ada", "Ben", "Chloe", "Dan", "Eve", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kai",
             "Lea", "Mo", "Nia", "Oskar", "Pia", "Quin", "Rui", "Sol", "Tess"]
    with open(path, "w") as out:
        for i in range(authors):
            name = f"{rng.choice(first)} {rng.choice(vocabulary).capitalize()}"
            out.write(json.dumps({"entity": "Author", "data": {
                "slug": f"author-{i:06d}", "name": name, "born": rng.randint(1800, 2000)}}) + "\n")
        for i in range(books):
            title = " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=rng.randint(2, 5)))
            blurb = " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=rng.randint(15, 35)))
            isbn = f"978{i:010d}"
            out.write(json.dumps({"entity": "Book", "data": {
                "isbn": isbn, "title": title.capitalize(), "genre": rng.choice(GENRES),
                "year": rng.randint(1850, 2025), "pages": rng.randint(40, 1200),
                "blurb": blurb.capitalize() + "."}}) + "\n")
            for a in sorted(set(rng.choices(range(authors), k=rng.choice([1, 1, 1, 2])))):
                out.write(json.dumps({"relationship": "WRITTEN_BY",
                                      "from": {"entity": "Book", "id": isbn},
                                      "to": {"entity": "Author", "id": f"author-{a:06d}"}}) + "\n")
    sample = random.Random(seed + 1)
    return {
        "lookup": [f"978{sample.randrange(books):010d}" for _ in range(64)],
        "list": GENRES,
        "hop": [f"author-{sample.randrange(authors):06d}" for _ in range(64)],
        # Words of middle frequency (ranks 40-100): a few hundred to a few thousand matches.
        "full_text": vocabulary[40:100],
    }


def existing_tables(data, backend, db, work):
    """The team's own tables (EXISTING_SCHEMA) filled with the records of `data`, at `db`."""
    books, authors, links = [], [], []
    with open(data) as lines:
        for line in lines:
            item = json.loads(line)
            if item.get("entity") == "Book":
                d = item["data"]
                books.append((d["isbn"], d["title"], d["genre"], d["year"], d["pages"], d["blurb"]))
            elif item.get("entity") == "Author":
                d = item["data"]
                authors.append((d["slug"], d["name"], d["born"]))
            else:
                links.append((item["from"]["id"], item["to"]["id"]))
    if backend == "sqlite":
        import sqlite3
        conn = sqlite3.connect(db)
        conn.executescript(EXISTING_SCHEMA)
        conn.executemany("INSERT INTO authors VALUES (?, ?, ?)", authors)
        conn.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?)", books)
        conn.executemany("INSERT INTO book_authors VALUES (?, ?)", links)
        # The team's own full-text table, which the peers' statements read.
        conn.executescript(
            "CREATE VIRTUAL TABLE books_fts USING fts5(title, blurb, content='books', "
            "content_rowid='rowid', tokenize='porter unicode61');"
            "INSERT INTO books_fts(books_fts) VALUES ('rebuild'); ANALYZE;")
        conn.commit()
        conn.close()
        return
    import csv
    for name, rows in (("authors", authors), ("books", books), ("book_authors", links)):
        with open(os.path.join(work, f"{name}.csv"), "w", newline="") as out:
            csv.writer(out).writerows(rows)
    script = EXISTING_SCHEMA + "".join(
        f"\\copy {name} FROM '{os.path.join(work, name + '.csv')}' WITH (FORMAT csv)\n"
        for name in ("authors", "books", "book_authors")) + (
        "CREATE INDEX books_words ON books USING gin "
        "(to_tsvector('english', title || ' ' || blurb));\nANALYZE;\n")
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", db], input=script, text=True,
                   check=True, stdout=subprocess.DEVNULL)


# ---- MCP over HTTP -------------------------------------------------------------------------

class Mcp:
    """A Streamable HTTP client of one server.

    `stateless`: the 2026-07-28 protocol (no handshake: each request names its method in
    headers and carries the client's protocol version and capabilities in `_meta`), which a
    load generator can send on any connection. Otherwise a 2025-11-25 handshake, and its
    session when the server keeps one (16 connections sharing one session are not 16 clients).
    """

    META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}

    def __init__(self, url, stateless=False):
        self.url = url
        self.stateless = stateless
        self.headers = {"content-type": "application/json",
                        "accept": "application/json, text/event-stream"}
        if stateless:
            self.headers["mcp-protocol-version"] = "2026-07-28"
        self.next_id = 0

    def message(self, method, params=None, call_id=None):
        """A request's headers and body."""
        headers = dict(self.headers)
        message = {"jsonrpc": "2.0", "method": method}
        if call_id is not None:
            message["id"] = call_id
        if self.stateless:
            params = {**(params or {}), "_meta": self.META}
            headers["mcp-method"] = method
            if method == "tools/call":
                headers["mcp-name"] = params["name"]
        if params is not None:
            message["params"] = params
        return headers, json.dumps(message, separators=(",", ":"))

    def post(self, headers, body, timeout=30):
        request = urllib.request.Request(self.url, body.encode(), headers)
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            text = answer.read().decode()
            session = answer.headers.get("mcp-session-id")
        return parse_answer(text), session

    def request(self, method, params=None, timeout=30):
        self.next_id += 1
        answer, _ = self.post(*self.message(method, params, self.next_id), timeout)
        if "error" in answer:
            raise RuntimeError(f"{self.url} {method}: {answer['error']}")
        return answer["result"]

    def initialize(self):
        if self.stateless:
            return
        answer, session = self.post(*self.message("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench-peers", "version": "1"}}, 0))
        if session:
            self.headers["mcp-session-id"] = session
        self.headers["mcp-protocol-version"] = answer["result"]["protocolVersion"]
        try:
            self.post(*self.message("notifications/initialized"))
        except (urllib.error.HTTPError, json.JSONDecodeError, ValueError):
            pass  # 202 Accepted with no body

    def calls(self, calls):
        """The headers and bodies of `tools/call` requests of one tool, for wrk."""
        messages = [self.message("tools/call", {"name": tool, "arguments": arguments}, i)
                    for i, (tool, arguments) in enumerate(calls)]
        return messages[0][0], [body for _, body in messages]

    def tools(self):
        tools, cursor = [], None
        while True:
            result = self.request("tools/list", {"cursor": cursor} if cursor else {})
            tools += result["tools"]
            cursor = result.get("nextCursor")
            if not cursor:
                return tools


def parse_answer(body):
    body = body.strip()
    if not body:
        return {}
    if body.startswith("{"):
        return json.loads(body)
    # An SSE stream: the last `data:` line that holds a JSON-RPC answer.
    found = {}
    for line in body.splitlines():
        if line.startswith("data:") and line[5:].strip().startswith("{"):
            message = json.loads(line[5:])
            if "result" in message or "error" in message:
                found = message
    return found


def ids_in(result, keys):
    """The first of `keys` each object of a tool result has, in order, in order: its structured content when it has one,
    otherwise every text content parsed as JSON (the peers answer rows as JSON text)."""
    if result.get("isError"):
        raise RuntimeError(f"the tool answered an error: {json.dumps(result)[:400]}")
    roots = []
    if "structuredContent" in result:
        roots.append(result["structuredContent"])
    else:
        for item in result.get("content", []):
            try:
                roots.append(json.loads(item.get("text", "")))
            except ValueError:
                pass
    found = []

    def walk(value):
        if isinstance(value, dict):
            for name in keys:
                if isinstance(value.get(name), (str, int)):
                    found.append(str(value[name]))
                    break
            for child in value.values():
                if isinstance(child, (dict, list)):
                    walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)

    for root in roots:
        walk(root)
    return found


# ---- the servers ---------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, name, argv, port, work, env=None):
        self.name, self.argv, self.port, self.work = name, argv, port, work
        self.env = {**os.environ, **(env or {})}
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.process = None
        self.startup_ms = None
        self.peak_rss_mb = None

    def start(self):
        logfile = open(os.path.join(self.work, f"{self.name}.{self.port}.log"), "w")
        began = time.monotonic()
        self.process = subprocess.Popen(self.argv, stdout=logfile, stderr=subprocess.STDOUT,
                                        env=self.env, cwd=self.work, start_new_session=True)
        deadline = began + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited at start-up; see {logfile.name}")
            try:
                client = Mcp(self.url)
                client.initialize()
                client.tools()
                self.startup_ms = (time.monotonic() - began) * 1000
                return
            except (OSError, urllib.error.URLError, ValueError, KeyError, RuntimeError):
                time.sleep(0.005)
        raise RuntimeError(f"{self.name} did not answer within 60 s; see {logfile.name}")

    def peak_rss(self):
        """The peak resident memory (VmHWM) of the server's process tree, in MB."""
        total = 0
        pids = [self.process.pid]
        try:
            children = subprocess.run(["pgrep", "-g", str(self.process.pid)],
                                      capture_output=True, text=True).stdout.split()
            pids = sorted({int(p) for p in children} | {self.process.pid})
        except OSError:
            pass
        for pid in pids:
            try:
                with open(f"/proc/{pid}/status") as status:
                    for line in status:
                        if line.startswith("VmHWM:"):
                            total += int(line.split()[1])
            except OSError:
                pass
        return total / 1024

    def stop(self):
        if self.process and self.process.poll() is None:
            self.peak_rss_mb = self.peak_rss()
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def toolforge_calls(samples):
    return {
        "lookup": [("get_entity_by_id", {"entity_type": "Book", "id_value": v})
                   for v in samples["lookup"]],
        "list": [("query_entities", {"entity_type": "Book",
                                     "conditions": [{"field": "genre", "operator": "=", "value": v}],
                                     "order_by": {"field": "year", "direction": "DESC"},
                                     "limit": 20}) for v in samples["list"]],
        "hop": [("explore_relationships", {"start_entity_type": "Author",
                                           "start_conditions": [{"field": "slug", "operator": "=",
                                                                 "value": v}],
                                           "relationship_type": "WRITTEN_BY",
                                           "direction": "incoming", "limit": 20})
                for v in samples["hop"]],
        "full_text": [("full_text_search", {"entity_type": "Book", "query": v, "top_k": 10})
                      for v in samples["full_text"]],
    }


def peer_calls(samples):
    return {q: [(f"book_{q}", {QUESTIONS[q]["parameter"][0]: v}) for v in samples[q]]
            for q in QUESTIONS}


def statement(question, backend):
    spec = EXISTING_STATEMENTS[question] if STATEMENTS["existing"] else QUESTIONS[question]
    text = spec.get(backend, spec.get("statement"))
    return text.replace("{ph}", "?" if backend == "sqlite" else "$1")


def toolbox_config(path, backend, db):
    lines = ["sources:", "  books:"]
    if backend == "sqlite":
        lines += ["    kind: sqlite", f"    database: {db}"]
        kind = "sqlite-sql"
    else:
        parsed = re.match(r"postgres(?:ql)?://([^@:/]+)(?::[^@]*)?@([^:/]+):(\d+)/(\w+)", db)
        user, host, port, name = parsed.groups()
        lines += ["    kind: postgres", f"    host: {host}", f"    port: {port}",
                  f"    database: {name}", f"    user: {user}",
                  # Toolbox requires a password; the test server trusts loopback and ignores it.
                  "    password: unused"]
        kind = "postgres-sql"
    lines.append("tools:")
    for question, spec in QUESTIONS.items():
        name, description = spec["parameter"]
        lines += [f"  book_{question}:", f"    kind: {kind}", "    source: books",
                  f"    description: {json.dumps('Books: ' + spec['what'])}", "    parameters:",
                  f"      - name: {name}", "        type: string",
                  f"        description: {json.dumps(description)}",
                  f"    statement: {json.dumps(statement(question, backend))}"]
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def dbhub_config(path, backend, db):
    dsn = f"sqlite://{db}" if backend == "sqlite" else db
    lines = ["[[sources]]", 'id = "books"', f"dsn = {json.dumps(dsn)}", ""]
    for question, spec in QUESTIONS.items():
        name, description = spec["parameter"]
        text = statement(question, backend)
        # DBHub numbers the placeholders it binds: a statement using $1 twice takes one value.
        lines += ["[[tools]]", f'name = "book_{question}"', 'source = "books"',
                  f"description = {json.dumps('Books: ' + spec['what'])}",
                  f"statement = {json.dumps(text)}",
                  "[[tools.parameters]]", f'name = "{name}"', 'type = "string"',
                  f"description = {json.dumps(description)}", ""]
    with open(path, "w") as out:
        out.write("\n".join(lines))


# ---- load --------------------------------------------------------------------------------

WRK_SCRIPT = """\
wrk.method = "POST"
{headers}
local bodies = {{
{bodies}
}}
local i = 0
-- Global, so that `done` can read each thread's count.
failed = 0
local threads = {{}}
setup = function(thread)
  table.insert(threads, thread)
end
request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i % #bodies) + 1])
end
-- Whether `key` occurs in `body` followed by `after` (a pattern anchored where `key` ends). The
-- key is found by plain search: a pattern search over the whole body cost wrk about 200 µs of
-- CPU per 13.6 KB answer, on the cores the servers share (docs/BENCHMARKS.md).
local function has(body, key, after)
  local from = 1
  while true do
    local first, last = string.find(body, key, from, true)
    if not first then
      return false
    end
    if string.find(body, after, last + 1) then
      return true
    end
    from = last + 1
  end
end
response = function(status, headers, body)
  if status ~= 200 or has(body, '"isError":', '^%s*true') or has(body, '"error":', '^%s*{{') then
    failed = failed + 1
  end
end
done = function(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("failed")
  end
  io.write(string.format("Failed answers: %d\\n", total))
end
"""


def lua_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wrk_run(server_url, headers, bodies, seconds, connections, work):
    script = os.path.join(work, "call.lua")
    with open(script, "w") as out:
        out.write(WRK_SCRIPT.format(
            headers="\n".join(f"wrk.headers[{lua_string(k)}] = {lua_string(v)}"
                              for k, v in headers.items()),
            bodies=",\n".join(lua_string(b) for b in bodies)))
    run = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                          "--timeout", "30s", "-s", script, server_url],
                         capture_output=True, text=True, check=True)
    return parse_wrk(run.stdout)


def parse_wrk(text):
    def duration_ms(value):
        number, unit = re.match(r"([\d.]+)(us|ms|s|m)", value).groups()
        return float(number) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]

    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    p50 = duration_ms(re.search(r"\s50%\s+(\S+)", text).group(1))
    p99 = duration_ms(re.search(r"\s99%\s+(\S+)", text).group(1))
    # Answers that are not a successful tool result (the script's own count, which includes
    # non-2xx statuses), and connections that failed.
    errors = int(re.search(r"Failed answers: (\d+)", text).group(1))
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if sockets:
        errors += sum(int(n) for n in sockets.groups())
    return {"rate": rate, "p50": p50, "p99": p99, "errors": errors, "raw": text}


def failed_answers(client, headers, bodies):
    """Sends each body once; the ones not answered by a successful tool result."""
    bad = []
    for body in bodies:
        message, _ = client.post(headers, body)
        if "error" in message or message.get("result", {}).get("isError"):
            bad.append(body)
    return bad


# ---- the run -----------------------------------------------------------------------------

def run_backend(backend, db, args, samples, work, tokens, names):
    log(f"{backend}: starting the servers")
    config = os.path.join(work, "config.yaml")
    own_config = os.path.join(work, "own.yaml")
    own_db = db if backend == "postgres" else os.path.join(work, "books-own.db")
    toolbox_file = os.path.join(work, f"toolbox-{backend}.yaml")
    dbhub_file = os.path.join(work, f"dbhub-{backend}.toml")
    toolbox_config(toolbox_file, backend, db)
    dbhub_config(dbhub_file, backend, db)

    def make(name):
        port = free_port()
        if name == "toolforge":
            argv = [args.toolforge, "serve", "--config", config, "--db", db,
                    "--http", f"127.0.0.1:{port}"]
        elif name == "toolforge-baseline":
            argv = [args.baseline, "serve", "--config", config, "--db", db,
                    "--http", f"127.0.0.1:{port}"]
        elif name == "toolforge-own":
            argv = [args.toolforge, "serve", "--config", own_config, "--db", own_db,
                    "--http", f"127.0.0.1:{port}"]
        elif name == "toolbox":
            argv = [args.toolbox, "--config", toolbox_file, "--port", str(port),
                    "--address", "127.0.0.1", "--disable-reload", "--log-level", "ERROR"]
        else:
            argv = [args.node, args.dbhub, "--config", dbhub_file, "--transport", "http",
                    "--port", str(port)]
        return Server(name, argv, port, work)

    # Start-up: each server started and stopped three times, the best kept.
    startup = {}
    for name in names:
        times = []
        for _ in range(3):
            server = make(name)
            server.start()
            times.append(server.startup_ms)
            server.stop()
        startup[name] = min(times)
    servers = {name: make(name) for name in names}
    for server in servers.values():
        server.start()
    try:
        clients, listed = {}, {}
        for name, server in servers.items():
            # toolforge speaks the stateless 2026-07-28 protocol; the peers have no sessions.
            client = Mcp(server.url, stateless=name.startswith("toolforge"))
            client.initialize()
            clients[name] = client
            tools = client.tools()
            text = json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False)
            listed[name] = (len(tools), len(text.encode()), tokens(text))

        calls = {"toolforge": toolforge_calls(samples)}
        calls["toolforge-own"] = calls["toolforge-baseline"] = calls["toolforge"]
        calls["toolbox"] = calls["dbhub"] = peer_calls(samples)
        # Same records from every server, for every sample of every question.
        for question in QUESTIONS:
            # full_text_search answers each record as `id`, `name`, `score` and a snippet.
            keys = ("isbn", "id")
            for index in range(len(samples[question])):
                answers = {}
                for name in names:
                    tool, arguments = calls[name][question][index]
                    answers[name] = ids_in(clients[name].request(
                        "tools/call", {"name": tool, "arguments": arguments}), keys)
                if backend == "postgres" and question == "full_text":
                    if len({len(a) for a in answers.values()}) != 1:
                        raise RuntimeError(f"{question} {samples[question][index]!r}: "
                                           f"different numbers of records {answers}")
                elif len({tuple(a) for a in answers.values()}) != 1:
                    raise RuntimeError(f"{backend} {question} {samples[question][index]!r}: "
                                       f"the servers disagree: {answers}")
                if not answers["toolforge"]:
                    raise RuntimeError(f"{backend} {question}: no records for "
                                       f"{samples[question][index]!r}")
        log(f"{backend}: the {len(names)} servers answer every question with the same records")

        results = {}
        order = list(names)
        for question in QUESTIONS:
            requests = {name: clients[name].calls(calls[name][question]) for name in names}
            for name in names:
                headers, bodies = requests[name]
                bad = failed_answers(clients[name], headers, bodies)
                if bad:
                    raise RuntimeError(f"{name} refuses {bad[0]}")
                wrk_run(servers[name].url, headers, bodies, 2, args.connections, work)
            for round_ in range(args.rounds):
                for name in order:
                    measured = wrk_run(servers[name].url, *requests[name], args.seconds,
                                       args.connections, work)
                    # An earlier build's failures are a finding to report, not a stop.
                    if measured["errors"] and name != "toolforge-baseline":
                        raise RuntimeError(f"{name} {question}: {measured['errors']} failed "
                                           f"calls under load:\n{measured['raw']}")
                    results.setdefault((question, name), []).append(measured)
                    log(f"{backend} {question} round {round_ + 1} {name}: "
                        f"{measured['rate']:.0f} calls/s, p50 {measured['p50']:.2f} ms, "
                        f"p99 {measured['p99']:.2f} ms")
                order = order[1:] + order[:1]
    finally:
        for server in servers.values():
            server.stop()
    memory = {name: server.peak_rss_mb for name, server in servers.items()}
    return results, startup, memory, listed


def median(runs, key):
    return statistics.median(r[key] for r in runs)


TITLES = {"toolforge": "toolforge", "toolforge-own": "toolforge, own schema",
          "toolforge-baseline": "toolforge baseline",
          "toolbox": "Toolbox", "dbhub": "DBHub"}


def report(backend, results, startup, memory, listed, args, names):
    own = "toolforge-own" in names
    baseline = "toolforge-baseline" in names
    title = f"### {backend}" + (", the team's own tables" if own else "")
    out = [title, "",
           f"calls/s (p50 / p99 ms), median of {args.rounds} rounds of {args.seconds} s, "
           f"{args.connections} connections", "",
           "| call | " + " | ".join(TITLES[n] for n in names) +
           " | toolforge ÷ best peer (calls/s) | p99 vs best peer's |" +
           (" own schema ÷ mapped (calls/s) |" if own else "") +
           (" toolforge ÷ baseline (calls/s, p99) |" if baseline else ""),
           "|---|" + "---|" * (len(names) + 2 + own + baseline)]
    for question, spec in QUESTIONS.items():
        cells = []
        for name in names:
            runs = results[(question, name)]
            cells.append(f"{median(runs, 'rate'):,.0f} ({median(runs, 'p50'):.2f} / "
                         f"{median(runs, 'p99'):.2f})")
        best = max(("toolbox", "dbhub"), key=lambda n: median(results[(question, n)], "rate"))
        ratio = median(results[(question, "toolforge")], "rate") / median(results[(question, best)], "rate")
        p99 = median(results[(question, "toolforge")], "p99") / median(results[(question, best)], "p99")
        line = (f"| {spec['what']} | " + " | ".join(cells) +
                f" | **{ratio:.2f}×** ({best}) | {p99:.2f}× |")
        if own:
            mapped = median(results[(question, "toolforge-own")], "rate") / median(
                results[(question, "toolforge")], "rate")
            line += f" {mapped:.2f}× |"
        if baseline:
            before = results[(question, "toolforge-baseline")]
            after = results[(question, "toolforge")]
            failed = sum(run["errors"] for run in before)
            line += (f" {median(after, 'rate') / median(before, 'rate'):.2f}×, "
                     f"{median(after, 'p99') / median(before, 'p99'):.2f}×" +
                     (f" (the baseline failed {failed} calls)" if failed else "") + " |")
        out.append(line)
    out += ["", "| | " + " | ".join(TITLES[n] for n in names) + " |",
            "|---|" + "---|" * len(names),
            "| start-up until `tools/list` answers (best of 3) | " +
            " | ".join(f"{startup[n]:.0f} ms" for n in names) + " |",
            "| peak memory (VmHWM) after the load | " +
            " | ".join(f"{memory[n]:.0f} MB" for n in names) + " |",
            "| `tools/list`: tools, bytes, o200k tokens | " +
            " | ".join(f"{listed[n][0]}, {listed[n][1]:,} B, {listed[n][2]:,}" for n in names) +
            " |", ""]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--toolforge", required=True)
    parser.add_argument("--toolbox", required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--dbhub", required=True)
    parser.add_argument("--books", type=int, default=200_000)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--baseline", metavar="TOOLFORGE",
                        help="another toolforge binary (an earlier build) served over the same "
                        "database and measured in the same rounds, reported as a ratio")
    parser.add_argument("--existing", action="store_true",
                        help="serve the team's own tables (toolforge through a mapping), and "
                        "toolforge over its own import of them beside")
    args = parser.parse_args()
    STATEMENTS["existing"] = args.existing
    names = (["toolforge"] + (["toolforge-baseline"] if args.baseline else []) +
             (["toolforge-own"] if args.existing else []) + ["toolbox", "dbhub"])

    import bpe_openai
    encoding = bpe_openai.get_encoding("o200k_base")
    tokens = lambda text: len(encoding.encode(text))

    work = tempfile.mkdtemp(prefix="bench-peers-")
    try:
        with open(os.path.join(work, "config.yaml"), "w") as out:
            out.write(EXISTING_CONFIG if args.existing else CONFIG)
        with open(os.path.join(work, "own.yaml"), "w") as out:
            out.write(CONFIG)
        data = os.path.join(work, "data.jsonl")
        log(f"writing {args.books:,} books")
        samples = write_data(data, args.books)
        backends = []
        for backend in args.backends.split(","):
            if backend == "sqlite":
                backends.append(("sqlite", os.path.join(work, "books.db")))
            elif os.environ.get("TOOLFORGE_TEST_POSTGRES_URL"):
                backends.append(("postgres", os.environ["TOOLFORGE_TEST_POSTGRES_URL"]))
            else:
                log("TOOLFORGE_TEST_POSTGRES_URL is not set: PostgreSQL skipped "
                    "(run under scripts/with-postgres)")
        cores = os.cpu_count()
        where = ", on the team's own tables" if args.existing else ""
        print(f"## toolforge, MCP Toolbox and DBHub side by side ({args.books:,} books{where}, "
              f"{cores} cores)\n", flush=True)
        for backend, db in backends:
            log(f"{backend}: toolforge db init + db import")
            if backend == "postgres":
                # The test server of scripts/with-postgres: emptied, so that a run starts afresh.
                subprocess.run(["psql", "-q", db, "-c",
                                "DROP SCHEMA IF EXISTS toolforge CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public;"],
                               check=True, env={**os.environ,
                                                "PGOPTIONS": "--client-min-messages=warning"})
            own_db = db
            if args.existing:
                existing_tables(data, backend, db, work)
                # toolforge's full-text index of the team's `books`, in its side store.
                subprocess.run([args.toolforge, "db", "init", "--config",
                                os.path.join(work, "config.yaml"), "--db", db],
                               check=True, stdout=subprocess.DEVNULL)
                if backend == "sqlite":
                    own_db = os.path.join(work, "books-own.db")
            subprocess.run([args.toolforge, "db", "init", "--config", os.path.join(work, "own.yaml"),
                            "--db", own_db], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([args.toolforge, "db", "import", "--config",
                            os.path.join(work, "own.yaml"), "--db", own_db, data],
                           check=True, stdout=subprocess.DEVNULL)
            if backend == "postgres" and not args.existing:
                # What a PostgreSQL user gives a full-text statement: a GIN index over the tsvector.
                subprocess.run(["psql", "-q", db, "-c",
                                "CREATE INDEX IF NOT EXISTS book_words ON book USING gin "
                                "(to_tsvector('english', title || ' ' || blurb)); ANALYZE;"],
                               check=True)
            results, startup, memory, listed = run_backend(backend, db, args, samples, work,
                                                           tokens, names)
            print(report(backend, results, startup, memory, listed, args, names), flush=True)
    except BaseException:
        args.keep = True
        raise
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
