import { describe, expect, it } from "vitest";
import { createInProcessPair } from "../transports/in-process.js";
import { Client } from "./client.js";
import { resolveClientOptions } from "./options.js";
import type { ClientOptions } from "./types.js";

const [transport] = createInProcessPair();
const base = { transport, clientInfo: { name: "c", version: "1" } };

describe("client options", () => {
  it("fills in the defaults", () => {
    const config = resolveClientOptions(base);
    expect(config).toMatchObject({
      capabilities: {},
      protocolVersion: undefined,
      requestTimeoutMs: 30_000,
      connectTimeoutMs: 60_000,
      maxPendingRequests: 1024,
      logLevel: undefined,
      versionFallback: "strict",
      acceptOlderVersions: false,
    });
    expect(typeof config.logger.warn).toBe("function");
  });

  it.each([
    ["an unknown key", { ...base, requestTimeout: 5 }, "requestTimeout"],
    ["a missing transport", { clientInfo: base.clientInfo }, "transport"],
    ["a transport without send", { ...base, transport: { start() {}, close() {} } }, "transport"],
    ["clientInfo without version", { ...base, clientInfo: { name: "c" } }, "clientInfo"],
    ["non-object capabilities", { ...base, capabilities: [] }, "capabilities"],
    ["an unknown protocolVersion", { ...base, protocolVersion: "2025-06-18" }, "protocolVersion"],
    ["a zero requestTimeoutMs", { ...base, requestTimeoutMs: 0 }, "requestTimeoutMs"],
    ["a NaN connectTimeoutMs", { ...base, connectTimeoutMs: Number.NaN }, "connectTimeoutMs"],
    ["a fractional maxPendingRequests", { ...base, maxPendingRequests: 1.5 }, "maxPendingRequests"],
    ["an unknown logLevel", { ...base, logLevel: "verbose" }, "logLevel"],
    ["a non-function onLog", { ...base, onLog: "print" }, "onLog"],
    ["a non-function onTransportError", { ...base, onTransportError: {} }, "onTransportError"],
    ["a logger without warn", { ...base, logger: { log() {} } }, "logger"],
    ["an unknown versionFallback", { ...base, versionFallback: "any" }, "versionFallback"],
    ["a non-boolean acceptOlderVersions", { ...base, acceptOlderVersions: "yes" }, "acceptOlderVersions"],
  ])("rejects %s with INVALID_CONFIG naming the key", (_label, options, key) => {
    expect(() => new Client(options as unknown as ClientOptions)).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", details: { key } }),
    );
  });

  it("names an unknown key as not an option", () => {
    expect(() => new Client({ ...base, requestTimeout: 5 } as unknown as ClientOptions)).toThrow(
      "requestTimeout is not an option",
    );
  });

  it("rejects a non-object", () => {
    expect(() => new Client(undefined as unknown as ClientOptions)).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG" }),
    );
  });

  it("accepts Infinity as a timeout and both eras as protocolVersion", () => {
    expect(() => new Client({ ...base, requestTimeoutMs: Number.POSITIVE_INFINITY })).not.toThrow();
    expect(() => new Client({ ...base, protocolVersion: "2025-11-25" })).not.toThrow();
    expect(() => new Client({ ...base, protocolVersion: "2026-07-28" })).not.toThrow();
  });

  it("reports nothing about the connection before connect()", async () => {
    const client = new Client(base);
    expect([client.connection, client.era, client.protocolVersion, client.serverInfo]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    await expect(client.listTools()).rejects.toMatchObject({ code: "CLOSED", details: { state: "new" } });
  });
});
