/**
 * The era bridge in all four combinations, for every downstream client: upstream 2025-11-25 (the official v1
 * server of test/fixtures/gateway-v1-server.mjs) or 2026-07-28 (the mcpkit fixture upstream), times the
 * downstream client and its era (the mcpkit client, the official v1 and v2 clients, the official Python client),
 * over Streamable HTTP on 127.0.0.1. The upstream's tool asks for a sampling or an elicitation while it runs; the
 * downstream client's own handler answers; the answer comes back in the tool result. Every message the gateway
 * receives or sends downstream is checked against the official schema of the client's era. Then the edges: an
 * elicitation declined, and a client without the sampling capability.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { createGateway, type GatewayPlugin } from "../../src/gateway/index.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { serve } from "../../src/node/serve.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { pythonPeer } from "../support/python-peer.js";
import { validatingFetch } from "../support/validating-fetch.js";
import { WireValidator } from "../support/wire-schema.js";
import {
  type Downstream,
  mcpkitDownstream,
  pythonDownstream,
  v1Downstream,
  v2Downstream,
} from "./downstreams.js";
import { fixtureUpstream } from "./support.js";

const python = pythonPeer();
const ERAS: readonly Era[] = [LEGACY_VERSION, MODERN_VERSION];
const V1_SERVER = new URL("../fixtures/gateway-v1-server.mjs", import.meta.url).pathname;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

/** The upstream `up` of each era: a real official v1 server for 2025, the mcpkit fixture for 2026. */
const UPSTREAMS: { [era in Era]: { [key: string]: unknown } } = {
  [LEGACY_VERSION]: { command: process.execPath, args: [V1_SERVER], start: "boot" },
  [MODERN_VERSION]: fixtureUpstream("up", { start: "boot" }),
};

/** A gateway with `up` of `upstreamEra`, served on 127.0.0.1 behind a validator of every downstream message. */
async function gateway(upstreamEra: Era) {
  const server = createGateway({ config: { mcpServers: { up: UPSTREAMS[upstreamEra] } } });
  closers.push(() => server.close());
  await server.ready;
  expect((server.plugin("gateway") as GatewayPlugin).status()[0]).toMatchObject({
    state: "up",
    era: upstreamEra,
  });
  const handler = createHttpHandler(server);
  const wire = validatingFetch(WireValidator.auto(), (input, init) => handler(new Request(input, init)));
  const handle = await serve(
    async (request) =>
      wire.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        signal: request.signal,
        ...(request.method === "POST" ? { body: await request.text() } : {}),
      }),
    { host: "127.0.0.1" },
  );
  closers.push(() => handle.close());
  return { server, url: handle.url, wire };
}

const downstreams: Downstream[] = [
  mcpkitDownstream(LEGACY_VERSION),
  mcpkitDownstream(MODERN_VERSION),
  v1Downstream(),
  v2Downstream(LEGACY_VERSION),
  v2Downstream(MODERN_VERSION),
  ...(python === undefined
    ? []
    : [pythonDownstream(python, LEGACY_VERSION), pythonDownstream(python, MODERN_VERSION)]),
];
const cases = ERAS.flatMap((upstream) =>
  downstreams.map((downstream) => ({ upstream, downstream, name: downstream.name, era: downstream.era })),
);

describe.each(cases)("upstream $upstream -> gateway -> $name ($era)", ({ upstream, downstream }) => {
  it("carries a sampling and an elicitation to the client's handlers and their answers back in the results", async () => {
    const { url, wire } = await gateway(upstream);
    const outcome = await downstream.run(url);
    const who = outcome.sampled.match(/^sampled: (\S+) heard say hi$/)?.[1];
    expect(outcome).toEqual({
      tools: expect.arrayContaining(["up__sample", "up__elicit"]),
      sampled: `sampled: ${who} heard say hi`,
      elicited: `hello ${who}`,
    });
    expect(who).toBeDefined();
    expect(wire.validator.era).toBe(downstream.era);
    expect(wire.errors).toEqual([]);
  });
});

describe.each(ERAS.flatMap((upstream) => ERAS.map((client) => ({ upstream, client }))))(
  "upstream $upstream -> gateway -> mcpkit client ($client)",
  ({ upstream, client: era }) => {
    async function connect(url: string, options: Partial<ConstructorParameters<typeof Client>[0]>) {
      const client = new Client({
        transport: new StreamableHttpClientTransport({ url }),
        clientInfo: { name: "edge", version: "1" },
        protocolVersion: era,
        ...options,
      });
      await client.connect();
      closers.push(() => client.close());
      return client;
    }

    it("brings an elicitation the client declines back to the upstream as declined", async () => {
      const { url, wire } = await gateway(upstream);
      const client = await connect(url, {
        capabilities: { elicitation: { form: {} } },
        onElicitation: () => ({ action: "decline" }),
      });
      const result = await client.callTool("up__elicit", {});
      expect(result.content).toEqual([{ type: "text", text: "elicitation decline" }]);
      expect(wire.errors).toEqual([]);
    });

    it("fails the call of a client without the sampling capability with a clear error, and goes on", async () => {
      const { url, wire } = await gateway(upstream);
      const client = await connect(url, { capabilities: { elicitation: { form: {} } } });
      const error = await client.callTool("up__sample", {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      // The gateway's refusal, passed on by the upstream (the v1 SDK prefixes its message with the code).
      expect(error).toMatchObject({
        code: -32601,
        message: expect.stringContaining(
          "the client behind the gateway does not support sampling/createMessage",
        ),
        data: { reason: "client_capability", capability: "sampling" },
      });
      // The gateway, the upstream and this client's session go on.
      expect((await client.callTool("up__echo", { text: "ok" })).content).toEqual([
        { type: "text", text: upstream === LEGACY_VERSION ? "v1 echo ok" : "up: ok" },
      ]);
      expect(wire.errors).toEqual([]);
    });
  },
);
