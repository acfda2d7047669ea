/**
 * Interop over a real subprocess: the official v1 client (`@modelcontextprotocol/sdk` 1.32.2 and its
 * `StdioClientTransport`; 2025-11-25 only) launches the mcpkit stdio fixture server
 * (test/fixtures/stdio-server). Every frame is validated against the official 2025-11-25 schema from the
 * fixture's wire log (see test/fixtures/stdio-server/harness.ts).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  FIXTURE,
  FIXTURE_TOOLS,
  fixtureEnv,
  type ProcessLog,
  useWireLogs,
} from "../fixtures/stdio-server/harness.js";
import { until } from "../support/until.js";

const LEGACY = "2025-11-25";
const CLIENT_INFO = { name: "official-v1-stdio-client", version: "1.32.2" };

const logs = useWireLogs();

async function connect() {
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
  const client = new Client(CLIENT_INFO);
  logs.track(() => client.close());
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

function session(): ProcessLog {
  const processes = logs.read();
  expect(processes).toHaveLength(1);
  return processes[0] as ProcessLog;
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

describe("official v1 Client -> mcpkit stdio server subprocess, 2025-11-25", () => {
  it("initializes: server info, capabilities, instructions", async () => {
    const { client } = await connect();
    expect(client.getServerVersion()).toEqual({ name: "stdio-fixture", version: "1.0.0" });
    expect(client.getInstructions()).toBe("Stdio fixture server for mcpkit tests.");
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      tools: {},
      resources: {},
      prompts: {},
      completions: {},
    });
    await client.ping();
    const log = session();
    expect(log.era).toBe(LEGACY);
    expect(log.sequence()).toEqual([
      "initialize",
      "response",
      "notifications/initialized",
      "ping",
      "response",
    ]);
    expect(log.frames[0]?.message).toMatchObject({ id: 0, params: { protocolVersion: LEGACY } });
    expect(log.frames[1]?.message).toMatchObject({ id: 0, result: { protocolVersion: LEGACY } });
  });

  it("pages through tools with mcpkit's cursors and calls one", async () => {
    const { client } = await connect();
    const names: string[] = [];
    const cursors: Array<string | undefined> = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      cursors.push(cursor);
    } while (cursor !== undefined);
    expect(names).toEqual(FIXTURE_TOOLS);
    expect(cursors).toEqual(["o:2", "o:4", undefined]);
    const result = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("42");
  });

  it("lists and reads resources: a fixed one and a template", async () => {
    const { client } = await connect();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["test://static-text"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([{ uriTemplate: "test://items/{id}/data", name: "item" }]);
    const text = await client.readResource({ uri: "test://static-text" });
    expect(text.contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "hello" }]);
    const item = await client.readResource({ uri: "test://items/x-1/data" });
    expect(item.contents).toEqual([
      { uri: "test://items/x-1/data", mimeType: "application/json", text: JSON.stringify({ id: "x-1" }) },
    ]);
  });

  it("gets a prompt with arguments and completes an argument and a template variable", async () => {
    const { client } = await connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["simple", "greet"]);
    const greet = await client.getPrompt({ name: "greet", arguments: { name: "Bo" } });
    expect(greet.messages).toEqual([{ role: "user", content: { type: "text", text: "Greet Bo warmly" } }]);
    const tone = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "tone", value: "w" },
    });
    expect(tone.completion.values).toEqual(["warmly", "wryly"]);
    const id = await client.complete({
      ref: { type: "ref/resource", uri: "test://items/{id}/data" },
      argument: { name: "id", value: "g" },
    });
    expect(id.completion.values).toEqual(["gamma"]);
  });

  it("errors: unknown tool, missing resource, missing prompt argument, a tool that fails", async () => {
    const { client } = await connect();
    const unknown = await rejection(client.callTool({ name: "nope", arguments: {} }));
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
    const missing = await rejection(client.readResource({ uri: "test://missing" }));
    expect(missing).toBeInstanceOf(McpError);
    expect(missing).toMatchObject({ code: -32002, data: { uri: "test://missing" } });
    const argument = await rejection(client.getPrompt({ name: "greet", arguments: {} }));
    expect(argument).toMatchObject({ code: -32602 });
    const failed = await client.callTool({ name: "fail", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("tool exploded");
  });

  it("keeps the server's stderr off the protocol channel; the server exits when the client closes", async () => {
    const { client, transport, stderr } = await connect();
    const result = await client.callTool({ name: "stderr", arguments: {} });
    expect(textOf(result)).toBe("logged to stderr");
    await until(() => stderr().includes("fixture: the stderr tool ran"));
    const pid = transport.pid as number;
    expect(pid).toEqual(expect.any(Number));
    await client.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
