import { describe, expect, it } from "vitest";
import { STDIO_PRESETS, stdioPolicy } from "./policy.js";

describe("stdioPolicy", () => {
  it("has the issue's defaults, and the gateway preset replaces the environment", () => {
    expect(stdioPolicy()).toEqual({
      maxFrameBytes: 1_000_000,
      maxOutboundFrameBytes: 1_000_000,
      maxPendingStdoutBytes: 4_000_000,
      maxFramesPerTurn: 100,
      stderr: "ignore",
      maxStderrBytes: 64_000,
      stderrTailBytes: 4_096,
      environment: "inherit",
      shutdownTimeoutMs: 5_000,
    });
    expect(stdioPolicy({ preset: "gateway" })).toEqual({ ...STDIO_PRESETS.default, environment: "replace" });
    expect(Object.isFrozen(stdioPolicy({ stderr: "capture" }))).toBe(true);
  });

  it("accepts a stderr tail from 0 (none) to 65,536 bytes", () => {
    expect(stdioPolicy({ stderrTailBytes: 0 }).stderrTailBytes).toBe(0);
    expect(stdioPolicy({ stderrTailBytes: 65_536 }).stderrTailBytes).toBe(65_536);
  });

  it("accepts a built policy as input unchanged", () => {
    const policy = stdioPolicy({ preset: "gateway", maxFrameBytes: 10 });
    expect(stdioPolicy(policy)).toEqual(policy);
  });

  it("rejects unknown keys and bad values with INVALID_CONFIG naming the key", () => {
    const cases: [unknown, string][] = [
      [{ maxFrameByte: 1 }, "maxFrameByte"],
      [{ shell: true }, "shell"],
      [{ preset: "strict" }, "preset"],
      [{ maxFrameBytes: 0 }, "maxFrameBytes"],
      [{ maxOutboundFrameBytes: 1.5 }, "maxOutboundFrameBytes"],
      [{ maxStderrBytes: -1 }, "maxStderrBytes"],
      [{ maxFramesPerTurn: 0 }, "maxFramesPerTurn"],
      [{ maxFramesPerTurn: 2.5 }, "maxFramesPerTurn"],
      [{ maxFramesPerTurn: "100" }, "maxFramesPerTurn"],
      [{ shutdownTimeoutMs: -1 }, "shutdownTimeoutMs"],
      [{ stderrTailBytes: -1 }, "stderrTailBytes"],
      [{ stderrTailBytes: 65_537 }, "stderrTailBytes"],
      [{ stderrTailBytes: 0.5 }, "stderrTailBytes"],
      [{ stderr: "console" }, "stderr"],
      [{ environment: "clean" }, "environment"],
      [null, "policy"],
    ];
    for (const [input, key] of cases) {
      expect(() => stdioPolicy(input as never), key).toThrow(
        expect.objectContaining({ code: "INVALID_CONFIG" }),
      );
      try {
        stdioPolicy(input as never);
      } catch (error) {
        expect((error as { details?: { key?: string } }).details?.key ?? "policy").toBe(key);
      }
    }
  });
});
