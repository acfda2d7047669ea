import { on } from "./api.js";
import { BoundedLog } from "./bounded.js";
import { cliCommand } from "./cli-command.js";
import { h, json, pre, replace } from "./dom.js";
import { MAX_WIRE, MAX_WIRE_CHARS } from "./limits.js";
import { era, state } from "./state.js";
import { VirtualList } from "./virtual-list.js";

type Params = { [key: string]: unknown };

/** One message of the wire log, as the inspector sent it (whole, or cut with its size). */
export interface WireEntry {
  direction: "in" | "out";
  time: string;
  method?: string;
  id?: string | number;
  message?: Params;
  truncated?: boolean;
  /** Characters of the message's JSON (the whole message's, when it was cut). */
  size?: number;
  preview?: string;
}

/** The newest messages, bounded in count and in the characters they hold. */
const entries = new BoundedLog<WireEntry>(MAX_WIRE, MAX_WIRE_CHARS, (e) =>
  e.truncated === true ? (e.preview ?? "").length : (e.size ?? 0),
);
let shown: readonly WireEntry[] = [];
/** Request methods by id, so a response row can say what it answers. */
const methods = new Map<string, string>();
const filter = h("input", {
  type: "search",
  placeholder: "filter by method",
  "aria-label": "filter by method",
  oninput: () => draw(),
});
const follow = h("input", { type: "checkbox", checked: true });
const count = h("span", { class: "hint", id: "wire-count" });
const detail = h("div", { class: "detail wire-detail" }, h("div", { class: "hint" }, "choose a message"));
const list = new VirtualList<WireEntry>(
  24,
  (entry) =>
    h(
      "div",
      { class: `wire-row ${entry.direction}`, onclick: () => select(entry) },
      h("span", { class: "dir" }, entry.direction === "out" ? "→" : "←"),
      h("span", { class: "time" }, entry.time.slice(11, 23)),
      h("span", { class: "method" }, methodOf(entry)),
      entry.id === undefined ? null : h("span", { class: "hint" }, ` #${String(entry.id)}`),
    ),
  "vlist wire-list",
);

function methodOf(entry: WireEntry): string {
  if (entry.method !== undefined) return entry.method;
  const asked =
    entry.id === undefined
      ? undefined
      : methods.get(`${entry.direction === "in" ? "out" : "in"}:${String(entry.id)}`);
  const kind = entry.message?.error !== undefined ? "error" : "result";
  return asked === undefined ? kind : `${kind} of ${asked}`;
}

/** The Wire tab: every JSON-RPC message both ways, filtered by method; a request copies as an mcpkit command. */
export function wirePanel(): HTMLElement {
  return h(
    "section",
    { class: "split" },
    h(
      "div",
      { class: "side wide" },
      h("div", { class: "bar" }, filter, h("label", { class: "inline" }, follow, " follow"), count),
      list.element,
    ),
    detail,
  );
}

function draw(): void {
  const q = filter.value.toLowerCase();
  const all = entries.items;
  shown = q === "" ? all : all.filter((e) => methodOf(e).toLowerCase().includes(q));
  count.textContent =
    entries.dropped === 0
      ? `${all.length} messages`
      : `${all.length} messages (${entries.dropped} older dropped)`;
  list.set(shown);
  if (follow.checked) list.scrollToEnd();
}

function select(entry: WireEntry): void {
  const message = entry.message;
  const command =
    entry.direction === "out" && message !== undefined && entry.method !== undefined
      ? cliCommand(state.target, entry.method, message.params as Params | undefined, era())
      : undefined;
  const commandBox =
    command === undefined
      ? null
      : h(
          "div",
          { class: "command" },
          h("code", { class: "cli" }, command),
          h(
            "button",
            {
              type: "button",
              class: "small",
              onclick: () => void navigator.clipboard.writeText(command).catch(() => {}),
            },
            "copy as mcpkit command",
          ),
        );
  replace(
    detail,
    h("div", { class: "caption" }, `${entry.direction === "out" ? "sent" : "received"} ${entry.time}`),
    commandBox,
    entry.truncated === true
      ? h("div", { class: "hint" }, `cut: ${String(entry.size)} characters in all`)
      : null,
    pre(entry.truncated === true ? (entry.preview ?? "") : json(message)),
  );
}

let pending = false;
on("wire", (data) => {
  const entry = data as WireEntry;
  if (entry.method !== undefined && entry.id !== undefined) {
    methods.set(`${entry.direction}:${String(entry.id)}`, entry.method);
    if (methods.size > MAX_WIRE) methods.delete(methods.keys().next().value as string);
  }
  entries.push(entry);
  // One redraw per frame however many messages arrive.
  if (!pending) {
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  }
});

/** The log as it is, for the history export. */
export function wireLog(): readonly WireEntry[] {
  return entries.items;
}
