/**
 * Interop: the official v2 client (`@modelcontextprotocol/client` 2.4.0) against an mcpkit server, in both eras.
 * 2026-07-28 is forced with `versionNegotiation: { mode: { pin } }` (no silent fallback); 2025-11-25 is the v2
 * client's default (`legacy` mode: `initialize` only). Every message is checked against the official schema of
 * its era by the validating pair under the bridge. The cases (shared with the v1 client and the stdio tests) are
 * in `../support/interop-official-client-cases.ts`, the v2 flavour in `../support/official-client-flavours.ts`.
 */
import { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { fixtureServer } from "../support/fixture-server.js";
import { LEGACY, MODERN, textOf } from "../support/interop-helpers.js";
import { officialClientCases, useOfficialClient } from "../support/interop-official-client-cases.js";
import { toOfficialTransport } from "../support/official-bridge.js";
import { V2, V2_CLIENT_INFO } from "../support/official-client-flavours.js";
import { useWireValidation, validatingPair } from "../support/validating-transport.js";

useWireValidation();

const harness = useOfficialClient(V2);

describe.each([{ era: MODERN }, { era: LEGACY }])("official v2 Client -> mcpkit server, $era", ({ era }) => {
  officialClientCases(harness, era);
});

describe("official v2 Client -> mcpkit server: negotiation modes", () => {
  it("auto mode picks 2026-07-28 from mcpkit's server/discover", async () => {
    const pair = validatingPair();
    await fixtureServer().connect(pair.server);
    const client = new Client(V2_CLIENT_INFO, { versionNegotiation: { mode: "auto" } });
    harness.cleanup(() => client.close());
    await client.connect(toOfficialTransport(pair.client));
    expect(client.getProtocolEra()).toBe("modern");
    expect(pair.validator.era).toBe(MODERN);
    const result = await client.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    expect(textOf(result)).toBe("2");
  });
});
