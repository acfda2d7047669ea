import type { CallToolResult, Tool } from "../../../protocol/types/index.js";
import { api, on } from "./api.js";
import type { OpenView } from "./apps.js";
import { errorLine, h, pre, replace } from "./dom.js";
import { callResult } from "./results.js";

type Params = { [key: string]: unknown };

interface Row {
  element: HTMLElement;
  name: HTMLElement;
  status: HTMLElement;
  out: HTMLElement;
  tool: Tool | undefined;
  view: OpenView | undefined;
  /** The newest state heard of. */
  last: Params | undefined;
}

/** Most tasks shown; the oldest go first. */
const MAX_TASKS = 200;
const rows = new Map<string, Row>();
const listBox = h(
  "div",
  { class: "items tasks" },
  h("div", { class: "hint", id: "no-tasks" }, "no tasks yet: call a tool as a task"),
);

/** The Tasks tab: each task started from the page, its status, input (as dialogs), result and cancel. */
export function tasksPanel(): HTMLElement {
  return h("section", null, listBox);
}

function row(taskId: string): Row {
  let r = rows.get(taskId);
  if (r !== undefined) return r;
  document.getElementById("no-tasks")?.remove();
  const status = h("span", { class: "status" });
  const name = h("b", { class: "task-tool" });
  const out = h("div");
  const refresh = async () => {
    try {
      show(await api<Params>("tasks/get", { taskId }));
    } catch (error) {
      replace(out, errorLine(error));
    }
  };
  const cancel = async () => {
    try {
      show(await api<Params>("tasks/cancel", { taskId }));
    } catch (error) {
      replace(out, errorLine(error));
    }
  };
  const element = h(
    "div",
    { class: "item task", "data-task": taskId },
    h("code", null, taskId),
    " ",
    name,
    " ",
    status,
    h("button", { type: "button", class: "small", onclick: () => void refresh() }, "refresh"),
    h("button", { type: "button", class: "small", onclick: () => void cancel() }, "cancel"),
    out,
  );
  r = { element, name, status, out, tool: undefined, view: undefined, last: undefined };
  rows.set(taskId, r);
  listBox.prepend(element);
  if (rows.size > MAX_TASKS) {
    const oldest = rows.keys().next().value as string;
    rows.get(oldest)?.element.remove();
    rows.delete(oldest);
  }
  return r;
}

function show(task: Params): void {
  const r = row(String(task.taskId));
  r.last = task;
  r.status.textContent = `${String(task.status)}${typeof task.statusMessage === "string" ? `: ${task.statusMessage}` : ""}`;
  r.status.className = `status ${String(task.status)}`;
  if (task.result !== undefined) {
    replace(r.out, callResult(task.result as Params, r.tool?.outputSchema));
    void r.view?.result(task.result as CallToolResult);
  } else if (task.status === "input_required" && task.inputRequests !== undefined) {
    replace(
      r.out,
      h("div", { class: "hint" }, "the task waits for input (answer the dialog)"),
      pre(task.inputRequests),
    );
  }
}

/** A task just started from the Tools tab. */
export function showTask(task: Params, tool: Tool, view: OpenView | undefined): void {
  // Its status events may have come first (the event stream can beat the call's answer).
  const r = row(String(task.taskId));
  r.tool = tool;
  r.view = view;
  r.name.textContent = tool.name;
  show(r.last ?? task);
}

on("task", (data) => show(data as Params));
on("task-settled", (data) => {
  row(String((data as Params).taskId)).element.dataset.settled = "true";
});
on("task-error", (data) => {
  const d = data as Params;
  const r = row(String(d.taskId));
  r.status.textContent = "failed";
  r.status.className = "status failed";
  replace(r.out, h("div", { class: "error" }, String(d.error)));
});
