import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { parseGatewayConfig } from "../../src/gateway/config.js";
import { createGateway } from "../../src/gateway/index.js";
import type { Era } from "../../src/protocol/versions.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import type { Server } from "../../src/server/index.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import { configError } from "../support/config-error.js";
import { fixtureUpstream } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

/** A client on `server` whose requests carry `identity`, as an authenticating transport would set it. */
async function clientAs(server: Server, identity: unknown, era: Era): Promise<Client> {
  const [clientSide, serverSide] = createInProcessPair({ serverIdentity: identity });
  await server.connect(serverSide);
  const client = new Client({
    transport: clientSide,
    clientInfo: { name: "c", version: "1" },
    protocolVersion: era,
  });
  await client.connect();
  closers.push(() => client.close());
  return client;
}

// Identities as mcpkit/auth's requireBearer sets them, and a plain principal.
const bearer = (subject: string, scopes: string[]) => ({
  principal: `["issuer","${subject}"]`,
  token: { subject, scopes, audience: [], claims: {} },
});

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("per-principal access (%s client)", (era) => {
  it("shows and lets each principal use only what its rules grant; no matching rule, nothing", async () => {
    const server = createGateway({
      config: {
        gateway: {
          access: [
            { scopes: ["mcp:admin"] },
            { principals: ["alice"], upstreams: ["alpha"], tools: ["alpha__echo"] },
            { scopes: ["beta:read"], upstreams: ["beta"], tools: ["*__echo", "*__pid"] },
          ],
        },
        mcpServers: { alpha: fixtureUpstream("alpha"), beta: fixtureUpstream("beta") },
      },
    });
    closers.push(() => server.close());
    const admin = await clientAs(server, bearer("root", ["mcp:admin"]), era);
    const alice = await clientAs(server, bearer("alice", []), era);
    const reader = await clientAs(server, bearer("bob", ["beta:read"]), era);
    const nobody = await clientAs(server, "mallory", era);

    const names = async (client: Client) => (await client.listAllTools()).map((t) => t.name);
    expect((await names(admin)).length).toBeGreaterThan(10);
    expect(await names(alice)).toEqual(["alpha__echo"]);
    expect((await names(reader)).sort()).toEqual(["beta__echo", "beta__pid"]);
    expect(await names(nobody)).toEqual([]);
    expect(await nobody.listAllResources()).toEqual([]);

    await expect(alice.callTool("alpha__echo", { text: "a" })).resolves.toBeDefined();
    await expect(alice.callTool("alpha__write", { text: "a" })).rejects.toMatchObject({ code: -32602 });
    await expect(alice.callTool("beta__echo", { text: "a" })).rejects.toMatchObject({ code: -32602 });
    await expect(alice.readResource("gateway://beta/note://a")).rejects.toMatchObject({ code: -32602 });
    await expect(reader.getPrompt("alpha__greet", { name: "x" })).rejects.toMatchObject({ code: -32602 });
    await expect(nobody.callTool("alpha__echo", { text: "a" })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("gateway.access config", () => {
  it.each([
    [{ access: {} }, "gateway.access"],
    [{ access: [1] }, "gateway.access[0]"],
    [{ access: [{ who: [] }] }, "gateway.access[0].who"],
    [{ access: [{ principals: [""] }] }, "gateway.access[0].principals"],
  ])("refuses %j naming %s", (gateway, key) => {
    expect(configError(() => parseGatewayConfig({ gateway, mcpServers: {} })).details).toEqual({ key });
  });
});
