/**
 * The custom protocol surface on an in-process connection, both eras: an mcpkit client against the custom
 * server (test/support/custom-server.ts) through a validating pair, so every message, custom ones included, is
 * checked as JSON-RPC against the official schema of its era.
 */
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { type CustomHarness, customCases } from "../support/custom-cases.js";
import { customServer } from "../support/custom-server.js";
import { LEGACY, MODERN, useCleanups } from "../support/interop-helpers.js";
import { useWireValidation, validatingPair } from "../support/validating-transport.js";

useWireValidation();
const cleanup = useCleanups();
let lastPair: ReturnType<typeof validatingPair> | undefined;

const harness: CustomHarness = {
  async connect(era, options = {}) {
    const { server } = customServer(options.server);
    const pair = validatingPair({ era });
    lastPair = pair;
    await server.connect(pair.server);
    const client = new Client({
      transport: pair.client,
      clientInfo: { name: "custom-test", version: "1.0.0" },
      protocolVersion: era,
      logger: { warn: () => {} },
      ...options.client,
    });
    cleanup(
      () => client.close(),
      () => server.close(),
    );
    await client.connect();
    return client;
  },
};

describe.each([MODERN, LEGACY] as const)("custom methods in-process, %s", (era) => {
  customCases(harness, era);

  it("sends custom messages on the wire as plain JSON-RPC (checked against the schema)", async () => {
    const client = await harness.connect(era);
    await client.request("acme/echo", { x: 1 });
    await client.notify("acme/seen", { b: 2 });
    const sent = lastPair?.messages.filter(
      (r) => "method" in r.message && r.message.method.startsWith("acme/"),
    );
    expect(sent?.map((r) => [r.from, "id" in r.message, (r.message as { method: string }).method])).toEqual([
      ["client", true, "acme/echo"],
      ["client", false, "acme/seen"],
    ]);
    const notification = sent?.[1]?.message as { params: { _meta?: object } };
    // 2026: the client's envelope tells a dual-era server the notification's era; 2025: no 2026 metadata.
    if (era === MODERN) {
      expect(notification.params._meta).toHaveProperty(["io.modelcontextprotocol/protocolVersion"], MODERN);
    } else expect(notification.params).toEqual({ b: 2 });
    expect(lastPair?.errors).toEqual([]);
  });
});
