/**
 * The launch-static identity of a stdio server: `serveStdio(server, { identity })` and
 * `new StdioServerTransport({ identity })` attach it to every inbound message, so handlers see it as
 * `RequestContext.identity` exactly as over HTTP, and never what a request says about itself (`params`,
 * `arguments`, `_meta`). It must name a principal, as the HTTP `authenticate` answer must. With public cache
 * defaults that let clients keep results, the server warns once. The end-to-end cases run a real subprocess
 * built from dist/ (`npm run build` first; `npm test` does).
 */
import { existsSync } from "node:fs";
import { PassThrough } from "node:stream";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../../test/fixtures/stdio/harness.js";
import { fixtureServer } from "../../test/support/fixture-server.js";
import { stdioPipes } from "../../test/support/stdio-pipes.js";
import { until } from "../../test/support/until.js";
import { useWireValidation, WireValidator, wrapTransport } from "../../test/support/validating-transport.js";
import { Client } from "../client/client.js";
import { McpkitError } from "../jsonrpc/errors.js";
import type { MessageInfo } from "../transports/transport.js";
import { launchStdio } from "./launcher.js";
import { StdioServerTransport, serveStdio } from "./server-transport.js";

useWireValidation();

const SERVER = fixture("identity-server.mjs");
const BUILT = fixture("../../../dist/stdio/index.js");
const CACHE_WARNING = 'must use cacheScope "private"';

class Account {
  readonly #sub: string;
  constructor(sub: string) {
    this.#sub = sub;
  }
  get sub(): string {
    return this.#sub;
  }
}

describe("StdioServerTransport: identity", () => {
  it("attaches the identity to every inbound message, and none without it", async () => {
    const identity = { principal: "ada", account: new Account("ada") };
    for (const given of [identity, undefined]) {
      const io = stdioPipes();
      const transport = new StdioServerTransport({ input: io.input, output: io.output, identity: given });
      expect(transport.identity).toBe(given);
      const infos: (MessageInfo | undefined)[] = [];
      await transport.start({ message: (_m, info) => infos.push(info), close: () => {} });
      io.write({ jsonrpc: "2.0", id: 1, method: "ping" });
      io.write({ jsonrpc: "2.0", method: "notifications/initialized" });
      await until(() => infos.length === 2);
      expect(infos.map((info) => info?.identity)).toEqual([given, given]);
      if (given !== undefined) expect(infos[0]?.identity).toBe(identity);
      await transport.close();
    }
  });

  it("accepts what authenticate may return: a string, { principal, ... }, plain JSON", () => {
    for (const identity of [
      "ada",
      { principal: "ada", account: new Account("ada"), authorizationContext: { scopes: ["read"] } },
      { sub: "ada", roles: ["reader"] },
    ]) {
      expect(() => new StdioServerTransport({ input: new PassThrough(), identity })).not.toThrow();
    }
  });

  it("refuses an identity that names no principal with INVALID_CONFIG", async () => {
    for (const identity of [
      new Account("ada"),
      new Map([["sub", "ada"]]),
      {},
      "",
      { principal: 42 },
      { principal: "ada", authorizationContext: new Map() },
    ]) {
      let thrown: unknown;
      try {
        new StdioServerTransport({ input: new PassThrough(), identity });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(McpkitError);
      expect(thrown).toMatchObject({ code: "INVALID_CONFIG", details: { key: "identity" } });
    }
    const io = stdioPipes();
    await expect(
      serveStdio(fixtureServer(), { input: io.input, output: io.output, identity: new Account("ada") }),
    ).rejects.toMatchObject({ code: "INVALID_CONFIG" });
  });

  it("reaches RequestContext.identity; what the request says about itself does not", async () => {
    const io = stdioPipes();
    const identity = { principal: "ada", tenant: "t1" };
    const served = serveStdio(fixtureServer(), { input: io.input, output: io.output, identity });
    io.write({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "whoami",
        arguments: { identity: "mallory" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
          identity: "mallory",
          principal: "mallory",
        },
      },
    });
    await until(() => io.lines.length === 1);
    const answer = JSON.parse(io.lines[0] ?? "{}") as { result: { content: [{ text: string }] } };
    expect(JSON.parse(answer.result.content[0].text)).toEqual({ identity, era: "2026-07-28" });
    io.input.end();
    await served;
  });
});

describe("the cache warning of a launch-static identity", () => {
  function logged(cache: { ttlMs?: number; cacheScope?: "public" | "private" } | undefined) {
    const warnings: string[] = [];
    const server = fixtureServer({
      ...(cache === undefined ? {} : { cache }),
      logger: { warn: (message) => warnings.push(message), error: () => {} },
    });
    return { server, warnings: () => warnings.filter((message) => message.includes(CACHE_WARNING)) };
  }

  it("warns once per server when public cache defaults keep results, however many connections", async () => {
    const { server, warnings } = logged({ ttlMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      const io = stdioPipes();
      const connection = await server.connect(
        new StdioServerTransport({ input: io.input, output: io.output, identity: "ada" }),
      );
      io.write({ jsonrpc: "2.0", id: 1, method: "ping" });
      await until(() => io.lines.length === 1);
      await connection.close();
    }
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain("ttlMs: 60000");
  });

  it("does not warn with ttlMs 0, with private scope, or without an identity", async () => {
    const cases = [
      { cache: undefined, identity: "ada" },
      { cache: { ttlMs: 0, cacheScope: "public" as const }, identity: "ada" },
      { cache: { ttlMs: 60_000, cacheScope: "private" as const }, identity: "ada" },
      { cache: { ttlMs: 60_000 }, identity: undefined },
    ];
    for (const { cache, identity } of cases) {
      const { server, warnings } = logged(cache);
      const io = stdioPipes();
      const connection = await server.connect(
        new StdioServerTransport({ input: io.input, output: io.output, identity }),
      );
      await connection.close();
      expect(warnings(), JSON.stringify({ cache, identity })).toEqual([]);
    }
  });
});

describe("a launch-static identity over a real subprocess", () => {
  beforeAll(() => {
    if (!existsSync(BUILT))
      throw new Error("run `npm run build` first (npm test does): the server fixture imports dist/");
  });

  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  });

  async function launch(env: { [name: string]: string }, era?: "2026-07-28" | "2025-11-25") {
    const stderr: string[] = [];
    const launched = launchStdio({
      command: process.execPath,
      args: [SERVER],
      env,
      policy: { stderr: "capture" },
      onStderr: (text) => stderr.push(text),
    });
    const client = new Client({
      transport: wrapTransport(launched, "client", WireValidator.auto()),
      clientInfo: { name: "identity-e2e", version: "1.0.0" },
      ...(era === undefined ? {} : { protocolVersion: era }),
    });
    clients.push(client);
    await client.connect();
    return { client, launched, stderr: () => stderr.join("") };
  }

  describe.each(["2026-07-28", "2025-11-25"] as const)("%s", (era) => {
    it("handlers see the launch identity, never one from arguments or _meta", async () => {
      const identity = { principal: "ada", authorizationContext: { scopes: ["read"] } };
      const { client } = await launch({ MCPKIT_FIXTURE_IDENTITY: JSON.stringify(identity) }, era);
      const result = await client.callTool(
        "whoami",
        { identity: "mallory", principal: "mallory" },
        { meta: { identity: "mallory", principal: "mallory" } },
      );
      const text = (result.content[0] as { text: string }).text;
      expect(JSON.parse(text)).toEqual({
        identity,
        args: { identity: "mallory", principal: "mallory" },
        era,
      });
    });
  });

  it("a server launched without one sees no identity", async () => {
    const { client } = await launch({});
    const result = await client.callTool("whoami", {});
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ identity: null });
  });

  it("warns once on stderr when its public cache defaults keep results; not when they are private", async () => {
    const loud = await launch({
      MCPKIT_FIXTURE_IDENTITY: JSON.stringify("ada"),
      MCPKIT_FIXTURE_CACHE: JSON.stringify({ ttlMs: 60_000 }),
    });
    for (let i = 0; i < 3; i++) await loud.client.listTools();
    await loud.client.close();
    await loud.launched.closed;
    expect(loud.stderr().split(CACHE_WARNING)).toHaveLength(2);
    const quiet = await launch({
      MCPKIT_FIXTURE_IDENTITY: JSON.stringify("ada"),
      MCPKIT_FIXTURE_CACHE: JSON.stringify({ ttlMs: 60_000, cacheScope: "private" }),
    });
    await quiet.client.listTools();
    await quiet.client.close();
    await quiet.launched.closed;
    expect(quiet.stderr()).not.toContain(CACHE_WARNING);
  });
});
