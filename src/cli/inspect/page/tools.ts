import type { CallToolResult, Tool } from "../../../protocol/types/index.js";
import { api, on } from "./api.js";
import { hasView, type OpenView, openView } from "./apps.js";
import { errorLine, h, replace } from "./dom.js";
import { type SchemaForm, schemaForm } from "./form.js";
import { filterBar, splitPanel } from "./panel.js";
import { readResource } from "./resources.js";
import { callResult } from "./results.js";
import { state, tracked } from "./state.js";
import { showTask } from "./tasks.js";
import { VirtualList } from "./virtual-list.js";

type Params = { [key: string]: unknown };

let tools: Tool[] = [];
let shown: Tool[] = [];
let selected: Tool | undefined;
let form: SchemaForm | undefined;
/** The App view on screen, if any. */
let current: OpenView | undefined;
const list = new VirtualList<Tool>(44, (tool) =>
  h(
    "div",
    {
      class: tool === selected ? "tool-row selected" : "tool-row",
      onclick: () => select(tool),
      "data-tool": tool.name,
    },
    h("div", { class: "name" }, tool.name, hasView(tool) ? h("span", { class: "badge" }, " app") : null),
    h("div", { class: "desc" }, (tool.description ?? "").split("\n")[0] ?? ""),
  ),
);
const filter = h("input", {
  type: "search",
  placeholder: "filter tools",
  "aria-label": "filter tools",
  oninput: () => applyFilter(),
});
const count = h("div", { class: "hint" });
const detail = h("div", { class: "detail" }, h("div", { class: "hint" }, "choose a tool"));
const progress: { [callId: string]: (p: Params) => void } = {};

on("progress", (data) => {
  const p = data as Params;
  progress[String(p.callId)]?.(p);
});

/** The Tools tab: a windowed list (10,000 tools scroll smoothly), a form per tool, calls with progress. */
export function toolsPanel(): HTMLElement {
  return splitPanel([filterBar(filter, load), count, list.element], detail);
}

/** Lists the tools again (on connect, on list_changed). */
export async function load(): Promise<void> {
  try {
    const result = await api<{ tools: Tool[] }>("tools/list");
    tools = result.tools;
  } catch (error) {
    tools = [];
    replace(detail, errorLine(error));
  }
  applyFilter();
}

export function toolNamed(name: string): Tool | undefined {
  return tools.find((t) => t.name === name);
}

function applyFilter(): void {
  const q = filter.value.toLowerCase();
  shown =
    q === ""
      ? tools
      : tools.filter(
          (t) => t.name.toLowerCase().includes(q) || (t.description ?? "").toLowerCase().includes(q),
        );
  count.textContent = `${shown.length} of ${tools.length} tools`;
  list.set(shown);
}

/** Shows a tool's form (and fills it with `args`, from the history). */
export function select(tool: Tool, args?: Params): void {
  selected = tool;
  list.set(shown);
  const callButton = h("button", { type: "button", class: "primary", onclick: () => void run() }, "Call");
  form = schemaForm(tool.inputSchema, () => {
    callButton.disabled = form?.valid() !== true;
  });
  if (args !== undefined) form.fill(args);
  callButton.disabled = !form.valid();
  const support = tool.execution?.taskSupport;
  const asTask = h("input", { type: "checkbox", id: "as-task", checked: support === "required" });
  const taskBox =
    support === "optional" || support === "required"
      ? h("label", { class: "inline" }, asTask, " run as a task")
      : null;
  const out = h("div", { class: "call-out" });
  const view = h("div", { class: "view-box" });
  replace(
    detail,
    h("h2", null, tool.name),
    tool.title === undefined ? null : h("div", { class: "hint" }, tool.title),
    h("p", { class: "desc-full" }, tool.description ?? ""),
    form.element,
    h("div", { class: "bar" }, callButton, taskBox),
    h("div", { class: "outputs" }, out, view),
  );

  async function run(): Promise<void> {
    const args = form?.value();
    if (args === undefined || form?.valid() !== true) return;
    const callId = crypto.randomUUID();
    const bar = h("progress", { max: 1 });
    bar.removeAttribute("value");
    const note = h("span", { class: "hint" }, "calling...");
    const cancel = h(
      "button",
      { type: "button", class: "small", onclick: () => void api("cancel", { callId }) },
      "Cancel",
    );
    replace(out, h("div", { class: "running" }, bar, " ", note, " ", cancel));
    progress[callId] = (p) => {
      if (typeof p.total === "number" && p.total > 0) {
        bar.max = p.total;
        bar.value = Number(p.progress);
      }
      note.textContent = `${String(p.progress)}${p.total === undefined ? "" : `/${String(p.total)}`}${typeof p.message === "string" ? ` ${p.message}` : ""}`;
    };
    let app: OpenView | undefined;
    // One view at a time: the one before is torn down (ui/resource-teardown, bounded) before the next loads.
    await current?.close().catch(() => {});
    current = undefined;
    if (hasView(tool)) {
      app = await openView(tool, args, view, (line) => out.append(h("div", { class: "hint" }, line))).catch(
        (error: unknown) => {
          replace(view, errorLine(error));
          return undefined;
        },
      );
      current = app;
    }
    try {
      const answer = await tracked<{ result?: CallToolResult; task?: Params }>("tools/call", {
        callId,
        name: tool.name,
        arguments: args,
        task: asTask.checked,
      });
      if (answer.task !== undefined) {
        replace(out, h("div", { class: "hint" }, "running as a task (see Tasks)"));
        showTask(answer.task, tool, app);
        return;
      }
      const result = answer.result as CallToolResult;
      replace(
        out,
        callResult(result as unknown as Params, tool.outputSchema, (uri) => {
          state.showTab("Resources");
          void readResource(uri);
        }),
      );
      await app?.result(result);
    } catch (error) {
      app?.cancel("the call failed");
      replace(out, errorLine(error));
    } finally {
      delete progress[callId];
    }
  }
}

on("notification", (data) => {
  if ((data as Params).method === "notifications/tools/list_changed" && state.connected) void load();
});
