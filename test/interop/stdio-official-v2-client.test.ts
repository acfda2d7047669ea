/**
 * Interop over a real subprocess: the official v2 client (`@modelcontextprotocol/client` 2.4.0 and its
 * `StdioClientTransport`) launches the mcpkit stdio fixture server (test/fixtures/stdio-server), in both eras.
 * 2026-07-28 is forced with `versionNegotiation: { mode: { pin } }`: on stdio the v2 client probes
 * `server/discover` on a throwaway sibling process, then talks to a fresh one. 2025-11-25 is the client's default
 * (`initialize` only). Every frame of every process is validated against the official schema of its era from
 * the fixture's wire log (see test/fixtures/stdio-server/harness.ts).
 */
import { Client, ProtocolError, ResourceNotFoundError } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import {
  FIXTURE,
  FIXTURE_TOOLS,
  fixtureEnv,
  type ProcessLog,
  useWireLogs,
} from "../fixtures/stdio-server/harness.js";
import { until } from "../support/until.js";
import type { Era } from "../support/wire-schema.js";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const CLIENT_INFO = { name: "official-v2-stdio-client", version: "2.4.0" };

const logs = useWireLogs();

async function connect(era: Era) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE],
    env: fixtureEnv(logs.dir(), { pageSize: 2 }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client(
    CLIENT_INFO,
    era === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  logs.track(() => client.close());
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

/** The log of the process the client kept (not the v2 client's `server/discover` probe sibling). */
function session(): ProcessLog {
  const kept = logs.read().filter((log) => log.sequence()[0] !== "server/discover");
  expect(kept).toHaveLength(1);
  return kept[0] as ProcessLog;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

function textOf(result: unknown): string | undefined {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content;
  const first = content?.[0];
  return first?.type === "text" ? first.text : undefined;
}

describe.each([
  { era: MODERN as Era, protocolEra: "modern" },
  { era: LEGACY as Era, protocolEra: "legacy" },
])("official v2 Client -> mcpkit stdio server subprocess, $era", ({ era, protocolEra }) => {
  it("connects: era, server info, capabilities, instructions", async () => {
    const { client } = await connect(era);
    expect(client.getProtocolEra()).toBe(protocolEra);
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    expect(client.getServerVersion()).toEqual({ name: "stdio-fixture", version: "1.0.0" });
    expect(client.getInstructions()).toBe("Stdio fixture server for mcpkit tests.");
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      tools: {},
      resources: {},
      prompts: {},
      completions: {},
    });
    await client.ping().catch(() => undefined); // 2025: a real ping; 2026: refused by the client locally
    const processes = logs.read();
    if (era === MODERN) {
      // The probe ran on its own process; the kept process never saw initialize.
      const probe = processes.find((log) => log.sequence()[0] === "server/discover");
      expect(probe?.sequence()).toEqual(["server/discover", "response"]);
      expect(probe?.era).toBe(MODERN);
      expect(processes.every((log) => !log.sequence().includes("initialize"))).toBe(true);
    } else {
      expect(processes).toHaveLength(1);
      expect(session().sequence()).toEqual([
        "initialize",
        "response",
        "notifications/initialized",
        "ping",
        "response",
      ]);
      expect(session().era).toBe(LEGACY);
    }
  });

  it("lists every tool across pages and calls one", async () => {
    const { client } = await connect(era);
    const { tools, nextCursor } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(FIXTURE_TOOLS);
    expect(nextCursor).toBeUndefined();
    const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("5");
    const log = session();
    expect(log.era).toBe(era);
    // Page size 2: the v2 client followed mcpkit's cursors over three pages.
    expect(log.requests("tools/list").map((r) => ("params" in r ? r.params?.cursor : undefined))).toEqual([
      undefined,
      "o:2",
      "o:4",
    ]);
  });

  it("lists and reads resources: a fixed one and a template", async () => {
    const { client } = await connect(era);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["test://static-text"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([{ uriTemplate: "test://items/{id}/data", name: "item" }]);
    const text = await client.readResource({ uri: "test://static-text" });
    expect(text.contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "hello" }]);
    const item = await client.readResource({ uri: "test://items/42/data" });
    expect(item.contents).toEqual([
      { uri: "test://items/42/data", mimeType: "application/json", text: JSON.stringify({ id: "42" }) },
    ]);
  });

  it("lists prompts, gets one with arguments, refuses a missing argument", async () => {
    const { client } = await connect(era);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["simple", "greet"]);
    const greet = await client.getPrompt({ name: "greet", arguments: { name: "Ada", tone: "formally" } });
    expect(greet.description).toBe("greeting");
    expect(greet.messages).toEqual([{ role: "user", content: { type: "text", text: "Greet Ada formally" } }]);
    const missing = await rejection(client.getPrompt({ name: "greet", arguments: {} }));
    expect(missing).toBeInstanceOf(ProtocolError);
    expect((missing as ProtocolError).code).toBe(-32602);
  });

  it("completes a prompt argument and a template variable", async () => {
    const { client } = await connect(era);
    const tone = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "tone", value: "f" },
    });
    expect(tone.completion.values).toEqual(["formally"]);
    const id = await client.complete({
      ref: { type: "ref/resource", uri: "test://items/{id}/data" },
      argument: { name: "id", value: "a" },
    });
    expect(id.completion.values).toEqual(["alpha"]);
  });

  it("errors: unknown tool, missing resource, a tool that fails", async () => {
    const { client } = await connect(era);
    const unknown = await rejection(client.callTool({ name: "nope", arguments: {} }));
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect((unknown as ProtocolError).code).toBe(-32602);

    const missing = await rejection(client.readResource({ uri: "test://missing" }));
    expect(missing).toBeInstanceOf(ResourceNotFoundError);
    expect((missing as ResourceNotFoundError).uri).toBe("test://missing");
    const log = session();
    const [read] = log.requests("resources/read");
    // On the wire: -32602 in 2026-07-28, -32002 to a 2025-11-25 client; data.uri in both.
    expect(log.answer(read && "id" in read ? read.id : undefined)).toMatchObject({
      error: { code: era === MODERN ? -32602 : -32002, data: { uri: "test://missing" } },
    });

    const failed = await client.callTool({ name: "fail", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("tool exploded");
  });

  it("keeps the server's stderr off the protocol channel; the server exits when the client closes", async () => {
    const { client, transport, stderr } = await connect(era);
    const result = await client.callTool({ name: "stderr", arguments: {} });
    expect(textOf(result)).toBe("logged to stderr");
    await until(() => stderr().includes("fixture: the stderr tool ran"));
    const pid = transport.pid;
    expect(pid).toEqual(expect.any(Number));
    await client.close();
    expect(isRunning(pid as number)).toBe(false);
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
