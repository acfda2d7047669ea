// The ends of things on the bridge: a teardown the view refuses or never answers (bounded, on a manual clock),
// tool-cancelled as the terminal of its call, and a web host's sandbox proxy handshake.
import { McpkitError } from "mcpkit";
import { AppHost, type AppHostOptions, AppView, type BridgeProblem } from "mcpkit/apps";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../support/manual-clock.js";
import { linkedEndpoints, rawPair } from "./bridge-pair.js";

const hostInfo = { name: "test-host", version: "1.0.0" };
const appInfo = { name: "test-view", version: "1.0.0" };
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A host whose view is a raw end, past the handshake. */
async function readyHost(options: Partial<AppHostOptions> = {}) {
  const { raw, endpoint, close } = rawPair();
  closers.push(close);
  const problems: BridgeProblem[] = [];
  const host = new AppHost({ endpoint, hostInfo, onProblem: (p) => problems.push(p), ...options });
  closers.push(() => host.close());
  raw.post({
    jsonrpc: "2.0",
    id: 0,
    method: "ui/initialize",
    params: { protocolVersion: "2026-01-26", appInfo, appCapabilities: {} },
  });
  await raw.answer(0);
  raw.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  await host.initialized;
  return { raw, host, problems };
}

describe("teardown, whatever the view does", () => {
  it("tears down a view that answers ui/resource-teardown with -32601", async () => {
    const { raw, host, problems } = await readyHost();
    const done = host.teardown("closed");
    const request = await raw.next((f) => f.method === "ui/resource-teardown");
    raw.post({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "Method not found" } });
    const outcome = await done;
    expect(outcome.answered).toBe(false);
    expect(outcome).toMatchObject({ error: { code: -32601 } });
    expect(host.phase).toBe("torn-down");
    expect(problems.map((p) => p.message)).toEqual([
      "ui/resource-teardown was not answered (Method not found): torn down anyway",
    ]);
  });

  it("waits for a view that never answers teardownTimeoutMs (default 5,000 ms) on its clock, then tears it down", async () => {
    const clock = new ManualClock();
    const { raw, host } = await readyHost({ clock });
    const done = host.teardown();
    let settled = false;
    void done.then(() => {
      settled = true;
    });
    await raw.next((f) => f.method === "ui/resource-teardown");
    clock.advance(4_999);
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    expect(await done).toMatchObject({ answered: false, error: { code: "TIMEOUT" } });
    expect(host.phase).toBe("torn-down");
    expect(clock.pending).toBe(0);
    expect(() => host.sendToolInput({})).toThrow(/torn down/);
  });

  it("takes the bound from the option, checked", async () => {
    const clock = new ManualClock();
    const { raw, host } = await readyHost({ clock, teardownTimeoutMs: 50 });
    const done = host.teardown();
    await raw.next((f) => f.method === "ui/resource-teardown");
    clock.advance(50);
    expect((await done).answered).toBe(false);
    const { endpoint } = rawPair();
    expect(() => new AppHost({ endpoint, hostInfo, teardownTimeoutMs: 0 })).toThrow(/teardownTimeoutMs/);
    expect(() => new AppHost({ endpoint, hostInfo, clock: {} as never })).toThrow(/options.clock/);
  });

  it("reports a view that agreed", async () => {
    const link = linkedEndpoints();
    closers.push(link.close);
    const host = new AppHost({ endpoint: link.a, hostInfo });
    const view = new AppView({ endpoint: link.b, appInfo });
    closers.push(
      () => host.close(),
      () => view.close(),
    );
    await view.connect();
    await host.initialized;
    expect(await host.teardown()).toEqual({ answered: true });
  });
});

describe("tool-cancelled ends its call", () => {
  async function viewPair() {
    const link = linkedEndpoints();
    closers.push(link.close);
    const seen: string[] = [];
    const problems: BridgeProblem[] = [];
    const host = new AppHost({ endpoint: link.a, hostInfo, onProblem: (p) => problems.push(p) });
    const view = new AppView({
      endpoint: link.b,
      appInfo,
      onToolInput: (a) => seen.push(`input ${JSON.stringify(a)}`),
      onToolInputPartial: (a) => seen.push(`partial ${JSON.stringify(a)}`),
      onToolResult: (r) => seen.push(`result ${JSON.stringify(r.structuredContent)}`),
      onToolCancelled: (reason) => seen.push(`cancelled ${reason}`),
    });
    closers.push(
      () => host.close(),
      () => view.close(),
    );
    await view.connect();
    await host.initialized;
    return { host, view, seen, problems };
  }

  it("never delivers a cancelled call's late result, not even as the next call's", async () => {
    const { host, view, seen, problems } = await viewPair();
    const first = host.toolCall();
    expect(first.input({ city: "Paris" })).toBe(true);
    expect(first.cancel("user stopped")).toBe(true);
    expect(first.ended).toBe(true);
    const second = host.toolCall();
    expect(second.input({ city: "Oslo" })).toBe(true);
    // The first call's answer arrives late: dropped, reported, not delivered as Oslo's result.
    expect(first.result({ content: [], structuredContent: { city: "Paris" } })).toBe(false);
    expect(first.inputPartial({})).toBe(false);
    expect(second.result({ content: [], structuredContent: { city: "Oslo" } })).toBe(true);
    await view.requestDisplayMode("inline");
    expect(seen).toEqual([
      'input {"city":"Paris"}',
      "cancelled user stopped",
      'input {"city":"Oslo"}',
      'result {"city":"Oslo"}',
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      "ui/notifications/tool-result was not sent: its call has ended",
      "ui/notifications/tool-input-partial was not sent: its call has ended",
    ]);
  });

  it("cancels a call before its input; a new call supersedes an open one", async () => {
    const { host, view, seen, problems } = await viewPair();
    const zeroth = host.toolCall();
    // The view has seen no call yet: it is told.
    expect(zeroth.cancel("before any input")).toBe(true);
    const first = host.toolCall();
    first.input({ n: 1 });
    first.result({ content: [], structuredContent: { n: 1 } });
    // Bare sends keep the old rule: a cancel cannot follow a result.
    expect(() => host.sendToolCancelled()).toThrow(McpkitError);
    // After a result, a call cancelled before its input ends without a word: the view has nothing of it.
    const second = host.toolCall();
    expect(second.cancel("before input")).toBe(true);
    expect(second.ended).toBe(true);
    const third = host.toolCall();
    third.inputPartial({ n: 3 });
    const fourth = host.toolCall();
    expect(third.input({ n: 3 })).toBe(false);
    fourth.input({ n: 4 });
    await view.requestDisplayMode("inline");
    expect(seen).toEqual([
      "cancelled before any input",
      'input {"n":1}',
      'result {"n":1}',
      'partial {"n":3}',
      "cancelled superseded",
      'input {"n":4}',
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      "ui/notifications/tool-input was not sent: a newer call superseded it",
    ]);
  });

  it("drops a call's sends after teardown instead of throwing, and the view drops anything after a cancel", async () => {
    const { host, seen } = await viewPair();
    const call = host.toolCall();
    call.input({});
    await host.teardown();
    expect(call.result({ content: [] })).toBe(false);
    expect(() => host.toolCall()).toThrow(/torn down/);
    expect(seen).toEqual(["input {}"]);

    const { raw, endpoint, close } = rawPair();
    closers.push(close);
    const got: string[] = [];
    const view = new AppView({
      endpoint,
      appInfo,
      onToolResult: () => got.push("result"),
      onToolCancelled: () => got.push("cancelled"),
    });
    closers.push(() => view.close());
    const connected = view.connect();
    const init = await raw.next((f) => f.method === "ui/initialize");
    raw.post({ jsonrpc: "2.0", id: init.id, result: { protocolVersion: "2026-01-26", hostInfo } });
    await connected;
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: {} } });
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/tool-cancelled", params: {} });
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { content: [] } });
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/tool-cancelled", params: {} });
    raw.post({ jsonrpc: "2.0", id: 7, method: "ping" });
    await raw.answer(7);
    expect(got).toEqual(["cancelled"]);
  });
});

describe("a web host's sandbox proxy", () => {
  it("answers sandbox-proxy-ready with sandbox-resource-ready once, before any handshake", async () => {
    const { raw, endpoint, close } = rawPair();
    closers.push(close);
    const problems: BridgeProblem[] = [];
    const resource = {
      html: "<!doctype html><p>view</p>",
      sandbox: "allow-scripts",
      csp: { connectDomains: ["https://api.example.com"] },
      permissions: {},
    };
    const host = new AppHost({
      endpoint,
      hostInfo,
      sandboxResource: resource,
      onProblem: (p) => problems.push(p),
    });
    closers.push(() => host.close());
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} });
    const ready = await raw.next((f) => f.method === "ui/notifications/sandbox-resource-ready");
    expect(ready).toEqual({
      jsonrpc: "2.0",
      method: "ui/notifications/sandbox-resource-ready",
      params: resource,
    });
    expect(host.phase).toBe("handshake");
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} });
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: { html: "x" } });
    raw.post({ jsonrpc: "2.0", id: 1, method: "ui/notifications/sandbox-proxy-ready", params: {} });
    expect((await raw.answer(1)).error).toMatchObject({ code: -32600 });
    expect(raw.received.filter((f) => f.method === "ui/notifications/sandbox-resource-ready")).toEqual([]);
    expect(problems.map((p) => p.message)).toEqual([
      "ui/notifications/sandbox-proxy-ready after the view's document was sent: ignored",
      "ui/notifications/sandbox-resource-ready goes from host to proxy: ignored",
      "ui/notifications/sandbox-proxy-ready is a notification: it takes no id: refused",
    ]);
  });

  it("reports a proxy's ready notice when there is no document to send, and the view ignores proxy messages", async () => {
    const { raw, problems } = await readyHost();
    raw.post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} });
    raw.post({ jsonrpc: "2.0", id: 2, method: "ping" });
    await raw.answer(2);
    expect(problems.map((p) => p.message)).toEqual([
      "ui/notifications/sandbox-proxy-ready without a sandboxResource to send: ignored",
    ]);

    const pair = rawPair();
    closers.push(pair.close);
    const viewProblems: BridgeProblem[] = [];
    const view = new AppView({ endpoint: pair.endpoint, appInfo, onProblem: (p) => viewProblems.push(p) });
    closers.push(() => view.close());
    pair.raw.post({
      jsonrpc: "2.0",
      method: "ui/notifications/sandbox-resource-ready",
      params: { html: "<p>x</p>" },
    });
    pair.raw.post({ jsonrpc: "2.0", id: 3, method: "ping" });
    await pair.raw.answer(3);
    expect(viewProblems.map((p) => p.message)).toEqual([
      "ui/notifications/sandbox-resource-ready is not for the view: ignored",
    ]);
  });
});
