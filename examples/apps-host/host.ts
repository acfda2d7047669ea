// A web host for MCP Apps: connects to an MCP server over Streamable HTTP with mcpkit's client, lists its tools,
// and shows an app tool's ui:// view in a sandboxed iframe under the CSP built from the view's declarations,
// talking to it through mcpkit's AppHost. Bundle it for the browser (esbuild host.ts --bundle) and serve
// index.html, host.js and the server's /mcp from one origin.
import type { Tool } from "mcpkit";
import {
  AppHost,
  appSandbox,
  modelVisibleTools,
  resolveApp,
  uiClientCapability,
  windowEndpoint,
} from "mcpkit/apps";
import { Client } from "mcpkit/client";
import { StreamableHttpClientTransport } from "mcpkit/http";

const log = (line: string) => {
  const item = document.createElement("li");
  item.textContent = line;
  document.getElementById("log")?.append(item);
};

// The CSP goes in first, so it governs everything the view's document loads.
const withCsp = (html: string, csp: string) =>
  `<meta http-equiv="Content-Security-Policy" content="${csp.replaceAll('"', "&quot;")}">${html}`;

// Real views are single bundled documents of several MB: this host reads up to 8 MB.
const VIEW_BYTES = 8_000_000;
// A page may shorten how long a teardown waits for a view that does not answer (?teardownTimeoutMs=200).
const teardownParam = new URLSearchParams(location.search).get("teardownTimeoutMs");
const bounds = teardownParam === null ? {} : { teardownTimeoutMs: Number(teardownParam) };

const client = new Client({
  transport: new StreamableHttpClientTransport({
    url: new URL("/mcp", location.href).href,
    policy: {
      maxResponseBytes: VIEW_BYTES,
      maxDecodedResponseBytes: VIEW_BYTES,
      maxSseEventBytes: VIEW_BYTES,
    },
  }),
  clientInfo: { name: "apps-host-page", version: "1.0.0" },
  capabilities: { extensions: uiClientCapability() },
});

let open: { host: AppHost; iframe: HTMLIFrameElement } | undefined;

/** Runs an app tool: renders its view, then sends the input and the call's result once the view is ready. */
async function run(tool: Tool, args: { [key: string]: unknown }): Promise<void> {
  await teardown();
  const app = await resolveApp(client, tool, { limits: { resourceBytes: VIEW_BYTES } });
  const sandbox = appSandbox(app.ui);
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", sandbox.sandbox);
  iframe.setAttribute("allow", sandbox.allow);
  iframe.title = tool.name;
  document.getElementById("frame")?.replaceChildren(iframe);
  const window_ = iframe.contentWindow;
  if (window_ === null) throw new Error("the iframe has no window");
  const host = new AppHost({
    endpoint: windowEndpoint({ target: window_, events: window }),
    hostInfo: { name: "apps-host-page", version: "1.0.0" },
    client,
    sandbox: sandbox.applied,
    hostContext: { theme: "light", displayMode: "inline", platform: "web", toolInfo: { tool } },
    onOpenLink: (url) => {
      log(`open-link ${url}`);
      return true;
    },
    onModelContext: (update) => log(`model context ${JSON.stringify(update.structuredContent)}`),
    onSizeChanged: ({ height }) => {
      if (height !== undefined && height > 0) iframe.style.height = `${Math.min(height, 600)}px`;
    },
    onProblem: (problem) => log(`problem ${problem.kind}: ${problem.message}`),
    ...bounds,
  });
  open = { host, iframe };
  iframe.srcdoc = withCsp(app.html, sandbox.csp);
  const view = await host.initialized;
  log(`view ${view.appInfo.name} initialized`);
  // The call's handle: if the view is closed (or the call cancelled) before the result, the result is dropped.
  const call = host.toolCall();
  call.input(args);
  const result = await client.callTool(tool.name, args);
  if (call.result(result)) {
    log(`result sent: ${result.content[0]?.type === "text" ? result.content[0].text : "?"}`);
  }
}

/**
 * Tears the open view down: `ui/resource-teardown`, then the iframe goes, whether the view answered, refused or
 * stayed silent (the wait is bounded by `teardownTimeoutMs`).
 */
async function teardown(): Promise<void> {
  if (open === undefined) return;
  const { host, iframe } = open;
  open = undefined;
  const outcome = await host.teardown("closed by the user");
  iframe.remove();
  log(outcome.answered ? "view torn down" : `view torn down without its answer (${outcome.error.message})`);
}

await client.connect();
const tools = await client.listAllTools();
log(`connected: ${tools.map((t) => t.name).join(", ")}`);
// App-only tools (reroll) are the views' to call: no button for them.
for (const tool of modelVisibleTools(tools)) {
  const button = document.createElement("button");
  button.textContent = `call ${tool.name}`;
  button.onclick = () =>
    void run(tool, { sides: 6 }).catch((error: unknown) => log(`failed: ${String(error)}`));
  document.getElementById("tools")?.append(button);
}
const close = document.createElement("button");
close.textContent = "close view";
close.onclick = () => void teardown().catch((error: unknown) => log(`failed: ${String(error)}`));
document.getElementById("tools")?.append(close);
