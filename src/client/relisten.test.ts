import { describe, expect, it } from "vitest";
import { McpkitError } from "../jsonrpc/errors.js";
import { checkRelisten, isStreamLoss, relistenDelay } from "./relisten.js";

describe("checkRelisten", () => {
  it("defaults when absent or true, is off with false, and takes a policy", () => {
    expect(checkRelisten(undefined)).toEqual({ maxAttempts: 10, initialDelayMs: 500, maxDelayMs: 30_000 });
    expect(checkRelisten(true)).toEqual(checkRelisten(undefined));
    expect(checkRelisten(false)).toBeUndefined();
    expect(checkRelisten({ maxAttempts: 3, initialDelayMs: 10 })).toEqual({
      maxAttempts: 3,
      initialDelayMs: 10,
      maxDelayMs: 30_000,
    });
  });

  it.each([
    ["yes", "relisten"],
    [{ backoff: 2 }, "relisten.backoff"],
    [{ maxAttempts: 0 }, "relisten.maxAttempts"],
    [{ maxAttempts: 1.5 }, "relisten.maxAttempts"],
    [{ initialDelayMs: -1 }, "relisten.initialDelayMs"],
    [{ initialDelayMs: Number.POSITIVE_INFINITY }, "relisten.initialDelayMs"],
    [{ initialDelayMs: 1_000, maxDelayMs: 10 }, "relisten.maxDelayMs"],
  ])("refuses %j naming %s", (value, key) => {
    expect(() => checkRelisten(value)).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", details: { key } }),
    );
  });
});

describe("relistenDelay", () => {
  const policy = { maxAttempts: 10, initialDelayMs: 100, maxDelayMs: 1_000 };

  it("doubles from initialDelayMs up to maxDelayMs, jittered between half and all of it", () => {
    expect([1, 2, 3, 4, 5, 30].map((attempt) => relistenDelay(policy, attempt, () => 1))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect([1, 2, 5].map((attempt) => relistenDelay(policy, attempt, () => 0))).toEqual([50, 100, 500]);
  });
});

describe("isStreamLoss", () => {
  it("is true for timeouts, broken streams, network failures, 429 and 5xx; false for refusals and the rest", () => {
    const transport = (details: { [key: string]: unknown }) => new McpkitError("TRANSPORT", "x", { details });
    expect(isStreamLoss(new McpkitError("TIMEOUT", "x", { details: { timeout: "streamIdle" } }))).toBe(true);
    expect(isStreamLoss(transport({ reason: "network" }))).toBe(true);
    expect(isStreamLoss(transport({ reason: "stream_ended" }))).toBe(true);
    expect(isStreamLoss(transport({ reason: "http_status", status: 503 }))).toBe(true);
    expect(isStreamLoss(transport({ reason: "http_status", status: 429 }))).toBe(true);
    expect(isStreamLoss(transport({ reason: "forbidden", status: 403 }))).toBe(false);
    expect(isStreamLoss(transport({ reason: "http_status", status: 404 }))).toBe(false);
    expect(isStreamLoss(new McpkitError("CLOSED", "x"))).toBe(false);
    expect(isStreamLoss(new Error("x"))).toBe(false);
  });
});
