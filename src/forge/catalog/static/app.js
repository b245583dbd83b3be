// The forge-tools catalog: a single-page app over the catalog's JSON API (no build step).
// Routes live in the hash (#/ and #/tool/<name>) so back and forward work.
import { h } from "./dom.js";
import { buildForm } from "./form.js";

const SEARCH_DEBOUNCE_MS = 200;
const CSRF_HEADER = "X-Forge-CSRF";
const STREAM_RETRY_MS = 30000;

const state = {
  filters: { q: "", category: "", tags: new Set() },
  listing: null, // the last /api/tools answer
  listRequest: 0, // increases per request, so a late answer never overwrites a newer one
  tool: null, // the open tool's detail
  toolRemoved: false,
  strict: true,
  provider: null,
  form: null,
  metricsEnabled: false,
  csrf: null, // the token every request that changes something sends (GET api/session)
};

// ---------------------------------------------------------------- small helpers

function json(value) {
  return JSON.stringify(value, null, 2);
}

function codeBlock(value, label) {
  return h("pre", { class: "code", tabindex: 0, "aria-label": label }, h("code", {}, json(value)));
}

function announce(message) {
  const region = document.getElementById("announcer");
  region.textContent = "";
  window.setTimeout(() => { region.textContent = message; }, 50);
}

function setConnection(text, kind = "") {
  const el = document.getElementById("connection");
  el.textContent = text;
  el.dataset.kind = kind;
}

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `the server answered ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function csrfToken(renew = false) {
  if (renew || !state.csrf) state.csrf = (await api("api/session")).csrf;
  return state.csrf;
}

/** GET ``path``, or with ``options.body`` send it as JSON with the CSRF token (renewed once
 * when the server no longer knows it, after a restart say). */
async function api(path, options = {}, retried = false) {
  const init = { credentials: "same-origin", headers: { Accept: "application/json" }, ...options };
  if (options.body !== undefined) {
    init.method = options.method || "POST";
    init.headers = { ...init.headers, "Content-Type": "application/json",
      [CSRF_HEADER]: await csrfToken(retried) };
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(path, init);
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (response.status === 401) showLoggedOut();
  if (response.status === 403 && body && body.error === "csrf" && !retried) {
    return api(path, options, true);
  }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

function toolHref(name) {
  return `#/tool/${encodeURIComponent(name)}`;
}

function badges(tool) {
  return h("span", { class: "badges" },
    tool.deprecated ? h("span", { class: "badge badge-deprecated" }, "deprecated") : null,
    tool.destructive ? h("span", { class: "badge badge-destructive" }, "destructive") : null,
    tool.read_only ? h("span", { class: "badge badge-readonly" }, "read-only") : null);
}

function showLoggedOut() {
  const view = document.getElementById("view");
  view.replaceChildren(h("section", { class: "notice", role: "alert" },
    h("h2", {}, "Your session has ended"),
    h("p", {}, "The server asks for its token again. ", h("a", { href: "./" }, "Log in"), ".")));
  setConnection("Logged out", "error");
}

// ---------------------------------------------------------------- the list and its facets

function listQuery() {
  const params = new URLSearchParams();
  if (state.filters.q) params.set("q", state.filters.q);
  if (state.filters.category) params.set("category", state.filters.category);
  for (const tag of state.filters.tags) params.append("tag", tag);
  const query = params.toString();
  return query ? `api/tools?${query}` : "api/tools";
}

async function refreshList() {
  const request = ++state.listRequest;
  let listing;
  try {
    listing = await api(listQuery());
  } catch (error) {
    if (request === state.listRequest && !(error instanceof ApiError && error.status === 401)) {
      document.getElementById("tool-list").replaceChildren(
        h("li", { class: "error" }, `The tools could not be listed: ${error.message}`));
    }
    return;
  }
  if (request !== state.listRequest) return;
  state.listing = listing;
  renderFacets(listing);
  renderList(listing);
  if (currentRoute().view === "home") renderHome();
}

function renderFacets(listing) {
  const categories = document.getElementById("categories");
  const choices = [{ name: "", label: "All", count: null }, ...listing.categories.map(
    (c) => ({ name: c.name, label: c.name, count: c.count }))];
  if (state.filters.category && !choices.some((c) => c.name === state.filters.category)) {
    choices.push({ name: state.filters.category, label: state.filters.category, count: 0 });
  }
  categories.replaceChildren(...choices.map((choice) => {
    const id = `category-${choice.name || "all"}`;
    return h("div", { class: "choice" },
      h("input", { type: "radio", name: "category", id, value: choice.name,
        checked: state.filters.category === choice.name }),
      h("label", { for: id }, choice.label,
        choice.count === null ? null : h("span", { class: "count" }, ` (${choice.count})`)));
  }));
  const tags = document.getElementById("tags");
  const names = new Set(listing.tags.map((t) => t.name));
  const all = [...listing.tags, ...[...state.filters.tags].filter((t) => !names.has(t))
    .map((name) => ({ name, count: 0 }))];
  tags.replaceChildren(...all.map((tag) => {
    const id = `tag-${tag.name}`;
    return h("div", { class: "choice" },
      h("input", { type: "checkbox", name: "tag", id, value: tag.name,
        checked: state.filters.tags.has(tag.name) }),
      h("label", { for: id }, tag.name, h("span", { class: "count" }, ` (${tag.count})`)));
  }));
  document.getElementById("tag-facet").hidden = all.length === 0;
}

function renderList(listing) {
  const list = document.getElementById("tool-list");
  const open = state.tool && state.tool.name;
  list.replaceChildren(...listing.tools.map((tool) => h("li", {},
    h("a", { href: toolHref(tool.name), "aria-current": tool.name === open ? "page" : false },
      h("span", { class: "tool-name" }, tool.display_name || tool.name),
      h("span", { class: "tool-summary" }, tool.summary || "")),
  )));
  if (listing.tools.length === 0) {
    list.replaceChildren(h("li", { class: "empty" }, "No tool matches these filters."));
  }
  const count = document.getElementById("result-count");
  count.textContent = `(${listing.tools.length})`;
}

function renderHome() {
  const listing = state.listing;
  const view = document.getElementById("view");
  document.title = "Tool catalog · forge-tools";
  if (!listing) {
    view.replaceChildren(h("p", {}, "Loading the tools…"));
    return;
  }
  const rows = listing.tools.map((tool) => h("tr", {},
    h("th", { scope: "row" }, h("a", { href: toolHref(tool.name) }, tool.display_name || tool.name),
      tool.display_name && tool.display_name !== tool.name
        ? h("span", { class: "muted" }, ` ${tool.name}`) : null),
    h("td", {}, tool.category || "—"),
    h("td", {}, tool.summary || ""),
    h("td", {}, badges(tool))));
  view.replaceChildren(
    h("h2", { id: "home-heading", tabindex: -1 }, "All tools"),
    h("p", {}, `${listing.tools.length} tool${listing.tools.length === 1 ? "" : "s"}`,
      state.filters.q ? ` matching “${state.filters.q}”` : "",
      state.filters.category ? ` in ${state.filters.category}` : "",
      state.filters.tags.size ? ` tagged ${[...state.filters.tags].join(", ")}` : "",
      `. Registry version ${listing.version}.`),
    rows.length
      ? h("table", { class: "tools-table" },
        h("caption", { class: "visually-hidden" }, "The tools matching the filters"),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Tool"), h("th", { scope: "col" }, "Category"),
          h("th", { scope: "col" }, "Summary"), h("th", { scope: "col" }, "Flags"))),
        h("tbody", {}, rows))
      : h("p", { class: "empty" }, "No tool matches these filters."));
}

function wireFilters() {
  const form = document.getElementById("filters");
  const search = document.getElementById("search");
  let timer = 0;
  search.addEventListener("input", () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      state.filters.q = search.value.trim();
      refreshList();
    }, SEARCH_DEBOUNCE_MS);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    window.clearTimeout(timer);
    state.filters.q = search.value.trim();
    refreshList();
  });
  form.addEventListener("change", (event) => {
    const input = event.target;
    if (input.name === "category") state.filters.category = input.value;
    else if (input.name === "tag") {
      if (input.checked) state.filters.tags.add(input.value);
      else state.filters.tags.delete(input.value);
    } else return;
    refreshList();
  });
}

// ---------------------------------------------------------------- routing

function currentRoute() {
  const hash = window.location.hash || "#/";
  const match = hash.match(/^#\/tool\/(.+)$/);
  if (match) return { view: "tool", name: decodeURIComponent(match[1]) };
  return { view: "home" };
}

/** Show the view the hash names; after a navigation, focus its heading (not on first load). */
async function route(event) {
  const navigated = Boolean(event);
  const target = currentRoute();
  if (target.view === "tool") {
    await openTool(target.name, { keepFocus: !navigated });
  } else {
    state.tool = null;
    state.form = null;
    renderHome();
    if (state.listing) renderList(state.listing);
    if (navigated) document.getElementById("home-heading")?.focus();
  }
}

// ---------------------------------------------------------------- a tool's page

async function openTool(name, { keepFocus = false } = {}) {
  const view = document.getElementById("view");
  let tool;
  try {
    tool = await api(`api/tools/${encodeURIComponent(name)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    state.tool = null;
    view.replaceChildren(h("section", { class: "notice", role: "alert" },
      h("h2", { id: "tool-heading", tabindex: -1 }, `No tool named “${name}”`),
      h("p", {}, error.message), h("p", {}, h("a", { href: "#/" }, "Back to all tools"))));
    if (!keepFocus) document.getElementById("tool-heading").focus();
    return;
  }
  if (currentRoute().name !== name) return; // the user went elsewhere meanwhile
  state.tool = tool;
  state.toolRemoved = false;
  if (!tool.providers.some((p) => p.id === state.provider)) {
    state.provider = tool.providers.length ? tool.providers[0].id : null;
  }
  document.title = `${tool.display_name || tool.name} · Tool catalog`;
  view.replaceChildren(renderTool(tool));
  if (state.listing) renderList(state.listing);
  if (!keepFocus) document.getElementById("tool-heading").focus();
}

function renderTool(tool) {
  const flags = badges({
    deprecated: tool.metadata && tool.metadata.deprecated,
    destructive: isDestructive(tool),
    read_only: tool.annotations && tool.annotations.readOnlyHint,
  });
  return h("article", { class: "tool", "aria-labelledby": "tool-heading" },
    h("div", { id: "removed-notice" }),
    h("p", { class: "crumbs" }, h("a", { href: "#/" }, "All tools")),
    h("h2", { id: "tool-heading", tabindex: -1 }, tool.display_name || tool.name, " ", flags),
    h("p", { class: "muted" }, h("code", {}, tool.name),
      tool.category ? ` · ${tool.category}` : "",
      tool.tags && tool.tags.length ? ` · ${tool.tags.join(", ")}` : ""),
    h("p", { class: "description" }, tool.description || "(no description)"),
    renderParameters(tool.input_schema),
    renderMetrics(tool.metrics),
    // What a visitor comes to do first; the reference material follows it.
    section("Try it", "try", renderTryIt(tool), "panel try"),
    section("Metadata", "metadata", renderMetadata(tool.metadata || {})),
    section("Annotations", "annotations", renderAnnotations(tool.annotations || {})),
    section("What each provider receives", "providers", renderProviders(tool)),
    section("Lint findings", "lint", renderLint(tool.lint || [], tool.providers)),
    section("Schemas", "schemas", [
      h("h4", {}, "Input"), codeBlock(tool.input_schema, "Input schema"),
      h("h4", {}, "Output"), tool.output_schema
        ? codeBlock(tool.output_schema, "Output schema") : h("p", { class: "muted" }, "No output schema.")]));
}

function section(title, id, content, className = "panel") {
  return h("section", { class: className, "aria-labelledby": `${id}-heading` },
    h("h3", { id: `${id}-heading` }, title), content);
}

/** One line naming each argument with its type, so the page says what the tool takes
 * before the form asks for it. */
function renderParameters(schema) {
  if (!schema) return null;
  const properties = schema.properties || {};
  const names = Object.keys(properties);
  if (!names.length) return h("p", { class: "params muted" }, "No parameters.");
  const required = new Set(schema.required || []);
  return h("p", { class: "params" }, h("span", { class: "params-label" }, "Parameters: "),
    names.map((name, index) => [index ? ", " : null, h("span", { class: "param" },
      h("code", {}, name), " ",
      h("span", { class: "muted" }, typeText(properties[name]), required.has(name) ? "" : ", optional"))]));
}

function typeText(schema) {
  if (!schema || typeof schema !== "object") return "any";
  if (schema.$ref) return schema.$ref.split("/").pop();
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(" | ")}`;
  const branches = schema.anyOf || schema.oneOf;
  if (Array.isArray(branches)) return branches.map(typeText).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
  if (type === "array") return `list of ${typeText(schema.items)}`;
  if (type === "string" && schema.format) return `string (${schema.format})`;
  return type || "any";
}

function isDestructive(tool) {
  return Boolean(tool.annotations && tool.annotations.destructiveHint);
}

/** Whether a run asks first: a tool is destructive unless it says otherwise (as in MCP). */
function needsConfirmation(tool) {
  return tool.needs_confirmation !== false;
}

function riskText(tool) {
  return isDestructive(tool) ? "is marked destructive"
    : "is not marked read-only or non-destructive, so it may be destructive";
}

function renderMetadata(metadata) {
  const rows = [];
  const plain = ["version", "deprecation", "notes", "limitations"];
  for (const key of plain) {
    const value = metadata[key];
    if (value === undefined || value === null || value === "" ||
        (Array.isArray(value) && value.length === 0)) continue;
    rows.push(h("dt", {}, key), h("dd", {}, Array.isArray(value)
      ? h("ul", {}, value.map((item) => h("li", {}, typeof item === "string" ? item : json(item))))
      : typeof value === "object" ? codeBlock(value, key) : String(value)));
  }
  if (metadata.deprecated) rows.push(h("dt", {}, "deprecated"), h("dd", {}, "yes"));
  for (const [key, value] of Object.entries(metadata)) {
    if (plain.includes(key) || key === "examples" || key === "deprecated") continue;
    if (value === null || value === undefined || value === "" ||
        (Array.isArray(value) && value.length === 0) ||
        (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0)) continue;
    rows.push(h("dt", {}, key), h("dd", {}, typeof value === "object" ? codeBlock(value, key) : String(value)));
  }
  const examples = metadata.examples || [];
  return [
    rows.length ? h("dl", { class: "facts" }, rows) : h("p", { class: "muted" }, "No metadata."),
    examples.length ? h("div", { class: "examples" }, h("h4", {}, "Examples"),
      examples.map((example, index) => h("div", { class: "example" },
        h("p", {}, example.description || `Example ${index + 1}`),
        example.input !== undefined ? codeBlock(example.input, `Example ${index + 1} input`) : null,
        example.output !== undefined
          ? [h("p", { class: "muted" }, "Output"), codeBlock(example.output, `Example ${index + 1} output`)] : null,
        example.input && typeof example.input === "object" ? h("button", {
          type: "button", class: "secondary",
          onclick: () => useExample(example.input),
        }, `Use example ${index + 1} in the form`) : null))) : null,
  ];
}

function useExample(input) {
  if (!state.form) return;
  state.form.setValue(input);
  document.getElementById("try-heading").scrollIntoView({ block: "start" });
  state.form.focusFirst();
  announce("The example's arguments are in the form.");
}

function renderAnnotations(annotations) {
  const entries = Object.entries(annotations).filter(([, v]) => v !== null && v !== undefined);
  if (!entries.length) return h("p", { class: "muted" }, "No annotations.");
  return h("dl", { class: "facts" }, entries.map(([key, value]) =>
    [h("dt", {}, key), h("dd", {}, typeof value === "object" ? json(value) : String(value))]));
}

function renderMetrics(metrics) {
  const box = h("section", { id: "metrics", class: "metrics", "aria-labelledby": "metrics-heading" });
  fillMetrics(box, metrics);
  return box;
}

function fillMetrics(box, metrics) {
  box.hidden = !metrics;
  if (!metrics) return;
  const ms = (v) => (typeof v === "number" ? `${v.toFixed(v < 10 ? 2 : 0)} ms` : "—");
  box.replaceChildren(h("h3", { id: "metrics-heading", class: "visually-hidden" }, "Metrics"),
    h("dl", { class: "metric-row" },
      h("div", {}, h("dt", {}, "Calls"), h("dd", {}, String(metrics.calls ?? 0))),
      h("div", {}, h("dt", {}, "Failures"), h("dd", {}, String(metrics.failures ?? 0))),
      h("div", {}, h("dt", {}, "p50"), h("dd", {}, ms(metrics.p50_ms))),
      h("div", {}, h("dt", {}, "p95"), h("dd", {}, ms(metrics.p95_ms)))));
}

// ---------------------------------------------------------------- provider tabs

function renderProviders(tool) {
  if (!tool.providers.length) return h("p", { class: "muted" }, "No provider formats.");
  const tabs = tool.providers.map((provider) => h("button", {
    type: "button", role: "tab", id: `tab-${provider.id}`, "aria-controls": "provider-panel",
    "aria-selected": provider.id === state.provider ? "true" : "false",
    tabindex: provider.id === state.provider ? 0 : -1,
    "data-provider": provider.id,
    onclick: () => selectProvider(provider.id, false),
  }, provider.label || provider.id));
  const tablist = h("div", { role: "tablist", "aria-label": "Providers", class: "tabs" }, tabs);
  tablist.addEventListener("keydown", onTabKey);
  const mode = h("fieldset", { class: "mode" }, h("legend", {}, "Definition"),
    ...[["strict", "Strict"], ["default", "Default"]].map(([value, label]) => h("span", { class: "choice" },
      h("input", { type: "radio", name: "provider-mode", id: `mode-${value}`, value,
        checked: (value === "strict") === state.strict,
        onchange: () => { state.strict = value === "strict"; fillProviderPanel(); } }),
      h("label", { for: `mode-${value}` }, label))));
  const panel = h("div", { role: "tabpanel", id: "provider-panel", tabindex: 0,
    "aria-labelledby": `tab-${state.provider}` });
  const wrapper = h("div", { class: "providers" }, tablist, mode, panel);
  window.queueMicrotask(fillProviderPanel);
  return wrapper;
}

function onTabKey(event) {
  const tabs = [...event.currentTarget.querySelectorAll('[role="tab"]')];
  const index = tabs.indexOf(document.activeElement);
  if (index < 0) return;
  const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const next = tabs[(moves[event.key] + tabs.length) % tabs.length];
  selectProvider(next.dataset.provider, true);
}

function selectProvider(id, focus) {
  state.provider = id;
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    const selected = tab.dataset.provider === id;
    tab.setAttribute("aria-selected", selected ? "true" : "false");
    tab.tabIndex = selected ? 0 : -1;
    if (selected && focus) tab.focus();
  }
  fillProviderPanel();
}

function fillProviderPanel() {
  const panel = document.getElementById("provider-panel");
  const tool = state.tool;
  if (!panel || !tool) return;
  const provider = tool.providers.find((p) => p.id === state.provider);
  if (!provider) return;
  panel.setAttribute("aria-labelledby", `tab-${provider.id}`);
  const mode = state.strict ? "strict" : "default";
  if (provider.error) {
    panel.replaceChildren(h("p", { class: "error" },
      `${provider.label || provider.id} cannot express this tool: ${provider.error}`));
    return;
  }
  const report = (provider.report && provider.report[mode]) || [];
  panel.replaceChildren(
    h("h4", {}, `${provider.label || provider.id}, ${mode}`),
    codeBlock(provider[mode], `${provider.label || provider.id} definition, ${mode}`),
    h("h4", {}, "Conversion report"),
    report.length
      ? h("ul", { class: "report" }, report.map((entry) => h("li", {},
        h("span", { class: `kind kind-${entry.kind}` }, entry.kind), " ",
        h("code", {}, entry.path || "(root)"), " — ", entry.message)))
      : h("p", { class: "muted" }, "Nothing was rewritten or dropped."));
}

// ---------------------------------------------------------------- lint

/** Findings about the definition itself are listed; those about one provider's conversion
 * are folded under that provider with their count, since a realistic tool has dozens. */
function renderLint(findings, providers) {
  if (!findings.length) return h("p", { class: "muted" }, "No findings.");
  const labels = new Map(providers.map((p) => [p.id, p.label || p.id]));
  const general = [];
  const byProvider = new Map();
  for (const finding of findings) {
    const id = providerOf(finding.where || "", labels);
    if (id === null) general.push(finding);
    else byProvider.set(id, [...(byProvider.get(id) || []), finding]);
  }
  return [
    general.length ? lintList(general) : null,
    byProvider.size ? h("h4", {}, "Conversion notes per provider") : null,
    [...byProvider].map(([id, notes]) => {
      const errors = notes.filter((n) => n.severity === "error").length;
      return h("details", { class: errors ? "notes notes-error" : "notes", "data-provider": id },
        h("summary", {}, labels.get(id), " ",
          h("span", { class: "muted" }, `(${notes.length} note${notes.length === 1 ? "" : "s"}`,
            errors ? `, ${errors} error${errors === 1 ? "" : "s"}` : "", ")")),
        lintList(notes));
    }),
  ];
}

/** The provider id a finding's ``where`` names (``openai`` or ``openai (strict)``), if any. */
function providerOf(where, labels) {
  const id = where.replace(/ \(strict\)$/, "");
  return labels.has(id) ? id : null;
}

function lintList(findings) {
  return h("ul", { class: "lint" }, findings.map((finding) => h("li", {},
    h("span", { class: `severity severity-${finding.severity}` }, finding.severity), " ",
    h("code", {}, finding.code), " ", finding.message,
    finding.where ? h("span", { class: "muted" }, ` (${finding.where})`) : null)));
}

// ---------------------------------------------------------------- try it

function renderTryIt(tool) {
  const form = buildForm(tool.input_schema || { type: "object" });
  state.form = form;
  const result = h("div", { id: "run-result", class: "run-result", role: "status", "aria-live": "polite" });
  const confirmBox = h("div", { id: "confirm", class: "confirm", hidden: true });
  const validate = h("button", { type: "button", id: "validate-button", class: "secondary",
    onclick: () => dryRun() }, "Validate (dry run)");
  const run = h("button", { type: "submit", id: "run-button" }, "Run");
  const element = h("form", { id: "try-form", novalidate: true, "aria-labelledby": "try-heading",
    onsubmit: (event) => { event.preventDefault(); requestRun(); } },
  needsConfirmation(tool) ? h("p", { class: "warning" },
    `This tool ${riskText(tool)}: running it asks for a confirmation first.`) : null,
  h("div", { id: "error-summary" }),
  form.element,
  h("div", { class: "actions" }, validate, run),
  confirmBox);
  return [element, h("h4", {}, "Result"), result];
}

function readArguments() {
  try {
    return { ok: true, value: state.form.getValue() };
  } catch (error) {
    return { ok: false, errors: error.fieldErrors || [{ path: [], field: "", message: error.message }] };
  }
}

function showErrors(errors, modelMessage) {
  state.form.clearErrors();
  const summary = document.getElementById("error-summary");
  if (!errors.length) {
    summary.replaceChildren();
    return;
  }
  const items = errors.map((error) => {
    const { id, name } = state.form.showError(error.path || [], error.message, error.field);
    return h("li", {}, id
      ? h("a", { href: `#${id}`, onclick: (event) => {
        event.preventDefault(); document.getElementById(id).focus();
      } }, name)
      : h("strong", {}, name), `: ${error.message}`);
  });
  summary.replaceChildren(h("div", { class: "error-summary", role: "alert", tabindex: -1 },
    h("h4", {}, `${errors.length} problem${errors.length === 1 ? "" : "s"} with the arguments`),
    h("ul", {}, items),
    modelMessage ? h("details", {}, h("summary", {}, "What the model would be told"),
      h("pre", { class: "code" }, modelMessage)) : null));
}

function busy(on) {
  for (const id of ["validate-button", "run-button"]) {
    const button = document.getElementById(id);
    if (button) button.disabled = on || state.toolRemoved;
  }
}

async function dryRun() {
  const tool = state.tool;
  const args = readArguments();
  const result = document.getElementById("run-result");
  if (!args.ok) {
    showErrors(args.errors);
    return;
  }
  busy(true);
  try {
    const answer = await api(`api/tools/${encodeURIComponent(tool.name)}/validate`,
      { body: { arguments: args.value } });
    if (answer.ok) {
      showErrors([]);
      result.replaceChildren(h("p", { class: "ok" }, "Valid: these arguments would be accepted."));
    } else {
      showErrors(answer.errors || [], answer.model_message);
      result.replaceChildren(h("p", { class: "error" },
        `Invalid: ${(answer.errors || []).length} problem(s), shown next to the fields.`));
    }
  } catch (error) {
    result.replaceChildren(h("p", { class: "error" }, `The check failed: ${error.message}`));
  } finally {
    busy(false);
  }
}

function requestRun() {
  const args = readArguments();
  if (!args.ok) {
    showErrors(args.errors);
    return;
  }
  if (needsConfirmation(state.tool)) askConfirmation(args.value);
  else run(args.value, false);
}

function askConfirmation(value) {
  const box = document.getElementById("confirm");
  box.hidden = false;
  box.replaceChildren(h("div", { role: "alertdialog", "aria-labelledby": "confirm-title",
    "aria-describedby": "confirm-text", class: "confirm-box" },
  h("h4", { id: "confirm-title" }, isDestructive(state.tool)
    ? "Run a destructive tool?" : "Run a tool that may be destructive?"),
  h("p", { id: "confirm-text" }, `${state.tool.name} ${riskText(state.tool)}: it may change or delete data. `,
    "Run it with these arguments?"),
  h("div", { class: "actions" },
    h("button", { type: "button", id: "confirm-run", class: "danger", onclick: () => {
      closeConfirmation(); run(value, true);
    } }, "Yes, run it"),
    h("button", { type: "button", id: "confirm-cancel", class: "secondary", onclick: () => {
      closeConfirmation(); document.getElementById("run-button").focus(); announce("Not run.");
    } }, "Cancel"))));
  box.addEventListener("keydown", (event) => {
    if (event.key === "Escape") document.getElementById("confirm-cancel")?.click();
  });
  document.getElementById("confirm-cancel").focus();
}

function closeConfirmation() {
  const box = document.getElementById("confirm");
  box.hidden = true;
  box.replaceChildren();
}

async function run(value, confirm) {
  const tool = state.tool;
  const result = document.getElementById("run-result");
  busy(true);
  result.replaceChildren(h("p", {}, "Running…"));
  try {
    const answer = await api(`api/tools/${encodeURIComponent(tool.name)}/run`,
      { body: { arguments: value, confirm } });
    showErrors([]);
    result.replaceChildren(renderOutcome(answer));
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      result.replaceChildren(h("p", { class: "error" }, error.message));
      askConfirmation(value);
    } else {
      result.replaceChildren(h("p", { class: "error" }, `The run failed: ${error.message}`));
    }
  } finally {
    busy(false);
  }
}

function renderOutcome(answer) {
  const duration = typeof answer.duration_ms === "number" ? ` in ${answer.duration_ms.toFixed(1)} ms` : "";
  return h("div", { class: answer.ok ? "outcome outcome-ok" : "outcome outcome-error" },
    h("p", { class: answer.ok ? "ok" : "error" }, answer.ok
      ? `Succeeded${duration}.`
      : `Failed${duration}: `, answer.ok ? null : h("code", { class: "error-kind" }, answer.error_kind || "error")),
    answer.result !== null && answer.result !== undefined
      ? [h("h5", {}, "Result"), codeBlock(answer.result, "Result")] : null,
    h("h5", {}, "What the model sees"),
    h("pre", { class: "code model-message", tabindex: 0, "aria-label": "Message to the model" },
      answer.model_message || ""));
}

// ---------------------------------------------------------------- live updates

function listen() {
  if (!window.EventSource) {
    setConnection("Live updates are not supported by this browser");
    return;
  }
  const source = new EventSource("api/events");
  source.addEventListener("open", () => setConnection("Live", "live"));
  source.addEventListener("error", () => {
    if (source.readyState !== EventSource.CLOSED) {
      setConnection("Reconnecting…", "error");
      return;
    }
    // Refused (too many streams open, say): the browser gives up, so try again later.
    setConnection("Live updates paused; retrying in 30 s", "error");
    window.setTimeout(listen, STREAM_RETRY_MS);
  });
  source.addEventListener("tools", (event) => onToolsChanged(JSON.parse(event.data)));
  source.addEventListener("metrics", (event) => onMetrics(JSON.parse(event.data)));
  window.addEventListener("pagehide", () => source.close());
}

function onToolsChanged(change) {
  refreshList();
  const added = change.added || [];
  const removed = change.removed || [];
  const parts = [];
  if (added.length) parts.push(`Added: ${added.join(", ")}.`);
  if (removed.length) parts.push(`Removed: ${removed.join(", ")}.`);
  if (parts.length) announce(parts.join(" "));
  const open = state.tool && state.tool.name;
  if (!open) return;
  if (removed.includes(open) && !added.includes(open)) {
    state.toolRemoved = true;
    document.getElementById("removed-notice")?.replaceChildren(h("div", { class: "notice", role: "alert" },
      h("p", {}, `${open} was removed from the registry while this page was open. `,
        "What is shown is its last known state; it can no longer be run.")));
    busy(false);
  } else if (added.includes(open)) {
    openTool(open, { keepFocus: true }); // re-registered: show the new definition
  }
}

function onMetrics(data) {
  const open = state.tool && state.tool.name;
  if (!open || !data.tools) return;
  const box = document.getElementById("metrics");
  if (box) fillMetrics(box, data.tools[open] || { calls: 0, failures: 0, p50_ms: null, p95_ms: null });
}

// ---------------------------------------------------------------- start

async function start() {
  wireFilters();
  window.addEventListener("hashchange", route);
  await refreshList();
  await route(null);
  listen();
}

start();
