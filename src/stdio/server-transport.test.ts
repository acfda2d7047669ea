import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { PassThrough, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { builtFixture } from "../../test/support/fixture-build.js";
import { fixtureServer } from "../../test/support/fixture-server.js";
import { stdioPipes } from "../../test/support/stdio-pipes.js";
import { until } from "../../test/support/until.js";
import { useWireValidation, WireValidator, wrapTransport } from "../../test/support/validating-transport.js";
import { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type { TransportCloseReason } from "../transports/transport.js";
import type { StdioPolicyInput } from "./policy.js";
import { StdioServerTransport, type StdioServerTransportOptions, serveStdio } from "./server-transport.js";

useWireValidation();

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const PING = { jsonrpc: "2.0", id: 7, method: "ping" } as const;

/** A started transport over in-memory streams, recording what it delivers and how it ends. */
async function started(options: Omit<StdioServerTransportOptions, "input" | "output"> = {}) {
  const io = stdioPipes();
  const transport = new StdioServerTransport({ input: io.input, output: io.output, ...options });
  const messages: JsonRpcMessage[] = [];
  const closes: TransportCloseReason[] = [];
  await transport.start({ message: (m) => messages.push(m), close: (r) => closes.push(r) });
  return { ...io, transport, messages, closes };
}

function limitError(reason: TransportCloseReason | undefined): McpkitError {
  expect(reason?.kind).toBe("error");
  const error = reason?.error;
  expect(error).toBeInstanceOf(McpkitError);
  return error as McpkitError;
}

describe("StdioServerTransport: frames", () => {
  it("delivers one message per line, across chunk boundaries and CRLF, skipping blank lines", async () => {
    const t = await started();
    const text = JSON.stringify(PING);
    t.input.write(text.slice(0, 5));
    t.input.write(`${text.slice(5)}\r\n\n   \n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`);
    await until(() => t.messages.length === 2);
    expect(t.messages).toEqual([PING, { jsonrpc: "2.0", method: "notifications/initialized" }]);
    await t.transport.send({ jsonrpc: "2.0", id: 7, result: {} });
    expect(t.lines).toEqual(['{"jsonrpc":"2.0","id":7,"result":{}}']);
    expect(t.closes).toEqual([]);
  });

  it("answers malformed frames with a JSON-RPC error, id-less when no request id can be read, and goes on", async () => {
    const t = await started();
    const validator = new WireValidator("2025-11-25");
    t.write("{not json", "[1,2]", '"text"', "42", '{"jsonrpc":"2.0","id":3,"result":1}');
    t.input.write(Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0a])); // binary garbage, invalid UTF-8
    t.write(PING);
    await until(() => t.messages.length === 1 && t.lines.length === 6);
    expect(t.messages).toEqual([PING]);
    const codes = t.frames().map((f) => (f.error as { code: number }).code);
    expect(codes).toEqual([-32700, -32600, -32600, -32600, -32600, -32700]);
    for (const frame of t.frames()) {
      expect(Object.keys(frame).sort()).toEqual(["error", "jsonrpc"]);
      validator.check(frame, "server");
    }
    expect(t.closes).toEqual([]);
  });

  it("answers a malformed request whose id is readable with an error carrying that id", async () => {
    const t = await started();
    const validator = new WireValidator("2025-11-25");
    t.write('{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":"two","method":7}');
    t.write('{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[]}', '{"id":4,"method":"ping"}');
    await until(() => t.lines.length === 4);
    expect(t.messages).toEqual([]);
    expect(t.frames().map((f) => [f.id, (f.error as { code: number }).code])).toEqual([
      [1, -32600],
      ["two", -32600],
      [3, -32600],
      [4, -32600],
    ]);
    for (const frame of t.frames()) validator.check(frame, "server");
    expect(t.frames()[2]).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32600, message: 'Invalid Request: "params" must be an object' },
    });
  });

  it("refuses a request that is not valid UTF-8 with -32700 instead of running it repaired", async () => {
    const t = await started();
    const text = JSON.stringify({ ...PING, params: { note: "?" } });
    const at = text.indexOf("?");
    for (const bad of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      t.input.write(
        Buffer.concat([
          Buffer.from(text.slice(0, at)),
          Buffer.from(bad),
          Buffer.from(`${text.slice(at + 1)}\n`),
        ]),
      );
    }
    t.write(PING);
    await until(() => t.messages.length === 1 && t.lines.length === 3);
    expect(t.messages).toEqual([PING]);
    expect(t.frames()).toEqual(
      Array.from({ length: 3 }, () => ({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } })),
    );
    expect(t.closes).toEqual([]);
  });

  it("survives a flood of garbage: replies wait for a slow reader, reading pauses, then it serves", async () => {
    const input = new PassThrough();
    const output = new PassThrough(); // nobody reads it yet
    const transport = new StdioServerTransport({ input, output });
    const messages: JsonRpcMessage[] = [];
    await transport.start({ message: (m) => messages.push(m), close() {} });
    input.write("x\n".repeat(5_000));
    await until(() => input.isPaused());
    input.write(`${JSON.stringify(PING)}\n`);
    await new Promise((r) => setTimeout(r, 10));
    // Bounded by the output's high-water mark plus one frame, not by the 5,000 replies owed.
    expect(output.writableLength).toBeLessThan(output.writableHighWaterMark + 100);
    expect(messages).toEqual([]);
    let replies = 0;
    output.on("data", (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 0x0a) replies++;
    });
    await until(() => replies === 5_000 && messages.length === 1);
    expect(messages).toEqual([PING]);
    await transport.close();
  });
});

describe("StdioServerTransport: limits", () => {
  it("closes with MESSAGE_TOO_LARGE naming maxFrameBytes for an oversized frame", async () => {
    const t = await started({ policy: { maxFrameBytes: 100 } });
    t.write({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(200) } }, PING);
    await until(() => t.closes.length === 1);
    const error = limitError(t.closes[0]);
    expect(error.code).toBe("MESSAGE_TOO_LARGE");
    expect(error.details).toEqual({ option: "maxFrameBytes", limit: 100, size: 260 });
    expect(error.message).toBe("an inbound frame: 260 bytes, over maxFrameBytes (100)");
    // Nothing after the oversized frame is delivered, and the transport is closed for sending.
    t.write(PING);
    await new Promise((r) => setTimeout(r, 10));
    expect(t.messages).toEqual([]);
    await expect(t.transport.send({ jsonrpc: "2.0", id: 7, result: {} })).rejects.toMatchObject({
      code: "CLOSED",
    });
    expect(t.closes).toHaveLength(1);
  });

  it("counts a frame that never ends against maxFrameBytes before its newline arrives", async () => {
    const t = await started({ policy: { maxFrameBytes: 100 } });
    for (let i = 0; i < 3; i++) t.input.write("y".repeat(40));
    await until(() => t.closes.length === 1);
    expect(limitError(t.closes[0]).details).toEqual({ option: "maxFrameBytes", limit: 100, size: 120 });
  });

  it("closes with MESSAGE_TOO_LARGE naming maxPendingStdoutBytes when buffered input overflows", async () => {
    const t = await started({ policy: { maxFrameBytes: 1_000, maxPendingStdoutBytes: 500 } });
    t.input.write("z".repeat(600));
    await until(() => t.closes.length === 1);
    const error = limitError(t.closes[0]);
    expect(error.code).toBe("MESSAGE_TOO_LARGE");
    expect(error.details).toEqual({ option: "maxPendingStdoutBytes", limit: 500, size: 600 });
  });

  it("rejects an oversized outbound message before writing it; a response becomes a -32603 for its id", async () => {
    const t = await started({ policy: { maxOutboundFrameBytes: 64 } });
    const big = {
      jsonrpc: "2.0" as const,
      method: "notifications/message",
      params: { data: "x".repeat(100) },
    };
    const notification = await t.transport.send(big).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(notification).toBeInstanceOf(McpkitError);
    expect(notification).toMatchObject({
      code: "MESSAGE_TOO_LARGE",
      details: { option: "maxOutboundFrameBytes", limit: 64 },
    });
    await expect(
      t.transport.send({ jsonrpc: "2.0", id: 9, result: { text: "y".repeat(100) } }),
    ).rejects.toMatchObject({ code: "MESSAGE_TOO_LARGE" });
    await until(() => t.lines.length === 1);
    expect(t.frames()).toEqual([
      {
        jsonrpc: "2.0",
        id: 9,
        error: {
          code: -32603,
          message:
            "Response too large for the server's stdio frame: 145 bytes, over maxOutboundFrameBytes (64)",
          data: { option: "maxOutboundFrameBytes", limit: 64, size: 145, reason: "response_too_large" },
        },
      },
    ]);
    // The transport goes on.
    await t.transport.send({ jsonrpc: "2.0", id: 10, result: {} });
    expect(t.lines).toHaveLength(2);
    expect(t.closes).toEqual([]);
  });

  it("checks its policy and options", () => {
    expect(() => new StdioServerTransport({ policy: { maxFrameBytes: 0 } })).toThrow(/maxFrameBytes/);
    expect(() => new StdioServerTransport({ policy: { bogus: 1 } as StdioPolicyInput })).toThrow(
      /stdio policy bogus is not an option/,
    );
    expect(() => new StdioServerTransport({ drainTimeoutMs: -1 })).toThrow(/drainTimeoutMs/);
    const transport = new StdioServerTransport({ policy: { preset: "gateway", maxFrameBytes: 2_048 } });
    expect(transport.limits.maxFrameBytes).toBe(2_048);
    expect(transport.limits.maxOutboundFrameBytes).toBe(1_000_000);
  });
});

describe("StdioServerTransport: end and close", () => {
  it("closes once with kind remote when the input ends", async () => {
    const t = await started();
    t.input.end();
    await until(() => t.closes.length === 1);
    expect(t.closes).toEqual([{ kind: "remote" }]);
    await t.transport.close();
    expect(t.closes).toHaveLength(1);
  });

  it("answers requests received before the input ended, then closes", async () => {
    const t = await started();
    t.write(PING);
    t.input.end();
    await until(() => t.messages.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(t.closes).toEqual([]);
    await t.transport.send({ jsonrpc: "2.0", id: 7, result: {} });
    expect(t.lines).toEqual(['{"jsonrpc":"2.0","id":7,"result":{}}']);
    expect(t.closes).toEqual([{ kind: "remote" }]);
  });

  it("does not wait for a cancelled request, nor past drainTimeoutMs", async () => {
    const cancelled = await started();
    cancelled.write(PING, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 7 },
    });
    cancelled.input.end();
    await until(() => cancelled.closes.length === 1);
    expect(cancelled.closes).toEqual([{ kind: "remote" }]);

    const slow = await started({ drainTimeoutMs: 30 });
    slow.write(PING);
    slow.input.end();
    const began = Date.now();
    await until(() => slow.closes.length === 1);
    expect(Date.now() - began).toBeGreaterThanOrEqual(25);
    expect(slow.closes).toEqual([{ kind: "remote" }]);
  });

  it("does not wait for an open subscriptions/listen when the input ends", async () => {
    const t = await started();
    t.write({ jsonrpc: "2.0", id: 3, method: "subscriptions/listen", params: { notifications: {} } });
    await until(() => t.messages.length === 1);
    t.input.end();
    await until(() => t.closes.length === 1);
    expect(t.closes).toEqual([{ kind: "remote" }]);
  });

  it("close(): kind local once, idempotent, sends rejected, streams left open", async () => {
    const t = await started();
    await t.transport.close();
    await t.transport.close();
    expect(t.closes).toEqual([{ kind: "local" }]);
    await expect(t.transport.send(PING as JsonRpcMessage)).rejects.toMatchObject({ code: "CLOSED" });
    t.write(PING);
    await new Promise((r) => setTimeout(r, 10));
    expect(t.messages).toEqual([]);
    expect(t.output.writableEnded).toBe(false);
    expect(t.input.destroyed).toBe(false);
  });

  it("leaves no listeners behind on shared streams but one error guard", async () => {
    const io = stdioPipes();
    for (let i = 0; i < 20; i++) {
      const transport = new StdioServerTransport({ input: io.input, output: io.output });
      await transport.start({ message() {}, close() {} });
      await transport.close();
    }
    expect(io.input.listenerCount("error")).toBe(1);
    expect(io.output.listenerCount("error")).toBe(1);
    expect(io.input.listenerCount("end") + io.output.listenerCount("drain")).toBe(0);
    io.output.destroy(new Error("late EPIPE")); // heard by the guard: no crash
    await new Promise((r) => setTimeout(r, 5));
  });

  it("refuses a second start", async () => {
    const t = await started();
    await expect(t.transport.start({ message() {}, close() {} })).rejects.toMatchObject({ code: "PROTOCOL" });
  });

  it("closes with a TRANSPORT error when the output fails, and survives later stream errors", async () => {
    const t = await started();
    t.output.destroy(new Error("EPIPE"));
    await until(() => t.closes.length === 1);
    expect(limitError(t.closes[0])).toMatchObject({ code: "TRANSPORT", message: "the output stream failed" });
    t.input.destroy(new Error("late"));
    await new Promise((r) => setTimeout(r, 10));
    expect(t.closes).toHaveLength(1);
  });

  it("closes with a TRANSPORT error when the message handler throws", async () => {
    const io = stdioPipes();
    const transport = new StdioServerTransport({ input: io.input, output: io.output });
    const closes: TransportCloseReason[] = [];
    await transport.start({
      message: () => {
        throw new Error("handler bug");
      },
      close: (r) => closes.push(r),
    });
    io.write(PING);
    await until(() => closes.length === 1);
    expect(limitError(closes[0])).toMatchObject({ code: "TRANSPORT", cause: { message: "handler bug" } });
  });
});

describe("StdioServerTransport: backpressure", () => {
  it("waits for drain before the next write and pauses the input meanwhile", async () => {
    const input = new PassThrough();
    const callbacks: Array<() => void> = [];
    const written: string[] = [];
    const output = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString("utf8"));
        callbacks.push(() => callback());
      },
    });
    const transport = new StdioServerTransport({ input, output });
    await transport.start({ message() {}, close() {} });
    let firstDone = false;
    let secondDone = false;
    const first = transport.send({ jsonrpc: "2.0", id: 1, result: {} }).then(() => {
      firstDone = true;
    });
    const second = transport.send({ jsonrpc: "2.0", id: 2, result: {} }).then(() => {
      secondDone = true;
    });
    await until(() => written.length === 1);
    await new Promise((r) => setTimeout(r, 10));
    expect(firstDone).toBe(false);
    expect(written).toHaveLength(1);
    expect(input.isPaused()).toBe(true);
    callbacks.shift()?.();
    await first;
    await until(() => written.length === 2);
    expect(secondDone).toBe(false);
    callbacks.shift()?.();
    await second;
    await until(() => !input.isPaused());
    expect(written.map((w) => JSON.parse(w).id)).toEqual([1, 2]);
    await transport.close();
  });

  it("writes at once while nothing waits for drain, and again once a drain has come", async () => {
    const callbacks: Array<() => void> = [];
    const written: number[] = [];
    const output = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _encoding, callback) {
        written.push(JSON.parse(chunk.toString("utf8")).id);
        callbacks.push(() => callback());
      },
    });
    const transport = new StdioServerTransport({ input: new PassThrough(), output });
    await transport.start({ message() {}, close() {} });
    const big = { jsonrpc: "2.0" as const, id: 1, result: { pad: "x".repeat(100) } };
    const first = transport.send(big);
    expect(written).toEqual([1]);
    const second = transport.send({ jsonrpc: "2.0", id: 2, result: {} });
    expect(written).toEqual([1]);
    callbacks.shift()?.();
    await first;
    await until(() => written.length === 2);
    callbacks.shift()?.();
    await second;
    const third = transport.send({ jsonrpc: "2.0", id: 3, result: {} });
    expect(written).toEqual([1, 2, 3]);
    callbacks.shift()?.();
    await third;
    await transport.close();
  });

  it("rejects a write waiting for drain when the transport closes", async () => {
    const output = new Writable({ highWaterMark: 1, write() {} });
    const transport = new StdioServerTransport({ input: new PassThrough(), output });
    await transport.start({ message() {}, close() {} });
    const pending = transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    const queued = transport.send({ jsonrpc: "2.0", id: 2, result: {} });
    await new Promise((r) => setTimeout(r, 5));
    await transport.close();
    await expect(pending).rejects.toMatchObject({ code: "CLOSED" });
    await expect(queued).rejects.toMatchObject({ code: "CLOSED" });
  });
});

describe("serving a Server on stdio streams", () => {
  it("serves both eras' traffic through a validated StdioServerTransport", async () => {
    const io = stdioPipes();
    const validator = WireValidator.auto();
    const transport = wrapTransport(
      new StdioServerTransport({ input: io.input, output: io.output }),
      "server",
      validator,
    );
    const connection = await fixtureServer().connect(transport);
    io.write(INITIALIZE);
    await until(() => io.lines.length === 1);
    io.write({ jsonrpc: "2.0", method: "notifications/initialized" });
    io.write({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "add", arguments: { a: 1, b: 2 } },
    });
    await until(() => io.lines.length === 2);
    expect(io.frames()[1]).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "3" }] },
    });
    io.input.end();
    expect(await connection.closed).toEqual({ kind: "remote" });
    expect(validator.count).toBe(5);
  });

  it("serveStdio resolves with kind remote when the input ends, after answering", async () => {
    const io = stdioPipes();
    const served = serveStdio(fixtureServer(), { input: io.input, output: io.output });
    io.write(INITIALIZE);
    io.input.end();
    expect(await served).toEqual({ kind: "remote" });
    expect(io.frames()[0]).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
  });

  it("serveStdio resolves with kind local when its signal fires", async () => {
    const io = stdioPipes();
    const stop = new AbortController();
    const served = serveStdio(fixtureServer(), { input: io.input, output: io.output, signal: stop.signal });
    stop.abort();
    expect(await served).toEqual({ kind: "local" });
  });

  it("serveStdio rejects with the limit error for an oversized frame", async () => {
    const io = stdioPipes();
    const served = serveStdio(fixtureServer(), {
      input: io.input,
      output: io.output,
      policy: { maxFrameBytes: 64 },
    });
    io.write({ ...INITIALIZE, params: { ...INITIALIZE.params, pad: "p".repeat(64) } });
    await expect(served).rejects.toMatchObject({
      code: "MESSAGE_TOO_LARGE",
      details: { option: "maxFrameBytes", limit: 64 },
    });
  });
});

describe("a real subprocess on stdin/stdout", () => {
  const fixture = builtFixture("fixture-server");
  const built = fileURLToPath(new URL("../../dist/stdio/index.js", import.meta.url));
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  });

  function run(env: { [key: string]: string } = {}) {
    expect(existsSync(built), "run `npm run build` first (npm test does)").toBe(true);
    const child = spawn(process.execPath, [fixture], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const lines = () => stdout.split("\n").filter((l) => l !== "");
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    return { child, exited, lines, send, stderr: () => stderr };
  }

  it("serves, keeps stdout to frames, answers in-flight requests and exits 0 on stdin end", async () => {
    const p = run();
    p.send(INITIALIZE);
    await until(() => p.lines().length === 1);
    p.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    p.child.stdin.write("not json\n");
    p.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "stderr", arguments: {} } });
    p.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "sleep", arguments: { ms: 150 } },
    });
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
    const frames = p.lines().map((line) => JSON.parse(line) as { id?: number; error?: { code: number } });
    expect(frames.map((f) => f.id ?? f.error?.code)).toEqual([1, -32700, 2, 3]);
    expect(frames[3]).toMatchObject({ result: { content: [{ text: "slept 150" }] } });
    expect(p.stderr()).toContain("fixture: the stderr tool ran");
  });

  it("exits 1 with the limit on stderr for an oversized frame, stdin still open", async () => {
    const p = run({ MCPKIT_FIXTURE_POLICY: JSON.stringify({ maxFrameBytes: 256 }) });
    p.send({ ...INITIALIZE, params: { ...INITIALIZE.params, pad: "p".repeat(300) } });
    expect(await p.exited).toBe(1);
    expect(p.lines()).toEqual([]);
    expect(p.stderr()).toContain("over maxFrameBytes (256)");
  });
});

describe("StdioServerTransport: polling after a write", () => {
  const immediates = () => process.getActiveResourcesInfo().filter((kind) => kind === "Immediate").length;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it("keeps the loop turning right after a write, and not once closed", async () => {
    const t = await started();
    const before = immediates();
    await t.transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(immediates()).toBeGreaterThan(before);
    await t.transport.close();
    await turn();
    await turn();
    expect(immediates()).toBe(before);
  });

  it("does not poll with pollAfterWriteMs 0, and refuses a window out of range", async () => {
    const t = await started({ pollAfterWriteMs: 0 });
    const before = immediates();
    await t.transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(immediates()).toBe(before);
    await t.transport.close();
    expect(() => new StdioServerTransport({ pollAfterWriteMs: 11 })).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG" }),
    );
  });
});
