// The toolforge workbench: lists a server's tools by family, draws a form from each tool's
// input schema, calls the tool over MCP (Streamable HTTP, JSON-RPC on POST) and shows the answer
// as a table and as JSON. Plain JavaScript, no framework, nothing loaded from elsewhere.
"use strict";

const PROTOCOL_VERSION = "2025-11-25";
const HISTORY_KEY = "toolforge.workbench.history";
const HISTORY_SIZE = 20;

const state = {
  endpoint: "/mcp",
  token: "",
  session: null,
  protocol: PROTOCOL_VERSION,
  nextId: 1,
  tools: [],
  families: new Map(),
  selected: null,
  lastTool: null,
  lastArguments: null,
  lastAnswer: null,
};

const $ = (id) => document.getElementById(id);

function element(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "className") node.className = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function setStatus(text, isError) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

// ---------------------------------------------------------------------------------------------
// HTTP and MCP

function headers(extra) {
  const result = Object.assign({}, extra);
  if (state.token) result["Authorization"] = "Bearer " + state.token;
  return result;
}

class HttpError extends Error {
  constructor(response, body) {
    let message = "HTTP " + response.status + " " + response.statusText;
    if (response.status === 401) {
      message += ": the server wants an access token; paste it in the Token field and connect";
    } else if (response.status === 403) {
      message += ": refused";
    }
    const challenge = response.headers.get("WWW-Authenticate");
    if (challenge) message += " (" + challenge + ")";
    if (body) message += "\n" + body.slice(0, 2000);
    super(message);
    this.status = response.status;
  }
}

// The JSON-RPC answers in a `text/event-stream` body (one JSON message per event's data).
function messagesOfEventStream(text) {
  const messages = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data) continue;
    try {
      messages.push(JSON.parse(data));
    } catch (_) {
      // not a JSON-RPC message (a comment or a keep-alive): skipped
    }
  }
  return messages;
}

// Sends one JSON-RPC message; answers the response to it (null for a notification).
async function rpc(method, params, isNotification) {
  const message = { jsonrpc: "2.0", method: method };
  if (params !== undefined) message.params = params;
  const id = isNotification ? undefined : state.nextId++;
  if (id !== undefined) message.id = id;
  const extra = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  if (state.session) extra["Mcp-Session-Id"] = state.session;
  if (method !== "initialize") extra["MCP-Protocol-Version"] = state.protocol;
  const response = await fetch(state.endpoint, {
    method: "POST",
    headers: headers(extra),
    body: JSON.stringify(message),
  });
  const session = response.headers.get("Mcp-Session-Id");
  if (session) state.session = session;
  const body = await response.text();
  if (!response.ok && response.status !== 202) {
    const error = new HttpError(response, body);
    error.body = body;
    throw error;
  }
  if (isNotification) return null;
  const type = response.headers.get("Content-Type") || "";
  const messages = type.includes("text/event-stream")
    ? messagesOfEventStream(body)
    : [JSON.parse(body)];
  const answer = messages.find((m) => m && m.id === id);
  if (!answer) throw new Error("the server sent no answer to " + method);
  if (answer.error) {
    const error = new Error(
      "JSON-RPC error " + answer.error.code + ": " + answer.error.message +
        (answer.error.data ? "\n" + JSON.stringify(answer.error.data, null, 2) : "")
    );
    error.rpc = answer.error;
    throw error;
  }
  return answer.result;
}

async function initialize() {
  state.session = null;
  state.protocol = PROTOCOL_VERSION;
  const result = await rpc("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "toolforge-workbench", version: "1" },
  });
  state.protocol = result.protocolVersion || PROTOCOL_VERSION;
  await rpc("notifications/initialized", undefined, true);
  return result;
}

// A request, with one new session when the server forgot ours (restart, expiry).
async function request(method, params) {
  try {
    return await rpc(method, params);
  } catch (error) {
    if (error.status === 404 && state.session) {
      await initialize();
      return rpc(method, params);
    }
    throw error;
  }
}

async function getAuthorized(path) {
  const response = await fetch(path, { headers: headers({}) });
  if (!response.ok) throw new HttpError(response, await response.text());
  return response;
}

// ---------------------------------------------------------------------------------------------
// Connecting: the families, the diagram, the tools

async function connect() {
  state.token = $("token").value.trim();
  state.endpoint = $("endpoint").value || "/mcp";
  sessionStorage.setItem("toolforge.workbench.token", state.token);
  setStatus("Connecting…");
  try {
    const info = await (await getAuthorized("/ui/tools.json")).json();
    showEndpoints(info.endpoints || ["/mcp"]);
    state.families = new Map();
    for (const group of info.families || []) {
      for (const tool of group.tools) state.families.set(tool, group.family);
    }
    $("server-name").textContent = info.server ? "— " + info.server : "";
    await showDiagram();
    const init = await initialize();
    const tools = [];
    let cursor;
    do {
      const page = await request("tools/list", cursor ? { cursor: cursor } : {});
      tools.push(...(page.tools || []));
      cursor = page.nextCursor;
    } while (cursor);
    state.tools = tools;
    showTools();
    const name = (init.serverInfo && init.serverInfo.name) || info.server || "the server";
    setStatus("Connected to " + name + " at " + state.endpoint + ": " + tools.length + " tools.");
    document.body.dataset.connected = "true";
  } catch (error) {
    setStatus(error.message, true);
  }
}

function showEndpoints(endpoints) {
  const select = $("endpoint");
  const current = select.value;
  select.replaceChildren(...endpoints.map((path) => element("option", { value: path }, path)));
  select.value = endpoints.includes(current) ? current : endpoints[0];
  state.endpoint = select.value;
}

async function showDiagram() {
  const box = $("diagram");
  try {
    const text = await (await getAuthorized("/ui/schema.svg")).text();
    const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
    const svg = parsed.documentElement;
    if (!svg || svg.nodeName !== "svg") throw new Error("the diagram is not SVG");
    for (const script of svg.querySelectorAll("script, foreignObject")) script.remove();
    box.replaceChildren(document.importNode(svg, true));
    const names = [...box.querySelectorAll("[data-entity]")].map((g) => g.getAttribute("data-entity"));
    $("diagram-entities").textContent = names.length
      ? names.length + " entities: " + names.join(", ")
      : "No entities.";
  } catch (error) {
    box.replaceChildren(element("p", { className: "hint" }, "No diagram: " + error.message));
  }
}

function familyOf(tool) {
  return state.families.get(tool) || "other";
}

function showTools() {
  const groups = new Map();
  const order = [...new Set(state.families.values())];
  for (const tool of state.tools) {
    const family = familyOf(tool.name);
    if (!groups.has(family)) groups.set(family, []);
    groups.get(family).push(tool);
  }
  const families = [...groups.keys()].sort((a, b) => rank(order, a) - rank(order, b));
  const list = $("tool-list");
  list.replaceChildren(
    ...families.map((family) =>
      element(
        "div",
        { className: "family", "data-family": family },
        element("h3", {}, family),
        element(
          "ul",
          {},
          ...groups.get(family).map((tool) => {
            const button = element(
              "button",
              { type: "button", className: "tool", "data-tool": tool.name, title: tool.description || "" },
              tool.name,
              tool.title && tool.title !== tool.name ? element("small", {}, tool.title) : null
            );
            button.addEventListener("click", () => selectTool(tool.name));
            return element("li", {}, button);
          })
        )
      )
    )
  );
}

function rank(order, family) {
  const position = order.indexOf(family);
  return position < 0 ? order.length : position;
}

// ---------------------------------------------------------------------------------------------
// The form of a tool's input schema

// The JSON type a schema asks for (the first that is not null), or null for anything else.
function typeOf(schema) {
  if (!schema || typeof schema !== "object") return null;
  if (Array.isArray(schema.enum)) return "enum";
  if ("const" in schema) return "const";
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null");
  if (type) return type;
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[key])) {
      const branches = schema[key].filter((s) => s && s.type !== "null");
      if (branches.length === 1) return typeOf(branches[0]);
      if (branches.length > 1) return "json";
    }
  }
  return null;
}

function branchOf(schema) {
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[key])) {
      const branches = schema[key].filter((s) => s && s.type !== "null");
      if (branches.length === 1) return branchOf(branches[0]);
    }
  }
  return schema;
}

function selectTool(name) {
  const tool = state.tools.find((t) => t.name === name);
  if (!tool) return null;
  state.selected = tool;
  for (const button of document.querySelectorAll(".tool")) {
    button.classList.toggle("selected", button.dataset.tool === name);
  }
  $("tool-box").hidden = false;
  $("tool-name").textContent = tool.title && tool.title !== tool.name ? tool.name + " — " + tool.title : tool.name;
  $("tool-family").textContent = "family: " + familyOf(tool.name) + annotationsText(tool.annotations);
  $("tool-description").textContent = tool.description || "";
  $("tool-schema").textContent = JSON.stringify(tool.inputSchema || {}, null, 2);
  buildForm(tool.inputSchema || {});
  clearProblems();
  return tool;
}

function annotationsText(annotations) {
  if (!annotations) return "";
  const notes = [];
  if (annotations.readOnlyHint) notes.push("read-only");
  if (annotations.destructiveHint) notes.push("destructive");
  if (annotations.idempotentHint) notes.push("idempotent");
  return notes.length ? " · " + notes.join(", ") : "";
}

function buildForm(schema) {
  const properties = schema.properties || {};
  const required = new Set(schema.required || []);
  const fields = Object.entries(properties).map(([name, property]) =>
    fieldFor(name, property || {}, required.has(name))
  );
  if (!fields.length) {
    fields.push(element("p", { className: "hint" }, "This tool takes no arguments."));
  }
  $("fields").replaceChildren(...fields);
}

function fieldFor(name, property, isRequired) {
  const schema = branchOf(property);
  const type = typeOf(property);
  const id = "arg-" + name;
  const typeText = describeType(schema, type);
  let control;
  if (type === "enum") {
    control = element("select", { id: id, name: name, "data-kind": "enum" });
    control.append(element("option", { value: "" }, isRequired ? "— choose —" : "(not given)"));
    schema.enum.forEach((value, index) =>
      control.append(element("option", { value: String(index) }, JSON.stringify(value).replace(/^"|"$/g, "")))
    );
    control.enumValues = schema.enum;
  } else if (type === "boolean") {
    control = element("select", { id: id, name: name, "data-kind": "boolean" });
    control.append(element("option", { value: "" }, "(not given)"));
    control.append(element("option", { value: "true" }, "true"));
    control.append(element("option", { value: "false" }, "false"));
  } else if (type === "integer" || type === "number") {
    control = element("input", {
      id: id,
      name: name,
      type: "number",
      step: type === "integer" ? "1" : "any",
      min: schema.minimum,
      max: schema.maximum,
      "data-kind": type,
      placeholder: schema.default !== undefined ? "default " + schema.default : "",
    });
  } else if (type === "string" || type === "const") {
    control = element("input", {
      id: id,
      name: name,
      type: "text",
      "data-kind": "string",
      placeholder: schema.default !== undefined ? "default " + schema.default : "",
    });
    if (type === "const") control.value = String(schema.const);
  } else {
    control = element("textarea", {
      id: id,
      name: name,
      rows: 3,
      "data-kind": "json",
      placeholder: jsonPlaceholder(schema, type),
    });
  }
  const label = element(
    "label",
    { for: id },
    name,
    isRequired ? element("span", { className: "required", title: "required" }, " *") : null,
    element("span", { className: "type" }, typeText)
  );
  const wrapper = element("div", { className: "field", "data-field": name }, label, control);
  const description = schema.description || property.description;
  if (description) wrapper.append(element("p", { className: "description" }, description));
  wrapper.append(element("p", { className: "problem", hidden: true }));
  return wrapper;
}

function describeType(schema, type) {
  if (type === "array") {
    const items = schema.items ? typeOf(schema.items) : null;
    return "array" + (items ? " of " + items : "") + " (JSON)";
  }
  if (type === "object") return "object (JSON)";
  if (type === "json" || type === null) return "JSON value";
  if (type === "enum") return "one of " + schema.enum.length;
  return type;
}

function jsonPlaceholder(schema, type) {
  if (schema.default !== undefined) return "default " + JSON.stringify(schema.default);
  if (Array.isArray(schema.examples) && schema.examples.length) return JSON.stringify(schema.examples[0]);
  if (type === "array") {
    const items = schema.items && typeOf(schema.items);
    if (items === "object") return '[{"field": "…", "operator": "=", "value": "…"}]';
    if (items === "string") return '["…"]';
    return "[…]";
  }
  if (type === "object") return '{"…": …}';
  return "JSON";
}

// The arguments the form says, or the problems found before sending (fields that do not parse).
function readForm() {
  const args = {};
  const problems = [];
  for (const control of document.querySelectorAll("#fields [data-kind]")) {
    const name = control.name;
    const raw = control.value;
    if (raw === "") continue;
    switch (control.dataset.kind) {
      case "enum":
        args[name] = control.enumValues[Number(raw)];
        break;
      case "boolean":
        args[name] = raw === "true";
        break;
      case "integer":
      case "number": {
        const number = Number(raw);
        if (!Number.isFinite(number)) problems.push([name, "not a number"]);
        else if (control.dataset.kind === "integer" && !Number.isInteger(number)) problems.push([name, "not a whole number"]);
        else args[name] = number;
        break;
      }
      case "json":
        try {
          args[name] = JSON.parse(raw);
        } catch (error) {
          problems.push([name, "not JSON: " + error.message]);
        }
        break;
      default:
        args[name] = raw;
    }
  }
  return { args: args, problems: problems };
}

function fillForm(args) {
  for (const control of document.querySelectorAll("#fields [data-kind]")) {
    const value = args[control.name];
    if (value === undefined) {
      control.value = "";
      continue;
    }
    switch (control.dataset.kind) {
      case "enum": {
        const index = control.enumValues.findIndex((v) => JSON.stringify(v) === JSON.stringify(value));
        control.value = index < 0 ? "" : String(index);
        break;
      }
      case "boolean":
        control.value = value ? "true" : "false";
        break;
      case "json":
        control.value = JSON.stringify(value);
        break;
      default:
        control.value = String(value);
    }
  }
}

function clearProblems() {
  for (const field of document.querySelectorAll(".field")) {
    field.classList.remove("invalid");
    const problem = field.querySelector(".problem");
    problem.hidden = true;
    problem.textContent = "";
  }
  $("form-errors").hidden = true;
  $("form-errors").textContent = "";
}

function showProblem(name, text) {
  const field = document.querySelector('.field[data-field="' + CSS.escape(name) + '"]');
  if (!field) return false;
  field.classList.add("invalid");
  const problem = field.querySelector(".problem");
  problem.textContent = text;
  problem.hidden = false;
  return true;
}

// The server's refusal shown beside the form: the whole structured error, and each problem
// it lists (`details.problems[].path`, a JSON pointer into the arguments) at its field; an
// error without a list marks the fields its message names.
function showServerError(text) {
  const box = $("form-errors");
  box.textContent = text;
  box.hidden = false;
  let parsed = null;
  try {
    parsed = JSON.parse(text);
  } catch (_) {
    parsed = null;
  }
  const problems = parsed && parsed.details && Array.isArray(parsed.details.problems) ? parsed.details.problems : [];
  let marked = 0;
  for (const problem of problems) {
    const pointer = typeof problem.path === "string" ? problem.path : "";
    const name = pointer.split("/")[1];
    if (name && showProblem(decodeURIComponent(name.replace(/~1/g, "/").replace(/~0/g, "~")), problem.message || "invalid")) {
      marked += 1;
    }
  }
  if (marked) return;
  const message = String((parsed && (parsed.message || (parsed.details && parsed.details.message))) || text);
  for (const field of document.querySelectorAll(".field")) {
    const name = field.dataset.field;
    const quoted = new RegExp("[`'\"/]" + name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "[`'\"/\\s]");
    if (quoted.test(message)) showProblem(name, message.split("\n")[0]);
  }
}

// ---------------------------------------------------------------------------------------------
// Calling, answers, paging, history

async function run(tool, args) {
  clearProblems();
  const started = performance.now();
  let result;
  try {
    result = await request("tools/call", { name: tool, arguments: args });
  } catch (error) {
    const ms = performance.now() - started;
    showServerError(error.message);
    $("timing").textContent = "failed after " + ms.toFixed(1) + " ms";
    remember(tool, args, ms, false);
    return;
  }
  const ms = performance.now() - started;
  const text = (result.content || [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
  let answer = result.structuredContent;
  if (answer === undefined) {
    try {
      answer = JSON.parse(text);
    } catch (_) {
      answer = text;
    }
  }
  remember(tool, args, ms, !result.isError);
  if (result.isError) {
    showServerError(text || JSON.stringify(answer, null, 2));
    $("timing").textContent = "refused in " + ms.toFixed(1) + " ms";
    return;
  }
  state.lastTool = tool;
  state.lastArguments = args;
  state.lastAnswer = answer;
  showAnswer(answer, ms);
}

// The answer's rows: its first array of objects (or of values), searched one level down too.
function rowsOf(answer) {
  if (Array.isArray(answer)) return { key: null, rows: answer };
  if (!answer || typeof answer !== "object") return { key: null, rows: [] };
  const entries = Object.entries(answer);
  for (const [key, value] of entries) {
    if (Array.isArray(value) && value.some((v) => v && typeof v === "object")) return { key: key, rows: value };
  }
  for (const [key, value] of entries) {
    if (Array.isArray(value)) return { key: key, rows: value };
  }
  for (const [key, value] of entries) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const inner = rowsOf(value);
      if (inner.rows.length) return { key: key + "." + inner.key, rows: inner.rows };
    }
  }
  return { key: null, rows: [answer] };
}

function cell(value) {
  if (value === null || value === undefined) return element("td", { className: "null" }, "null");
  if (typeof value === "number") return element("td", { className: "number" }, String(value));
  if (typeof value === "object") return element("td", {}, JSON.stringify(value));
  return element("td", {}, String(value));
}

function showAnswer(answer, ms) {
  $("result-box").hidden = false;
  $("timing").textContent = "in " + ms.toFixed(1) + " ms";
  $("result-json").textContent = JSON.stringify(answer, null, 2);
  const { key, rows } = rowsOf(answer);
  const columns = [];
  for (const row of rows.slice(0, 200)) {
    if (row && typeof row === "object" && !Array.isArray(row)) {
      for (const name of Object.keys(row)) if (!columns.includes(name)) columns.push(name);
    }
  }
  const thead = $("result-table").tHead;
  const tbody = $("result-table").tBodies[0];
  if (columns.length) {
    thead.replaceChildren(element("tr", {}, ...columns.map((c) => element("th", {}, c))));
    tbody.replaceChildren(
      ...rows.map((row) => element("tr", {}, ...columns.map((c) => cell(row ? row[c] : null))))
    );
  } else {
    thead.replaceChildren(element("tr", {}, element("th", {}, key || "value")));
    tbody.replaceChildren(...rows.map((row) => element("tr", {}, cell(row))));
  }
  const summary = [];
  if (key) summary.push(rows.length + " rows in `" + key + "`");
  if (answer && typeof answer === "object" && !Array.isArray(answer)) {
    for (const [name, value] of Object.entries(answer)) {
      if (value === null || typeof value !== "object") summary.push(name + ": " + value);
    }
  }
  $("result-summary").textContent = summary.join(" · ");
  const next = answer && typeof answer === "object" ? answer.next_offset : undefined;
  const button = $("next-page");
  button.hidden = !(typeof next === "number");
  if (typeof next === "number") button.textContent = "Next page (offset " + next + ")";
}

function history() {
  try {
    const saved = JSON.parse(localStorage.getItem(HISTORY_KEY) || "[]");
    return Array.isArray(saved) ? saved : [];
  } catch (_) {
    return [];
  }
}

function remember(tool, args, ms, ok) {
  const calls = history();
  calls.unshift({ tool: tool, arguments: args, ms: Math.round(ms * 10) / 10, ok: ok });
  localStorage.setItem(HISTORY_KEY, JSON.stringify(calls.slice(0, HISTORY_SIZE)));
  showHistory();
}

function showHistory() {
  const list = $("history");
  list.replaceChildren(
    ...history().map((call, index) => {
      const text = call.tool + " " + JSON.stringify(call.arguments);
      const button = element(
        "button",
        { type: "button", className: call.ok ? "replay" : "replay failed", title: "Run again: " + text, "data-index": index },
        text
      );
      button.addEventListener("click", () => replay(call));
      return element("li", {}, button);
    })
  );
}

async function replay(call) {
  if (!selectTool(call.tool)) {
    setStatus("`" + call.tool + "` is not served at " + state.endpoint + ": connect first, or choose its endpoint", true);
    return;
  }
  fillForm(call.arguments || {});
  await run(call.tool, call.arguments || {});
}

// ---------------------------------------------------------------------------------------------
// Wiring

function showTab(which) {
  const table = which === "table";
  $("tab-table").setAttribute("aria-selected", String(table));
  $("tab-json").setAttribute("aria-selected", String(!table));
  $("result-table-box").hidden = !table;
  $("result-json").hidden = table;
}

document.addEventListener("DOMContentLoaded", () => {
  $("token").value = sessionStorage.getItem("toolforge.workbench.token") || "";
  $("connect-form").addEventListener("submit", (event) => {
    event.preventDefault();
    connect();
  });
  $("tool-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!state.selected) return;
    clearProblems();
    const { args, problems } = readForm();
    if (problems.length) {
      for (const [name, text] of problems) showProblem(name, text);
      return;
    }
    run(state.selected.name, args);
  });
  $("next-page").addEventListener("click", () => {
    const next = state.lastAnswer && state.lastAnswer.next_offset;
    if (!state.lastTool || typeof next !== "number") return;
    const args = Object.assign({}, state.lastArguments, { offset: next });
    if (!state.selected || state.selected.name !== state.lastTool) selectTool(state.lastTool);
    fillForm(args);
    run(state.lastTool, args);
  });
  $("tab-table").addEventListener("click", () => showTab("table"));
  $("tab-json").addEventListener("click", () => showTab("json"));
  $("clear-history").addEventListener("click", () => {
    localStorage.removeItem(HISTORY_KEY);
    showHistory();
  });
  showHistory();
  connect();
});
