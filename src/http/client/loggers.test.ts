import { describe, expect, it } from "vitest";
import { transportLoggers } from "./loggers.js";
import { StreamableHttpClientTransport } from "./transport.js";

describe("the HTTP client transport's loggers", () => {
  it("rate-limits its own logger by logIntervalMs (0: every line)", () => {
    const lines: string[] = [];
    const logger = { warn: (message: string) => lines.push(message) };
    const limited = transportLoggers(logger, undefined).own;
    for (let i = 0; i < 5; i++) limited?.warn("dropped something");
    expect(lines).toEqual(["dropped something"]);
    const unlimited = transportLoggers(logger, 0).own;
    for (let i = 0; i < 3; i++) unlimited?.warn("again");
    expect(lines.filter((line) => line === "again")).toHaveLength(3);
    expect(transportLoggers(undefined, undefined).own).toBeUndefined();
  });

  it("refuses a bad logger or interval as transport options", () => {
    for (const options of [{ logger: {} }, { logIntervalMs: -1 }, { logIntervalMs: 1.5 }]) {
      expect(
        () => new StreamableHttpClientTransport({ url: "http://127.0.0.1:1/mcp", ...(options as object) }),
      ).toThrow(expect.objectContaining({ code: "INVALID_CONFIG" }));
    }
  });
});
