/**
 * The two official MCP clients as {@link OfficialClientFlavour}s: v1 (`@modelcontextprotocol/sdk` 1.32.2,
 * 2025-11-25 only) and v2 (`@modelcontextprotocol/client` 2.4.0, both eras). Shared by the in-process interop
 * tests and the stdio ones, so both setups expect the same errors and connection state of each SDK.
 */
import {
  ProtocolError,
  ResourceNotFoundError,
  SdkError,
  SdkErrorCode,
  Client as V2Client,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { MODERN } from "./interop-helpers.js";
import type { OfficialClientFlavour } from "./interop-official-client-cases.js";

export const V1: OfficialClientFlavour<V1Client> = {
  sdk: "v1",
  create: () => new V1Client({ name: "official-v1-client", version: "1.32.2" }),
  // v1 takes a result schema before the options.
  callTool: (client, params, options) => client.callTool(params, undefined, options),
  errors: {
    protocol: (code) => ({ type: McpError, members: { code } }),
    // v1 passes mcpkit's 2025-11-25 -32002 through as it is.
    resourceNotFound: (uri) => ({ type: McpError, members: { code: -32002, data: { uri } } }),
    timeout: { type: McpError, members: { code: ErrorCode.RequestTimeout } },
  },
};

export const V2_CLIENT_INFO = { name: "official-v2-client", version: "2.4.0" };

export const V2: OfficialClientFlavour<V2Client> = {
  sdk: "v2",
  create: (era) =>
    new V2Client(V2_CLIENT_INFO, era === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
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
