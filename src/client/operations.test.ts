import { describe, expect, it } from "vitest";
import {
  connectFake,
  FAKE_SERVER_INFO,
  fail,
  ok,
  progressTokenOf,
  SAMPLE,
  TEST_CLIENT_INFO,
} from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import type { ProgressParams } from "../protocol/types/lifecycle.js";
import type { Client } from "./client.js";
import { isResourceNotFound } from "./not-found.js";

useWireValidation();

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": TEST_CLIENT_INFO,
};

type Op = [method: string, call: (client: Client) => Promise<unknown>, params: { [key: string]: unknown }];

const OPERATIONS: Op[] = [
  ["tools/list", (c) => c.listTools({ cursor: "c1" }), { cursor: "c1" }],
  ["tools/call", (c) => c.callTool("echo", { text: "hi" }), { name: "echo", arguments: { text: "hi" } }],
  ["resources/list", (c) => c.listResources(), {}],
  ["resources/read", (c) => c.readResource("file:///a.txt"), { uri: "file:///a.txt" }],
  ["resources/templates/list", (c) => c.listResourceTemplates(), {}],
  ["prompts/list", (c) => c.listPrompts(), {}],
  [
    "prompts/get",
    (c) => c.getPrompt("review", { file: "a.ts" }),
    { name: "review", arguments: { file: "a.ts" } },
  ],
  [
    "completion/complete",
    (c) =>
      c.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "file", value: "a" } }),
    { ref: { type: "ref/prompt", name: "review" }, argument: { name: "file", value: "a" } },
  ],
];

const CACHEABLE = new Set([
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
]);

describe("operations in 2026-07-28", () => {
  it.each(OPERATIONS)(
    "%s carries the full _meta and returns the result as received",
    async (method, call, params) => {
      const { server, client } = await connectFake({ era: "modern" });
      const result = await call(client);
      const request = server.requests(method)[0];
      expect(request?.params).toEqual({ ...params, _meta: MODERN_META });
      const expected: { [key: string]: unknown } = {
        ...SAMPLE[method],
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/serverInfo": FAKE_SERVER_INFO },
      };
      if (CACHEABLE.has(method)) Object.assign(expected, { ttlMs: 0, cacheScope: "public" });
      expect(result).toEqual(expected);
    },
  );

  it("adds the logLevel to every request when the client option is set", async () => {
    const { server, client } = await connectFake({ client: { logLevel: "warning" } });
    await client.listTools();
    await client.callTool("echo");
    for (const request of server.requests()) {
      expect(request.params?._meta).toMatchObject({ "io.modelcontextprotocol/logLevel": "warning" });
    }
    expect(server.requests("tools/call")[0]?.params).not.toHaveProperty("arguments");
  });

  it("merges the caller's _meta keys, letting the client's reserved keys win", async () => {
    const { server, client } = await connectFake();
    await client.callTool(
      "echo",
      {},
      {
        meta: { traceparent: "00-1-2-01", "io.modelcontextprotocol/protocolVersion": "1999-01-01" },
      },
    );
    expect(server.requests("tools/call")[0]?.params?._meta).toEqual({
      ...MODERN_META,
      traceparent: "00-1-2-01",
    });
  });

  it("exposes cache hints as received and never caches", async () => {
    const { server, client } = await connectFake({
      setup: (s) => s.on("tools/list", () => ok({ tools: [], ttlMs: 60_000, cacheScope: "private" })),
    });
    const first = await client.listTools();
    const second = await client.listTools();
    expect([first.ttlMs, first.cacheScope, first.resultType]).toEqual([60_000, "private", "complete"]);
    expect(second).toEqual(first);
    expect(server.requests("tools/list")).toHaveLength(2);
  });

  it.each([
    ["setLoggingLevel", (c: Client) => c.setLoggingLevel("debug")],
    ["ping", (c: Client) => c.ping()],
  ])("%s rejects UNSUPPORTED without sending", async (_name, call) => {
    const { server, client } = await connectFake();
    const before = server.received.length;
    await expect(call(client)).rejects.toMatchObject({ code: "UNSUPPORTED" });
    expect(server.received).toHaveLength(before);
  });

  it("rejects INPUT_REQUIRED when the server asks for input and the client has no resolver", async () => {
    const asks = { ask: { method: "roots/list" } };
    const { client } = await connectFake({
      setup: (s) => s.on("tools/call", () => ok({ resultType: "input_required", inputRequests: asks })),
    });
    await expect(client.callTool("echo")).rejects.toMatchObject({
      code: "INPUT_REQUIRED",
      details: { result: { resultType: "input_required", inputRequests: asks } },
    });
  });
});

describe("operations in 2025-11-25", () => {
  it.each(OPERATIONS)(
    "%s sends plain params and returns the result as received",
    async (method, call, params) => {
      const { server, client } = await connectFake({ era: "legacy" });
      const result = await call(client);
      expect(server.requests(method)[0]?.params).toEqual(params);
      expect(result).toEqual(SAMPLE[method]);
    },
  );

  it("setLoggingLevel sends logging/setLevel", async () => {
    const { server, client } = await connectFake({ era: "legacy" });
    await expect(client.setLoggingLevel("error")).resolves.toEqual({});
    expect(server.requests("logging/setLevel")[0]?.params).toEqual({ level: "error" });
  });

  it("ping sends ping", async () => {
    const { server, client } = await connectFake({ era: "legacy" });
    await expect(client.ping()).resolves.toEqual({});
    expect(server.requests("ping")).toHaveLength(1);
  });

  it("keeps caller _meta keys and never sends 2026 metadata", async () => {
    const { server, client } = await connectFake({ era: "legacy", client: { logLevel: "info" } });
    await client.listTools({}, { meta: { traceparent: "00-1-2-01" } });
    expect(server.requests("tools/list")[0]?.params).toEqual({ _meta: { traceparent: "00-1-2-01" } });
  });
});

describe.each(["modern", "legacy"] as const)("results and errors (%s server)", (era) => {
  it("rejects with the JsonRpcError as received, data preserved", async () => {
    const { client } = await connectFake({
      era,
      setup: (s) => s.on("tools/call", () => fail(-32602, "Unknown tool: nope", { tool: "nope" })),
    });
    const error = await client.callTool("nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32602, message: "Unknown tool: nope", data: { tool: "nope" } });
  });

  it.each([
    ["tools/list", (c: Client) => c.listTools(), { nextCursor: "x" }],
    ["tools/call", (c: Client) => c.callTool("x"), { structuredContent: {} }],
    ["resources/read", (c: Client) => c.readResource("file:///a"), { contents: "nope" }],
    ["prompts/get", (c: Client) => c.getPrompt("p"), {}],
    [
      "completion/complete",
      (c: Client) =>
        c.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } }),
      { completion: {} },
    ],
  ])("rejects PROTOCOL when a %s result lacks required members", async (method, call, result) => {
    const { client } = await connectFake({
      era,
      validate: false,
      setup: (s) => s.on(method, () => ok(result)),
    });
    await expect(call(client)).rejects.toMatchObject({ code: "PROTOCOL", details: { method } });
  });

  it("keeps unknown members everywhere", async () => {
    const tool = { name: "t", inputSchema: { type: "object", "x-extra": [1] }, "x-vendor": { keep: true } };
    const { client } = await connectFake({
      era,
      setup: (s) => s.on("tools/list", () => ok({ tools: [tool], futureMember: { a: null } })),
    });
    const result = await client.listTools();
    expect(result.tools[0]).toEqual(tool);
    expect(result.futureMember).toEqual({ a: null });
  });

  it.each([[false], [0], [""], [[]], [null], [{ nested: [1] }]])(
    "keeps structuredContent %j distinct from absent",
    async (value) => {
      const { client } = await connectFake({
        era,
        // The 2025-11-25 schema allows only an object; old servers send other values anyway.
        validate: era === "modern" || (typeof value === "object" && value !== null && !Array.isArray(value)),
        setup: (s) =>
          s.on("tools/call", (request) =>
            request.params?.name === "absent"
              ? ok({ content: [] })
              : ok({ content: [], structuredContent: value }),
          ),
      });
      const present = await client.callTool("present");
      expect("structuredContent" in present).toBe(true);
      expect(present.structuredContent).toEqual(value);
      const absent = await client.callTool("absent");
      expect("structuredContent" in absent).toBe(false);
    },
  );

  it.each([-32602, -32002])(
    "surfaces resource-not-found %i as received; isResourceNotFound accepts it",
    async (code) => {
      const { client } = await connectFake({
        era,
        setup: (s) =>
          s.on("resources/read", () => fail(code, "Resource not found", { uri: "file:///missing" })),
      });
      const error = await client.readResource("file:///missing").catch((e: unknown) => e);
      expect(error).toMatchObject({ code, data: { uri: "file:///missing" } });
      expect(isResourceNotFound(error)).toBe(true);
      expect(isResourceNotFound(new JsonRpcError(-32603, "x"))).toBe(false);
      expect(isResourceNotFound(new Error("x"))).toBe(false);
    },
  );

  it("delivers progress to the call's onProgress, matched by its progressToken", async () => {
    const { server, client } = await connectFake({
      era,
      setup: (s) =>
        s.on("tools/call", async (request, fake) => {
          const token = progressTokenOf(request);
          await fake.notify("notifications/progress", { progressToken: 999, progress: 1 });
          await fake.notify("notifications/progress", { progressToken: token ?? -1, progress: 1, total: 2 });
          await fake.notify("notifications/progress", {
            progressToken: token ?? -1,
            progress: 2,
            total: 2,
            message: "done",
          });
          return ok({ content: [] });
        }),
    });
    const seen: ProgressParams[] = [];
    await client.callTool("slow", {}, { onProgress: (p) => seen.push(p) });
    const token = progressTokenOf(server.requests("tools/call")[0]);
    expect(typeof token).toBe("number");
    expect(seen).toEqual([
      { progressToken: token, progress: 1, total: 2 },
      { progressToken: token, progress: 2, total: 2, message: "done" },
    ]);
  });

  it("sends requests of any method through request(), and refuses initialize", async () => {
    const { server, client } = await connectFake({
      era,
      setup: (s) => s.on("vendor/thing", () => ok({ x: 1 })),
    });
    await expect(client.request("vendor/thing", { a: 1 })).resolves.toMatchObject({ x: 1 });
    expect(server.requests("vendor/thing")[0]?.params).toMatchObject({ a: 1 });
    await expect(client.request("initialize")).rejects.toMatchObject({ code: "UNSUPPORTED" });
  });

  it("rejects operations before connect and after close with CLOSED", async () => {
    const { client } = await connectFake({ era });
    await client.close();
    await expect(client.listTools()).rejects.toMatchObject({ code: "CLOSED" });
  });
});
