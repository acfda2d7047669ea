/**
 * Interop over a real subprocess: the official v2 client (`@modelcontextprotocol/client` 2.4.0 and its
 * `StdioClientTransport`) launches the mcpkit stdio fixture server (test/fixtures/stdio-server), in both eras.
 * 2026-07-28 is forced with `versionNegotiation: { mode: { pin } }`: on stdio the v2 client probes
 * `server/discover` on a throwaway sibling process, then talks to a fresh one. 2025-11-25 is the client's default
 * (`initialize` only). Every frame of every process is validated against the official schema of its era from
 * the fixture's wire log (see test/fixtures/stdio-server/harness.ts). The cases are in
 * `../support/interop-stdio-official-client.ts`.
 */
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe } from "vitest";
import { LEGACY, MODERN } from "../support/interop-helpers.js";
import {
  stdioOfficialClientCases,
  useStdioOfficialClient,
} from "../support/interop-stdio-official-client.js";
import { V2 } from "../support/official-client-flavours.js";

const harness = useStdioOfficialClient(V2, (params) => new StdioClientTransport(params));

describe.each([{ era: MODERN }, { era: LEGACY }])(
  "official v2 Client -> mcpkit stdio server subprocess, $era",
  ({ era }) => stdioOfficialClientCases(harness, era),
);
