import type { CallToolResult, Tool } from "../../../protocol/types/index.js";
import { api, on } from "./api.js";
import type { OpenView } from "./apps.js";
import { BoundedMap } from "./bounded.js";
import { errorLine, h, pre, replace } from "./dom.js";
import { MAX_TASKS } from "./limits.js";
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

/** The newest tasks' rows; the oldest go first, and late news of a task dropped is ignored. */
const rows = new BoundedMap<string, Row>(MAX_TASKS);
const count = h("div", { class: "hint", id: "tasks-count" });
const listBox = h(
  "div",
  { class: "items tasks" },
  h("div", { class: "hint", id: "no-tasks" }, "no tasks yet: call a tool as a task"),
);

/** The Tasks tab: each task started from the page, its status, input (as dialogs), result and cancel. */
export function tasksPanel(): HTMLElement {
  return h("section", null, count, listBox);
}

function row(taskId: string): Row | undefined {
  let r = rows.get(taskId);
  if (r !== undefined || rows.wasDropped(taskId)) return r;
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
  listBox.prepend(element);
  for (const [, old] of rows.set(taskId, r)) old.element.remove();
  count.textContent =
    rows.dropped === 0
      ? ""
      : `${rows.size} tasks shown (the newest ${MAX_TASKS}: ${rows.dropped} older dropped)`;
  return r;
}

function show(task: Params): void {
  const r = row(String(task.taskId));
  if (r === undefined) return;
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
  if (r === undefined) return;
  r.tool = tool;
  r.view = view;
  r.name.textContent = tool.name;
  show(r.last ?? task);
}

on("task", (data) => show(data as Params));
on("task-settled", (data) => {
  const r = rows.get(String((data as Params).taskId));
  if (r !== undefined) r.element.dataset.settled = "true";
});
on("task-error", (data) => {
  const d = data as Params;
  const r = row(String(d.taskId));
  if (r === undefined) return;
  r.status.textContent = "failed";
  r.status.className = "status failed";
  replace(r.out, h("div", { class: "error" }, String(d.error)));
});
