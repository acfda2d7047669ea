// Strict bridge message checks: ids, a message mixing method and result, a request without id, a notification
// with one. Each is refused with a clear error (answered where it claims to be a request) and never acted on.
import {
  AppHost,
  type AppHostOptions,
  AppView,
  type BridgeProblem,
  SUPPORTED_BRIDGE_VERSIONS,
} from "mcpkit/apps";
import { afterEach, describe, expect, it } from "vitest";
import { rawPair } from "./bridge-pair.js";

const hostInfo = { name: "test-host", version: "1.0.0" };
const appInfo = { name: "test-view", version: "1.0.0" };
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

function rawHost(options: Partial<AppHostOptions> = {}) {
  const { raw, endpoint, close } = rawPair();
  closers.push(close);
  const problems: BridgeProblem[] = [];
  const host = new AppHost({ endpoint, hostInfo, onProblem: (p) => problems.push(p), ...options });
  closers.push(() => host.close());
  return { raw, host, problems };
}

const initialize = (id: unknown = 0, protocolVersion = "2026-01-26") => ({
  jsonrpc: "2.0",
  id,
  method: "ui/initialize",
  params: { appCapabilities: {}, appInfo, protocolVersion },
});

async function readyHost(options: Partial<AppHostOptions> = {}) {
  const made = rawHost(options);
  made.raw.post(initialize());
  await made.raw.answer(0);
  made.raw.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  await made.host.initialized;
  return made;
}

describe("strict bridge messages", () => {
  it("refuses a message that carries a method and a result, answering its id, without acting on it", async () => {
    const opened: string[] = [];
    const { raw, problems } = await readyHost({ onOpenLink: (url) => void opened.push(url) });
    raw.post({
      jsonrpc: "2.0",
      id: 1,
      method: "ui/open-link",
      params: { url: "https://example.com" },
      result: {},
    });
    raw.post({ jsonrpc: "2.0", id: 2, method: "ping", error: { code: 1, message: "x" } });
    expect((await raw.answer(1)).error).toEqual({
      code: -32600,
      message: "a message may not carry both a method (ui/open-link) and a result or error",
    });
    expect((await raw.answer(2)).error).toMatchObject({ code: -32600 });
    expect(opened).toEqual([]);
    expect(problems.map((p) => [p.kind, p.method])).toEqual([
      ["invalid-message", "ui/open-link"],
      ["invalid-message", "ping"],
    ]);
  });

  it("never resolves its own request with a frame that mixes method and result, or result and error", async () => {
    const { raw, host } = await readyHost();
    const ping = host.ping();
    const sent = await raw.next((f) => f.method === "ping");
    raw.post({ jsonrpc: "2.0", id: sent.id, method: "ping", result: {} });
    expect((await raw.answer(sent.id)).error).toMatchObject({ code: -32600 });
    raw.post({ jsonrpc: "2.0", id: sent.id, result: {}, error: { code: -32603, message: "x" } });
    await expect(ping).rejects.toMatchObject({ code: "PROTOCOL", message: /both result and error/ });
  });

  it("refuses a request whose id is null, fractional, boolean or an object, answering by id null", async () => {
    const { raw, problems } = await readyHost();
    for (const id of [null, 1.5, true, { n: 1 }]) raw.post({ jsonrpc: "2.0", id, method: "ping" });
    raw.post({ jsonrpc: "2.0", id: 9, method: "ping" });
    await raw.answer(9);
    const refusals = raw.received.filter((f) => f.id === null);
    expect(refusals).toHaveLength(4);
    expect(refusals[0]?.error).toEqual({
      code: -32600,
      message: "the id of ping must be a string or an integer",
    });
    expect(raw.received.filter((f) => "result" in f)).toEqual([]);
    expect(problems.map((p) => p.kind)).toEqual(Array(4).fill("invalid-message"));
  });

  it("refuses a request sent without an id, and never acts on it", async () => {
    const opened: string[] = [];
    const fresh = rawHost({ onOpenLink: (url) => void opened.push(url) });
    // ui/initialize without an id: no handshake happens.
    fresh.raw.post({ jsonrpc: "2.0", method: "ui/initialize", params: initialize().params });
    fresh.raw.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    fresh.raw.post(initialize(3));
    expect((await fresh.raw.answer(3)).result).toMatchObject({ protocolVersion: "2026-01-26" });
    fresh.raw.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    await fresh.host.initialized;
    fresh.raw.post({ jsonrpc: "2.0", method: "ui/open-link", params: { url: "https://example.com" } });
    fresh.raw.post({ jsonrpc: "2.0", id: 4, method: "ping" });
    await fresh.raw.answer(4);
    expect(opened).toEqual([]);
    expect(fresh.problems.map((p) => [p.kind, p.message])).toEqual([
      ["invalid-message", "ui/initialize is a request: it needs an id: refused"],
      ["lifecycle", "ui/notifications/initialized out of order was ignored"],
      ["invalid-message", "ui/open-link is a request: it needs an id: refused"],
    ]);
  });

  it("refuses a notification sent with an id, answering it, and never acts on it", async () => {
    const { raw, host, problems } = rawHost();
    raw.post(initialize());
    await raw.answer(0);
    raw.post({ jsonrpc: "2.0", id: 1, method: "ui/notifications/initialized" });
    expect((await raw.answer(1)).error).toEqual({
      code: -32600,
      message: "ui/notifications/initialized is a notification: it takes no id",
    });
    expect(host.phase).toBe("handshake");
    expect(problems.map((p) => p.kind)).toEqual(["invalid-message"]);
  });

  it("has the view refuse the same: a teardown without an id never tears it down", async () => {
    const { raw, endpoint, close } = rawPair();
    closers.push(close);
    const problems: BridgeProblem[] = [];
    let teardowns = 0;
    const view = new AppView({
      endpoint,
      appInfo,
      onProblem: (p) => problems.push(p),
      onTeardown: () => {
        teardowns++;
      },
    });
    closers.push(() => view.close());
    const connected = view.connect();
    const request = await raw.next((f) => f.method === "ui/initialize");
    raw.post({ jsonrpc: "2.0", id: request.id, result: { protocolVersion: "2026-01-26", hostInfo } });
    await connected;
    raw.post({ jsonrpc: "2.0", method: "ui/resource-teardown", params: {} });
    raw.post({ jsonrpc: "2.0", id: "t", method: "ui/resource-teardown", params: {}, result: {} });
    expect((await raw.answer("t")).error).toMatchObject({ code: -32600 });
    raw.post({ jsonrpc: "2.0", id: "u", method: "ui/resource-teardown", params: {} });
    expect((await raw.answer("u")).result).toEqual({});
    expect(teardowns).toBe(1);
    expect(problems.map((p) => p.kind)).toEqual(["invalid-message", "invalid-message"]);
  });
});

describe("bridge version negotiation", () => {
  it("answers a supported version as asked and any other with the latest, never refusing unless strict", async () => {
    expect(SUPPORTED_BRIDGE_VERSIONS).toEqual(["2026-01-26"]);
    const lenient = rawHost();
    lenient.raw.post(initialize(0, "2027-01-01"));
    expect((await lenient.raw.answer(0)).result).toMatchObject({ protocolVersion: "2026-01-26" });
    const strict = rawHost({ strictVersion: true });
    strict.raw.post(initialize(0, "2027-01-01"));
    expect((await strict.raw.answer(0)).error).toEqual({
      code: -32602,
      message: "unsupported bridge version 2027-01-01",
      data: { supported: ["2026-01-26"], requested: "2027-01-01" },
    });
    strict.raw.post(initialize(1));
    expect((await strict.raw.answer(1)).result).toMatchObject({ protocolVersion: "2026-01-26" });
  });
});
