/**
 * Interop over real HTTP on 127.0.0.1: official clients with `listChanged` handlers against an mcpkit dynamic
 * server. A tool added (or removed) at run time sends list_changed, and each client re-lists by itself: the v1
 * client (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25, on its GET stream) and the v2 client
 * (`@modelcontextprotocol/client` 2.4.0, in 2025-11-25 and on a 2026-07-28 `subscriptions/listen` stream it
 * opens itself). Every message both ways is checked against the official schema of the era.
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { useServe } from "../support/http-peer.js";
import { textOf, useCleanups } from "../support/interop-helpers.js";
import { until } from "../support/until.js";
import { type ValidatingFetch, validatingFetch } from "../support/validating-fetch.js";
import { WireValidator } from "../support/wire-schema.js";

const serve = useServe();
const cleanup = useCleanups();
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

let wire: ValidatingFetch | undefined;
afterEach(() => {
  const errors = wire?.errors ?? [];
  wire = undefined;
  if (errors.length > 0) throw errors[0];
});

/** The tool names each refresh gave, as the client's `onChanged` handler saw them. */
type Refreshes = string[][];

interface Flavour {
  title: string;
  era: typeof MODERN | typeof LEGACY;
  connect(
    url: string,
    fetch: typeof globalThis.fetch,
    refreshes: Refreshes,
  ): Promise<{
    call(name: string): Promise<unknown>;
  }>;
}

const onChanged = (refreshes: Refreshes) => ({
  debounceMs: 0,
  onChanged: (error: Error | null, tools: { name: string }[] | null) => {
    if (error === null && tools !== null) refreshes.push(tools.map((t) => t.name));
  },
});

const v1: Flavour = {
  title: "official v1 client, 2025-11-25",
  era: LEGACY,
  async connect(url, fetch, refreshes) {
    const client = new V1Client(
      { name: "official-v1", version: "1.32.2" },
      { listChanged: { tools: onChanged(refreshes) } },
    );
    await client.connect(new V1Transport(new URL(url), { fetch }));
    cleanup(() => client.close());
    return { call: (name) => client.callTool({ name, arguments: {} }) };
  },
};

const v2 = (era: Flavour["era"]): Flavour => ({
  title: `official v2 client, ${era}`,
  era,
  async connect(url, fetch, refreshes) {
    const mode = era === MODERN ? { pin: MODERN } : "legacy";
    const client = new V2Client(
      { name: "official-v2", version: "2.4.0" },
      { versionNegotiation: { mode }, listChanged: { tools: onChanged(refreshes) } },
    );
    await client.connect(new V2Transport(new URL(url), { fetch }));
    cleanup(() => client.close());
    return { call: (name) => client.callTool({ name, arguments: {} }) };
  },
});

describe.each([v1, v2(LEGACY), v2(MODERN)])("$title -> mcpkit dynamic server over HTTP", (flavour) => {
  it("re-lists the tools by itself after one is added, and again after one is removed", async () => {
    const server = new ServerBuilder({ serverInfo: { name: "dynamic", version: "1.0.0" } })
      .tool({ name: "first", inputSchema: { type: "object" } }, () => ({
        content: [{ type: "text", text: "1" }],
      }))
      .buildDynamic();
    cleanup(() => server.close());
    const { url } = await serve(createHttpHandler(server));
    wire = validatingFetch(new WireValidator(flavour.era));
    const refreshes: Refreshes = [];
    const session = await flavour.connect(url, wire.fetch, refreshes);
    // The client opens its stream after connecting: a listen stream (2026), or the session's GET stream (2025).
    const exchanges = (wire as ValidatingFetch).exchanges;
    if (flavour.era === MODERN) await until(() => server.subscriptionCount === 1);
    else await until(() => exchanges.some((e) => e.method === "GET" && e.status === 200));
    server.tools.add({ name: "second", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "2" }],
    }));
    await until(() => refreshes.length === 1);
    expect(refreshes[0]).toEqual(["first", "second"]);
    expect(textOf(await session.call("second"))).toBe("2");
    server.tools.remove("first");
    await until(() => refreshes.length === 2);
    expect(refreshes[1]).toEqual(["second"]);
    const methods = wire.messages().flatMap((m) => ("method" in m ? [m.method] : []));
    expect(methods.filter((m) => m === "notifications/tools/list_changed")).toHaveLength(2);
    expect(methods.filter((m) => m === "tools/list")).toHaveLength(2);
  });
});
