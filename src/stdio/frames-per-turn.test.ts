/**
 * `maxFramesPerTurn` on both ends of stdio: the server transport (over in-memory streams) and the launcher
 * (reading a real child's stdout). Turns are counted by a `setImmediate` ticker scheduled before the frames
 * arrive: it advances once per turn of the event loop, so the frames handled under one tick value were handled
 * in one turn.
 */
import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { scripted } from "../../test/fixtures/stdio/harness.js";
import { stdioPipes } from "../../test/support/stdio-pipes.js";
import { until } from "../../test/support/until.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import { ServerBuilder } from "../server/authoring/builder.js";
import { type LaunchedStdio, launchStdio } from "./launcher.js";
import { StdioServerTransport } from "./server-transport.js";

/** Counts turns of the event loop until stopped. */
function turnCounter() {
  let turn = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turn++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turn() {
      return turn;
    },
    stop() {
      running = false;
    },
  };
}

/** How many of `turns` (the turn each frame was handled in) fell in each turn, in order. */
function perTurn(turns: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const turn of turns) counts.set(turn, (counts.get(turn) ?? 0) + 1);
  return [...counts.values()];
}

/** `count` notification frames in one string, numbered from 0. */
function notifications(count: number): string {
  return Array.from(
    { length: count },
    (_, n) => `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tick", params: { n } })}\n`,
  ).join("");
}

const numbers = (messages: readonly JsonRpcMessage[]) =>
  messages.map((m) => ("params" in m ? (m.params as { n: number }).n : -1));

describe("StdioServerTransport: maxFramesPerTurn", () => {
  async function started(policy: { maxFramesPerTurn?: number } = {}) {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StdioServerTransport({ input, output, policy });
    const messages: JsonRpcMessage[] = [];
    const turns: number[] = [];
    const counter = turnCounter();
    await transport.start({
      message: (message) => {
        messages.push(message);
        turns.push(counter.turn);
      },
      close: () => {},
    });
    return { input, transport, messages, turns, counter };
  }

  it("handles one chunk of 10,000 frames 100 per turn, in 100 turns, in order", async () => {
    const t = await started();
    t.input.write(notifications(10_000));
    await until(() => t.messages.length === 10_000);
    t.counter.stop();
    expect(perTurn(t.turns)).toEqual(Array.from({ length: 100 }, () => 100));
    expect(numbers(t.messages)).toEqual(Array.from({ length: 10_000 }, (_, n) => n));
    await t.transport.close();
  });

  it("takes ceil(N / maxFramesPerTurn) turns for N frames, a configured budget too", async () => {
    const t = await started({ maxFramesPerTurn: 7 });
    t.input.write(notifications(50));
    await until(() => t.messages.length === 50);
    t.counter.stop();
    expect(perTurn(t.turns)).toEqual([7, 7, 7, 7, 7, 7, 7, 1]);
    expect(numbers(t.messages)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    await t.transport.close();
  });

  it("answers every request of a 250-frame chunk that the input's end follows at once, in order", async () => {
    const { input, output, lines } = stdioPipes();
    const server = new ServerBuilder({ serverInfo: { name: "t", version: "1.0.0" } }).build();
    const connection = await server.connect(new StdioServerTransport({ input, output }));
    const pings = Array.from({ length: 250 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`);
    input.end(pings.join(""));
    expect(await connection.closed).toEqual({ kind: "remote" });
    expect(lines.map((line) => (JSON.parse(line) as { id: number }).id)).toEqual(
      Array.from({ length: 250 }, (_, i) => i),
    );
  });
});

describe("StdioServerTransport: maxFramesPerTurn and output backpressure", () => {
  it("keeps the input paused while the output has not drained, after its held frames are done", async () => {
    const input = new PassThrough();
    const written: string[] = [];
    const callbacks: (() => void)[] = [];
    // An output that takes nothing until the test lets it: the first answer fills it.
    const output = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString("utf8"));
        callbacks.push(callback);
      },
    });
    const server = new ServerBuilder({ serverInfo: { name: "t", version: "1.0.0" } }).build();
    await server.connect(new StdioServerTransport({ input, output }));
    let seen = 0;
    input.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8").split("\n").length - 1;
    });
    input.write(
      Array.from({ length: 250 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`).join(""),
    );
    await until(() => seen === 250 && written.length === 1);
    // Let every held frame be handled (three turns), then some.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(input.isPaused()).toBe(true);
    while (written.length < 250) {
      for (const callback of callbacks.splice(0)) callback();
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const callback of callbacks.splice(0)) callback();
    await until(() => !input.isPaused());
    expect(written.map((line) => (JSON.parse(line) as { id: number }).id)).toEqual(
      Array.from({ length: 250 }, (_, i) => i),
    );
  });
});

describe("launchStdio: maxFramesPerTurn", () => {
  const launched: LaunchedStdio[] = [];
  afterEach(async () => {
    await Promise.allSettled(launched.splice(0).map((transport) => transport.close()));
  });

  it("handles a flood the child writes at once at most maxFramesPerTurn frames per turn, in order", async () => {
    const transport = launchStdio(scripted([], { policy: { maxFramesPerTurn: 50 } }));
    launched.push(transport);
    const messages: JsonRpcMessage[] = [];
    const turns: number[] = [];
    const counter = turnCounter();
    await transport.start({
      message: (message) => {
        messages.push(message);
        turns.push(counter.turn);
      },
      close: () => {},
    });
    await transport.send({ jsonrpc: "2.0", id: 1, method: "raw", params: { text: notifications(1_000) } });
    await until(() => messages.length === 1_000);
    counter.stop();
    expect(numbers(messages)).toEqual(Array.from({ length: 1_000 }, (_, n) => n));
    // However the pipe cut the write into chunks: never more than 50 in one turn, so at least 20 turns.
    const counts = perTurn(turns);
    expect(Math.max(...counts)).toBe(50);
    expect(counts.length).toBeGreaterThanOrEqual(20);
  });

  it("delivers every frame of a flood the end of the child's stdout follows at once, then ends", async () => {
    const transport = launchStdio(scripted([], { policy: { maxFramesPerTurn: 10 } }));
    launched.push(transport);
    const messages: JsonRpcMessage[] = [];
    let closedAfter = -1;
    await transport.start({
      message: (message) => {
        messages.push(message);
        // A slow consumer: delivery outlasts the launcher's grace after end-of-file (200 ms) many times over.
        const busyUntil = performance.now() + 1;
        while (performance.now() < busyUntil);
      },
      close: () => {
        closedAfter = messages.length;
      },
    });
    // Small frames, so that most of them come in the last chunk before end-of-file (17 kB fit a pipe).
    const text = Array.from({ length: 500 }, (_, n) => `{"jsonrpc":"2.0","method":"n/${n}"}\n`).join("");
    void transport.send({ jsonrpc: "2.0", id: 1, method: "raw", params: { text } });
    void transport.send({ jsonrpc: "2.0", id: 2, method: "closeStdout", params: {} });
    const reason = await transport.closed;
    expect(reason.error?.message).toMatch(/closed its stdout/);
    const methods = messages.map((m) => ("method" in m ? m.method : ""));
    expect(methods).toEqual(Array.from({ length: 500 }, (_, n) => `n/${n}`));
    expect(closedAfter).toBe(500);
  });
});
