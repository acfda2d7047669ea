import type { Prompt } from "../../../protocol/types/index.js";
import { api, on } from "./api.js";
import { errorLine, h, replace } from "./dom.js";
import { filterBar, linkRow, splitPanel } from "./panel.js";
import { promptResult } from "./results.js";
import { state, tracked } from "./state.js";
import { VirtualList } from "./virtual-list.js";

type Params = { [key: string]: unknown };

let prompts: Prompt[] = [];
const filter = h("input", {
  type: "search",
  placeholder: "filter prompts",
  "aria-label": "filter prompts",
  oninput: () => draw(false),
});
const count = h("div", { class: "hint", id: "prompts-count" });
// Windowed like the tools: only the rows in view are in the page, however many the server lists.
const list = new VirtualList<Prompt>(
  44,
  (p) =>
    linkRow(
      { class: "prompt-row", "data-prompt": p.name },
      p.name,
      () => select(p),
      (p.description ?? "").split("\n")[0] ?? "",
    ),
  "vlist prompt-list",
);
const detail = h("div", { class: "detail" }, h("div", { class: "hint" }, "choose a prompt"));

/** The Prompts tab: a filter and a windowed list, each prompt's arguments (completed by the server), the messages. */
export function promptsPanel(): HTMLElement {
  return splitPanel([filterBar(filter, load), count, list.element], detail);
}

export async function load(): Promise<void> {
  try {
    prompts = (await api<{ prompts: Prompt[] }>("prompts/list")).prompts;
  } catch (error) {
    prompts = [];
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
      ? prompts
      : prompts.filter(
          (p) => p.name.toLowerCase().includes(q) || (p.description ?? "").toLowerCase().includes(q),
        );
  count.textContent = `${matching.length} of ${prompts.length} prompts`;
  list.set(matching, keepScroll);
}

function select(prompt: Prompt): void {
  const inputs = new Map<string, HTMLInputElement>();
  const out = h("div");
  const fields = (prompt.arguments ?? []).map((arg) => {
    const listId = `p-${Math.random().toString(36).slice(2)}`;
    const options = h("datalist", { id: listId });
    const input = h("input", { type: "text", name: arg.name, list: listId, "aria-label": arg.name });
    input.addEventListener("input", async () => {
      if (((state.info?.capabilities ?? {}) as Params).completions === undefined) return;
      try {
        const result = await api<{ completion: { values: string[] } }>("complete", {
          params: {
            ref: { type: "ref/prompt", name: prompt.name },
            argument: { name: arg.name, value: input.value },
          },
        });
        replace(
          options,
          result.completion.values.slice(0, 100).map((v) => h("option", { value: v })),
        );
      } catch {
        // a refused completion leaves the field as typed
      }
    });
    inputs.set(arg.name, input);
    return h(
      "div",
      { class: "field" },
      h("label", null, arg.name, arg.required === true ? h("span", { class: "req" }, " *") : null),
      input,
      options,
      arg.description === undefined ? null : h("div", { class: "hint" }, arg.description),
    );
  });
  const get = async () => {
    const args: { [key: string]: string } = {};
    for (const [name, input] of inputs) if (input.value !== "") args[name] = input.value;
    try {
      replace(
        out,
        promptResult(await tracked<Params>("prompts/get", { name: prompt.name, arguments: args })),
      );
    } catch (error) {
      replace(out, errorLine(error));
    }
  };
  replace(
    detail,
    h("h2", null, prompt.name),
    h("p", null, prompt.description ?? ""),
    fields,
    h("button", { type: "button", class: "primary", onclick: () => void get() }, "Get prompt"),
    out,
  );
}

on("notification", (data) => {
  if ((data as Params).method === "notifications/prompts/list_changed" && state.connected) void load();
});
