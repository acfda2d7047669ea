/**
 * Interop: the official v2 client (`@modelcontextprotocol/client` 2.4.0) completes elicitation and sampling
 * round trips against an mcpkit server whose handlers return `inputRequired()`, in both eras and on two
 * transports: in-process (through the bridge, over a validating pair) and Streamable HTTP on 127.0.0.1 (under a
 * validating fetch). In 2026-07-28 the v2 client fulfils the InputRequiredResult with its registered handlers
 * and retries; in 2025-11-25 it answers mcpkit's real server-to-client requests with the same handlers. It also
 * receives list changes on a `subscriptions/listen` stream (2026) and the session (2025).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { useServe } from "../support/http-peer.js";
import { inputServer } from "../support/input-server.js";
import { LEGACY, MODERN, textOf, useCleanups } from "../support/interop-helpers.js";
import { toOfficialTransport } from "../support/official-bridge.js";
import { until } from "../support/until.js";
import { validatingFetch } from "../support/validating-fetch.js";
import { useWireValidation, validatingPair } from "../support/validating-transport.js";
import { WireValidator } from "../support/wire-schema.js";

useWireValidation();
const serve = useServe();
const cleanup = useCleanups();

type Era = typeof MODERN | typeof LEGACY;

/** A v2 client with elicitation, sampling and roots, whose handlers record what they were asked. */
function officialClient(era: Era) {
  const asked: string[] = [];
  const client = new Client(
    { name: "official-v2-client", version: "2.4.0" },
    {
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
      versionNegotiation: { mode: era === MODERN ? { pin: MODERN } : "legacy" },
    },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(`elicitation: ${request.params.message}`);
    return { action: "accept", content: { name: "Ada", color: "green", topic: "owls" } };
  });
  client.setRequestHandler("sampling/createMessage", async (request) => {
    const first = request.params.messages[0]?.content;
    asked.push(`sampling: ${first && "text" in first ? first.text : "?"}`);
    return { role: "assistant", content: { type: "text", text: "Paris" }, model: "stub-model" };
  });
  client.setRequestHandler("roots/list", async () => ({
    roots: [{ uri: "file:///home/ada", name: "home" }],
  }));
  cleanup(() => client.close());
  return { client, asked };
}

const transports = {
  async "in-process"(era: Era) {
    const { server, calls } = inputServer();
    const pair = validatingPair({ era });
    await server.connect(pair.server);
    const official = officialClient(era);
    await official.client.connect(toOfficialTransport(pair.client));
    cleanup(() => server.close());
    return { ...official, server, calls, errors: () => [] as unknown[] };
  },
  async http(era: Era) {
    const { server, calls } = inputServer();
    const handler = createHttpHandler(server);
    const { url } = await serve(handler);
    const wire = validatingFetch(new WireValidator(era));
    const official = officialClient(era);
    await official.client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch }));
    cleanup(() => server.close());
    return { ...official, server, calls, errors: () => wire.errors };
  },
};

describe.each(
  [MODERN, LEGACY].flatMap((era) =>
    (["in-process", "http"] as const).map((transport) => ({ era, transport })),
  ),
)("official v2 Client -> mcpkit inputRequired(), $era, $transport", ({ era, transport }) => {
  it("completes an elicitation round trip", async () => {
    const { client, asked, calls, errors } = await transports[transport](era);
    expect(client.getProtocolEra()).toBe(era === MODERN ? "modern" : "legacy");
    const result = await client.callTool({ name: "greet", arguments: {} });
    expect(textOf(result)).toBe("Hello, Ada!");
    expect(asked).toEqual(["elicitation: Your name?"]);
    expect(calls.greet).toBe(2);
    expect(errors()).toEqual([]);
  });

  it("completes a sampling round trip", async () => {
    const { client, asked, errors } = await transports[transport](era);
    const result = await client.callTool({ name: "ask_llm", arguments: { question: "Capital of France?" } });
    expect(textOf(result)).toBe("The model says: Paris");
    expect(asked).toEqual(["sampling: Capital of France?"]);
    expect(errors()).toEqual([]);
  });

  it("completes a multi-round flow with state, and several inputs in one round", async () => {
    const { client, asked, errors } = await transports[transport](era);
    expect(textOf(await client.callTool({ name: "survey", arguments: {} }))).toBe("Ada likes green");
    expect(asked).toEqual(["elicitation: Your name?", "elicitation: Your color?"]);
    expect(textOf(await client.callTool({ name: "everything", arguments: {} }))).toBe("Paris Ada");
    const prompt = await client.getPrompt({ name: "contextual" });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Talk about owls" });
    expect(errors()).toEqual([]);
  });
});

describe("official v2 Client -> mcpkit: list changes", () => {
  it.each(["in-process", "http"] as const)(
    "listens on a subscriptions/listen stream and ends gracefully when the server closes (2026, %s)",
    async (transport) => {
      const { client, server, errors } = await transports[transport](MODERN);
      const seen: unknown[] = [];
      client.setNotificationHandler("notifications/tools/list_changed", (notification) => {
        seen.push(notification);
      });
      const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true });
      expect(server.subscriptionCount).toBe(1);
      await server.notifyListChanged("tools");
      await until(() => seen.length === 1);
      expect(seen[0]).toMatchObject({ method: "notifications/tools/list_changed" });
      await server.close();
      expect(await subscription.closed).toBe("graceful");
      expect(errors()).toEqual([]);
    },
  );

  it("hears list changes on its 2025 session", async () => {
    const { client, server } = await transports["in-process"](LEGACY);
    const seen: unknown[] = [];
    client.setNotificationHandler("notifications/prompts/list_changed", (notification) => {
      seen.push(notification);
    });
    await server.notifyListChanged("prompts");
    await until(() => seen.length === 1);
  });
});
