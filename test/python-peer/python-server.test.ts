/**
 * Interop: mcpkit's client against a server written with the official Python SDK (`mcp` 2.3.0,
 * test/python/peer_server.py), over stdio (the Python server as mcpkit's subprocess) and Streamable HTTP on
 * 127.0.0.1, in both eras: 2026-07-28 negotiated by `server/discover` (the client's preference) and 2025-11-25
 * pinned. Tools, structured output, resources, prompts, progress, elicitation and sampling (the Python server's
 * resolvers: input rounds in 2026, real server requests in 2025) and a cancelled call, every message checked
 * against the era's schema on the client's side.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import type { ProgressParams } from "../../src/protocol/types/lifecycle.js";
import { launchStdio } from "../../src/stdio/index.js";
import { LEGACY, MODERN, rejection, textOf } from "../support/interop-helpers.js";
import { PYTHON_PROGRAMS, pythonPeer } from "../support/python-peer.js";
import {
  type Era,
  useWireValidation,
  WireValidator,
  wrapTransport,
} from "../support/validating-transport.js";

useWireValidation();
const python = pythonPeer();
const SERVER = `${PYTHON_PROGRAMS}/peer_server.py`;

/** The Python server on HTTP: one process serves both eras; resolves with its URL once it listens. */
async function startHttpServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(python as string, [SERVER, "http"], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`peer_server.py http exited with ${code}`)));
    lines.once("line", (line) => resolve(line.replace(/^listening /, "")));
  });
  return { url, child };
}

describe.skipIf(python === undefined)("mcpkit client -> official Python SDK server", () => {
  let http: { url: string; child: ChildProcess } | undefined;

  beforeAll(async () => {
    http = await startHttpServer();
  }, 60_000);

  afterAll(() => {
    http?.child.kill();
  });

  async function connect(era: Era, transport: "stdio" | "http") {
    const validator = WireValidator.auto();
    const raw =
      transport === "http"
        ? new StreamableHttpClientTransport({ url: http?.url as string })
        : launchStdio({ command: python as string, args: [SERVER, "stdio"], policy: { stderr: "inherit" } });
    const asked: string[] = [];
    const client = new Client({
      transport: wrapTransport(raw, "client", validator),
      clientInfo: { name: "mcpkit-python-interop", version: "0.1.0" },
      ...(era === LEGACY ? { protocolVersion: LEGACY } : {}),
      capabilities: { elicitation: {}, sampling: {} },
      onElicitation: (params) => {
        asked.push(`elicitation: ${params.message}`);
        return { action: "accept", content: { name: "Ada" } };
      },
      onSampling: (params) => {
        const first = params.messages[0]?.content;
        const prompt = first && !Array.isArray(first) && first.type === "text" ? String(first.text) : "?";
        asked.push(`sampling: ${prompt}`);
        return {
          role: "assistant",
          content: { type: "text", text: "waves on the shore" },
          model: "mcpkit-model",
        };
      },
    });
    const info = await client.connect();
    return { client, info, asked, validator };
  }

  describe.each(
    [MODERN, LEGACY].flatMap((era) => (["stdio", "http"] as const).map((transport) => ({ era, transport }))),
  )("$era, $transport", ({ era, transport }) => {
    // One connection for the tests below (a Python process starts in seconds), closed after them.
    let session: Awaited<ReturnType<typeof connect>>;
    beforeAll(async () => {
      session = await connect(era, transport);
    }, 60_000);
    afterAll(() => session?.client.close());

    it("negotiates the era; lists and calls tools; receives structured output", async () => {
      const { client, info, validator } = session;
      expect(info.era).toBe(era);
      expect(info.serverInfo).toMatchObject({ name: "python-peer", version: "2.3.0" });
      const tools = await client.listAllTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        "add",
        "cancelled",
        "count",
        "greet",
        "haiku",
        "slow",
        "weather",
      ]);
      expect(textOf(await client.callTool("add", { a: 2, b: 40 }))).toBe("42");
      const weather = await client.callTool("weather", { city: "Lyon" });
      expect(weather.structuredContent).toEqual({ city: "Lyon", celsius: 21.5 });
      expect(tools.find((tool) => tool.name === "weather")?.outputSchema).toMatchObject({
        type: "object",
        properties: { city: { type: "string" }, celsius: { type: "number" } },
      });
      expect(validator.era).toBe(era);
    });

    it("lists and reads resources; lists and gets prompts", async () => {
      const { client } = session;
      expect((await client.listAllResources()).map((resource) => resource.uri)).toEqual(["peer://motd"]);
      expect((await client.readResource("peer://motd")).contents).toEqual([
        { uri: "peer://motd", mimeType: "text/plain", text: "hello from python" },
      ]);
      expect((await client.listAllPrompts()).map((prompt) => prompt.name)).toEqual(["review"]);
      const prompt = await client.getPrompt("review", { code: "x = 1" });
      expect(prompt.messages).toEqual([
        { role: "user", content: { type: "text", text: "Please review: x = 1" } },
      ]);
    });

    it("receives the progress of its call", async () => {
      const { client } = session;
      const seen: ProgressParams[] = [];
      const result = await client.callTool("count", { to: 3 }, { onProgress: (p) => seen.push(p) });
      expect(textOf(result)).toBe("counted to 3");
      expect(seen.map(({ progress, total, message }) => [progress, total, message])).toEqual([
        [1, 3, "step 1"],
        [2, 3, "step 2"],
        [3, 3, "step 3"],
      ]);
    });

    it("answers an elicitation and a sampling request", async () => {
      const { client, asked } = session;
      expect(textOf(await client.callTool("greet", {}))).toBe("Hello, Ada!");
      expect(textOf(await client.callTool("haiku", { topic: "the sea" }))).toBe(
        "mcpkit-model: waves on the shore",
      );
      expect(asked).toEqual(["elicitation: Your name?", "sampling: A haiku about the sea"]);
    });

    it("cancels a running call, and the server's handler sees it", async () => {
      const { client } = session;
      const abort = new AbortController();
      // The Python server serves both eras' HTTP tests in one process: each connection has its own key.
      const key = `${era}-${transport}`;
      const call = client.callTool(
        "slow",
        { key },
        { signal: abort.signal, onProgress: () => abort.abort() },
      );
      const error = await rejection(call);
      expect(error).toBeInstanceOf(McpkitError);
      expect((error as McpkitError).code).toBe("ABORTED");
      // The server answers this once its `slow` handler was cancelled.
      expect(textOf(await client.callTool("cancelled", { key }))).toBe(`slow ${key} was cancelled`);
    });
  });
});
