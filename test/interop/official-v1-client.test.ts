/**
 * Interop: the official v1 client (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25 only) against an mcpkit server.
 * Every message is checked against the official 2025-11-25 schema by the validating pair under the bridge. The
 * cases (shared with the v2 client and with the stdio tests) are in `../support/interop-official-client-cases.ts`;
 * the v1 flavour is in `../support/official-client-flavours.ts`.
 */
import { describe } from "vitest";
import { LEGACY } from "../support/interop-helpers.js";
import { officialClientCases, useOfficialClient } from "../support/interop-official-client-cases.js";
import { V1 } from "../support/official-client-flavours.js";
import { useWireValidation } from "../support/validating-transport.js";

useWireValidation();

const harness = useOfficialClient(V1);

describe("official v1 Client -> mcpkit server, 2025-11-25", () => {
  officialClientCases(harness, LEGACY);
});
