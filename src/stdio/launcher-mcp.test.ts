/**
 * End to end: an mcpkit Client over `launchStdio` to a child process running an mcpkit server on stdio (built
 * from dist/, so `npm run build` first; `npm test` does), in both eras, every message checked against the
 * official schema of its era.
 */
import { existsSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { alive, fixture, marked, rejectionOf } from "../../test/fixtures/stdio/harness.js";
import {
  type Era,
  useWireValidation,
  type WireRecord,
  WireValidator,
  wrapTransport,
} from "../../test/support/validating-transport.js";
import { Client } from "../client/client.js";
import type { McpkitError } from "../jsonrpc/errors.js";
import { launchStdio } from "./launcher.js";

useWireValidation();

const SERVER = fixture("mcp-server.mjs");
const BUILT = fixture("../../../dist/stdio/index.js");

beforeAll(() => {
  if (!existsSync(BUILT))
    throw new Error("run `npm run build` first (npm test does): the server fixture imports dist/");
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
});

async function connect(era: Era) {
  const stderr: string[] = [];
  const wire: WireRecord[] = [];
  const launched = launchStdio({
    command: process.execPath,
    args: [SERVER],
    policy: { stderr: "capture" },
    onStderr: (text) => stderr.push(text),
  });
  const client = new Client({
    transport: wrapTransport(launched, "client", WireValidator.auto(), { messages: wire }),
    clientInfo: { name: "launcher-e2e", version: "1.0.0" },
    protocolVersion: era,
  });
  clients.push(client);
  await client.connect();
  return { client, launched, stderr, wire };
}

describe.each(["2026-07-28", "2025-11-25"] as const)("mcpkit client over launchStdio, %s", (era) => {
  it("lists and calls tools, reads a resource, gets a prompt, then closes with nothing left", async () => {
    const { client, launched, wire } = await connect(era);
    expect(client.era).toBe(era);
    expect(client.serverInfo).toMatchObject({ name: "launcher-fixture" });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["add", "crash", "slow"]);
    expect(await client.callTool("add", { a: 2, b: 40 })).toMatchObject({
      content: [{ type: "text", text: "42" }],
    });
    expect(await client.readResource("test://hello")).toMatchObject({ contents: [{ text: "hello" }] });
    expect(await client.getPrompt("greet", { name: "Ada" })).toMatchObject({
      messages: [{ content: { text: "Greet Ada" } }],
    });
    // Each of those crossed the wire and was checked against the schema: requests and their results.
    expect(wire.filter((record) => record.from === "server").length).toBeGreaterThanOrEqual(5);
    await client.close();
    await launched.closed;
    expect(alive(launched.pid as number)).toBe(false);
    expect(marked(launched.marker)).toEqual([]);
  });

  it("fails a pending call at once with CLOSED when the server process dies, exit code in the cause", async () => {
    const { client, launched, stderr } = await connect(era);
    const started = performance.now();
    const error = (await rejectionOf(client.callTool("crash", {}))) as McpkitError;
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ code: "CLOSED", details: { kind: "remote" } });
    expect(error.cause).toMatchObject({ code: "CLOSED", details: { exitCode: 3, signal: null } });
    expect(launched.exit).toEqual({ code: 3, signal: null });
    expect(stderr.join("")).toContain("crashing on purpose");
    // The message names the cause, and quotes the end of the server's stderr (kept in capture mode too).
    expect(error.message).toMatch(/^the transport closed: the stdio server process exited with code 3\n/);
    expect(error.message).toContain("crashing on purpose");
    const later = (await rejectionOf(client.listTools())) as McpkitError;
    expect(later).toMatchObject({ code: "CLOSED", cause: error });
    expect(later.message).toBe(`the client is closed: ${error.message}`);
  });

  it("fails a pending call when the server is killed from outside", async () => {
    const { client, launched } = await connect(era);
    const pending = rejectionOf(client.callTool("slow", {}));
    await client.listTools();
    process.kill(launched.pid as number, "SIGKILL");
    const error = (await pending) as McpkitError;
    expect(error).toMatchObject({ code: "CLOSED", cause: { details: { signal: "SIGKILL" } } });
  });
});
