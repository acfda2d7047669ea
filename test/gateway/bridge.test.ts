import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { createGateway } from "../../src/gateway/index.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import { serve } from "../../src/node/serve.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("the era bridge to a %s client", (era) => {
  it("carries an upstream's sampling and elicitation requests to the client and its answers back", async () => {
    const asked: string[] = [];
    const { client } = await gatewayWithClient(
      { up: fixtureUpstream("up", { start: "boot" }) },
      {
        protocolVersion: era,
        capabilities: { sampling: {}, elicitation: { form: {} } },
        onSampling: (params) => {
          asked.push(`sampling: ${JSON.stringify(params.messages[0]?.content)}`);
          return { role: "assistant", content: { type: "text", text: "hi there" }, model: "test" };
        },
        onElicitation: (params) => {
          asked.push(`elicitation: ${params.message}`);
          return { action: "accept", content: { name: "Ada" } };
        },
      },
      closers,
    );
    expect(text(await client.callTool("up__sample", {}))).toBe("sampled: hi there");
    expect(text(await client.callTool("up__elicit", {}))).toBe("hello Ada");
    expect(asked).toEqual([`sampling: {"type":"text","text":"say hi"}`, "elicitation: Who are you?"]);
  });

  it("answers the upstream's request with an error when the client lacks the capability, and the call fails cleanly", async () => {
    const { client } = await gatewayWithClient(
      { up: fixtureUpstream("up", { start: "boot" }) },
      { protocolVersion: era },
      closers,
    );
    await expect(client.callTool("up__sample", {})).rejects.toBeDefined();
    // The gateway and the upstream go on.
    expect(text(await client.callTool("up__echo", { text: "ok" }))).toBe("up: ok");
  });
});

describe("the era bridge over HTTP behind authentication", () => {
  it("lets a 2026 client's retry go on with its call when the transport makes a new identity object per request", async () => {
    const server = createGateway({
      config: { mcpServers: { up: fixtureUpstream("up", { start: "boot" }) } },
    });
    closers.push(() => server.close());
    await server.ready;
    const handle = await serve(server, {
      // A fresh object per request, as requireBearer makes one; the principal is what stays the same.
      handler: { authenticate: (request) => ({ principal: request.headers.get("x-user") ?? "" }) },
    });
    closers.push(() => handle.close());
    const client = new Client({
      transport: new StreamableHttpClientTransport({ url: handle.url, headers: { "x-user": "alice" } }),
      clientInfo: { name: "c", version: "1" },
      protocolVersion: MODERN_VERSION,
      capabilities: { elicitation: { form: {} } },
      onElicitation: () => ({ action: "accept", content: { name: "Alice" } }),
    });
    await client.connect();
    closers.push(() => client.close());
    expect(text(await client.callTool("up__elicit", {}))).toBe("hello Alice");
  });
});
