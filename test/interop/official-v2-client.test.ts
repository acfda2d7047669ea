/**
 * Interop: the official v2 client (`@modelcontextprotocol/client` 2.4.0) against an mcpkit server, in both eras.
 * 2026-07-28 is forced with `versionNegotiation: { mode: { pin } }` (no silent fallback); 2025-11-25 is the v2
 * client's default (`legacy` mode: `initialize` only). Every message is checked against the official schema of
 * its era by the validating pair under the bridge. The cases shared with the v1 client are in
 * `../support/interop-official-client-cases.ts`; what is v2's own is here.
 */
import {
  Client,
  ProtocolError,
  ResourceNotFoundError,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { fixtureServer } from "../support/fixture-server.js";
import { LEGACY, MODERN, textOf } from "../support/interop-helpers.js";
import {
  ALL_TOOLS,
  type OfficialClientFlavour,
  officialClientCases,
  useOfficialClient,
} from "../support/interop-official-client-cases.js";
import { toOfficialTransport } from "../support/official-bridge.js";
import { useWireValidation, validatingPair } from "../support/validating-transport.js";

useWireValidation();

const CLIENT_INFO = { name: "official-v2-client", version: "2.4.0" };

const V2: OfficialClientFlavour<Client> = {
  sdk: "v2",
  create: (era) =>
    new Client(CLIENT_INFO, era === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
  callTool: (client, params, options) => client.callTool(params, options),
  connected(client, era) {
    expect(client.getProtocolEra()).toBe(era === MODERN ? "modern" : "legacy");
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
  },
  errors: {
    protocol: (code) => ({ type: ProtocolError, members: { code } }),
    // The v2 client turns either era's answer into its ResourceNotFoundError, whose code is always -32602.
    resourceNotFound: (uri) => ({ type: ResourceNotFoundError, members: { code: -32602, uri } }),
    timeout: { type: SdkError, members: { code: SdkErrorCode.RequestTimeout } },
    pingRefused: { type: SdkError, members: { code: SdkErrorCode.MethodNotSupportedByProtocolVersion } },
  },
};

const harness = useOfficialClient(V2);

describe.each([{ era: MODERN }, { era: LEGACY }])("official v2 Client -> mcpkit server, $era", ({ era }) => {
  officialClientCases(harness, era);

  it("lists every tool across pages (listTools follows the cursors) and calls one", async () => {
    const { client, callTool, sent } = await harness.connect(era);
    const { tools, nextCursor } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    expect(nextCursor).toBeUndefined();
    // pageSize 2: the v2 client walked three pages, following mcpkit's cursors.
    expect(sent("tools/list").map((r) => r.params?.cursor)).toEqual([undefined, "o:2", "o:4"]);
    const result = await callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("5");
  });
});

describe("official v2 Client -> mcpkit server: negotiation modes", () => {
  it("auto mode picks 2026-07-28 from mcpkit's server/discover", async () => {
    const pair = validatingPair();
    await fixtureServer().connect(pair.server);
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: "auto" } });
    harness.cleanup(() => client.close());
    await client.connect(toOfficialTransport(pair.client));
    expect(client.getProtocolEra()).toBe("modern");
    expect(pair.validator.era).toBe(MODERN);
    const result = await client.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    expect(textOf(result)).toBe("2");
  });
});
