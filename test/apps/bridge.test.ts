import type { Tool } from "mcpkit";
import { JsonRpcError, McpkitError } from "mcpkit";
import {
  AppHost,
  type AppHostOptions,
  AppView,
  type AppViewOptions,
  type BridgeProblem,
  type MessageEventLike,
  windowEndpoint,
} from "mcpkit/apps";
import { afterEach, describe, expect, it } from "vitest";
import { linkedEndpoints, rawPair } from "./bridge-pair.js";

const hostInfo = { name: "test-host", version: "1.0.0" };
const appInfo = { name: "test-view", version: "1.0.0" };
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function pair(host: Partial<AppHostOptions> = {}, view: Partial<AppViewOptions> = {}) {
  const link = linkedEndpoints();
  closers.push(link.close);
  const h = new AppHost({ endpoint: link.a, hostInfo, ...host });
  const v = new AppView({ endpoint: link.b, appInfo, ...view });
  closers.push(
    () => h.close(),
    () => v.close(),
  );
  return { host: h, view: v };
}

function rawHost(options: Partial<AppHostOptions> = {}) {
  const { raw, endpoint, close } = rawPair();
  closers.push(close);
  const problems: BridgeProblem[] = [];
  const host = new AppHost({ endpoint, hostInfo, onProblem: (p) => problems.push(p), ...options });
  closers.push(() => host.close());
  return { raw, host, problems };
}

const initialize = (id: unknown = 0, protocolVersion = "2026-01-26") => ({
  // ext-apps puts method and params before jsonrpc and id: key order must not matter.
  method: "ui/initialize",
  params: { appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] }, appInfo, protocolVersion },
  jsonrpc: "2.0",
  id,
});

const tools: Tool[] = [
  { name: "both", inputSchema: { type: "object" } },
  {
    name: "app-only",
    inputSchema: { type: "object" },
    _meta: { ui: { resourceUri: "ui://a", visibility: ["app"] } },
  },
  {
    name: "model-only",
    inputSchema: { type: "object" },
    _meta: { ui: { resourceUri: "ui://a", visibility: ["model"] } },
  },
];

describe("the bridge handshake", () => {
  it("connects a view to a host: ui/initialize from id 0, then initialized", async () => {
    const { host, view } = await pair({ hostContext: { theme: "dark" } });
    expect(host.phase).toBe("handshake");
    const answer = await view.connect();
    expect(answer.protocolVersion).toBe("2026-01-26");
    expect(answer.hostInfo).toEqual(hostInfo);
    expect(answer.hostContext).toEqual({ theme: "dark" });
    const init = await host.initialized;
    expect(init.appInfo).toEqual(appInfo);
    expect(host.phase).toBe("ready");
    await expect(view.connect()).rejects.toBeInstanceOf(McpkitError);
  });

  it("answers another version with 2026-01-26, or refuses it in strict mode", async () => {
    const lenient = rawHost();
    lenient.raw.post(initialize(0, "2025-01-01"));
    expect(((await lenient.raw.answer(0)).result as { protocolVersion: string }).protocolVersion).toBe(
      "2026-01-26",
    );
    lenient.raw.post(initialize(1));
    expect((await lenient.raw.answer(1)).error).toMatchObject({ code: -32600 });
    const strict = rawHost({ strictVersion: true });
    strict.raw.post(initialize(0, "2025-01-01"));
    expect((await strict.raw.answer(0)).error).toMatchObject({
      code: -32602,
      data: { supported: ["2026-01-26"] },
    });
    strict.raw.post({
      jsonrpc: "2.0",
      id: 1,
      method: "ui/initialize",
      params: { protocolVersion: "2026-01-26" },
    });
    expect((await strict.raw.answer(1)).error).toMatchObject({ code: -32602 });
  });

  it("refuses requests before ui/initialize and ignores initialized before it", async () => {
    const { raw, host, problems } = rawHost({ onOpenLink: () => true });
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    raw.post({ jsonrpc: "2.0", id: "a", method: "ui/open-link", params: { url: "https://example.com" } });
    expect((await raw.answer("a")).error).toMatchObject({ code: -32600 });
    expect(host.phase).toBe("handshake");
    expect(problems.map((p) => p.kind)).toEqual(["lifecycle"]);
  });
});

describe("the lifecycle the host keeps", () => {
  it("sends nothing before initialized, then input, result, and new cycles; teardown ends it", async () => {
    const seen: string[] = [];
    const { host, view } = await pair(
      {},
      {
        onToolInputPartial: (a) => seen.push(`partial ${JSON.stringify(a)}`),
        onToolInput: (a) => seen.push(`input ${JSON.stringify(a)}`),
        onToolResult: (r) => seen.push(`result ${JSON.stringify(r.content)}`),
        onToolCancelled: (reason) => seen.push(`cancelled ${reason}`),
        onTeardown: (reason) => {
          seen.push(`teardown ${reason}`);
        },
      },
    );
    expect(() => host.sendToolInput({})).toThrow(/before ui\/notifications\/initialized/);
    await view.connect();
    await host.initialized;
    host.sendToolInputPartial({ c: "Par" });
    host.sendToolInputPartial({ c: "Paris" });
    host.sendToolInput({ c: "Paris" });
    expect(() => host.sendToolInput({ c: "Paris" })).toThrow(/at most once/);
    expect(() => host.sendToolInputPartial({})).toThrow(McpkitError);
    host.sendToolResult({ content: [{ type: "text", text: "sunny" }] });
    expect(() => host.sendToolResult({ content: [] })).toThrow(/needs a ui\/notifications\/tool-input/);
    expect(() => host.sendToolCancelled()).toThrow(McpkitError);
    // A later input→result cycle (the spec's interactive phase), then a cancelled call.
    host.sendToolInput({ c: "Oslo" });
    host.sendToolResult({ content: [{ type: "text", text: "snow" }] });
    host.sendToolInput({ c: "Rome" });
    host.sendToolCancelled("user stopped");
    await host.teardown("closed by user");
    expect(host.phase).toBe("torn-down");
    expect(() => host.setHostContext({ theme: "light" })).not.toThrow();
    expect(() => host.sendToolInput({})).toThrow(/torn down/);
    await expect(host.teardown()).rejects.toBeInstanceOf(McpkitError);
    expect(seen).toEqual([
      'partial {"c":"Par"}',
      'partial {"c":"Paris"}',
      'input {"c":"Paris"}',
      'result [{"type":"text","text":"sunny"}]',
      'input {"c":"Oslo"}',
      'result [{"type":"text","text":"snow"}]',
      'input {"c":"Rome"}',
      "cancelled user stopped",
      "teardown closed by user",
    ]);
  });

  it("sends only the changed keys of the host context, which the view merges", async () => {
    const changes: object[] = [];
    const { host, view } = await pair(
      { hostContext: { theme: "dark", locale: "en" } },
      { onHostContextChanged: (c) => changes.push(c) },
    );
    await view.connect();
    await host.initialized;
    host.setHostContext({ theme: "light", locale: "en" });
    host.setHostContext({ theme: "light" });
    host.setHostContext({ displayMode: "fullscreen" });
    await view.requestDisplayMode("inline");
    expect(changes).toEqual([{ theme: "light" }, { displayMode: "fullscreen" }]);
    expect(view.hostContext).toEqual({ theme: "light", locale: "en", displayMode: "fullscreen" });
  });

  it("has the view drop what breaks the lifecycle", async () => {
    const { raw, endpoint, close } = rawPair();
    closers.push(close);
    const problems: BridgeProblem[] = [];
    const results: unknown[] = [];
    const view = new AppView({
      endpoint,
      appInfo,
      onProblem: (p) => problems.push(p),
      onToolResult: (r) => results.push(r),
    });
    closers.push(() => view.close());
    // Before the handshake: dropped.
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: {} } });
    const connected = view.connect();
    const request = await raw.next((f) => f.method === "ui/initialize");
    expect(request.id).toBe(0);
    raw.post({
      jsonrpc: "2.0",
      id: 0,
      result: { protocolVersion: "2026-01-26", hostInfo, hostCapabilities: {}, hostContext: {} },
    });
    await connected;
    await raw.next((f) => f.method === "ui/notifications/initialized");
    // A result without input: dropped; with input: delivered.
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { content: [] } });
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: {} } });
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { content: [] } });
    raw.post({ jsonrpc: "2.0", id: 5, method: "ping" });
    await raw.answer(5);
    expect(results).toHaveLength(1);
    expect(problems.map((p) => p.kind)).toEqual(["lifecycle", "lifecycle"]);
  });
});

describe("the view's requests", () => {
  it("opens https links through the host and refuses javascript:, data:, file: and relative ones", async () => {
    const opened: string[] = [];
    let consent = true;
    const { host, view } = await pair({
      onOpenLink: (url) => {
        opened.push(url);
        return consent;
      },
    });
    await view.connect();
    expect(host.hostCapabilities.openLinks).toEqual({});
    expect(await view.openLink("https://example.com/a")).toEqual({ isError: false });
    for (const url of [
      "javascript:alert(1)",
      "data:text/html,x",
      "file:///etc/passwd",
      "/relative",
      "http://example.com",
    ]) {
      const answer = await view.openLink(url);
      expect(answer.isError, url).toBe(true);
      expect(answer.message).toMatch(/^Policy violation/);
    }
    consent = false;
    expect(await view.openLink("https://example.com/b")).toEqual({
      isError: true,
      message: "denied by user",
    });
    expect(opened).toEqual(["https://example.com/a", "https://example.com/b"]);
    const noLinks = await pair();
    await noLinks.view.connect();
    expect((await noLinks.view.openLink("https://example.com")).isError).toBe(true);
  });

  it("takes opt-in schemes from the link policy", async () => {
    const { view } = await pair({ linkPolicy: { schemes: ["mailto"] }, onOpenLink: () => true });
    await view.connect();
    expect((await view.openLink("mailto:a@example.com")).isError).toBe(false);
    expect((await view.openLink("javascript:alert(1)")).isError).toBe(true);
  });

  it("takes messages (array or lone block), model context, display modes, sizes, logs and teardown requests", async () => {
    const messages: unknown[] = [];
    const contexts: unknown[] = [];
    const sizes: unknown[] = [];
    const logs: unknown[] = [];
    let teardowns = 0;
    const { raw, host } = rawHost({
      hostContext: { displayMode: "inline" },
      onMessage: (m) => {
        messages.push(m);
      },
      onModelContext: (u) => contexts.push(u),
      onDisplayMode: (mode) => (mode === "pip" ? "inline" : mode),
      onSizeChanged: (s) => sizes.push(s),
      onLog: (l) => logs.push(l),
      onRequestTeardown: () => teardowns++,
    });
    raw.post(initialize());
    await raw.answer(0);
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    await host.initialized;
    const text = { type: "text", text: "hi" };
    raw.post({ jsonrpc: "2.0", id: 1, method: "ui/message", params: { role: "user", content: [text] } });
    raw.post({ jsonrpc: "2.0", id: 2, method: "ui/message", params: { role: "user", content: text } });
    raw.post({ jsonrpc: "2.0", id: 3, method: "ui/message", params: { role: "assistant", content: [text] } });
    raw.post({ jsonrpc: "2.0", id: 4, method: "ui/update-model-context", params: { content: [text] } });
    raw.post({
      jsonrpc: "2.0",
      id: 5,
      method: "ui/update-model-context",
      params: { structuredContent: { n: 1 } },
    });
    raw.post({ jsonrpc: "2.0", id: 6, method: "ui/request-display-mode", params: { mode: "fullscreen" } });
    raw.post({ jsonrpc: "2.0", id: 7, method: "ui/request-display-mode", params: { mode: "pip" } });
    raw.post({ jsonrpc: "2.0", id: 8, method: "ui/request-display-mode", params: { mode: "huge" } });
    raw.post({
      jsonrpc: "2.0",
      method: "ui/notifications/size-changed",
      params: { width: 300, height: 200 },
    });
    raw.post({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } });
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/request-teardown", params: {} });
    raw.post({ jsonrpc: "2.0", id: 9, method: "ui/download-file", params: { contents: [] } });
    raw.post({ jsonrpc: "2.0", id: 10, method: "vendor/unknown", params: {} });
    raw.post({ jsonrpc: "2.0", id: 11, method: "sampling/createMessage", params: {} });
    expect((await raw.answer(1)).result).toEqual({});
    expect((await raw.answer(2)).result).toEqual({});
    expect((await raw.answer(3)).error).toMatchObject({ code: -32602 });
    await raw.answer(4);
    await raw.answer(5);
    expect((await raw.answer(6)).result).toEqual({ mode: "fullscreen" });
    // pip is not among the view's modes: the host keeps the current one.
    expect((await raw.answer(7)).result).toEqual({ mode: "fullscreen" });
    expect((await raw.answer(8)).error).toMatchObject({ code: -32602 });
    expect((await raw.answer(9)).error).toMatchObject({ code: -32601 });
    expect((await raw.answer(10)).error).toMatchObject({ code: -32601 });
    expect((await raw.answer(11)).error).toMatchObject({ code: -32601 });
    expect(messages).toEqual([
      { role: "user", content: [text] },
      { role: "user", content: [text] },
    ]);
    expect(contexts).toEqual([{ content: [text] }, { structuredContent: { n: 1 } }]);
    expect(host.modelContext).toEqual({ structuredContent: { n: 1 } });
    expect(host.hostContext.displayMode).toBe("fullscreen");
    expect(sizes).toEqual([{ width: 300, height: 200 }]);
    expect(host.size).toEqual({ width: 300, height: 200 });
    expect(logs).toEqual([{ level: "info", data: "x" }]);
    expect(teardowns).toBe(1);
  });

  it("forwards tools/call to the view's own server, for tools visible to apps only", async () => {
    const calls: string[] = [];
    const client = {
      callTool: async (name: string) => {
        calls.push(name);
        return { content: [{ type: "text" as const, text: name }] };
      },
      readResource: async (uri: string) => ({ contents: [{ uri, text: "r" }] }),
      listAllTools: async () => tools,
    };
    const { host, view } = await pair({ client });
    await view.connect();
    expect(host.hostCapabilities).toMatchObject({ serverTools: {}, serverResources: {} });
    expect((await view.callServerTool("both", { a: 1 })).content).toEqual([{ type: "text", text: "both" }]);
    expect((await view.callServerTool("app-only")).content).toEqual([{ type: "text", text: "app-only" }]);
    await expect(view.callServerTool("model-only")).rejects.toMatchObject({ code: -32000 });
    // A tool of another server is not this view's to call.
    await expect(view.callServerTool("elsewhere")).rejects.toMatchObject({ code: -32602 });
    expect(calls).toEqual(["both", "app-only"]);
    expect((await view.readServerResource("docs://a")).contents).toEqual([{ uri: "docs://a", text: "r" }]);
    await expect(view.listServerResources()).rejects.toBeInstanceOf(JsonRpcError);
    const bare = await pair();
    await bare.view.connect();
    await expect(bare.view.callServerTool("both")).rejects.toMatchObject({ code: -32601 });
  });

  it("calls the view's own tools from the host", async () => {
    const { host, view } = await pair(
      {},
      {
        appCapabilities: { tools: {} },
        onCallTool: (name) => ({ content: [{ type: "text", text: `view ran ${name}` }] }),
        onListTools: () => [{ name: "zoom", inputSchema: { type: "object" } }],
      },
    );
    await view.connect();
    await host.initialized;
    expect((await host.callViewTool("zoom")).content).toEqual([{ type: "text", text: "view ran zoom" }]);
    expect((await host.listViewTools()).tools.map((t) => t.name)).toEqual(["zoom"]);
    await host.ping();
  });
});

describe("bridge limits and stray messages", () => {
  async function readyRaw(limits: AppHostOptions["limits"]) {
    const made = rawHost(
      limits === undefined ? { onOpenLink: () => true } : { limits, onOpenLink: () => true },
    );
    made.raw.post(initialize());
    await made.raw.answer(0);
    return made;
  }
  const deep = (levels: number) => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  };

  it("refuses a message over the size bound, as text or object, answering its id", async () => {
    const { raw, problems } = await readyRaw({ messageBytes: 1_000 });
    raw.post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(900) } }));
    raw.post({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "x".repeat(1_000) } });
    raw.post(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: { pad: "x".repeat(1_000) } }));
    raw.post({ jsonrpc: "2.0", id: 4, method: "ping", params: { pad: "é".repeat(300) } });
    expect((await raw.answer(1)).result).toEqual({});
    expect((await raw.answer(2)).error).toMatchObject({
      code: -32600,
      message: "message refused: message-size",
    });
    raw.post({ jsonrpc: "2.0", id: 5, method: "ping" });
    await raw.answer(5);
    expect(problems.map((p) => p.kind)).toEqual(["message-size", "message-size"]);
    expect((await raw.answer(4)).result).toEqual({});
  });

  it("refuses JSON nested deeper than 32 levels or with more than 10,000 values", async () => {
    const { raw, problems } = await readyRaw(undefined);
    // The envelope and params are 2 levels: 30 more reach 32 exactly.
    raw.post({ jsonrpc: "2.0", id: 1, method: "ping", params: { v: deep(30) } });
    raw.post({ jsonrpc: "2.0", id: 2, method: "ping", params: { v: deep(31) } });
    raw.post(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: { v: deep(31) } }));
    // 5 values in the envelope (object, jsonrpc, id, method, params object) + the array + its items.
    raw.post({ jsonrpc: "2.0", id: 4, method: "ping", params: { v: Array(9_994).fill(0) } });
    raw.post({ jsonrpc: "2.0", id: 5, method: "ping", params: { v: Array(9_995).fill(0) } });
    expect((await raw.answer(1)).result).toEqual({});
    expect((await raw.answer(2)).error).toMatchObject({ message: "message refused: json-depth" });
    // Refused as text, its id is never read: no answer, only the problem.
    expect((await raw.answer(4)).result).toEqual({});
    expect((await raw.answer(5)).error).toMatchObject({ message: "message refused: json-nodes" });
    expect(problems.map((p) => p.kind)).toEqual(["json-depth", "json-depth", "json-nodes"]);
  });

  it("ignores what is not JSON-RPC, answers to unknown ids, and unparsable text", async () => {
    const { raw, problems } = await readyRaw(undefined);
    for (const junk of [
      "{not json",
      42,
      null,
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 99, result: {} },
    ]) {
      raw.post(junk);
    }
    raw.post({ jsonrpc: "2.0", id: { bad: 1 }, method: "ping" });
    raw.post({ jsonrpc: "2.0", id: 7, method: "ping", params: [1] });
    expect((await raw.answer(7)).error).toMatchObject({ code: -32602 });
    raw.post({ id: 8, jsonrpc: "2.0", method: "ping" });
    await raw.answer(8);
    expect(problems.map((p) => p.kind)).toEqual([
      "parse",
      "not-json-rpc",
      "not-json-rpc",
      "not-json-rpc",
      "unknown-response",
      // A request with an unusable id is refused (answered by id null): bridge-strict.test.ts.
      "invalid-message",
    ]);
  });

  it("ignores messages from an unexpected source", async () => {
    type Listener = (event: MessageEventLike) => void;
    const listeners = new Set<Listener>();
    const hostWindow = {
      addEventListener: (_: "message", l: Listener) => listeners.add(l),
      removeEventListener: (_: "message", l: Listener) => listeners.delete(l),
    };
    const posted: unknown[] = [];
    const iframe = { postMessage: (m: unknown) => posted.push(m) };
    const intruder = { postMessage: () => {} };
    const host = new AppHost({ endpoint: windowEndpoint({ target: iframe, events: hostWindow }), hostInfo });
    closers.push(() => host.close());
    const dispatch = (data: unknown, source: unknown) => {
      for (const l of listeners) l({ data, source });
    };
    dispatch(initialize(0), intruder);
    dispatch(initialize(1), undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(posted).toEqual([]);
    dispatch(initialize(2), iframe);
    await new Promise((resolve) => setImmediate(resolve));
    expect(posted).toMatchObject([{ id: 2, result: { protocolVersion: "2026-01-26" } }]);
    host.close();
    expect(listeners.size).toBe(0);
  });

  it("bounds its own requests: a deadline, the pending cap, and CLOSED on close", async () => {
    const { raw, host } = rawHost({ requestTimeoutMs: 30, limits: { maxPending: 2 } });
    raw.post(initialize());
    await raw.answer(0);
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    await host.initialized;
    await expect(host.ping()).rejects.toMatchObject({ code: "TIMEOUT" });
    const a = host.ping();
    const b = host.ping();
    await expect(host.ping()).rejects.toMatchObject({ code: "CAPACITY" });
    host.close();
    await expect(a).rejects.toMatchObject({ code: "CLOSED" });
    await expect(b).rejects.toMatchObject({ code: "CLOSED" });
  });

  it("refuses bad options", () => {
    const { endpoint } = rawPair();
    expect(() => new AppHost({ endpoint, hostInfo, nope: 1 } as never)).toThrow(/options.nope/);
    expect(() => new AppHost({ endpoint, hostInfo, limits: { jsonDepth: 0 } })).toThrow(/jsonDepth/);
    expect(() => new AppView({ endpoint, appInfo: { name: "x" } as never })).toThrow(/appInfo/);
  });
});
