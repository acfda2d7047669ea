/**
 * Interop over a real subprocess: the official v1 client (`@modelcontextprotocol/sdk` 1.32.2 and its
 * `StdioClientTransport`; 2025-11-25 only) launches the mcpkit stdio fixture server
 * (test/fixtures/stdio-server). Every frame is validated against the official 2025-11-25 schema from the
 * fixture's wire log (see test/fixtures/stdio-server/harness.ts). The cases are in
 * `../support/interop-stdio-official-client.ts`.
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe } from "vitest";
import { LEGACY } from "../support/interop-helpers.js";
import {
  stdioOfficialClientCases,
  useStdioOfficialClient,
} from "../support/interop-stdio-official-client.js";
import { V1 } from "../support/official-client-flavours.js";

const harness = useStdioOfficialClient(V1, (params) => new StdioClientTransport(params));

describe("official v1 Client -> mcpkit stdio server subprocess, 2025-11-25", () => {
  stdioOfficialClientCases(harness, LEGACY);
});
