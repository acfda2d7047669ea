/**
 * Interop: the official v1 client (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25 only) against an mcpkit server.
 * Every message is checked against the official 2025-11-25 schema by the validating pair under the bridge. The
 * cases shared with the v2 client are in `../support/interop-official-client-cases.ts`; what is v1's own is here.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { LEGACY, textOf } from "../support/interop-helpers.js";
import {
  ALL_TOOLS,
  type OfficialClientFlavour,
  officialClientCases,
  useOfficialClient,
} from "../support/interop-official-client-cases.js";
import { useWireValidation } from "../support/validating-transport.js";

useWireValidation();

const V1: OfficialClientFlavour<Client> = {
  sdk: "v1",
  create: () => new Client({ name: "official-v1-client", version: "1.32.2" }),
  // v1 takes a result schema before the options.
  callTool: (client, params, options) => client.callTool(params, undefined, options),
  errors: {
    protocol: (code) => ({ type: McpError, members: { code } }),
    // v1 passes mcpkit's 2025-11-25 -32002 through as it is.
    resourceNotFound: (uri) => ({ type: McpError, members: { code: -32002, data: { uri } } }),
    timeout: { type: McpError, members: { code: ErrorCode.RequestTimeout } },
  },
};

const harness = useOfficialClient(V1);

describe("official v1 Client -> mcpkit server, 2025-11-25", () => {
  officialClientCases(harness, LEGACY);

  it("pages through tools with mcpkit's cursors (listTools returns one page) and calls one", async () => {
    const { client, callTool } = await harness.connect(LEGACY);
    const names: string[] = [];
    const cursors: Array<string | undefined> = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      expect(page.tools.length).toBe(2);
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      cursors.push(cursor);
    } while (cursor !== undefined);
    expect(names).toEqual(ALL_TOOLS);
    expect(cursors).toEqual(["o:2", "o:4", undefined]);

    const result = await callTool({ name: "add", arguments: { a: 20, b: 22 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("42");
  });
});
