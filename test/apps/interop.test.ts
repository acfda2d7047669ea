import { createRequire } from "node:module";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { App } from "@modelcontextprotocol/ext-apps";
import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Ajv2020 } from "ajv/dist/2020.js";
import { AppHost, AppView, portEndpoint } from "mcpkit/apps";
import { describe, expect, it } from "vitest";

const schema = createRequire(import.meta.url)("@modelcontextprotocol/ext-apps/schema.json") as {
  $defs: { [name: string]: object };
};
const ajv = new Ajv2020({ strict: false, validateFormats: false });
const DEFS: { [method: string]: string } = {
  "ui/initialize": "McpUiInitializeRequest",
  "ui/notifications/initialized": "McpUiInitializedNotification",
  "ui/message": "McpUiMessageRequest",
  "ui/open-link": "McpUiOpenLinkRequest",
  "ui/notifications/size-changed": "McpUiSizeChangedNotification",
  "ui/notifications/tool-input": "McpUiToolInputNotification",
  "ui/notifications/tool-input-partial": "McpUiToolInputPartialNotification",
  "ui/notifications/tool-result": "McpUiToolResultNotification",
  "ui/notifications/tool-cancelled": "McpUiToolCancelledNotification",
  "ui/notifications/host-context-changed": "McpUiHostContextChangedNotification",
  "ui/resource-teardown": "McpUiResourceTeardownRequest",
  "ui/notifications/request-teardown": "McpUiRequestTeardownNotification",
  "ui/request-display-mode": "McpUiRequestDisplayModeRequest",
  "ui/update-model-context": "McpUiUpdateModelContextRequest",
};

/** Checks every ui/* frame against the package's $defs (the envelope's jsonrpc and id aside). */
function checkFrames(frames: { [key: string]: unknown }[]): number {
  let checked = 0;
  for (const frame of frames) {
    const def = typeof frame.method === "string" ? DEFS[frame.method] : undefined;
    if (def === undefined) continue;
    const { jsonrpc: _j, id: _i, ...body } = frame;
    const validate = ajv.getSchema(def) ?? ajv.compile({ ...schema.$defs[def], $id: def });
    expect(validate(body), `${frame.method}: ${JSON.stringify(validate.errors)}`).toBe(true);
    checked++;
  }
  return checked;
}

/** A v2 SDK transport over a MessagePort, recording what it sends. */
function sdkTransport(port: MessagePort, sent: { [key: string]: unknown }[]) {
  const transport = {
    onmessage: undefined as ((m: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((e: Error) => void) | undefined,
    async start() {
      port.on("message", (m) => transport.onmessage?.(m));
    },
    async send(message: unknown) {
      sent.push(message as { [key: string]: unknown });
      port.postMessage(message);
    },
    async close() {
      port.close();
      transport.onclose?.();
    },
  };
  return transport;
}

/** Records what a mcpkit endpoint posts. */
function recorded(port: MessagePort, sent: { [key: string]: unknown }[]) {
  const endpoint = portEndpoint(port as never);
  return {
    ...endpoint,
    post: (m: object) => {
      sent.push(m as { [key: string]: unknown });
      return endpoint.post(m);
    },
  };
}

describe("interop with @modelcontextprotocol/ext-apps 2.0.4", () => {
  it("runs its App against mcpkit's AppHost", async () => {
    const { port1, port2 } = new MessageChannel();
    const viewFrames: { [key: string]: unknown }[] = [];
    const hostFrames: { [key: string]: unknown }[] = [];
    const messages: unknown[] = [];
    const host = new AppHost({
      endpoint: recorded(port1, hostFrames),
      hostInfo: { name: "mcpkit-host", version: "1.0.0" },
      client: {
        callTool: async (name) => ({ content: [{ type: "text", text: `called ${name}` }] }),
        listAllTools: async () => [{ name: "refresh", inputSchema: { type: "object" } }],
      },
      onMessage: (m) => {
        messages.push(m);
      },
      onOpenLink: () => true,
    });
    const inputs: unknown[] = [];
    const app = new App({ name: "official-app", version: "1.0.0" }, {}, { autoResize: false });
    app.ontoolinput = (params) => inputs.push(params.arguments);
    let torn = 0;
    app.onteardown = async () => {
      torn++;
      return {};
    };
    await app.connect(sdkTransport(port2, viewFrames) as never);
    await host.initialized;
    host.sendToolInput({ city: "Paris" });
    host.sendToolResult({ content: [{ type: "text", text: "sunny" }] });
    host.setHostContext({ theme: "light" });
    const result = await app.callServerTool({ name: "refresh", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "called refresh" }]);
    await app.sendMessage({ role: "user", content: [{ type: "text", text: "hi" }] });
    await expect(app.openLink({ url: "javascript:alert(1)" })).rejects.toThrow(/Policy violation/);
    app.sendSizeChanged({ width: 10, height: 20 });
    await host.teardown();
    expect(torn).toBe(1);
    expect(inputs).toEqual([{ city: "Paris" }]);
    expect(messages).toHaveLength(1);
    expect(viewFrames[0]).toMatchObject({ method: "ui/initialize", id: 0 });
    expect(checkFrames(viewFrames)).toBeGreaterThanOrEqual(5);
    expect(checkFrames(hostFrames)).toBe(4);
    port1.close();
  });

  it("runs mcpkit's AppView against its AppBridge", async () => {
    const { port1, port2 } = new MessageChannel();
    const hostFrames: { [key: string]: unknown }[] = [];
    const viewFrames: { [key: string]: unknown }[] = [];
    const bridge = new AppBridge(
      null,
      { name: "official-host", version: "1.0.0" },
      { openLinks: {} },
      { hostContext: { theme: "dark" } },
    );
    const initialized = new Promise<void>((resolve) => {
      bridge.oninitialized = () => resolve();
    });
    await bridge.connect(sdkTransport(port1, hostFrames) as never);
    const seen: string[] = [];
    let teardownReason: string | undefined = "unset";
    const view = new AppView({
      endpoint: recorded(port2, viewFrames),
      appInfo: { name: "mcpkit-view", version: "1.0.0" },
      onToolInputPartial: () => seen.push("partial"),
      onToolInput: (a) => seen.push(`input ${JSON.stringify(a)}`),
      onToolResult: () => seen.push("result"),
      onHostContextChanged: (c) => seen.push(`context ${JSON.stringify(c)}`),
      onTeardown: (reason) => {
        teardownReason = reason;
      },
    });
    const answer = await view.connect();
    expect(answer.protocolVersion).toBe("2026-01-26");
    await initialized;
    await bridge.sendToolInputPartial({ arguments: { c: "P" } });
    await bridge.sendToolInput({ arguments: { c: "Paris" } });
    await bridge.sendToolResult({ content: [{ type: "text", text: "ok" }] });
    bridge.setHostContext({ theme: "light" });
    view.sendSizeChanged({ width: 1, height: 2 });
    await view.sendMessage("hello").catch(() => undefined);
    await bridge.teardownResource({});
    expect(teardownReason).toBeUndefined();
    expect(seen).toEqual(["partial", 'input {"c":"Paris"}', "result", 'context {"theme":"light"}']);
    expect(view.hostContext.theme).toBe("light");
    expect(checkFrames(viewFrames)).toBeGreaterThanOrEqual(3);
    expect(checkFrames(hostFrames)).toBeGreaterThanOrEqual(5);
    view.close();
    port2.close();
  });
});
