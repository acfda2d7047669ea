/**
 * The gateway between real peers: upstreams from npm (the reference servers everything, filesystem and memory,
 * each over stdio, each on the official v1 SDK, so 2025-11-25 upstreams) and an official v1 server of our own
 * that asks for input; downstream, the mcpkit client in both eras and the official v1 client over HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as OfficialClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../../src/gateway/index.js";
import { serve } from "../../src/node/serve.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { validatingFetch } from "../support/validating-fetch.js";
import { WireValidator } from "../support/wire-schema.js";
import { gatewayWithClient } from "./support.js";

const require = createRequire(import.meta.url);
const bin = (pkg: string) => join(require.resolve(`${pkg}/package.json`), "..", "dist", "index.js");
const V1_SERVER = new URL("../fixtures/gateway-v1-server.mjs", import.meta.url).pathname;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-gateway-"));
  return () => rmSync(dir, { recursive: true, force: true });
});

function upstreams() {
  return {
    everything: {
      command: process.execPath,
      args: [bin("@modelcontextprotocol/server-everything")],
      start: "boot",
    },
    fs: { command: process.execPath, args: [bin("@modelcontextprotocol/server-filesystem"), dir] },
    memory: {
      command: process.execPath,
      args: [bin("@modelcontextprotocol/server-memory")],
      env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") },
    },
    v1: { command: process.execPath, args: [V1_SERVER] },
  };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

const answers = {
  capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
  onSampling: () => ({
    role: "assistant" as const,
    content: { type: "text" as const, text: "sampled" },
    model: "m",
  }),
  onElicitation: () => ({ action: "accept" as const, content: { name: "Ada", favoriteInteger: 7 } }),
  onRoots: () => ({ roots: [{ uri: "file:///work", name: "work" }] }),
};

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("the gateway to an mcpkit %s client", (era) => {
  it("serves the reference servers from npm side by side, namespaced, each tool call reaching its own server", async () => {
    const { client } = await gatewayWithClient(upstreams(), { protocolVersion: era, ...answers }, closers);
    const names = (await client.listAllTools()).map((t) => t.name);
    for (const name of [
      "everything__echo",
      "fs__write_file",
      "fs__read_text_file",
      "memory__create_entities",
      "v1__ask",
    ]) {
      expect(names).toContain(name);
    }
    expect(text(await client.callTool("everything__echo", { message: "hi" }))).toBe("Echo: hi");
    await client.callTool("fs__write_file", { path: join(dir, `${era}.txt`), content: `written by ${era}` });
    expect(text(await client.callTool("fs__read_text_file", { path: join(dir, `${era}.txt`) }))).toBe(
      `written by ${era}`,
    );
    await client.callTool("memory__create_entities", {
      entities: [{ name: `e-${era}`, entityType: "test", observations: ["seen"] }],
    });
    expect(text(await client.callTool("memory__read_graph", {}))).toContain(`e-${era}`);
    const resource = (await client.listAllResources())[0];
    expect(resource?.uri.startsWith("gateway://everything/")).toBe(true);
    const read = await client.readResource(resource?.uri ?? "");
    expect(read.contents[0]?.uri).toBe(resource?.uri);
  });

  it("carries a 2025 upstream's sampling, elicitation and roots requests across the bridge, in the client's era", async () => {
    const { client } = await gatewayWithClient(upstreams(), { protocolVersion: era, ...answers }, closers);
    expect(text(await client.callTool("v1__ask", {}))).toBe("sampled | Ada | file:///work");
    const sampled = await client.callTool("everything__trigger-sampling-request", { prompt: "hey" });
    expect(text(sampled)).toContain('"text": "sampled"');
    const elicited = await client.callTool("everything__trigger-elicitation-request", {});
    expect(JSON.stringify(elicited.content)).toContain("Ada");
  });

  it("keeps an upstream's internal error text from the client (the gateway preset)", async () => {
    const { client } = await gatewayWithClient(upstreams(), { protocolVersion: era }, closers);
    const error = await client.callTool("v1__boom", {}).catch((e: unknown) => e);
    expect(JSON.stringify(error)).not.toContain("hunter2");
    expect((error as Error).message).not.toContain("hunter2");
    expect(error).toMatchObject({
      code: -32603,
      data: { upstream: "v1", reason: "upstream_internal_error" },
    });
  });
});

describe("the gateway to the official v1 client over HTTP", () => {
  it("lists, calls, and answers the upstream's sampling, elicitation and roots through the v1 client's handlers", async () => {
    const server = createGateway({ config: { mcpServers: upstreams() } });
    closers.push(() => server.close());
    const handle = await serve(server);
    closers.push(() => handle.close());
    const client = new OfficialClient(
      { name: "official-v1", version: "1.0.0" },
      { capabilities: { sampling: {}, elicitation: {}, roots: {} } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, () => answers.onSampling());
    client.setRequestHandler(ElicitRequestSchema, () => answers.onElicitation());
    client.setRequestHandler(ListRootsRequestSchema, () => answers.onRoots());
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    closers.push(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("everything__echo");
    const echoed = await client.callTool({ name: "everything__echo", arguments: { message: "v1" } });
    expect(text(echoed)).toBe("Echo: v1");
    const asked = await client.callTool({ name: "v1__ask", arguments: {} });
    expect(text(asked)).toBe("sampled | Ada | file:///work");
  });
});

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)(
  "the gateway to the official v2 client (%s) over HTTP",
  (era) => {
    it("lists, calls, and answers a 2025 upstream's sampling, elicitation and roots, every message valid for its era", async () => {
      const server = createGateway({ config: { mcpServers: upstreams() } });
      closers.push(() => server.close());
      const handle = await serve(server);
      closers.push(() => handle.close());
      const client = new V2Client(
        { name: "official-v2", version: "2.4.0" },
        {
          capabilities: { sampling: {}, elicitation: {}, roots: {} },
          versionNegotiation: { mode: era === MODERN_VERSION ? { pin: MODERN_VERSION } : "legacy" },
        },
      );
      client.setRequestHandler("sampling/createMessage", async () => answers.onSampling());
      client.setRequestHandler("elicitation/create", async () => answers.onElicitation());
      client.setRequestHandler("roots/list", async () => answers.onRoots());
      const wire = validatingFetch(new WireValidator(era));
      await client.connect(new V2Transport(new URL(handle.url), { fetch: wire.fetch }));
      closers.push(() => client.close());
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("v1__ask");
      expect(text(await client.callTool({ name: "everything__echo", arguments: { message: "v2" } }))).toBe(
        "Echo: v2",
      );
      expect(text(await client.callTool({ name: "v1__ask", arguments: {} }))).toBe(
        "sampled | Ada | file:///work",
      );
      expect(wire.errors).toEqual([]);
    });
  },
);
