/**
 * Errors that say why a launched server ended: real subprocesses that die at start-up, print garbage or flood
 * stderr, driven by an mcpkit Client. The stderr tail is kept in every mode, bounded, quoted in the error and
 * never logged.
 */
import { afterEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { alive, eventually, marked, openPeer, rejectionOf } from "../../test/fixtures/stdio/harness.js";
import { Client } from "../client/client.js";
import type { McpkitError } from "../jsonrpc/errors.js";
import { type LaunchedStdio, type LaunchStdioOptions, launchStdio } from "./launcher.js";

const launched: LaunchedStdio[] = [];
afterEach(async () => {
  await Promise.allSettled(launched.splice(0).map((transport) => transport.close()));
});

/** Connects an mcpkit Client to `node <args>` and returns the error connect() failed with. */
async function connectFails(args: string[], options: Partial<LaunchStdioOptions> = {}) {
  const transport = launchStdio({ command: process.execPath, args, ...options });
  launched.push(transport);
  const client = new Client({ transport, clientInfo: { name: "diagnostics", version: "1.0.0" } });
  const error = (await rejectionOf(client.connect())) as McpkitError;
  await transport.closed;
  expect(alive(transport.pid as number)).toBe(false);
  expect(marked(transport.marker)).toEqual([]);
  return { error, transport, cause: error.cause as McpkitError };
}

/** Records everything written to this process's stderr and console while `run` runs. */
async function watchingLogs<T>(run: () => Promise<T>): Promise<{ result: T; logged: string }> {
  const written: string[] = [];
  const spies: MockInstance[] = [
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      written.push(String(chunk));
      return true;
    }),
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
      written.push(String(chunk));
      return true;
    }),
  ];
  for (const method of ["error", "warn", "log", "info", "debug"] as const) {
    spies.push(
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => written.push(args.join(" "))),
    );
  }
  try {
    const result = await run();
    return { result, logged: written.join("") };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** A node script that floods stderr with `mb` megabytes of lines, then writes `last` and exits with `code`. */
function floodScript(mb: number, last: string, code: number): string {
  return `
    const line = "x".repeat(1023) + "\\n";
    let left = ${mb} * 1024;
    const go = () => {
      while (left > 0) {
        left--;
        if (!process.stderr.write(line)) return process.stderr.once("drain", go);
      }
      process.stderr.write(${JSON.stringify(last)}, () => process.exit(${code}));
    };
    go();`;
}

describe("a server that dies at start-up: connect() says why", () => {
  it("a missing module: the exit code and Node's error, quoted from stderr, and nothing logged", async () => {
    const { result, logged } = await watchingLogs(() => connectFails(["/nonexistent/mcpkit-missing.mjs"]));
    const { error, cause, transport } = result;
    expect(error).toMatchObject({ code: "CLOSED", details: { kind: "remote" } });
    expect(error.message).toMatch(
      /^the transport closed: the stdio server process exited with code 1\nits stderr:\n {2}\| /,
    );
    expect(error.message).toContain("  | Error: Cannot find module '/nonexistent/mcpkit-missing.mjs'");
    // The launcher's own error is the cause, with the tail as a detail.
    expect(cause).toMatchObject({
      code: "CLOSED",
      details: { exitCode: 1, signal: null, stderrTail: expect.stringContaining("Cannot find module") },
    });
    expect(transport.stderrTail).toBe(cause.details?.stderrTail);
    expect(transport.failure).toBe(cause);
    // The default mode is "ignore": the tail explains the error and goes nowhere else.
    expect(transport.policy.stderr).toBe("ignore");
    expect(logged).not.toContain("Cannot find module");
  });

  it("a bad flag: the whole message reads as one sentence and the quoted line", async () => {
    const { error } = await connectFails(["--mcpkit-bad-flag"]);
    // Which the launcher hears first, the exit or the broken pipe of its initialize write, is the kernel's race:
    // either way the message names the exit code and quotes the line.
    expect(error.message).toMatch(
      /^the transport closed: (the stdio server process exited with code 9|writing to the stdio server's stdin failed \(the server process exited with code 9\))\nits stderr:\n {2}\| \S*node: bad option: --mcpkit-bad-flag$/,
    );
  });

  it("a server that throws while starting, after writing to stderr", async () => {
    const script = `console.error("loading config from /etc/demo.json"); throw new Error("config is invalid: port must be a number");`;
    const { error } = await connectFails(["-e", script]);
    expect(error.message).toContain("exited with code 1");
    expect(error.message).toContain("  | loading config from /etc/demo.json");
    expect(error.message).toContain("  | Error: config is invalid: port must be a number");
  });

  it("garbage on stdout: the protocol error quotes the line, and the stderr tail follows", async () => {
    const script = `console.error("starting demo server"); console.log("Server listening on stdio"); setInterval(() => {}, 1000);`;
    const { error, cause } = await connectFails(["-e", script]);
    expect(error.message).toBe(
      'the transport closed: the stdio server wrote a line that is not a JSON-RPC message (line 1: Parse error): "Server listening on stdio"\nits stderr:\n  | starting demo server',
    );
    expect(cause).toMatchObject({
      code: "PROTOCOL",
      details: { line: 1, preview: "Server listening on stdio", stderrTail: "starting demo server" },
    });
  });

  it("a server that closes its stdin: the failed write says so, and quotes its stderr", async () => {
    const script = `require("node:fs").closeSync(0); console.error("stdin closed on purpose"); setInterval(() => {}, 1000);`;
    const p = await openPeer({ command: process.execPath, args: ["-e", script] });
    launched.push(p.transport);
    await eventually(() => p.transport.stderrTail === "stdin closed on purpose");
    const pending = rejectionOf(p.request("ping"));
    const reason = await p.closed;
    expect(reason.error).toMatchObject({ code: "TRANSPORT", cause: { code: "EPIPE" } });
    // The server did not exit on its own: the SIGTERM cleanup sent it is not named as the reason.
    expect(reason.error?.message).toBe(
      "writing to the stdio server's stdin failed\nits stderr:\n  | stdin closed on purpose",
    );
    // The request fails with the close reason, or with its send's refusal naming it: either says why.
    const failed = (await pending) as McpkitError;
    expect(failed.message).toContain(
      "writing to the stdio server's stdin failed\nits stderr:\n  | stdin closed",
    );
    // A later send says why the transport is closed.
    const later = (await rejectionOf(p.request("ping"))) as McpkitError;
    expect(later).toMatchObject({ code: "CLOSED", cause: reason.error });
    expect(later.message).toBe(`the stdio transport is closed: ${reason.error?.message}`);
  });

  it("a server that exits cleanly at once, having written nothing, says only that", async () => {
    const { error } = await connectFails(["-e", "process.exit(0)"]);
    expect(error.message).toBe("the transport closed: the stdio server process exited with code 0");
  });

  it("escape sequences and control characters are removed from the quote", async () => {
    const script = String.raw`process.stderr.write("\u001b[31mred\u001b[0m alert\u0007\r\nnext\u0000line\n", () => process.exit(2))`;
    const { error } = await connectFails(["-e", script]);
    expect(error.message).toMatch(/\n {2}\| red alert\n {2}\| nextline$/);
  });
});

describe("the stderr tail is bounded", () => {
  it("4 MB on stderr: the tail keeps the last 4,096 bytes, ending with the last line", async () => {
    const { error, transport } = await connectFails(["-e", floodScript(4, "fatal: out of cheese\n", 3)]);
    const tail = transport.stderrTail;
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(4_096);
    expect(Buffer.byteLength(tail)).toBeGreaterThan(4_000);
    expect(tail.endsWith("\nfatal: out of cheese")).toBe(true);
    expect(error.message).toContain("exited with code 3\nthe end of its stderr:\n");
    expect(error.message.endsWith("  | fatal: out of cheese")).toBe(true);
    expect(error.message.length).toBeLessThan(4_096 + 200);
  });

  it("stderrTailBytes sets the bound; 0 keeps nothing", async () => {
    const small = await connectFails(["-e", floodScript(1, "last words\n", 4)], {
      policy: { stderrTailBytes: 64 },
    });
    expect(Buffer.byteLength(small.transport.stderrTail)).toBeLessThanOrEqual(64);
    expect(small.error.message.endsWith("  | last words")).toBe(true);
    const none = await connectFails(["-e", floodScript(1, "last words\n", 4)], {
      policy: { stderrTailBytes: 0 },
    });
    expect(none.transport.stderrTail).toBe("");
    expect(none.error.message).toBe("the transport closed: the stdio server process exited with code 4");
  });
});

describe("the tail in the other stderr modes", () => {
  it("capture: the handler still gets everything, and the error quotes the tail", async () => {
    const captured: string[] = [];
    const script = `process.stderr.write("boot failed: EADDRINUSE\\n", () => process.exit(5))`;
    const { error } = await connectFails(["-e", script], {
      policy: { stderr: "capture" },
      onStderr: (text) => captured.push(text),
    });
    expect(captured.join("")).toBe("boot failed: EADDRINUSE\n");
    expect(error.message).toContain("exited with code 5\nits stderr:\n  | boot failed: EADDRINUSE");
  });

  it("inherit: stderr still reaches this process's stderr, and the error quotes the tail", async () => {
    const script = `process.stderr.write("inherited diagnostics\\n", () => process.exit(6))`;
    const { result, logged } = await watchingLogs(() =>
      connectFails(["-e", script], { policy: { stderr: "inherit" } }),
    );
    expect(logged).toContain("inherited diagnostics\n");
    expect(result.error.message).toContain("exited with code 6\nits stderr:\n  | inherited diagnostics");
  });
});
