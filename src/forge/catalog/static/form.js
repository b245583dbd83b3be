// A form generated from a tool's JSON schema (the catalog's "Try it").
//
// Objects become fieldsets, arrays lists with add and remove, enums selects, booleans
// checkboxes (or a select when optional), numbers and integers number inputs. What the
// generator cannot express (unions, free-form objects, deep or recursive references)
// falls back to a raw-JSON text area for that field, and the whole form can be edited
// as JSON too.

import { h } from "./dom.js";

const MAX_DEPTH = 6;
let nextId = 0;

function uid(prefix) {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** An error raised while reading the form, naming the field that could not be read. */
class FieldError extends Error {
  constructor(path, message) {
    super(message);
    this.fieldErrors = [{ path, field: pathText(path), message }];
  }
}

function pathText(path) {
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : (text ? `.${part}` : part);
  return text;
}

function resolve(schema, root, seen) {
  let current = schema;
  while (current && typeof current.$ref === "string") {
    if (!current.$ref.startsWith("#/") || seen.has(current.$ref)) return null;
    seen = new Set(seen).add(current.$ref);
    let target = root;
    for (const raw of current.$ref.slice(2).split("/")) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      target = target && typeof target === "object" ? target[key] : undefined;
    }
    if (!target) return null;
    const { $ref, ...rest } = current;
    current = { ...target, ...rest };
  }
  return { schema: current, seen };
}

/** The schema without a null branch (Optional[X]), and whether null was allowed. */
function withoutNull(schema) {
  const branches = schema.anyOf || schema.oneOf;
  if (Array.isArray(branches)) {
    const rest = branches.filter((b) => !(b && b.type === "null"));
    if (rest.length === 1 && rest.length < branches.length) {
      const { anyOf, oneOf, ...outer } = schema;
      return { schema: { ...rest[0], ...outer }, nullable: true };
    }
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    if (types.length === 1) return { schema: { ...schema, type: types[0] }, nullable: types.length < schema.type.length };
  }
  return { schema, nullable: false };
}

function kindOf(schema) {
  if (Array.isArray(schema.enum) && schema.enum.length) return "enum";
  if ("const" in schema) return "const";
  if (schema.anyOf || schema.oneOf || schema.allOf || schema.not) return "raw";
  const type = schema.type || (schema.properties ? "object" : undefined);
  if (type === "object") return schema.properties ? "object" : "raw";
  if (type === "array") return schema.items && typeof schema.items === "object" && !Array.isArray(schema.items)
    ? "array" : "raw";
  if (["string", "number", "integer", "boolean"].includes(type)) return type;
  return "raw";
}

/** The label text, description and "(optional)" marker of a field. */
function labelParts(name, schema, required) {
  return [schema.title || name, required ? null : h("span", { class: "optional" }, " (optional)")];
}

function hintFor(schema, id) {
  const parts = [];
  if (schema.description) parts.push(schema.description);
  if ("default" in schema) parts.push(`Default: ${JSON.stringify(schema.default)}.`);
  const bounds = [];
  if (schema.minimum !== undefined) bounds.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) bounds.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined) bounds.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) bounds.push(`at most ${schema.maxLength} characters`);
  if (schema.pattern) bounds.push(`pattern ${schema.pattern}`);
  if (bounds.length) parts.push(`(${bounds.join(", ")})`);
  return parts.length ? h("p", { class: "hint", id }, parts.join(" ")) : null;
}

/** The common part of a field: where its error goes and how it is found by path. */
function base(id, errorId, control) {
  return {
    id,
    showError(message) {
      const target = document.getElementById(errorId);
      if (!target) return null;
      target.textContent = target.textContent ? `${target.textContent} ${message}` : message;
      target.hidden = false;
      control()?.setAttribute("aria-invalid", "true");
      return control()?.id || null;
    },
    clearErrors() {
      const target = document.getElementById(errorId);
      if (target) {
        target.textContent = "";
        target.hidden = true;
      }
      control()?.removeAttribute("aria-invalid");
    },
    find(path) {
      return path.length === 0 ? this : null;
    },
    focus() {
      control()?.focus();
    },
  };
}

function describedBy(...ids) {
  return ids.filter(Boolean).join(" ") || null;
}

function scalarField(kind, name, schema, required, path) {
  const id = uid("field");
  const errorId = `${id}-error`;
  const hint = hintFor(schema, `${id}-hint`);
  let control;
  const options = [];
  if (kind === "enum" || (kind === "boolean" && !required)) {
    const values = kind === "enum" ? schema.enum : [true, false];
    control = h("select", { id, name: pathText(path),
      "aria-describedby": describedBy(hint && `${id}-hint`, errorId) });
    if (!required || !("default" in schema)) {
      control.append(h("option", { value: "" }, required ? "Choose…" : "(not set)"));
    }
    values.forEach((value, index) => {
      options.push(value);
      control.append(h("option", { value: String(index) },
        typeof value === "string" ? value : JSON.stringify(value)));
    });
  } else if (kind === "boolean") {
    control = h("input", { id, type: "checkbox", name: pathText(path),
      "aria-describedby": describedBy(hint && `${id}-hint`, errorId) });
  } else {
    const long = kind === "string" && (schema.maxLength === undefined || schema.maxLength > 200) &&
      /text|content|body|query|message|prompt|code/i.test(name);
    control = h(long ? "textarea" : "input", {
      id, name: pathText(path),
      type: long ? null : kind === "string" ? "text" : "number",
      step: kind === "integer" ? "1" : kind === "number" ? "any" : null,
      rows: long ? 3 : null,
      inputmode: kind === "integer" ? "numeric" : kind === "number" ? "decimal" : null,
      "aria-required": required ? "true" : null,
      "aria-describedby": describedBy(hint && `${id}-hint`, errorId),
    });
  }
  const error = h("p", { class: "field-error", id: errorId, hidden: true });
  const label = h("label", { for: id }, labelParts(name, schema, required));
  const element = kind === "boolean" && required
    ? h("div", { class: "field field-check" }, control, label, hint, error)
    : h("div", { class: "field" }, label, control, hint, error);
  const field = {
    ...base(id, errorId, () => document.getElementById(id)),
    element,
    getValue() {
      if (control.tagName === "SELECT") {
        return control.value === "" ? undefined : options[Number(control.value)];
      }
      if (kind === "boolean") return control.checked;
      const raw = control.value;
      if (kind === "string") return raw === "" ? undefined : raw;
      if (raw === "") {
        if (control.validity && control.validity.badInput) {
          throw new FieldError(path, `${pathText(path)} is not a number`);
        }
        return undefined;
      }
      return Number(raw);
    },
    setValue(value) {
      if (control.tagName === "SELECT") {
        const index = options.findIndex((option) => JSON.stringify(option) === JSON.stringify(value));
        control.value = index < 0 ? "" : String(index);
      } else if (kind === "boolean") {
        control.checked = Boolean(value);
      } else {
        control.value = value === undefined || value === null ? "" : String(value);
      }
    },
  };
  if ("default" in schema) field.setValue(schema.default);
  return field;
}

function constField(name, schema, required, path) {
  const id = uid("field");
  const element = h("div", { class: "field" },
    h("label", { for: id }, labelParts(name, schema, required)),
    h("input", { id, type: "text", readonly: true, value: JSON.stringify(schema.const) }),
    h("p", { class: "field-error", id: `${id}-error`, hidden: true }));
  return {
    ...base(id, `${id}-error`, () => document.getElementById(id)),
    element,
    getValue: () => (required ? schema.const : undefined),
    setValue() {},
  };
}

function rawField(name, schema, required, path) {
  const id = uid("field");
  const errorId = `${id}-error`;
  const hint = hintFor(schema, `${id}-hint`);
  const control = h("textarea", { id, rows: 3, class: "json", spellcheck: "false",
    name: pathText(path),
    "aria-describedby": describedBy(`${id}-json`, hint && `${id}-hint`, errorId) });
  if ("default" in schema) control.value = JSON.stringify(schema.default);
  const element = h("div", { class: "field" },
    h("label", { for: id }, labelParts(name, schema, required)), control,
    h("p", { class: "hint", id: `${id}-json` }, "Enter JSON: this field's schema has no form."),
    hint, h("p", { class: "field-error", id: errorId, hidden: true }));
  return {
    ...base(id, errorId, () => document.getElementById(id)),
    element,
    getValue() {
      const text = control.value.trim();
      if (text === "") return undefined;
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new FieldError(path, `${pathText(path) || "arguments"} is not valid JSON: ${error.message}`);
      }
    },
    setValue(value) {
      control.value = value === undefined ? "" : JSON.stringify(value, null, 2);
    },
  };
}

function objectField(name, schema, required, path, root, seen, depth) {
  const id = uid("group");
  const errorId = `${id}-error`;
  const requiredNames = new Set(schema.required || []);
  const children = new Map();
  for (const [key, child] of Object.entries(schema.properties || {})) {
    children.set(key, field(key, child, requiredNames.has(key), [...path, key], root, seen, depth + 1));
  }
  const hint = path.length ? hintFor(schema, `${id}-hint`) : null;
  const error = h("p", { class: "field-error", id: errorId, hidden: true });
  const inner = [...children.values()].map((child) => child.element);
  const element = path.length
    ? h("fieldset", { class: "group", id, "aria-describedby": describedBy(hint && `${id}-hint`, errorId) },
      h("legend", {}, labelParts(name, schema, required)), hint, error, inner)
    : h("div", { class: "group-root", id }, error,
      inner.length ? inner : h("p", { class: "muted" }, "This tool takes no arguments."));
  return {
    ...base(id, errorId, () => firstControl(element)),
    element,
    getValue() {
      const value = {};
      for (const [key, child] of children) {
        const v = child.getValue();
        if (v !== undefined) value[key] = v;
      }
      if (!required && path.length && Object.keys(value).length === 0) return undefined;
      return value;
    },
    setValue(value) {
      for (const [key, child] of children) child.setValue(value && typeof value === "object" ? value[key] : undefined);
    },
    find(rest) {
      if (rest.length === 0) return this;
      const child = children.get(String(rest[0]));
      return child ? child.find(rest.slice(1)) : null;
    },
    clearErrors() {
      error.textContent = "";
      error.hidden = true;
      for (const child of children.values()) child.clearErrors();
    },
    showError(message) {
      error.textContent = error.textContent ? `${error.textContent} ${message}` : message;
      error.hidden = false;
      const control = firstControl(element);
      return control ? control.id : null;
    },
    child(key) {
      return children.get(key);
    },
  };
}

function firstControl(element) {
  return element.querySelector("input, select, textarea, button");
}

function arrayField(name, schema, required, path, root, seen, depth) {
  const id = uid("list");
  const errorId = `${id}-error`;
  const items = [];
  const list = h("ol", { class: "items" });
  const hint = hintFor(schema, `${id}-hint`);
  const error = h("p", { class: "field-error", id: errorId, hidden: true });
  const legendId = `${id}-legend`;
  const addButton = h("button", { type: "button", class: "secondary add",
    onclick: () => { add(undefined, true); } }, `Add ${itemNoun()}`);
  const element = h("fieldset", { class: "group array", id,
    "aria-describedby": describedBy(hint && `${id}-hint`, errorId) },
  h("legend", { id: legendId }, labelParts(name, schema, required)), hint, error, list, addButton);

  function itemNoun() {
    return `an item to ${schema.title || name}`;
  }

  function add(value, focus) {
    const index = items.length;
    const label = `${schema.items.title || schema.title || name} ${index + 1}`;
    const item = field(label, { ...schema.items, title: label }, true, [...path, index],
      root, seen, depth + 1);
    if (value !== undefined) item.setValue(value);
    const remove = h("button", { type: "button", class: "secondary remove",
      "aria-label": `Remove item ${index + 1} of ${schema.title || name}`,
      onclick: () => removeAt(items.indexOf(entry)) }, "Remove");
    const entry = { item, li: h("li", {}, item.element, remove) };
    items.push(entry);
    list.append(entry.li);
    if (focus) item.focus();
  }

  function removeAt(index) {
    const values = items.map((entry) => entry.item.getValue());
    values.splice(index, 1);
    rebuild(values);
    (items[Math.min(index, items.length - 1)]?.item ?? { focus: () => addButton.focus() }).focus();
  }

  function rebuild(values) {
    items.length = 0;
    list.replaceChildren();
    for (const value of values) add(value, false);
  }

  if (Array.isArray(schema.default)) rebuild(schema.default);
  return {
    ...base(id, errorId, () => firstControl(element)),
    element,
    getValue() {
      const values = items.map((entry) => entry.item.getValue());
      if (!required && values.length === 0) return undefined;
      return values;
    },
    setValue(value) {
      rebuild(Array.isArray(value) ? value : []);
    },
    find(rest) {
      if (rest.length === 0) return this;
      const entry = items[Number(rest[0])];
      return entry ? entry.item.find(rest.slice(1)) : null;
    },
    clearErrors() {
      error.textContent = "";
      error.hidden = true;
      for (const entry of items) entry.item.clearErrors();
    },
    showError(message) {
      error.textContent = error.textContent ? `${error.textContent} ${message}` : message;
      error.hidden = false;
      return (firstControl(list) || addButton).id || null;
    },
  };
}

function field(name, raw, required, path, root, seen, depth) {
  const resolved = raw && typeof raw === "object" ? resolve(raw, root, seen) : null;
  if (!resolved || depth > MAX_DEPTH) return rawField(name, raw || {}, required, path);
  const { schema, nullable } = withoutNull(resolved.schema);
  const optional = !required || nullable;
  const kind = kindOf(schema);
  if (kind === "object") return objectField(name, schema, !optional, path, root, resolved.seen, depth);
  if (kind === "array") return arrayField(name, schema, !optional, path, root, resolved.seen, depth);
  if (kind === "const") return constField(name, schema, !optional, path);
  if (kind === "raw") return rawField(name, schema, !optional, path);
  return scalarField(kind, name, schema, !optional, path);
}

/** The property a "required" message names, for an error reported at its parent. */
function missingProperty(message) {
  const match = /^'([^']+)' is a required property/.exec(message || "") ||
    /missing (?:required )?(?:property|field|argument) '([^']+)'/i.exec(message || "");
  return match ? match[1] : null;
}

/**
 * Build the form for ``schema`` (a tool's input schema).
 *
 * Returns an object with ``element``, ``getValue()`` (throws an error with ``fieldErrors``
 * when a field cannot be read), ``setValue(value)``, ``showError(path, message, field)``
 * (returns ``{id, name}``: the control the error belongs to and the field's name),
 * ``clearErrors()`` and ``focusFirst()``.
 */
export function buildForm(schema) {
  const root = field("arguments", schema, true, [], schema, new Set(), 0);
  const rawMode = h("textarea", { id: uid("raw"), rows: 10, class: "json", spellcheck: "false",
    "aria-describedby": "raw-mode-hint" });
  const rawError = h("p", { class: "field-error", id: `${rawMode.id}-error`, hidden: true });
  const rawBox = h("div", { class: "field raw-mode", hidden: true },
    h("label", { for: rawMode.id }, "Arguments as JSON"), rawMode,
    h("p", { class: "hint", id: "raw-mode-hint" }, "The whole arguments object, sent as written."), rawError);
  let raw = false;
  const toggle = h("input", { type: "checkbox", id: "raw-toggle" });
  const toggleBox = h("div", { class: "field field-check" }, toggle,
    h("label", { for: "raw-toggle" }, "Edit the arguments as JSON"));
  const formBox = h("div", {}, root.element);
  toggle.addEventListener("change", () => {
    if (toggle.checked) {
      let value = {};
      try {
        value = root.getValue() ?? {};
      } catch {
        value = {};
      }
      rawMode.value = JSON.stringify(value, null, 2);
    } else {
      try {
        root.setValue(JSON.parse(rawMode.value || "{}"));
      } catch {
        // Unparsable JSON: the form keeps what it had.
      }
    }
    raw = toggle.checked;
    rawBox.hidden = !raw;
    formBox.hidden = raw;
  });
  return {
    element: h("div", { class: "schema-form" }, toggleBox, formBox, rawBox),
    getValue() {
      if (!raw) return root.getValue() ?? {};
      try {
        return JSON.parse(rawMode.value || "{}");
      } catch (error) {
        const failure = new Error(`the arguments are not valid JSON: ${error.message}`);
        failure.fieldErrors = [{ path: [], field: "arguments", message: failure.message }];
        throw failure;
      }
    },
    setValue(value) {
      root.setValue(value);
      rawMode.value = JSON.stringify(value, null, 2);
    },
    showError(path, message, fieldName) {
      if (raw) {
        rawError.textContent = `${rawError.textContent} ${fieldName || pathText(path) || "arguments"}: ${message}`.trim();
        rawError.hidden = false;
        rawMode.setAttribute("aria-invalid", "true");
        return { id: rawMode.id, name: fieldName || pathText(path) || "arguments" };
      }
      let target = root.find(path);
      let where = path;
      const missing = missingProperty(message);
      if (missing && root.find([...path, missing])) {
        where = [...path, missing];
        target = root.find(where);
      }
      const id = (target || root).showError(message);
      return { id, name: fieldName || pathText(where) || "arguments" };
    },
    clearErrors() {
      root.clearErrors();
      rawError.textContent = "";
      rawError.hidden = true;
      rawMode.removeAttribute("aria-invalid");
    },
    focusFirst() {
      (firstControl(formBox) || toggle).focus();
    },
  };
}
