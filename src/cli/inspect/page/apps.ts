import { AppHost } from "../../../apps/app-host.js";
import { windowEndpoint } from "../../../apps/endpoint.js";
import type { AppHostClient } from "../../../apps/host-options.js";
import type { AppSandbox } from "../../../apps/sandbox.js";
import type { CallToolResult, Tool } from "../../../protocol/types/index.js";
import { api } from "./api.js";
import { h } from "./dom.js";

type Params = { [key: string]: unknown };

/** True when a tool links a ui:// view (nested `_meta.ui.resourceUri`, or the flat legacy key). */
export function hasView(tool: Tool): boolean {
  const meta = (tool._meta ?? {}) as Params;
  const ui = (meta.ui ?? {}) as Params;
  return typeof ui.resourceUri === "string" || typeof meta["ui/resourceUri"] === "string";
}

/** What the AppHost forwards for the view, through the inspector's own operations (its server only). */
const viewClient: AppHostClient = {
  callTool: async (name: string, args: { [key: string]: unknown }) => {
    const answer = await api<{ result?: CallToolResult }>("tools/call", {
      callId: crypto.randomUUID(),
      name,
      arguments: args,
    });
    if (answer.result === undefined) throw new Error("the tool answered with a task");
    return answer.result;
  },
  readResource: (uri: string) => api<object>("resources/read", { uri }),
  listResources: () => api<object>("resources/list"),
  listResourceTemplates: () => api<object>("resources/templates/list"),
  listPrompts: () => api<object>("prompts/list"),
};

/** An open view: its element (to place beside the result), and the call to feed. */
export interface OpenView {
  element: HTMLElement;
  /** Sends the call's result to the view (once it is ready). */
  result(result: CallToolResult): Promise<void>;
  cancel(reason: string): void;
  close(): Promise<void>;
}

/**
 * Renders a tool's view: the inspector resolves it (one resources/read, every Apps rule checked) and serves it at
 * a single-use URL under the view's CSP; the iframe is sandboxed (`allow-scripts allow-forms`, never
 * same-origin), and talks to the page through mcpkit's AppHost only.
 */
export async function openView(
  tool: Tool,
  args: Params,
  container: HTMLElement,
  log: (line: string) => void,
): Promise<OpenView> {
  const opened = await api<{
    viewId: string;
    sandbox: string;
    allow: string;
    applied: AppSandbox["applied"];
    tools: Tool[];
  }>("app/open", { name: tool.name });
  const iframe = h("iframe", {
    class: "app-view",
    title: `view of ${tool.name}`,
    sandbox: opened.sandbox,
    allow: opened.allow,
  });
  const status = h("div", { class: "hint" }, "view loading...");
  let close: () => Promise<void> = async () => {};
  const closeButton = h(
    "button",
    { type: "button", class: "small", onclick: () => void close() },
    "close view",
  );
  const element = h(
    "div",
    { class: "app-frame" },
    h("div", { class: "caption" }, "MCP App view ", status, " ", closeButton),
    iframe,
  );
  // In place before the view loads: moving an iframe later would reload it.
  container.replaceChildren(element);
  const target = iframe.contentWindow;
  if (target === null) throw new Error("the iframe has no window");
  const host = new AppHost({
    endpoint: windowEndpoint({ target, events: window }),
    hostInfo: { name: "mcpkit-inspect", version: "1.0.0" },
    client: viewClient,
    tools: opened.tools,
    sandbox: opened.applied,
    hostContext: { theme: "light", displayMode: "inline", platform: "web", toolInfo: { tool } },
    onOpenLink: (url) => {
      log(`the view asked to open ${url} (not opened by the inspector; copy it if you trust it)`);
      return false;
    },
    onMessage: (message) => log(`the view sent a message: ${JSON.stringify(message).slice(0, 500)}`),
    onModelContext: (update) => log(`model context: ${JSON.stringify(update).slice(0, 500)}`),
    onSizeChanged: ({ height }) => {
      if (height !== undefined && height > 0) iframe.style.height = `${Math.min(height, 800)}px`;
    },
    onProblem: (problem) => log(`view problem ${problem.kind}: ${problem.message}`),
  });
  iframe.src = `/view/${opened.viewId}`;
  const call = host.toolCall();
  const ready = host.initialized.then((view) => {
    status.textContent = `${view.appInfo.name} ${view.appInfo.version} connected`;
    call.input(args);
  });
  ready.catch((error: unknown) => {
    status.textContent = `the view did not start: ${error instanceof Error ? error.message : String(error)}`;
  });
  let closed: Promise<void> | undefined;
  close = () => {
    closed ??= host.teardown("closed by the user").then((outcome) => {
      element.remove();
      if (!outcome.answered) log(`the view was torn down without its answer (${outcome.error.message})`);
    });
    return closed;
  };
  return {
    element,
    result: async (result) => {
      await ready;
      call.result(result);
    },
    cancel: (reason) => {
      call.cancel(reason);
    },
    close,
  };
}
