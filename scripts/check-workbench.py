#!/usr/bin/env python3
"""Drives the workbench of `toolforge serve --http ADDR --ui` in a real browser.

Debian's Chromium, headless, driven by Selenium through Debian's chromedriver, on the seeded
code-rag data of scripts/check-mcp-server.py (`--seed`), with the server requiring a bearer
token (`--token-env`):
- without the token the page says the server wants one; with it typed in, it connects;
- the entity-relationship diagram shows every entity of the config (as `toolforge schema`
  lists them) and the page lists the tools grouped by family;
- `query_entities` is picked: its form marks `entity_type` as required and offers the
  entities in a select; sent empty, the server's validation error is shown at the field;
- filled in (entity `Scope`, limit 3) and run: the answer's rows are in the table, with the
  call's timing, and the same rows in the JSON view;
- the next page (`next_offset`) brings the following rows;
- the last calls are kept, and replaying the first page brings its rows back.

Screenshots of the diagram, of a result and of the page are saved under target/workbench/. Prints one line
per check and a final `workbench: N passed, M failed`; exits 1 on any failure.

Usage: check-workbench.py [--toolforge PATH] [--chromium PATH] [--chromedriver PATH]
       [--out DIR]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import (
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN_VARIABLE = "TOOLFORGE_WORKBENCH_TOKEN"
TOKEN = "workbench-check-token"
WAIT_SECONDS = 20
# What Chromium needs to run headless as root in a container, and to open no connection of its
# own (on a network that refuses them, its background requests fail the page's).
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1200",
]


class Checks:
    """Counts checks; prints each one."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}: {detail}")
        return ok


def seed(toolforge, folder):
    """The seeded config and database of check-mcp-server.py."""
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "check-mcp-server.py"),
         "--toolforge", toolforge, "--seed", folder],
        capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"seeding failed:\n{done.stderr}{done.stdout}")
    config, db = done.stdout.split()
    return config, db


def entities_of(toolforge, config):
    """The config's entities, as `toolforge schema --format mermaid` lists them."""
    done = subprocess.run([toolforge, "schema", "--config", config, "--format", "mermaid"],
                          capture_output=True, text=True, check=True)
    return re.findall(r"^    (\S+) \{$", done.stdout, re.M)


def start_server(toolforge, config, db, log_path):
    """`toolforge serve --http 127.0.0.1:0 --ui` with a token; its process and base URL."""
    env = dict(os.environ, **{TOKEN_VARIABLE: TOKEN})
    log = open(log_path, "w+", encoding="utf-8")
    process = subprocess.Popen(
        [toolforge, "serve", "--config", config, "--db", db, "--http", "127.0.0.1:0", "--ui",
         "--token-env", TOKEN_VARIABLE],
        stdin=subprocess.DEVNULL, stderr=log, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        log.seek(0)
        found = re.search(r"workbench at (http://127\.0\.0\.1:\d+)/ui", log.read())
        if found:
            return process, log, found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    log.seek(0)
    process.kill()
    raise SystemExit(f"toolforge serve did not announce the workbench:\n{log.read()}")


def browser(chromium, chromedriver, profile):
    options = Options()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)


def wait(driver, condition, what):
    """Waits for `condition(driver)` to be true-ish; its value, or None after the timeout."""
    try:
        return WebDriverWait(driver, WAIT_SECONDS, ignored_exceptions=[StaleElementReferenceException]).until(condition)
    except TimeoutException:
        print(f"     (waited {WAIT_SECONDS} s for {what})")
        return None


def table_rows(driver):
    """The result table's column names and rows (lists of cell texts), read in one script so
    a table being replaced is never half read."""
    columns, rows = driver.execute_script(
        "const t = document.getElementById('result-table');"
        "return [[...t.tHead.querySelectorAll('th')].map(c => c.textContent),"
        " [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))];")
    return columns, rows


def column(columns, rows, name):
    if name not in columns:
        return []
    index = columns.index(name)
    return [row[index] for row in rows]


def run_checks(driver, base, entities, out, checks):
    driver.get(base + "/ui")
    # Without the token: the page says what is missing.
    status = wait(driver, lambda d: "401" in d.find_element(By.ID, "status").text
                  and d.find_element(By.ID, "status").text, "the refusal without a token")
    checks.check("without a token the page says the server wants one",
                 status is not None and "token" in status.lower(), repr(status))

    driver.find_element(By.ID, "token").send_keys(TOKEN)
    driver.find_element(By.ID, "connect").click()
    connected = wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-connected"),
                     "the connection")
    checks.check("with the token the page connects", connected == "true",
                 driver.find_element(By.ID, "status").text)

    # The diagram.
    drawn = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#diagram svg g.entity"), "the diagram")
    shown = [g.get_attribute("data-entity") for g in drawn or []]
    checks.check("the diagram shows every entity of the config", shown == entities,
                 f"diagram {shown}, config {entities}")
    texts = driver.find_element(By.ID, "diagram").text
    checks.check("the diagram names the relationships", "DEFINED_IN" in texts, texts[:200])
    if drawn:
        driver.find_element(By.CSS_SELECTOR, "#diagram svg").screenshot(os.path.join(out, "diagram.png"))
        checks.check("screenshot of the diagram saved", os.path.getsize(os.path.join(out, "diagram.png")) > 1000)

    # The tools by family.
    families = [f.get_attribute("data-family") for f in driver.find_elements(By.CSS_SELECTOR, "#tool-list .family")]
    checks.check("the tools are grouped by family", families[:3] == ["schema", "query", "lookup"]
                 and "batch" in families, repr(families))
    in_query = [b.get_attribute("data-tool")
                for b in driver.find_elements(By.CSS_SELECTOR, '.family[data-family="query"] button.tool')]
    checks.check("query_entities is listed in the family query", "query_entities" in in_query, repr(in_query))

    # The form of query_entities.
    driver.find_element(By.CSS_SELECTOR, 'button.tool[data-tool="query_entities"]').click()
    field = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '.field[data-field="entity_type"]'),
                 "the form")
    checks.check("picking a tool shows its form", bool(field))
    if not field:
        return
    checks.check("a required argument is marked",
                 bool(field[0].find_elements(By.CSS_SELECTOR, "label .required")))
    checks.check("an optional argument is not marked",
                 not driver.find_elements(By.CSS_SELECTOR, '.field[data-field="limit"] label .required'))
    entity_select = Select(driver.find_element(By.NAME, "entity_type"))
    options = [o.text for o in entity_select.options][1:]
    checks.check("an enum is a select of its values", options == entities, repr(options))
    checks.check("a list argument is a JSON text area",
                 driver.find_element(By.NAME, "conditions").tag_name == "textarea")
    checks.check("the description and input schema are shown",
                 "query_entities" in driver.find_element(By.ID, "tool-name").text
                 and '"entity_type"' in driver.find_element(By.ID, "tool-schema").get_attribute("textContent"))

    # Sent empty: the server's validation error, at its field.
    driver.find_element(By.ID, "run").click()
    problem = wait(driver, lambda d: d.find_element(
        By.CSS_SELECTOR, '.field[data-field="entity_type"] .problem').text, "the validation error")
    checks.check("the server's validation error is shown at the field",
                 problem is not None and "required" in problem, repr(problem))
    errors = driver.find_element(By.ID, "form-errors")
    checks.check("the server's whole error is shown next to the form",
                 errors.is_displayed() and "invalid_arguments" in errors.text, errors.text[:200])

    # Filled in and run.
    entity_select.select_by_visible_text("Scope")
    limit = driver.find_element(By.NAME, "limit")
    limit.clear()
    limit.send_keys("3")
    driver.find_element(By.ID, "run").click()
    rows = wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#result-table tbody tr")) == 3,
                "three rows")
    columns, first_page = table_rows(driver)
    checks.check("the answer's rows are in the table", rows and len(first_page) == 3, repr(first_page))
    checks.check("the table's columns are the records' fields",
                 {"uuid", "name", "file"} <= set(columns), repr(columns))
    timing = driver.find_element(By.ID, "timing").text
    checks.check("the call's timing is shown", re.fullmatch(r"in \d+\.\d ms", timing) is not None, repr(timing))
    driver.find_element(By.ID, "tab-json").click()
    shown_json = driver.find_element(By.ID, "result-json")
    try:
        answer = json.loads(shown_json.text)
    except ValueError:
        answer = {}
    checks.check("the JSON view shows the answer",
                 shown_json.is_displayed() and answer.get("entity_type") == "Scope"
                 and [r.get("uuid") for r in answer.get("results", [])] == column(columns, first_page, "uuid"),
                 shown_json.text[:200])
    driver.find_element(By.ID, "tab-table").click()
    # The diagram folded away, so the form and the answer fit the window.
    driver.find_element(By.CSS_SELECTOR, "#diagram-box summary").click()
    result_box = driver.find_element(By.ID, "result-box")
    driver.execute_script("arguments[0].scrollIntoView(true);", result_box)
    result_box.screenshot(os.path.join(out, "result.png"))
    driver.save_screenshot(os.path.join(out, "page.png"))
    checks.check("screenshot of a result saved", os.path.getsize(os.path.join(out, "result.png")) > 1000)

    # The next page.
    next_button = driver.find_element(By.ID, "next-page")
    checks.check("a next page is offered", next_button.is_displayed() and "offset 3" in next_button.text,
                 next_button.text)
    first_ids = column(columns, first_page, "uuid")
    next_button.click()
    wait(driver, lambda d: column(*table_rows(d), "uuid") != first_ids, "the next page")
    columns, second_page = table_rows(driver)
    second_ids = column(columns, second_page, "uuid")
    checks.check("the next page brings the following rows",
                 second_ids and not set(second_ids) & set(first_ids), f"{first_ids} then {second_ids}")
    checks.check("the offset is in the form", driver.find_element(By.NAME, "offset").get_attribute("value") == "3")

    # The last calls, replayed.
    calls = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#history button")]
    checks.check("the last calls are kept, newest first",
                 len(calls) == 3 and '"offset":3' in calls[0] and '"limit":3' in calls[1]
                 and calls[2] == "query_entities {}", repr(calls))
    failed = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#history button.failed")]
    checks.check("a refused call is marked in the history", failed == ["query_entities {}"], repr(failed))
    driver.find_elements(By.CSS_SELECTOR, "#history button")[1].click()
    wait(driver, lambda d: column(*table_rows(d), "uuid") == first_ids, "the replayed first page")
    columns, replayed = table_rows(driver)
    checks.check("replaying a call brings its rows back", column(columns, replayed, "uuid") == first_ids,
                 f"{column(columns, replayed, 'uuid')} instead of {first_ids}")
    # The history survives a reload of the page (localStorage).
    driver.refresh()
    kept = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#history button"), "the kept history")
    checks.check("the last calls survive a reload", kept is not None and len(kept) >= 3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toolforge", default=os.path.join(ROOT, "target", "debug", "toolforge"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--out", default=os.path.join(ROOT, "target", "workbench"),
                        help="where the screenshots go")
    args = parser.parse_args()
    toolforge = os.path.abspath(args.toolforge)
    os.makedirs(args.out, exist_ok=True)
    checks = Checks()
    with tempfile.TemporaryDirectory(prefix="toolforge-workbench-") as folder:
        config, db = seed(toolforge, os.path.join(folder, "data"))
        entities = entities_of(toolforge, config)
        process, log, base = start_server(toolforge, config, db, os.path.join(folder, "serve.log"))
        driver = None
        try:
            driver = browser(args.chromium, args.chromedriver, os.path.join(folder, "profile"))
            run_checks(driver, base, entities, args.out, checks)
        except WebDriverException as error:
            checks.check("the browser ran the page", False, str(error).splitlines()[0])
        finally:
            if driver is not None:
                if checks.failed:
                    driver.save_screenshot(os.path.join(args.out, "failure.png"))
                    for entry in driver.get_log("browser"):
                        print(f"     browser: {entry.get('message')}")
                driver.quit()
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
            if checks.failed:
                log.seek(0)
                print("server log (last lines):\n" + "".join(log.readlines()[-20:]), file=sys.stderr)
            log.close()
    print(f"screenshots in {os.path.relpath(args.out, ROOT) if args.out.startswith(ROOT) else args.out}")
    print(f"workbench: {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
