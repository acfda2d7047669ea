import { describe, expect, it } from "vitest";
import {
  connectFake,
  FAKE_SERVER_INFO,
  type FakeServer,
  fail,
  fakePair,
  ok,
  TEST_CLIENT_INFO,
} from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type { Transport } from "../transports/transport.js";
import { Client } from "./client.js";
import type { ClientOptions } from "./types.js";

useWireValidation();

const quiet = { warn: () => {} };

async function setup(
  script: (server: FakeServer) => void,
  options: Partial<ClientOptions> & { validate?: boolean } = {},
) {
  const { validate, ...clientOptions } = options;
  const pair = await fakePair(validate === undefined ? {} : { validate });
  script(pair.server);
  const client = new Client({
    transport: pair.clientTransport,
    clientInfo: TEST_CLIENT_INFO,
    logger: quiet,
    ...clientOptions,
  });
  return { ...pair, client };
}

function methods(server: FakeServer): string[] {
  return server.received.flatMap((m) => ("method" in m ? [m.method] : []));
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe("connect: 2026-07-28 first", () => {
  it("sends server/discover with the full request _meta and reports what it learned", async () => {
    const { server, client } = await setup((s) => s.modern({ instructions: "be nice" }), {
      logLevel: "info",
    });
    const info = await client.connect();
    expect(info).toEqual({
      era: "2026-07-28",
      protocolVersion: "2026-07-28",
      serverInfo: FAKE_SERVER_INFO,
      capabilities: { tools: {} },
      instructions: "be nice",
      supportedVersions: ["2026-07-28", "2025-11-25"],
      cache: { ttlMs: 0, cacheScope: "public" },
    });
    expect(methods(server)).toEqual(["server/discover"]);
    expect(server.requests("server/discover")[0]?.params?._meta).toEqual({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": TEST_CLIENT_INFO,
      "io.modelcontextprotocol/logLevel": "info",
    });
    expect([client.era, client.protocolVersion, client.instructions]).toEqual([
      "2026-07-28",
      "2026-07-28",
      "be nice",
    ]);
    expect(client.serverInfo).toEqual(FAKE_SERVER_INFO);
    expect(client.serverCapabilities).toEqual({ tools: {} });
    expect(client.connection).toBe(info);
  });

  it("falls back to initialize on -32601 and sends notifications/initialized", async () => {
    const { server, client } = await setup((s) => s.legacy());
    const info = await client.connect();
    expect(info).toEqual({
      era: "2025-11-25",
      protocolVersion: "2025-11-25",
      serverInfo: FAKE_SERVER_INFO,
      capabilities: { tools: {} },
    });
    expect(methods(server)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
    expect(server.requests("initialize")[0]?.params).toEqual({
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: TEST_CLIENT_INFO,
    });
  });

  const UNRECOGNIZED = [
    ["an internal error", -32603, "boom"],
    ["an invalid request", -32600, "Server not initialized"],
    ["an implementation-defined error", -32000, "no session"],
    ["-32602 that does not mention _meta", -32602, "Invalid params: unexpected params"],
  ] as const;

  it.each(UNRECOGNIZED)(
    "fails with VERSION_NEGOTIATION, without falling back, on %s from server/discover",
    async (_label, code, message) => {
      const { server, client } = await setup((s) => {
        s.legacy();
        s.on("server/discover", () => fail(code, message));
      });
      const error = await rejection(client.connect());
      expect(error).toBeInstanceOf(McpkitError);
      expect(error).toMatchObject({
        code: "VERSION_NEGOTIATION",
        details: { method: "server/discover", code, message, fallback: "none" },
      });
      expect((error as Error).message).toContain(String(code));
      expect((error as Error).message).toContain('versionFallback: "lenient"');
      expect((error as Error).cause).toMatchObject({ code, message });
      expect(methods(server)).toEqual(["server/discover"]);
      expect(server.closed).toBe(true);
    },
  );

  it.each(UNRECOGNIZED)(
    'with versionFallback "lenient", falls back on %s from server/discover',
    async (_label, code, message) => {
      const { server, client } = await setup(
        (s) => {
          s.legacy();
          s.on("server/discover", () => fail(code, message));
        },
        { versionFallback: "lenient" },
      );
      await expect(client.connect()).resolves.toMatchObject({ era: "2025-11-25" });
      expect(methods(server)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
    },
  );

  it('with versionFallback "lenient", still fails on a recognized 2026 error', async () => {
    const { server, client } = await setup(
      (s) => {
        s.legacy();
        s.on("server/discover", () => fail(-32020, "Header mismatch"));
      },
      { versionFallback: "lenient" },
    );
    await expect(client.connect()).rejects.toMatchObject({ code: -32020 });
    expect(methods(server)).toEqual(["server/discover"]);
  });

  it.each([
    ["-32020 header mismatch", -32020, "Header mismatch", undefined],
    ["-32021 missing capability", -32021, "Missing capability", { requiredCapabilities: { sampling: {} } }],
    [
      "-32602 about _meta",
      -32602,
      'Invalid params: _meta["io.modelcontextprotocol/clientInfo"] is bad',
      undefined,
    ],
  ])("fails, without falling back, on a recognized 2026 error: %s", async (_label, code, message, data) => {
    const { server, client } = await setup((s) => {
      s.legacy();
      s.on("server/discover", () => (data === undefined ? fail(code, message) : fail(code, message, data)));
    });
    const error = await rejection(client.connect());
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code, message });
    expect(methods(server)).toEqual(["server/discover"]);
    expect(server.closed).toBe(true);
  });

  it("falls back when -32022 names only a legacy version", async () => {
    const { server, client } = await setup((s) => {
      s.legacy();
      s.on("server/discover", () =>
        fail(-32022, "Unsupported protocol version", { supported: ["2025-11-25"], requested: "2026-07-28" }),
      );
    });
    await expect(client.connect()).resolves.toMatchObject({ era: "2025-11-25" });
    expect(methods(server)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
  });

  it("retries server/discover exactly once when -32022 names 2026-07-28", async () => {
    let calls = 0;
    const { server, client } = await setup((s) =>
      s.modern().on("server/discover", (_request, fake) => {
        calls++;
        if (calls === 1) return fail(-32022, "Unsupported", { supported: ["2026-07-28"], requested: "x" });
        fake.modern();
        return ok({ supportedVersions: ["2026-07-28"], capabilities: {} });
      }),
    );
    await expect(client.connect()).resolves.toMatchObject({ era: "2026-07-28" });
    expect(methods(server)).toEqual(["server/discover", "server/discover"]);
  });

  it("gives up after the one retry with VERSION_NEGOTIATION", async () => {
    const data = { supported: ["2026-07-28"], requested: "2026-07-28" };
    const { server, client } = await setup((s) =>
      s.on("server/discover", () => fail(-32022, "Unsupported", data)),
    );
    const error = await rejection(client.connect());
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "VERSION_NEGOTIATION", details: { data } });
    expect(methods(server)).toEqual(["server/discover", "server/discover"]);
  });

  it("fails with VERSION_NEGOTIATION when -32022 names no version this client speaks", async () => {
    const data = { supported: ["2099-01-01"], requested: "2026-07-28" };
    const { server, client } = await setup((s) =>
      s.on("server/discover", () => fail(-32022, "Unsupported", data)),
    );
    await expect(client.connect()).rejects.toMatchObject({ code: "VERSION_NEGOTIATION" });
    expect(methods(server)).toEqual(["server/discover"]);
  });

  it("fails with PROTOCOL on a discover result without its required members", async () => {
    const { client } = await setup((s) => s.on("server/discover", () => ok({ capabilities: {} })), {
      validate: false,
    });
    await expect(client.connect()).rejects.toMatchObject({ code: "PROTOCOL" });
  });
});

describe("connect: the 2025-11-25 fallback", () => {
  it("fails with VERSION_NEGOTIATION, carrying the server's data, when initialize answers -32022", async () => {
    const data = { supported: ["2024-11-05"], requested: "2025-11-25" };
    const { server, client } = await setup((s) => {
      s.legacy();
      s.on("initialize", () => fail(-32022, "Unsupported protocol version", data));
    });
    const error = await rejection(client.connect());
    expect(error).toMatchObject({ code: "VERSION_NEGOTIATION", details: { method: "initialize", data } });
    expect((error as Error).cause).toBeInstanceOf(JsonRpcError);
    expect(methods(server)).toEqual(["server/discover", "initialize"]);
    expect(server.closed).toBe(true);
  });

  it.each(["2025-06-18", "2025-03-26"])("refuses an older legacy answer by default: %s", async (version) => {
    const { server, client } = await setup((s) => s.legacy(version));
    const error = await rejection(client.connect());
    expect(error).toMatchObject({
      code: "VERSION_NEGOTIATION",
      details: { requested: "2025-11-25", received: version, option: "acceptOlderVersions" },
    });
    expect((error as Error).message).toContain("acceptOlderVersions");
    expect(methods(server)).not.toContain("notifications/initialized");
    expect(server.closed).toBe(true);
  });

  it.each(["2025-06-18", "2025-03-26"])("accepts an older legacy answer when told: %s", async (version) => {
    const { server, client } = await setup((s) => s.legacy(version), { acceptOlderVersions: true });
    await expect(client.connect()).resolves.toMatchObject({ era: "2025-11-25", protocolVersion: version });
    expect(client.protocolVersion).toBe(version);
    expect(methods(server)).toContain("notifications/initialized");
  });

  it("fails with VERSION_NEGOTIATION on an initialize answer naming an unknown version", async () => {
    const { server, client } = await setup((s) => s.legacy("2024-11-05"));
    await expect(client.connect()).rejects.toMatchObject({
      code: "VERSION_NEGOTIATION",
      details: { received: "2024-11-05" },
    });
    expect(methods(server)).not.toContain("notifications/initialized");
    expect(server.closed).toBe(true);
  });

  it("returns any other initialize error as received", async () => {
    const { client } = await setup((s) => {
      s.legacy();
      s.on("initialize", () => fail(-32603, "broken"));
    });
    await expect(client.connect()).rejects.toMatchObject({ code: -32603, message: "broken" });
  });

  it("rolls back when notifications/initialized cannot be sent", async () => {
    const pair = await fakePair();
    pair.server.legacy();
    const inner = pair.clientTransport;
    const failing: Transport = {
      start: (handlers) => inner.start(handlers),
      close: () => inner.close(),
      send: (message: JsonRpcMessage) =>
        "method" in message && message.method === "notifications/initialized"
          ? Promise.reject(new Error("pipe broke"))
          : inner.send(message),
    };
    const client = new Client({ transport: failing, clientInfo: TEST_CLIENT_INFO, logger: quiet });
    await expect(client.connect()).rejects.toMatchObject({ code: "TRANSPORT" });
    expect(pair.server.closed).toBe(true);
    expect(client.era).toBeUndefined();
    await expect(client.listTools()).rejects.toMatchObject({ code: "CLOSED" });
  });
});

describe("connect: pinned eras", () => {
  it("protocolVersion 2025-11-25 starts with initialize and never emits 2026 metadata", async () => {
    const { server, client } = await connectFake({
      era: "legacy",
      client: { protocolVersion: "2025-11-25" },
    });
    await client.listTools();
    await client.callTool(
      "x",
      {},
      { meta: { traceparent: "00-abc-def-01", "io.modelcontextprotocol/logLevel": "debug" } },
    );
    expect(methods(server)).toEqual(["initialize", "notifications/initialized", "tools/list", "tools/call"]);
    expect(JSON.stringify(server.received)).not.toContain("io.modelcontextprotocol/");
    expect(server.requests("tools/call")[0]?.params?._meta).toEqual({ traceparent: "00-abc-def-01" });
  });

  it("protocolVersion 2026-07-28 sends only server/discover and never falls back", async () => {
    const { server, client } = await setup((s) => s.legacy(), { protocolVersion: "2026-07-28" });
    const error = await rejection(client.connect());
    expect(error).toMatchObject({ code: "VERSION_NEGOTIATION" });
    expect((error as Error).cause).toMatchObject({ code: -32601 });
    expect(methods(server)).toEqual(["server/discover"]);
  });

  it("protocolVersion 2026-07-28 does not fall back on -32022 naming a legacy version", async () => {
    const data = { supported: ["2025-11-25"], requested: "2026-07-28" };
    const { server, client } = await setup(
      (s) => s.on("server/discover", () => fail(-32022, "Unsupported", data)),
      {
        protocolVersion: "2026-07-28",
      },
    );
    await expect(client.connect()).rejects.toMatchObject({ code: "VERSION_NEGOTIATION" });
    expect(methods(server)).toEqual(["server/discover"]);
  });

  it("protocolVersion 2026-07-28 connects to a modern server", async () => {
    const { server, client } = await setup((s) => s.modern(), { protocolVersion: "2026-07-28" });
    await expect(client.connect()).resolves.toMatchObject({ era: "2026-07-28" });
    expect(methods(server)).toEqual(["server/discover"]);
  });
});

describe("connect: deadline, abort and close", () => {
  it("does not fall back when the transport closes during discovery", async () => {
    const { server, client } = await setup((s) => {
      s.legacy();
      s.on("server/discover", (_request, fake) => {
        void fake.close();
        return undefined;
      });
    });
    const error = await rejection(client.connect());
    expect(error).toMatchObject({ code: "CLOSED" });
    expect(methods(server)).toEqual(["server/discover"]);
  });

  it("does not fall back when the discover probe times out: the connect deadline is the error", async () => {
    const { server, client } = await setup(
      (s) => {
        s.legacy();
        s.on("server/discover", () => undefined);
      },
      { connectTimeoutMs: 50 },
    );
    const error = await rejection(client.connect());
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "TIMEOUT" });
    expect(methods(server)).toEqual(["server/discover"]);
    expect(server.closed).toBe(true);
  });

  it('with versionFallback "lenient", falls back when the discover probe times out, within the connect deadline', async () => {
    const warnings: string[] = [];
    const { server, client } = await setup(
      (s) => {
        s.legacy();
        s.on("server/discover", () => undefined);
      },
      {
        connectTimeoutMs: 200,
        versionFallback: "lenient",
        logger: { warn: (message) => warnings.push(message) },
      },
    );
    await expect(client.connect()).resolves.toMatchObject({ era: "2025-11-25" });
    expect(methods(server)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
    // No notifications/cancelled for the probe: the server's era was unknown.
    const discover = server.requests("server/discover")[0];
    if (!discover) throw new Error("no discover");
    await server.respond(
      discover.id,
      ok({
        supportedVersions: ["2026-07-28"],
        capabilities: {},
        resultType: "complete",
        ttlMs: 0,
        cacheScope: "public",
      }),
    );
    await new Promise<void>((resolve) => setTimeout(() => resolve(), 10));
    expect(warnings).toContain("dropped a response for an unknown request id");
    expect(client.era).toBe("2025-11-25");
  });

  it("fits both attempts into one connect deadline", async () => {
    const { server, client } = await setup(
      (s) => {
        s.on("server/discover", () => undefined);
        s.on("initialize", () => undefined);
      },
      { connectTimeoutMs: 50, versionFallback: "lenient" },
    );
    const error = await rejection(client.connect());
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "TIMEOUT" });
    expect(methods(server)).toEqual(["server/discover", "initialize"]);
    expect(server.closed).toBe(true);
  });

  it("rejects ABORTED, without falling back, when the caller's signal aborts", async () => {
    const { server, client } = await setup((s) => {
      s.legacy();
      s.on("server/discover", () => undefined);
    });
    const controller = new AbortController();
    const connecting = client.connect({ signal: controller.signal });
    await server.waitForRequest("server/discover");
    controller.abort(new Error("user left"));
    await expect(connecting).rejects.toMatchObject({ code: "ABORTED" });
    expect(methods(server)).toEqual(["server/discover"]);
  });

  it("can be called only once", async () => {
    const { client } = await connectFake();
    await expect(client.connect()).rejects.toMatchObject({ code: "UNSUPPORTED" });
  });

  it("cannot be retried after a failure", async () => {
    const { client } = await setup((s) => s.legacy("1999-01-01"));
    await expect(client.connect()).rejects.toMatchObject({ code: "VERSION_NEGOTIATION" });
    await expect(client.connect()).rejects.toMatchObject({ code: "UNSUPPORTED" });
  });

  it("fails with CLOSED when close() is called during connect", async () => {
    const { client, server } = await setup((s) => s.on("server/discover", () => undefined));
    const connecting = client.connect();
    await server.waitForRequest("server/discover");
    await client.close();
    await expect(connecting).rejects.toMatchObject({ code: "CLOSED" });
  });
});
