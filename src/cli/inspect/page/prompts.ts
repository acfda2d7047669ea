import type { Prompt } from "../../../protocol/types/index.js";
import { api, on } from "./api.js";
import { errorLine, h, replace } from "./dom.js";
import { refreshButton, splitPanel } from "./panel.js";
import { promptResult } from "./results.js";
import { state, tracked } from "./state.js";

type Params = { [key: string]: unknown };

let prompts: Prompt[] = [];
const listBox = h("div", { class: "items" });
const detail = h("div", { class: "detail" }, h("div", { class: "hint" }, "choose a prompt"));

/** The Prompts tab: each prompt's arguments (completed by the server), and the rendered messages. */
export function promptsPanel(): HTMLElement {
  return splitPanel([refreshButton(load), listBox], detail);
}

export async function load(): Promise<void> {
  try {
    prompts = (await api<{ prompts: Prompt[] }>("prompts/list")).prompts;
  } catch (error) {
    replace(listBox, errorLine(error));
    return;
  }
  replace(
    listBox,
    prompts.length === 0 ? h("div", { class: "hint" }, "none") : null,
    prompts
      .slice(0, 1000)
      .map((p) =>
        h(
          "div",
          { class: "item" },
          h("button", { type: "button", class: "link", onclick: () => select(p) }, p.name),
          h("div", { class: "hint" }, p.description ?? ""),
        ),
      ),
  );
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
