import type { Resource, ResourceTemplate } from "../../../protocol/types/index.js";
import { api, on } from "./api.js";
import { errorLine, h, replace } from "./dom.js";
import { MAX_UPDATES } from "./limits.js";
import { filterBar, linkRow, splitPanel } from "./panel.js";
import { readResult } from "./results.js";
import { state, tracked } from "./state.js";
import { VirtualList } from "./virtual-list.js";

type Params = { [key: string]: unknown };

let resources: Resource[] = [];
let templates: ResourceTemplate[] = [];
const subscribed = new Set<string>();
/** The URI in the reader. */
let shown: string | undefined;
const filter = h("input", {
  type: "search",
  placeholder: "filter resources",
  "aria-label": "filter resources",
  oninput: () => draw(false),
});
const count = h("div", { class: "hint", id: "resources-count" });
const templateCount = h("div", { class: "hint", id: "templates-count" });
// Windowed like the tools: only the rows in view are in the page, however many the server lists.
const list = new VirtualList<Resource>(
  44,
  (r) =>
    linkRow(
      { class: "res-row", "data-resource": r.uri },
      r.name,
      () => void readResource(r.uri),
      r.uri,
      subscribeButton(r.uri),
    ),
  "vlist res-list",
);
const templateList = new VirtualList<ResourceTemplate>(
  44,
  (t) =>
    linkRow(
      { class: "tpl-row", "data-template": t.uriTemplate },
      t.name,
      () => showTemplate(t),
      t.uriTemplate,
    ),
  "vlist tpl-list",
);
const reader = h(
  "div",
  { class: "detail", id: "resource-reader" },
  h("div", { class: "hint" }, "read a resource"),
);
const updates = h("ol", { class: "updates", "aria-label": "resource updates" });

/** The Resources tab: resources and templates (with completion), read, subscribe and live updates. */
export function resourcesPanel(): HTMLElement {
  return splitPanel(
    [
      filterBar(filter, load),
      h("h3", null, "Resources"),
      count,
      list.element,
      h("h3", null, "Templates"),
      templateCount,
      templateList.element,
      h("h3", null, "Updates"),
      updates,
    ],
    reader,
  );
}

export async function load(): Promise<void> {
  try {
    resources = (await api<{ resources: Resource[] }>("resources/list")).resources;
    templates = (await api<{ resourceTemplates: ResourceTemplate[] }>("resources/templates/list"))
      .resourceTemplates;
  } catch (error) {
    resources = [];
    templates = [];
    draw(false);
    replace(count, errorLine(error));
    return;
  }
  draw(false);
}

function draw(keepScroll = true): void {
  const q = filter.value.toLowerCase();
  const matching =
    q === ""
      ? resources
      : resources.filter((r) => r.uri.toLowerCase().includes(q) || r.name.toLowerCase().includes(q));
  const matchingTemplates =
    q === ""
      ? templates
      : templates.filter((t) => t.uriTemplate.toLowerCase().includes(q) || t.name.toLowerCase().includes(q));
  count.textContent = `${matching.length} of ${resources.length} resources`;
  templateCount.textContent = `${matchingTemplates.length} of ${templates.length} templates`;
  list.set(matching, keepScroll);
  templateList.set(matchingTemplates, keepScroll);
}

function subscribeButton(uri: string): HTMLElement | null {
  const caps = (state.info?.capabilities ?? {}) as Params;
  const canSubscribe =
    ((caps.resources ?? {}) as Params).subscribe === true || state.info?.era === "2026-07-28";
  if (!canSubscribe) return null;
  const on = subscribed.has(uri);
  return h(
    "button",
    { type: "button", class: "small", "data-subscribe": uri, onclick: () => void toggle(uri) },
    on ? "unsubscribe" : "subscribe",
  );
}

async function toggle(uri: string): Promise<void> {
  const on = !subscribed.has(uri);
  try {
    const answer = await tracked<{ subscribed: string[] }>(
      on ? "resources/subscribe" : "resources/unsubscribe",
      { uri },
    );
    subscribed.clear();
    for (const u of answer.subscribed) subscribed.add(u);
  } catch (error) {
    replace(reader, errorLine(error));
  }
  draw();
}

/** Reads a resource into the reader pane. */
export async function readResource(uri: string): Promise<void> {
  shown = uri;
  replace(reader, h("div", { class: "hint" }, `reading ${uri}...`));
  try {
    const result = await tracked<Params>("resources/read", { uri });
    replace(reader, h("h2", null, uri), subscribeButton(uri), readResult(result));
  } catch (error) {
    replace(reader, h("h2", null, uri), errorLine(error));
  }
}

/** Shows a template's form in the reader. */
function showTemplate(template: ResourceTemplate): void {
  shown = undefined;
  replace(reader, templateForm(template));
}

/** A template's variables as fields, each completed by the server as the user types. */
function templateForm(template: ResourceTemplate): HTMLElement {
  const names = [...template.uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) =>
    (m[1] ?? "").split(",").map((n) => n.replace(/\*$|:\d+$/, "")),
  );
  const inputs = new Map<string, HTMLInputElement>();
  const fields = names.map((name) => {
    const listId = `c-${Math.random().toString(36).slice(2)}`;
    const options = h("datalist", { id: listId });
    const input = h("input", { type: "text", name, list: listId, placeholder: name, "aria-label": name });
    input.addEventListener("input", () => void complete(name, input.value, options));
    inputs.set(name, input);
    return h("label", { class: "inline" }, `${name} `, input, options);
  });
  const complete = async (name: string, value: string, options: HTMLDataListElement) => {
    if (((state.info?.capabilities ?? {}) as Params).completions === undefined) return;
    const context: { [key: string]: string } = {};
    for (const [n, i] of inputs) if (n !== name && i.value !== "") context[n] = i.value;
    try {
      const result = await api<{ completion: { values: string[] } }>("complete", {
        params: {
          ref: { type: "ref/resource", uri: template.uriTemplate },
          argument: { name, value },
          ...(Object.keys(context).length > 0 ? { context: { arguments: context } } : {}),
        },
      });
      replace(
        options,
        result.completion.values.slice(0, 100).map((v) => h("option", { value: v })),
      );
    } catch {
      // completion is a convenience: a refusal leaves the field as typed
    }
  };
  const expand = () =>
    template.uriTemplate.replace(/\{[+#./;?&]?([^}]+)\}/g, (_m, vars: string) =>
      vars
        .split(",")
        .map((n) => encodeURIComponent(inputs.get(n.replace(/\*$|:\d+$/, ""))?.value ?? ""))
        .join(","),
    );
  return h(
    "div",
    { class: "item template" },
    h("b", null, template.name),
    " ",
    h("code", null, template.uriTemplate),
    h(
      "div",
      null,
      fields,
      h("button", { type: "button", class: "small", onclick: () => void readResource(expand()) }, "read"),
    ),
  );
}

on("notification", (data) => {
  const n = data as Params;
  if (n.method === "notifications/resources/updated") {
    const uri = String(((n.params ?? {}) as Params).uri ?? "");
    updates.prepend(
      h("li", null, `${new Date().toISOString().slice(11, 23)} updated `, h("code", null, uri)),
    );
    while (updates.childElementCount > MAX_UPDATES) updates.lastElementChild?.remove();
    // The resource on screen is read again: live.
    if (uri === shown) void readResource(uri);
  } else if (n.method === "notifications/resources/list_changed" && state.connected) void load();
});

export function resetSubscriptions(): void {
  subscribed.clear();
}
