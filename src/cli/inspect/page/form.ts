import { jsonSchemaValidator } from "../../../validation/json-schema.js";
import { choicesOf } from "./choices.js";
import { h, json, replace } from "./dom.js";

type Schema = { [key: string]: unknown };

/** A schema form's state: its value when valid, and whether it is. */
export interface SchemaForm {
  element: HTMLElement;
  /** The current arguments (undefined when a field cannot be read, e.g. a number that is not one). */
  value(): { [key: string]: unknown } | undefined;
  /** True when the value parses and the schema accepts it (raw mode: when it parses as an object). */
  valid(): boolean;
  /** Fills the form (the raw JSON view and the fields). */
  fill(value: { [key: string]: unknown }): void;
  /** True in raw-JSON mode. */
  raw(): boolean;
}

interface Field {
  name: string;
  read(): { ok: true; value: unknown; empty: boolean } | { ok: false; message: string };
  write(value: unknown): void;
  message: HTMLElement;
  element: HTMLElement;
}

const typeOf = (schema: Schema): string | undefined => {
  const t = schema.type;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) return t.find((x) => x !== "null") as string | undefined;
  return undefined;
};

/** mcpkit's own validator for a schema; a schema it cannot compile validates nothing (the server judges). */
export function validatorOf(schema: unknown): (value: unknown) => { path: string; message: string }[] {
  try {
    const check = jsonSchemaValidator(schema as { [key: string]: unknown });
    return (value) =>
      check(value).map((issue) => ({ path: issue.path.replace(/^\//, ""), message: issue.message }));
  } catch {
    return () => [];
  }
}

function field(name: string, schema: Schema, required: boolean, onInput: () => void): Field {
  const type = typeOf(schema);
  const id = `f-${Math.random().toString(36).slice(2)}`;
  const message = h("div", { class: "field-error", role: "alert" });
  const description = typeof schema.description === "string" ? schema.description : "";
  const label = h(
    "label",
    { for: id },
    name,
    typeof schema.title === "string" && schema.title !== name
      ? h("span", { class: "title" }, ` ${schema.title}`)
      : null,
    required ? h("span", { class: "req" }, " *") : null,
    type ? h("span", { class: "type" }, ` ${type}`) : null,
  );
  let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  let read: Field["read"];
  let write: Field["write"];
  const choices = type === "array" ? undefined : choicesOf(schema);
  const many = type === "array" ? choicesOf(schema.items) : undefined;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (choices !== undefined) {
    const select = h(
      "select",
      { id, name, onchange: onInput },
      h("option", { value: "" }, required ? "(choose)" : "(unset)"),
      choices.map((c, i) => h("option", { value: String(i) }, c.label)),
    );
    control = select;
    read = () =>
      select.value === ""
        ? { ok: true, value: undefined, empty: true }
        : { ok: true, value: choices[Number(select.value)]?.value, empty: false };
    write = (v) => {
      const index = choices.findIndex((c) => same(c.value, v));
      select.value = index < 0 ? "" : String(index);
    };
  } else if (many !== undefined) {
    const select = h(
      "select",
      { id, name, multiple: true, size: Math.min(many.length, 6), onchange: onInput },
      many.map((c, i) => h("option", { value: String(i) }, c.label)),
    );
    control = select;
    read = () => {
      const picked = [...select.selectedOptions].map((o) => many[Number(o.value)]?.value);
      return picked.length === 0
        ? { ok: true, value: undefined, empty: true }
        : { ok: true, value: picked, empty: false };
    };
    write = (v) => {
      const values = Array.isArray(v) ? v : [];
      for (const [i, option] of [...select.options].entries()) {
        option.selected = values.some((x) => same(x, many[i]?.value));
      }
    };
  } else if (type === "boolean") {
    const select = h(
      "select",
      { id, name, onchange: onInput },
      h("option", { value: "" }, "(unset)"),
      h("option", { value: "true" }, "true"),
      h("option", { value: "false" }, "false"),
    );
    control = select;
    read = () =>
      select.value === ""
        ? { ok: true, value: undefined, empty: true }
        : { ok: true, value: select.value === "true", empty: false };
    write = (v) => {
      select.value = v === true ? "true" : v === false ? "false" : "";
    };
  } else if (type === "string" || type === "number" || type === "integer") {
    const input = h("input", {
      id,
      name,
      type: "text",
      oninput: onInput,
      inputmode: type === "string" ? undefined : "decimal",
      placeholder: schema.default === undefined ? undefined : `default: ${json(schema.default)}`,
    });
    control = input;
    read = () => {
      const text = input.value;
      if (text === "") return { ok: true, value: undefined, empty: true };
      if (type === "string") return { ok: true, value: text, empty: false };
      const n = Number(text.trim());
      if (text.trim() === "" || !Number.isFinite(n))
        return { ok: false, message: `"${text}" is not a number` };
      return { ok: true, value: n, empty: false };
    };
    write = (v) => {
      input.value = v === undefined ? "" : typeof v === "string" ? v : json(v);
    };
  } else {
    const area = h("textarea", { id, name, rows: 3, oninput: onInput, placeholder: "JSON" });
    control = area;
    read = () => {
      if (area.value.trim() === "") return { ok: true, value: undefined, empty: true };
      try {
        return { ok: true, value: JSON.parse(area.value) as unknown, empty: false };
      } catch {
        return { ok: false, message: "not valid JSON" };
      }
    };
    write = (v) => {
      area.value = v === undefined ? "" : json(v);
    };
  }
  const element = h(
    "div",
    { class: "field" },
    label,
    control,
    description === "" ? null : h("div", { class: "hint" }, description),
    message,
  );
  return { name, read, write, message, element };
}

/**
 * A form generated from a JSON Schema object (one field per property: text, number, a select for enums and
 * booleans, JSON for the rest), validated as the user types against the whole schema, with a raw-JSON mode.
 */
export function schemaForm(
  schema: unknown,
  onChange: () => void = () => {},
  options: { defaults?: boolean } = {},
): SchemaForm {
  const s = (typeof schema === "object" && schema !== null ? schema : {}) as Schema;
  const properties = (typeof s.properties === "object" && s.properties !== null ? s.properties : {}) as {
    [key: string]: Schema;
  };
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const validate = validatorOf(s);
  const general = h("div", { class: "field-error", role: "alert" });
  let isRaw = false;
  let ok = true;
  const update = () => {
    ok = check();
    onChange();
  };
  const fields = Object.entries(properties).map(([name, p]) =>
    field(name, typeof p === "object" && p !== null ? p : {}, required.has(name), update),
  );
  const rawArea = h("textarea", {
    class: "raw",
    rows: 8,
    spellcheck: "false",
    oninput: update,
    "aria-label": "arguments as JSON",
  });
  const fieldBox = h(
    "div",
    { class: "fields" },
    fields.length === 0 ? h("div", { class: "hint" }, "no arguments") : fields.map((f) => f.element),
  );
  const rawBox = h("div", { class: "rawbox", hidden: true }, rawArea);
  const toggle = h("button", { type: "button", class: "small", onclick: () => setRaw(!isRaw) }, "raw JSON");

  const fromFields = (): { [key: string]: unknown } | undefined => {
    const value: { [key: string]: unknown } = {};
    let readable = true;
    for (const f of fields) {
      const r = f.read();
      if (!r.ok) readable = false;
      else if (!r.empty) value[f.name] = r.value;
    }
    return readable ? value : undefined;
  };
  const fromRaw = (): { [key: string]: unknown } | undefined => {
    if (rawArea.value.trim() === "") return {};
    try {
      const v = JSON.parse(rawArea.value) as unknown;
      return typeof v === "object" && v !== null && !Array.isArray(v)
        ? (v as { [key: string]: unknown })
        : undefined;
    } catch {
      return undefined;
    }
  };
  const value = () => (isRaw ? fromRaw() : fromFields());

  function check(): boolean {
    for (const f of fields) replace(f.message);
    replace(general);
    if (isRaw) {
      const v = fromRaw();
      if (v === undefined) {
        replace(general, "not a JSON object");
        return false;
      }
      const errors = validate(v);
      // Raw mode sends what the user wrote: the schema's complaints are shown, not enforced.
      if (errors.length > 0)
        replace(
          general,
          errors.map((e) => `${e.path === "" ? "" : `${e.path}: `}${e.message}`).join("; "),
          " (sent anyway)",
        );
      return true;
    }
    let good = true;
    for (const f of fields) {
      const r = f.read();
      if (!r.ok) {
        replace(f.message, r.message);
        good = false;
      }
    }
    // The fields that read well are checked even when another does not: every message shows at once.
    const partial: { [key: string]: unknown } = {};
    for (const f of fields) {
      const r = f.read();
      if (r.ok && !r.empty) partial[f.name] = r.value;
    }
    for (const error of validate(partial)) {
      const top = (error.path.split("/")[0] ?? "").replaceAll("~1", "/").replaceAll("~0", "~");
      const target = fields.find((f) => f.name === top);
      const box = target?.message ?? general;
      // A field that does not read already says why; the schema's "required" for it adds nothing.
      if (box.textContent === "" && !(target === undefined && fields.some((f) => !f.read().ok))) {
        replace(box, error.message);
      }
      good = false;
    }
    return good;
  }

  function setRaw(on: boolean): void {
    if (on === isRaw) return;
    if (on) {
      rawArea.value = json(fromFields() ?? {});
    } else {
      const v = fromRaw();
      if (v === undefined) {
        replace(general, "fix the JSON before going back to the form");
        return;
      }
      for (const f of fields) f.write(v[f.name]);
    }
    isRaw = on;
    fieldBox.hidden = on;
    rawBox.hidden = !on;
    toggle.textContent = on ? "form" : "raw JSON";
    update();
  }

  const element = h(
    "div",
    { class: "schema-form" },
    h("div", { class: "form-bar" }, toggle),
    fieldBox,
    rawBox,
    general,
  );
  // Elicitation forms start from the schema's defaults (SEP-1034); a tool's defaults are the server's to apply.
  if (options.defaults === true) {
    for (const f of fields) {
      const d = properties[f.name]?.default;
      if (d !== undefined) f.write(d);
    }
  }
  ok = check();
  return {
    element,
    value,
    valid: () => ok,
    raw: () => isRaw,
    fill(v) {
      for (const f of fields) f.write(v[f.name]);
      rawArea.value = json(v);
      update();
    },
  };
}
