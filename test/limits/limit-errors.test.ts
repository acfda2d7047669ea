/**
 * Every limit of the SDK's byte paths, crossed: the error names the option that governs it and its value in the
 * message (`over <option> (<limit>)`), says the size seen, and carries `{ option, limit, size }` in `details` (or
 * in `data` for what goes on the wire). The HTTP client's limits are crossed over real HTTP on 127.0.0.1.
 */
import { describe, expect, it } from "vitest";
import { defineApp } from "../../src/apps/index.js";
import { Client } from "../../src/client/client.js";
import { SseParser } from "../../src/http/client/sse-parser.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { bodyTooLarge } from "../../src/http/server/view.js";
import { encodeMessage } from "../../src/jsonrpc/codec.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { createSkillCatalogue } from "../../src/skills/index.js";
import { encodeFrame, FrameDecoder } from "../../src/stdio/framing.js";
import { useCleanups } from "../support/interop-helpers.js";

const cleanup = useCleanups();

/** What a case produced: the message and the facts (from `details` or wire `data`). */
interface Crossed {
  message: string;
  facts: { [key: string]: unknown } | undefined;
}

async function caught(run: () => unknown): Promise<Crossed> {
  try {
    await run();
  } catch (error) {
    if (error instanceof McpkitError) return { message: error.message, facts: error.details as never };
    const wire = error as { message: string; data?: { [key: string]: unknown } };
    return { message: wire.message, facts: wire.data };
  }
  throw new Error("the limit was not crossed");
}

async function httpClientOf(policy: { [key: string]: number }): Promise<Client> {
  const server = new ServerBuilder({ serverInfo: { name: "limits", version: "1.0.0" } })
    .tool({ name: "big", inputSchema: { type: "object" } }, ({ size }) => ({
      content: [{ type: "text", text: "x".repeat(Number(size)) }],
    }))
    .build();
  const handler = createHttpHandler(server);
  const running = await serve(handler, { host: "127.0.0.1" });
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url: running.url, policy }),
    clientInfo: { name: "limits", version: "1.0.0" },
  });
  cleanup(async () => {
    await client.close();
    await running.close();
    await handler.close();
  });
  await client.connect();
  return client;
}

const PING = { jsonrpc: "2.0" as const, id: 1, method: "ping", params: { pad: "x".repeat(200) } };

const cases: [name: string, option: string, limit: number, run: () => unknown][] = [
  [
    "stdio inbound frame",
    "maxFrameBytes",
    100,
    () =>
      new FrameDecoder({ maxFrameBytes: 100, maxPendingBytes: 1_000 }, () => {}).push(
        Buffer.from("y".repeat(150)),
      ),
  ],
  [
    "stdio bytes pending a newline",
    "maxPendingStdoutBytes",
    100,
    () =>
      new FrameDecoder({ maxFrameBytes: 1_000, maxPendingBytes: 100 }, () => {}).push(
        Buffer.from("y".repeat(150)),
      ),
  ],
  ["stdio outbound frame", "maxOutboundFrameBytes", 100, () => encodeFrame(PING, 100)],
  ["codec", "maxBytes", 100, () => encodeMessage(PING, 100)],
  [
    "SSE event",
    "maxSseEventBytes",
    100,
    () => new SseParser(100, { event: () => {} }).push(Buffer.from(`data: ${"x".repeat(200)}`)),
  ],
  [
    "HTTP request body (server)",
    "maxBodyBytes",
    100,
    () => {
      const { refusal } = bodyTooLarge(100, 150);
      throw Object.assign(new Error(refusal.message), { data: refusal.data });
    },
  ],
  [
    "HTTP response (client)",
    "maxResponseBytes",
    10_000,
    async () => (await httpClientOf({ maxResponseBytes: 10_000 })).callTool("big", { size: 20_000 }),
  ],
  [
    "HTTP request (client)",
    "maxRequestBytes",
    1_000,
    async () =>
      (await httpClientOf({ maxRequestBytes: 1_000 })).callTool("big", { size: 1, pad: "p".repeat(2_000) }),
  ],
  [
    "skill file (catalogue)",
    "options.limits.maxFileBytes",
    1_000,
    () =>
      createSkillCatalogue(
        [{ frontmatter: { name: "s", description: "d" }, files: { "F.md": "f".repeat(2_000) } }],
        {
          limits: { maxFileBytes: 1_000 },
        },
      ),
  ],
  [
    "App view body",
    "limits.resourceBytes",
    100,
    () =>
      defineApp({
        tool: { name: "v", inputSchema: { type: "object" } },
        resource: { uri: "ui://v/view", name: "v" },
        content: { text: `<p>${"x".repeat(200)}</p>` },
        limits: { resourceBytes: 100 },
      }),
  ],
];

describe("limit errors name the option that governs them", () => {
  it.each(cases)("%s: %s", async (_name, option, limit, run) => {
    const { message, facts } = await caught(run);
    expect(message).toContain(`over ${option} (${limit})`);
    expect(message).toMatch(/\d+ bytes, over /);
    expect(facts).toMatchObject({ option, limit });
    expect(facts?.size).toBeGreaterThan(limit);
  });
});
