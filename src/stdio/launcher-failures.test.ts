/**
 * A misbehaving stdio server: every kind of bad output ends the connection with a typed error (or is a clean
 * close), never a hang or a crash, and a dying root fails what is pending at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  alive,
  eventually,
  fixture,
  marked,
  openPeer,
  type RawPeer,
  rejectionOf,
  resultOf,
  scripted,
} from "../../test/fixtures/stdio/harness.js";
import type { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type { StdioPolicyInput } from "./policy.js";

const open: RawPeer[] = [];
async function peer(policy: StdioPolicyInput = {}, flags: string[] = []): Promise<RawPeer> {
  const launched = await openPeer(scripted(flags, { policy }));
  open.push(launched);
  return launched;
}
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((p) => p.transport.close()));
});

/** Waits for the end and checks it was a clean, complete one: nothing of the launch left running. */
async function endedWith(p: RawPeer) {
  const reason = await p.closed;
  expect(p.closeCalls()).toBe(1);
  expect(p.transport.cleanupReport?.survivors).toEqual([]);
  expect(alive(p.transport.pid as number)).toBe(false);
  expect(marked(p.transport.marker)).toEqual([]);
  // A later close() reports the cleanup's outcome (success here) and changes nothing.
  await p.transport.close();
  return reason;
}

const methodsOf = (messages: JsonRpcMessage[]) => messages.flatMap((m) => ("method" in m ? [m.method] : []));

describe("a stdout line that is not a JSON-RPC message fails the connection", () => {
  it("refuses a banner printed before the first frame", async () => {
    const p = await openPeer({ command: fixture("banner.sh") });
    open.push(p);
    const reason = await endedWith(p);
    expect(reason).toMatchObject({
      kind: "error",
      error: {
        code: "PROTOCOL",
        message: expect.stringMatching(/not a JSON-RPC message \(line 1: Parse error\)/),
        details: { line: 1, jsonRpcCode: -32700, preview: "my-server 1.0 starting on stdio..." },
      },
    });
    expect(p.transport.failure).toBe(reason.error);
  });

  it.each([
    ["invalid JSON", "{not json", -32700],
    ["an array", "[1,2,3]", -32600],
    ["a number", "42", -32600],
    ["a string", '"hello"', -32600],
    ["null", "null", -32600],
    ["an object that is not JSON-RPC", '{"hello":"world"}', -32600],
    ["a response without an id", '{"jsonrpc":"2.0","result":{}}', -32600],
  ])("%s", async (_name, line, jsonRpcCode) => {
    const p = await peer();
    const pending = p.request("hang");
    await p.fire("raw", { text: `${line}\n` });
    const error = await rejectionOf(pending);
    expect(error).toMatchObject({ code: "PROTOCOL", details: { jsonRpcCode, preview: line } });
    expect((await endedWith(p)).error).toBe(error);
  });

  it("binary garbage", async () => {
    const p = await peer();
    const garbage = Buffer.from(
      Array.from({ length: 512 }, (_, i) => (i * 37 + 11) % 256).filter((b) => b !== 10),
    );
    await p.fire("raw", { base64: Buffer.concat([garbage, Buffer.from("\n")]).toString("base64") });
    const reason = await endedWith(p);
    expect(reason.error).toMatchObject({ code: "PROTOCOL", details: { jsonRpcCode: -32700 } });
    const preview = (reason.error as McpkitError).details?.preview;
    expect(typeof preview === "string" && preview.length).toBeLessThan(70);
  });

  it("a line that is not valid UTF-8, even one that would parse once repaired", async () => {
    const p = await peer();
    const pending = p.request("hang");
    const text = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"?"}}';
    const at = text.indexOf("?");
    const line = Buffer.concat([
      Buffer.from(text.slice(0, at)),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from(`${text.slice(at + 1)}\n`),
    ]);
    await p.fire("raw", { base64: line.toString("base64") });
    const error = await rejectionOf(pending);
    expect(error).toMatchObject({
      code: "PROTOCOL",
      message: expect.stringContaining("(line 1: Parse error: invalid UTF-8)"),
      details: { line: 1, jsonRpcCode: -32700 },
    });
    expect((await endedWith(p)).error).toBe(error);
    expect(p.received).toEqual([]);
  });

  it("delivers the frames before the bad line in the same chunk, and nothing after it", async () => {
    const p = await peer();
    const frame = (method: string) => JSON.stringify({ jsonrpc: "2.0", method });
    await p.fire("raw", { text: `${frame("before")}\nGARBAGE\n${frame("after")}\n` });
    await endedWith(p);
    expect(methodsOf(p.received)).toEqual(["before"]);
  });

  it("skips blank lines and accepts CRLF", async () => {
    const p = await peer();
    await p.fire("raw", { text: '\n   \n\t\r\n{"jsonrpc":"2.0","method":"crlf"}\r\n' });
    expect(resultOf(await p.request("echo", { still: "open" }))).toEqual({ still: "open" });
    expect(methodsOf(p.received)).toEqual(["crlf"]);
  });
});

describe("byte limits on stdout", () => {
  it("an oversized frame closes with MESSAGE_TOO_LARGE naming maxFrameBytes", async () => {
    const p = await peer({ maxFrameBytes: 1_000 });
    const pending = p.request("hang");
    await p.fire("raw", { text: `{"jsonrpc":"2.0","method":"x","params":{"p":"${"x".repeat(2_000)}"}}\n` });
    const error = await rejectionOf(pending);
    expect(error).toMatchObject({
      code: "MESSAGE_TOO_LARGE",
      message: expect.stringMatching(/^a stdout frame: (at least )?\d+ bytes, over maxFrameBytes \(1000\)$/),
      details: { option: "maxFrameBytes", limit: 1_000 },
    });
    await endedWith(p);
  });

  it("output that never ends its line closes with MESSAGE_TOO_LARGE naming maxPendingStdoutBytes", async () => {
    const p = await peer({ maxFrameBytes: 100_000, maxPendingStdoutBytes: 500 });
    await p.fire("raw", { text: `{"jsonrpc":"2.0",${" ".repeat(800)}` });
    expect((await endedWith(p)).error).toMatchObject({
      code: "MESSAGE_TOO_LARGE",
      message: expect.stringMatching(/: at least \d+ bytes, over maxPendingStdoutBytes \(500\)$/),
      details: { option: "maxPendingStdoutBytes", limit: 500 },
    });
  });

  it("a flood of valid frames is delivered in order", async () => {
    const p = await peer();
    expect(resultOf(await p.request("flood", { count: 20_000 }))).toEqual({ sent: 20_000 });
    const ticks = p.received.filter((m) => "method" in m && m.method === "tick");
    expect(ticks).toHaveLength(20_000);
    expect(ticks.every((m, n) => "params" in m && m.params?.n === n)).toBe(true);
  });

  it("closing in the middle of an endless flood is quick and clean", async () => {
    const p = await peer();
    await p.fire("flood", { count: 100_000_000 });
    await eventually(() => p.received.length >= 1_000);
    const started = performance.now();
    await p.transport.close();
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await endedWith(p)).toEqual({ kind: "local" });
  });
});

describe("the root process exiting on its own", () => {
  it("fails pending requests at once with CLOSED carrying the exit code", async () => {
    const p = await peer();
    const pending = p.request("hang");
    const started = performance.now();
    await p.fire("exit", { code: 7 });
    const error = await rejectionOf(pending);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(error).toMatchObject({
      code: "CLOSED",
      message: "the stdio server process exited with code 7",
      details: { exitCode: 7, signal: null },
    });
    expect(await endedWith(p)).toMatchObject({ kind: "remote", error });
    expect(p.transport.exit).toEqual({ code: 7, signal: null });
    expect(p.transport.cleanupReport?.trigger).toBe("exit");
  });

  it("still delivers what the root wrote just before exiting", async () => {
    const p = await peer();
    expect(resultOf(await p.request("exit", { code: 0, answer: true }))).toEqual({ exiting: 0 });
    expect(await endedWith(p)).toMatchObject({ kind: "remote", error: { details: { exitCode: 0 } } });
  });

  it("end-of-file on stdout while the root lives ends the connection: pending calls fail with CLOSED at once", async () => {
    const p = await peer();
    const pending = p.request("hang");
    expect(resultOf(await p.request("closeStdout", { answer: true }))).toEqual({ closing: true });
    const error = await rejectionOf(pending);
    expect(error).toMatchObject({
      code: "CLOSED",
      message: "the stdio server closed its stdout while its process was still running",
      details: { stdout: "end" },
    });
    expect(await endedWith(p)).toMatchObject({ kind: "remote", error });
    // The close sequence ran: the root (which would have lived on) was terminated and reaped.
    expect(p.transport.cleanupReport).toMatchObject({ trigger: "eof", survivors: [] });
    expect(p.transport.exit).toEqual({ code: null, signal: "SIGTERM" });
    await expect(p.request("echo")).rejects.toMatchObject({
      code: "CLOSED",
      message: expect.stringContaining("closed its stdout"),
    });
  });

  it("reports the signal when the root is killed from outside", async () => {
    const p = await peer();
    const pending = p.request("hang");
    await p.request("echo");
    process.kill(p.transport.pid as number, "SIGKILL");
    await expect(pending).rejects.toMatchObject({
      code: "CLOSED",
      message: "the stdio server process was killed by SIGKILL",
      details: { exitCode: null, signal: "SIGKILL" },
    });
    await endedWith(p);
  });
});
