// Everything the page shows is built here, from text nodes: no HTML string is ever parsed. The server is
// untrusted, and this is the only place elements are made, so the rule holds by construction (and
// test/inspect/page-source.test.ts checks that no file of the page names an HTML sink).

/** What may be a child: text (always a text node), an element, or nothing. */
export type Child = Node | string | number | boolean | null | undefined | Child[];

type Props = { [key: string]: unknown };

/** Attributes that would parse HTML or run script from a string: never set by the page. */
const FORBIDDEN = new Set(["srcdoc", "innerhtml", "outerhtml", "style"]);
/** Set as properties (their live value), not attributes. */
const PROPERTIES = new Set([
  "value",
  "checked",
  "disabled",
  "selected",
  "indeterminate",
  "hidden",
  "multiple",
]);

/**
 * Makes an element: `h("button", { class: "primary", onclick: run }, "Call")`. Children are appended as text
 * nodes or elements; `on*` props are listeners; `value`/`checked`/... are properties; the rest attributes.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    const lower = key.toLowerCase();
    if (FORBIDDEN.has(lower) || (lower.startsWith("on") && typeof value !== "function")) {
      throw new Error(`the page never sets ${key}`);
    }
    if (lower.startsWith("on")) element.addEventListener(lower.slice(2), value as EventListener);
    else if (PROPERTIES.has(key)) (element as unknown as Props)[key] = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children (text as text nodes). */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false || child === true) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** JSON, indented, for a `<pre>`. */
export function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A `<pre>` of a value's JSON (as text). */
export function pre(value: unknown, className = "json"): HTMLPreElement {
  return h("pre", { class: className }, typeof value === "string" ? value : json(value));
}

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** The URL when it may be a link: https, or http to a loopback host; undefined otherwise (shown as text). */
export function safeHref(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.username !== "" || url.password !== "") return undefined;
    if (url.protocol === "https:") return url.href;
    if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return url.href;
  } catch {
    // not a URL
  }
  return undefined;
}

/** A link for a safe URL (new tab, no opener, no referrer), else the text. */
export function link(text: string, label = text): HTMLElement {
  const href = safeHref(text);
  if (href === undefined) return h("span", { class: "url" }, label);
  return h("a", { href, target: "_blank", rel: "noopener noreferrer" }, label);
}

/** A short error line. */
export function errorLine(error: unknown): HTMLElement {
  return h("div", { class: "error" }, errorText(error));
}

export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return code === undefined ? error.message : `${error.message} (${String(code)})`;
  }
  return String(error);
}
