import { describe, expect, it } from "vitest";
import { CLIENT_REVISIONS, revisionTraits } from "./revisions.js";
import { isReservedMcpHeader } from "./routing-headers.js";

describe("revisionTraits", () => {
  it("describes every rung a client can end up on", () => {
    expect(CLIENT_REVISIONS).toEqual(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);
    expect(revisionTraits("2026-07-28")).toMatchObject({
      stateless: true,
      routingHeaders: true,
      sessions: false,
      serverRequests: false,
    });
    expect(revisionTraits("2025-11-25")).toMatchObject({
      stateless: false,
      versionHeader: true,
      sessions: true,
      batches: false,
    });
    expect(revisionTraits("2025-06-18")).toMatchObject({ versionHeader: true, elicitation: true });
    expect(revisionTraits("2025-03-26")).toMatchObject({
      versionHeader: false,
      batches: true,
      elicitation: false,
    });
    expect(revisionTraits("2024-11-05")).toBeUndefined();
    expect(revisionTraits("constructor")).toBeUndefined();
  });
});

describe("isReservedMcpHeader", () => {
  it("matches the transport's headers case-insensitively", () => {
    for (const name of [
      "MCP-Protocol-Version",
      "mcp-session-id",
      "MCP-METHOD",
      "Mcp-Name",
      "mcp-param-x",
      "Last-Event-ID",
    ]) {
      expect(isReservedMcpHeader(name)).toBe(true);
    }
    for (const name of ["authorization", "x-mcp-header", "mcp-params", "Mcp-Namespace"]) {
      expect(isReservedMcpHeader(name)).toBe(false);
    }
  });
});
