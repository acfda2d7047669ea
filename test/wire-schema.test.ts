import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../src/jsonrpc/message.js";
import { useWireValidation, validatingPair } from "./support/validating-transport.js";
import { ERAS, eraSchema, schemasAvailable, WireSchemaError, WireValidator } from "./support/wire-schema.js";

useWireValidation();

const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

const modernCall = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "hi" }, _meta: modernMeta },
} as const;

const initialize = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "test-client", version: "1.0.0" },
  },
} as const;

const toolsList = (era: "2025-11-25" | "2026-07-28", id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/list",
  ...(era === "2026-07-28" ? { params: { _meta: modernMeta } } : {}),
});

/** Runs `fn` and returns the WireSchemaError it throws. */
function schemaError(fn: () => void): WireSchemaError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WireSchemaError) return error;
    throw error;
  }
  throw new Error("expected a WireSchemaError");
}

describe.skipIf(!schemasAvailable)("WireValidator", () => {
  it("compiles every def of both schemas", () => {
    for (const era of ERAS) {
      const schema = eraSchema(era);
      expect(schema.compileAll()).toBe(schema.defNames.length);
      expect(schema.defNames.length).toBeGreaterThan(100);
    }
  });

  it("builds method tables from the schema", () => {
    const legacy = eraSchema("2025-11-25");
    expect(legacy.requests.client.get("ping")).toBe("PingRequest");
    expect(legacy.requests.server.get("ping")).toBe("PingRequest");
    expect(legacy.requests.client.get("initialize")).toBe("InitializeRequest");
    expect(legacy.requests.server.get("sampling/createMessage")).toBe("CreateMessageRequest");
    expect(legacy.notifications.client.get("notifications/initialized")).toBe("InitializedNotification");
    const modern = eraSchema("2026-07-28");
    expect(modern.requests.client.get("server/discover")).toBe("DiscoverRequest");
    expect(modern.requests.client.has("initialize")).toBe(false);
    expect(modern.notifications.client.get("notifications/cancelled")).toBe("CancelledNotification");
    expect(modern.resultDefFor("CallToolRequest")).toBe("CallToolResult");
    expect(modern.resultDefFor("DiscoverRequest")).toBe("DiscoverResult");
    expect(legacy.resultDefFor("PingRequest")).toBe("EmptyResult");
    expect([...modern.inputRequiredAlternatives].sort()).toEqual([
      "CallToolResult",
      "GetPromptResult",
      "ReadResourceResult",
    ]);
  });

  it("accepts a valid 2026 tools/call request", () => {
    const validator = new WireValidator("2026-07-28");
    validator.check(modernCall, "client");
    expect(validator.count).toBe(1);
  });

  it("rejects a 2026 tools/call request without _meta, naming era, direction, method, def and path", () => {
    const validator = new WireValidator("2026-07-28");
    const { _meta: _, ...params } = modernCall.params;
    const error = schemaError(() => validator.check({ ...modernCall, params }, "client"));
    expect(error.era).toBe("2026-07-28");
    expect(error.from).toBe("client");
    expect(error.method).toBe("tools/call");
    expect(error.def).toBe("CallToolRequest");
    expect(error.problems).toContainEqual({
      instancePath: "/params",
      message: "must have required property '_meta'",
    });
    expect(error.message).toContain("2026-07-28");
    expect(error.message).toContain("from client to server");
    expect(error.message).toContain('"tools/call"');
    expect(error.message).toContain("CallToolRequest");
    expect(error.message).toContain("/params: must have required property '_meta'");
    expect(error.message).toContain('"name":"echo"');
  });

  it("truncates a long message in the error text", () => {
    const validator = new WireValidator("2026-07-28");
    const huge = { ...modernCall, params: { name: "x".repeat(10_000) } };
    const error = schemaError(() => validator.check(huge, "client"));
    expect(error.message.length).toBeLessThan(3_000);
    expect(error.message).toContain("chars)");
  });

  it("requires resultType on a 2026 tools/list result, not on a 2025 one", () => {
    const result = { jsonrpc: "2.0", id: 7, result: { tools: [], ttlMs: 0, cacheScope: "public" } };

    const modern = new WireValidator("2026-07-28");
    modern.check(toolsList("2026-07-28", 7), "client");
    const error = schemaError(() => modern.check(result, "server"));
    expect(error.def).toBe("JSONRPCResultResponse<ListToolsResult>");
    expect(error.method).toBe("tools/list");
    expect(error.from).toBe("server");
    expect(error.problems).toContainEqual({
      instancePath: "/result",
      message: "must have required property 'resultType'",
    });

    const modernOk = new WireValidator("2026-07-28");
    modernOk.check(toolsList("2026-07-28", 7), "client");
    modernOk.check({ ...result, result: { ...result.result, resultType: "complete" } }, "server");

    const legacy = new WireValidator("2025-11-25");
    legacy.check(toolsList("2025-11-25", 7), "client");
    legacy.check(result, "server");
    expect(legacy.count).toBe(2);
  });

  it("accepts a 2025 initialize request and checks its result as InitializeResult", () => {
    const validator = new WireValidator("2025-11-25");
    validator.check(initialize, "client");
    const error = schemaError(() =>
      validator.check({ jsonrpc: "2.0", id: 0, result: { protocolVersion: "2025-11-25" } }, "server"),
    );
    expect(error.def).toBe("JSONRPCResultResponse<InitializeResult>");
    expect(error.method).toBe("initialize");

    const again = new WireValidator("2025-11-25");
    again.check(initialize, "client");
    again.check(
      {
        jsonrpc: "2.0",
        id: 0,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "test-server", version: "1.0.0" },
        },
      },
      "server",
    );
    again.check({ jsonrpc: "2.0", method: "notifications/initialized" }, "client");
    expect(again.outstandingCount).toBe(0);
  });

  it("accepts error responses and rejects malformed ones", () => {
    for (const era of ERAS) {
      const validator = new WireValidator(era);
      validator.check(era === "2026-07-28" ? modernCall : { ...initialize, id: 1 }, "client");
      validator.check({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Unknown tool" } }, "server");
      validator.check({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }, "server");
      const error = schemaError(() =>
        validator.check({ jsonrpc: "2.0", id: 3, error: { code: "oops", message: "x" } }, "server"),
      );
      expect(error.def).toBe("JSONRPCErrorResponse");
      expect(error.problems).toContainEqual({ instancePath: "/error/code", message: "must be integer" });
    }
  });

  it("checks a result against the def of the request it answers", () => {
    for (const era of ERAS) {
      const validator = new WireValidator(era);
      const call =
        era === "2026-07-28"
          ? modernCall
          : { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo" } };
      validator.check(call, "client");
      const extra = era === "2026-07-28" ? { resultType: "complete" } : {};
      const bad = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text" }], ...extra } };
      const error = schemaError(() => validator.check(bad, "server"));
      expect(error.def).toBe("JSONRPCResultResponse<CallToolResult>");
      expect(error.method).toBe("tools/call");
      expect(error.problems.some((p) => p.instancePath === "/result/content/0")).toBe(true);

      // The same body answers a request never seen: only the generic response shape applies.
      validator.check({ ...bad, id: 99 }, "server");
      // A valid answer to a fresh call passes.
      validator.check({ ...call, id: 2 }, "client");
      validator.check(
        { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "hi" }], ...extra } },
        "server",
      );
    }
  });

  it("matches responses to the requests of the other side only", () => {
    const validator = new WireValidator("2025-11-25");
    validator.check({ jsonrpc: "2.0", id: 5, method: "ping" }, "server");
    validator.check({ jsonrpc: "2.0", id: 5, method: "tools/list" }, "client");
    // The server's answer to the client's tools/list must be a ListToolsResult…
    const error = schemaError(() => validator.check({ jsonrpc: "2.0", id: 5, result: {} }, "server"));
    expect(error.def).toBe("JSONRPCResultResponse<ListToolsResult>");
    // …while the client's answer to the server's ping is an EmptyResult.
    validator.check({ jsonrpc: "2.0", id: 5, result: {} }, "client");
  });

  it("accepts an InputRequiredResult where 2026 allows it", () => {
    const validator = new WireValidator("2026-07-28");
    validator.check(modernCall, "client");
    validator.check(
      { jsonrpc: "2.0", id: 1, result: { resultType: "input_required", requestState: "s1" } },
      "server",
    );
    validator.check(toolsList("2026-07-28", 2), "client");
    const error = schemaError(() =>
      validator.check(
        { jsonrpc: "2.0", id: 2, result: { resultType: "input_required", requestState: "s1" } },
        "server",
      ),
    );
    expect(error.def).toBe("JSONRPCResultResponse<ListToolsResult>");
  });

  it("checks unknown methods against the generic JSON-RPC defs", () => {
    for (const era of ERAS) {
      const validator = new WireValidator(era);
      validator.check({ jsonrpc: "2.0", id: "a", method: "custom/thing", params: { x: 1 } }, "client");
      validator.check({ jsonrpc: "2.0", method: "notifications/custom" }, "server");
      const error = schemaError(() =>
        validator.check({ jsonrpc: "1.0", id: "b", method: "custom/thing" }, "client"),
      );
      expect(error.def).toBe("JSONRPCRequest");
      expect(error.method).toBe("custom/thing");
      expect(schemaError(() => validator.check("not json-rpc", "client")).def).toBe("JSONRPCMessage");
    }
  });

  it("checks a wrong-direction method against its def, and rejects it with strictDirection", () => {
    const lenient = new WireValidator("2025-11-25");
    lenient.check({ jsonrpc: "2.0", id: 1, method: "tools/list" }, "server");
    const strict = new WireValidator("2025-11-25", { strictDirection: true });
    strict.check({ jsonrpc: "2.0", id: 1, method: "ping" }, "server");
    expect(
      schemaError(() => strict.check({ jsonrpc: "2.0", id: 2, method: "tools/list" }, "server")).def,
    ).toBe("ServerRequest");
  });
});

describe.skipIf(!schemasAvailable)("WireValidator.auto", () => {
  it("picks 2025-11-25 from initialize", () => {
    const validator = WireValidator.auto();
    expect(validator.era).toBeUndefined();
    validator.check(initialize, "client");
    expect(validator.era).toBe("2025-11-25");
  });

  it("picks the era named in _meta", () => {
    const validator = WireValidator.auto();
    validator.check(modernCall, "client");
    expect(validator.era).toBe("2026-07-28");
    expect(() => validator.check({ jsonrpc: "2.0", id: 1, result: { content: [] } }, "server")).toThrow(
      WireSchemaError,
    );
  });

  it("picks 2025-11-25 for a first message without the protocol version in _meta", () => {
    const validator = WireValidator.auto();
    validator.check({ jsonrpc: "2.0", id: 1, method: "tools/list" }, "client");
    expect(validator.era).toBe("2025-11-25");
  });

  it("checks server messages sent before the decision once it is made", () => {
    const validator = WireValidator.auto();
    validator.check({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info" } }, "server");
    expect(validator.count).toBe(0);
    const error = schemaError(() => validator.check(initialize, "client"));
    expect(error.def).toBe("LoggingMessageNotification");
    expect(error.from).toBe("server");
    expect(validator.count).toBe(2);
    // The deciding message was still tracked: its answer is checked as an InitializeResult.
    expect(() => validator.check({ jsonrpc: "2.0", id: 0, result: {} }, "server")).toThrow(
      /InitializeResult/,
    );
  });

  it("does not flag a server/discover attempt that falls back to initialize", () => {
    const validator = WireValidator.auto();
    validator.check(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: modernMeta } },
      "client",
    );
    expect(validator.era).toBe("2026-07-28");
    validator.check(
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
      "server",
    );
    validator.check({ ...initialize, id: 2 }, "client");
    expect(validator.era).toBe("2025-11-25");
    validator.check(
      {
        jsonrpc: "2.0",
        id: 2,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          serverInfo: { name: "legacy-server", version: "1.0.0" },
        },
      },
      "server",
    );
    validator.check({ jsonrpc: "2.0", method: "notifications/initialized" }, "client");
    // 2025 results need no resultType.
    validator.check({ jsonrpc: "2.0", id: 3, method: "tools/list" }, "client");
    validator.check({ jsonrpc: "2.0", id: 3, result: { tools: [] } }, "server");
    expect(validator.count).toBe(7);
  });
});

describe.skipIf(!schemasAvailable)("validatingPair", () => {
  it("delivers valid traffic and records it", async () => {
    const pair = validatingPair({ era: "2026-07-28" });
    const received: JsonRpcMessage[] = [];
    await pair.server.start({
      message: (message) => {
        received.push(message);
        void pair.server.send({
          jsonrpc: "2.0",
          id: 1,
          result: { resultType: "complete", content: [{ type: "text", text: "hi" }] },
        });
      },
      close: () => {},
    });
    const answered = new Promise<JsonRpcMessage>((resolve) => {
      void pair.client.start({ message: resolve, close: () => {} });
    });
    await pair.client.send(modernCall as unknown as JsonRpcMessage);
    await answered;
    expect(received).toHaveLength(1);
    expect(pair.messages.map((m) => m.from)).toEqual(["client", "server"]);
    expect(pair.validator.count).toBe(2);
    pair.assertNoWireErrors();
  });

  it("rejects an invalid send, does not deliver it, and records the error", async () => {
    const pair = validatingPair();
    const received: JsonRpcMessage[] = [];
    await pair.server.start({ message: (message) => received.push(message), close: () => {} });
    const bad = { jsonrpc: "2.0", id: 1, method: "tools/call", params: {} } as JsonRpcMessage;
    await expect(pair.client.send(bad)).rejects.toBeInstanceOf(WireSchemaError);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(received).toEqual([]);
    expect(pair.errors).toHaveLength(1);
    expect(() => pair.assertNoWireErrors()).toThrow(WireSchemaError);
    // Taken on purpose, so useWireValidation() does not fail this test.
    expect(pair.takeWireErrors()).toHaveLength(1);
    pair.assertNoWireErrors();
  });
});
