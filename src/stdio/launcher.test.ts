import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import {
  alive,
  liveChildren,
  marked,
  openPeer,
  type RawPeer,
  rejectionOf,
  resultOf,
  scripted,
} from "../../test/fixtures/stdio/harness.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { launchStdio, launchWith } from "./launcher.js";
import { STDIO_MARKER_ENV, systemProcessOps } from "./process-tree.js";

const scratch = mkdtempSync(join(tmpdir(), "mcpkit-launcher-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const open: RawPeer[] = [];
async function peer(...args: Parameters<typeof scripted>): Promise<RawPeer> {
  const launched = await openPeer(scripted(...args));
  open.push(launched);
  return launched;
}
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((p) => p.transport.close()));
});

describe("launchStdio configuration", () => {
  it("fails on Windows with UNSUPPORTED", () => {
    expect(() => launchWith({ command: "/bin/sh" }, { ...systemProcessOps, platform: "win32" })).toThrow(
      expect.objectContaining({ code: "UNSUPPORTED", message: expect.stringMatching(/Windows/) }),
    );
  });

  it("rejects unknown options and policy keys, bad args and a bad cwd with INVALID_CONFIG", () => {
    const bad: unknown[] = [
      { command: "sh", shell: true },
      { command: "sh", policy: { maxFrameByte: 1 } },
      { command: "sh", args: "-c echo" },
      { command: "sh", args: ["a\0b"] },
      { command: "sh", cwd: join(scratch, "missing") },
      { command: "sh", policy: { stderr: "capture" } },
      { command: "sh", onStderr: () => {} },
      { command: "sh", onStderr: "yes", policy: { stderr: "capture" } },
      { command: "sh", pollAfterWriteMs: -1 },
      { command: "sh", pollAfterWriteMs: 60_000 },
    ];
    for (const options of bad) {
      expect(() => launchStdio(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: "INVALID_CONFIG" }),
      );
    }
  });

  it("takes a poll window from 0 to 10 ms", () => {
    expect(() => launchStdio({ command: "sh", pollAfterWriteMs: 0 })).not.toThrow();
    expect(() => launchStdio({ command: "sh", pollAfterWriteMs: 10 })).not.toThrow();
  });

  it("fails a missing command before anything is spawned", () => {
    const before = liveChildren().length;
    expect(() => launchStdio({ command: "definitely-not-a-command-mcpkit" })).toThrow(
      expect.objectContaining({
        code: "INVALID_CONFIG",
        message: expect.stringMatching(/not found on PATH/),
      }),
    );
    expect(liveChildren().length).toBe(before);
  });

  it("resolves a bare name to an absolute path, from the caller's PATH when it gives one", () => {
    expect(launchStdio({ command: "sh" }).command).toMatch(/^\/.+\/sh$/);
    const dir = mkdtempSync(join(scratch, "bin-"));
    writeFileSync(join(dir, "my-server"), "#!/bin/sh\nexec cat\n");
    chmodSync(join(dir, "my-server"), 0o755);
    const launched = launchStdio({ command: "my-server", env: { PATH: dir } });
    expect(launched.command).toBe(join(dir, "my-server"));
    expect(launched.marker).toMatch(/^[0-9a-f-]{36}$/);
    expect(launched.pid).toBeUndefined();
  });

  it("rejects start() with TRANSPORT when the program cannot be executed, and closes cleanly after", async () => {
    const script = join(scratch, "bad-interpreter");
    writeFileSync(script, "#!/nonexistent/interpreter\n");
    chmodSync(script, 0o755);
    const transport = launchStdio({ command: script });
    const closes: unknown[] = [];
    const error = await rejectionOf(transport.start({ message: () => {}, close: (r) => closes.push(r) }));
    expect(error).toMatchObject({ code: "TRANSPORT", details: { code: "ENOENT" } });
    await transport.close();
    expect(await transport.closed).toMatchObject({ kind: "error", error: { code: "TRANSPORT" } });
    expect(closes).toEqual([]);
  });

  it("closes a transport that never started without spawning anything", async () => {
    const transport = launchStdio(scripted());
    await transport.close();
    expect(await transport.closed).toEqual({ kind: "local" });
    await expect(transport.start({ message: () => {}, close: () => {} })).rejects.toMatchObject({
      code: "PROTOCOL",
    });
    await expect(transport.send({ jsonrpc: "2.0", method: "x" })).rejects.toMatchObject({ code: "CLOSED" });
  });
});

describe("launchStdio runtime", () => {
  it("runs command and argv without a shell, in its own process group and cwd, with identity on messages", async () => {
    const p = await peer(["$HOME", "a b;c", "*"], { cwd: scratch, identity: { sub: "srv" } });
    const where = resultOf(await p.request("where"));
    expect(where).toEqual({ cwd: scratch, argv: ["$HOME", "a b;c", "*"], pid: p.transport.pid });
    const stat = systemProcessOps.stat(p.transport.pid as number);
    expect(stat?.pgrp).toBe(p.transport.pid);
    expect(stat?.pgrp).not.toBe(systemProcessOps.stat(process.pid)?.pgrp);
    expect(p.infos).toEqual([{ identity: { sub: "srv" } }]);
  });

  it("inherit: this environment plus the caller's entries and removals, plus the marker", async () => {
    const p = await peer([], { env: { MCPKIT_EXTRA: "1", HOME: undefined } });
    const { env } = resultOf(await p.request("env")) as { env: { [name: string]: string } };
    expect(env.MCPKIT_EXTRA).toBe("1");
    expect(env.PATH).toBe(process.env.PATH);
    expect(env).not.toHaveProperty("HOME");
    expect(env[STDIO_MARKER_ENV]?.split(":").at(-1)).toBe(p.transport.marker);
  });

  it("gateway preset: only the variables the caller lists, plus the marker", async () => {
    const p = await peer([], { policy: { preset: "gateway" }, env: { ONLY_THIS: "yes" } });
    const { env } = resultOf(await p.request("env")) as { env: { [name: string]: string } };
    const inherited = process.env[STDIO_MARKER_ENV];
    expect(env).toEqual({
      ONLY_THIS: "yes",
      [STDIO_MARKER_ENV]: inherited ? `${inherited}:${p.transport.marker}` : p.transport.marker,
    });
  });

  it("captures stderr up to maxStderrBytes, for the handler only, never logged", async () => {
    const written: string[] = [];
    const spies = [
      vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
        written.push(String(chunk));
        return true;
      }),
      vi.spyOn(console, "error"),
      vi.spyOn(console, "warn"),
      vi.spyOn(console, "log"),
    ];
    try {
      const captured: string[] = [];
      const p = await peer([], {
        policy: { stderr: "capture", maxStderrBytes: 1_000 },
        onStderr: (text) => captured.push(text),
      });
      await p.request("stderr", { text: "diag-", repeat: 500 });
      await p.transport.close();
      expect(captured.join("")).toBe("diag-".repeat(200));
      expect(p.transport.droppedStderrBytes).toBe(1_500);
      expect(written.filter((text) => text.includes("diag-"))).toEqual([]);
      for (const spy of spies.slice(1)) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it("rejects an oversized outbound message before writing it, naming the limit, and stays usable", async () => {
    const p = await peer([], { policy: { maxOutboundFrameBytes: 200 } });
    const error = await rejectionOf(p.request("echo", { text: "x".repeat(300) }));
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({
      code: "MESSAGE_TOO_LARGE",
      message: expect.stringMatching(/^frame: \d+ bytes, over maxOutboundFrameBytes \(200\)$/),
      details: { option: "maxOutboundFrameBytes", limit: 200 },
    });
    expect(resultOf(await p.request("lines"))).toEqual({ lines: 1 });
    expect(resultOf(await p.request("echo", { ok: true }))).toEqual({ ok: true });
  });

  it("waits for stdin to drain: sends stay pending while the child does not read, and fail on close", async () => {
    const transport = launchStdio({ command: "sleep", args: ["1000"] });
    await transport.start({ message: () => {}, close: () => {} });
    const settled: string[] = [];
    const big = { jsonrpc: "2.0" as const, method: "big", params: { pad: "x".repeat(300_000) } };
    const first = transport.send(big).then(
      () => settled.push("first"),
      (error: unknown) => settled.push(`first ${(error as McpkitError).code}`),
    );
    const second = transport.send(big).then(
      () => settled.push("second"),
      (error: unknown) => settled.push(`second ${(error as McpkitError).code}`),
    );
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual([]);
    await transport.close();
    await Promise.all([first, second]);
    expect(settled).toEqual(["first CLOSED", "second CLOSED"]);
  });

  it("closes once: the same promise twice, one local close reason, sends refused after", async () => {
    const p = await peer();
    const pid = p.transport.pid as number;
    const first = p.transport.close();
    expect(p.transport.close()).toBe(first);
    await first;
    await p.transport.close();
    expect(await p.closed).toEqual({ kind: "local" });
    expect(p.closeCalls()).toBe(1);
    expect(p.transport.failure).toBeUndefined();
    expect(alive(pid)).toBe(false);
    expect(marked(p.transport.marker)).toEqual([]);
    await expect(p.request("echo")).rejects.toMatchObject({ code: "CLOSED" });
    expect(p.transport.cleanupReport).toMatchObject({ trigger: "close", survivors: [], problems: [] });
  });

  it("SIGKILLs a root that ignores SIGTERM once shutdownTimeoutMs has passed", async () => {
    const p = await peer(["--ignore-term", "--linger"], { policy: { shutdownTimeoutMs: 300 } });
    await p.request("echo");
    const started = performance.now();
    await p.transport.close();
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(p.transport.cleanupReport).toMatchObject({
      groupSignals: ["SIGTERM", "SIGKILL"],
      rootExit: { code: null, signal: "SIGKILL" },
      survivors: [],
    });
  });
});

describe("launchStdio: polling after a write", () => {
  const immediates = () => process.getActiveResourcesInfo().filter((kind) => kind === "Immediate").length;

  it("keeps the loop turning right after a write, unless pollAfterWriteMs is 0", async () => {
    for (const [pollAfterWriteMs, polls] of [
      [undefined, true],
      [0, false],
      [0.1, true],
    ] as const) {
      const transport = launchStdio({
        command: "sh",
        args: ["-c", "cat >/dev/null"],
        ...(pollAfterWriteMs === undefined ? {} : { pollAfterWriteMs }),
      });
      await transport.start({ message: () => {}, close: () => {} });
      const before = immediates();
      await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      expect(immediates() > before, String(pollAfterWriteMs)).toBe(polls);
      await transport.close();
    }
  });
});
