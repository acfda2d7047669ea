import { describe, expect, it } from "vitest";
import { McpkitError } from "../../jsonrpc/errors.js";
import { buildHttpConfig, type HttpHandlerOptions } from "./options.js";

function configError(options: unknown): McpkitError {
  try {
    buildHttpConfig(options as HttpHandlerOptions);
  } catch (error) {
    if (error instanceof McpkitError) return error;
    throw error;
  }
  throw new Error("expected INVALID_CONFIG");
}

describe("HTTP handler options", () => {
  it("takes the cluster options: forward by default, 2,000 ms to acknowledge; rejects unknown or bad ones", () => {
    expect(buildHttpConfig({}).cluster).toEqual({ legacySessions: "forward", forwardAckMs: 2_000 });
    expect(buildHttpConfig({ cluster: { legacySessions: "stateless" } }).cluster.legacySessions).toBe(
      "stateless",
    );
    expect(configError({ cluster: { nope: 1 } }).message).toMatch(/cluster.nope is not an option/);
    expect(configError({ cluster: { legacySessions: "sticky" } }).details).toEqual({
      key: "cluster.legacySessions",
    });
    expect(configError({ cluster: { forwardAckMs: 0 } }).message).toMatch(/positive integer/);
    expect(configError({ cluster: "forward" }).message).toMatch(/cluster must be an object/);
  });

  it("has the documented defaults", () => {
    const config = buildHttpConfig({});
    expect(config).toMatchObject({
      maxBodyBytes: 8_000_000,
      maxResponseBytes: 8_000_000,
      enableJsonResponse: false,
      keepAliveMs: 15_000,
      legacySseTimeoutMs: 25_000,
      authenticate: undefined,
      toolSchemas: undefined,
      sessions: {
        maxSessions: 1024,
        maxSessionsPerIdentity: 16,
        idleTimeoutMs: 900_000,
        absoluteTimeoutMs: 86_400_000,
        initializationTimeoutMs: 30_000,
      },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.sessions)).toBe(true);
  });

  it.each([
    [{ nope: 1 }, "nope"],
    [{ sessions: { maxSessions: 1, extra: 2 } }, "sessions.extra"],
    [{ maxBodyBytes: 0 }, "maxBodyBytes"],
    [{ maxResponseBytes: 1.5 }, "maxResponseBytes"],
    [{ keepAliveMs: -1 }, "keepAliveMs"],
    [{ legacySseTimeoutMs: 0 }, "legacySseTimeoutMs"],
    [{ legacySseTimeoutMs: 2.5 }, "legacySseTimeoutMs"],
    [{ legacySseTimeoutMs: "25s" }, "legacySseTimeoutMs"],
    [{ enableJsonResponse: "yes" }, "enableJsonResponse"],
    [{ authenticate: "token" }, "authenticate"],
    [{ allowedHosts: "localhost" }, "allowedHosts"],
    [{ allowedHosts: ["a/b"] }, "allowedHosts"],
    [{ allowedOrigins: ["localhost"] }, "allowedOrigins"],
    [{ sessions: { idleTimeoutMs: 0 } }, "sessions.idleTimeoutMs"],
    [{ clock: { now: () => 0 } }, "clock"],
    [{ toolSchemas: 5 }, "toolSchemas"],
  ])("rejects %j (INVALID_CONFIG naming %s)", (options, key) => {
    const error = configError(options);
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.details).toEqual({ key });
  });

  it("accepts keepAliveMs 0 (no keepalives)", () => {
    expect(buildHttpConfig({ keepAliveMs: 0 }).keepAliveMs).toBe(0);
  });

  it("checks a static toolSchemas map at construction and compiles its annotations", () => {
    const config = buildHttpConfig({
      toolSchemas: {
        deploy: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
      },
    });
    expect(config.toolSchemas).toBeInstanceOf(Map);
    expect((config.toolSchemas as Map<string, unknown>).get("deploy")).toEqual([
      { name: "Region", path: ["region"], type: "string" },
    ]);
    const error = configError({
      toolSchemas: { bad: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } } },
    });
    expect(error.details).toEqual({ key: 'toolSchemas["bad"]' });
    expect(error.message).toContain("not string, integer or boolean");
  });

  it("keeps a resolver as it is (its schemas are checked when it answers)", () => {
    const resolver = () => undefined;
    expect(buildHttpConfig({ toolSchemas: resolver }).toolSchemas).toBe(resolver);
  });
});
