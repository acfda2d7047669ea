/**
 * The stdio runner: per run, a real `node fuzz/server.mjs stdio` subprocess; the run's inputs go to its stdin
 * (cut into writes at random points), every stdout line is matched against the oracle. A crash is an exit the
 * run did not ask for; a hang is a request with no answer while the server stops answering altogether (its
 * probe `ping` goes unanswered too); a lost answer is one missing while the server still answers the probe.
 * After the probe a run ends either by closing stdin (exit 0 expected) or with a frame past `maxFrameBytes`
 * (exit 3 expected, nothing more on stdout).
 */
import { AnswerBook, answerOf } from "./answers.mjs";
import { LIMITS } from "./catalog.mjs";
import { oversize, probe, stdioRun } from "./gen-stdio.mjs";
import { StdioOracle } from "./oracle-stdio.mjs";
import { preview, ServerProcess } from "./peer.mjs";
import { mixSeed, Rng } from "./prng.mjs";

/** Answers awaited at once: far under the server's handler queue, so none is refused for capacity. */
const WINDOW = 256;
/** Inputs per run (per server process): each run's size is drawn from this range. */
export const STDIO_RUN_SIZES = [1_000, 4_000];

/** The sizes of the runs that make up `count` inputs; each run's size comes from that run's own seed. */
export function plan(seed, transport, count, [low, high]) {
  const runs = [];
  for (let first = 0, run = 0; first < count; run++) {
    const rng = new Rng(mixSeed(seed, transport, run));
    const size = Math.min(rng.range(low, high), count - first);
    runs.push({ run, first, size, rng });
    first += size;
  }
  return runs;
}

/** Runs the stdio fuzz: `count` inputs from `seed` (only run `only` when given). */
export async function fuzzStdio({ seed, count, only, env, tally, progress, deadlineMs }) {
  const started = performance.now();
  for (const run of plan(seed, "stdio", count, STDIO_RUN_SIZES)) {
    if (only !== undefined && run.run !== only) continue;
    await runOnce(run, { seed, env, tally, idleMs: deadlineMs });
    progress?.(run.first + run.size);
  }
  tally.ms += performance.now() - started;
}

async function runOnce({ run, first, size, rng }, { seed, env, tally, idleMs }) {
  const { era, inputs } = stdioRun(rng, { size, firstIndex: first });
  const ending = rng.chance(0.35) ? oversize(rng) : undefined;
  const oracle = new StdioOracle({
    maxFrameBytes: LIMITS.stdioMaxFrameBytes,
    maxOutboundFrameBytes: LIMITS.stdioMaxOutboundFrameBytes,
  });
  const book = new AnswerBook();
  const server = new ServerProcess("stdio", env);
  const where = (index, extra = {}) => ({ seed, run, input: index, ...extra });
  let lastIndex = first;
  readLines(server.child.stdout, (line) => {
    if (line.length > LIMITS.stdioMaxOutboundFrameBytes) {
      tally.fail("over-limit", where(lastIndex, { bytes: line.length }));
    }
    let message;
    try {
      message = JSON.parse(line.toString("utf8"));
    } catch {
      return tally.fail("corrupt", where(lastIndex, { line: preview(line) }));
    }
    const { cls, key } = answerOf(message);
    if (cls === undefined) return tally.fail("extra", where(lastIndex, { got: preview(line) }));
    const { outcome, expectation } = book.receive(cls, key);
    if (outcome === "match") return tally.add("answers", cls);
    const detail = { got: cls, line: preview(line) };
    if (expectation) {
      Object.assign(detail, {
        input: expectation.input,
        expected: expectation.classes,
        note: expectation.note,
      });
    }
    tally.fail(outcome, where(expectation?.input ?? lastIndex, detail));
  });

  tally.runs++;
  let batch = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const bytes = Buffer.concat(batch);
    batch = [];
    for (const chunk of cut(rng, bytes)) if (!(await server.write(chunk))) return;
  };
  let crossed = false;
  for (const input of inputs) {
    tally.inputs++;
    tally.add("kinds", input.kind);
    lastIndex = input.index;
    const { expectations, fatal } = oracle.feed(input.bytes, input.index);
    if (fatal) {
      // An input the generator did not mean as the end crossed maxFrameBytes: the server must end here.
      await flush();
      await book.waitUntil(
        () => book.outstanding === 0,
        idleMs,
        () => server.alive,
      );
      crossed = true;
      await server.write(input.bytes);
      break;
    }
    for (const expectation of expectations) book.expect(expectation);
    batch.push(input.bytes);
    if (input.waitAfter || batch.length >= 16 || book.outstanding >= WINDOW) {
      await flush();
      if (input.waitAfter)
        await book.waitUntil(
          () => book.outstanding === 0,
          idleMs,
          () => server.alive,
        );
      else if (book.outstanding >= WINDOW) {
        await book.waitUntil(
          () => book.outstanding < WINDOW / 2,
          idleMs,
          () => server.alive,
        );
      }
    }
    if (!server.alive) break;
  }
  await flush();
  const answeredAll = await book.waitUntil(
    () => book.outstanding === 0,
    idleMs,
    () => server.alive,
  );

  // The server must still answer a valid request.
  let probeAnswered = false;
  if (server.alive && !crossed) {
    const { bytes } = probe(era, run);
    const { expectations } = oracle.feed(bytes, lastIndex);
    for (const expectation of expectations) book.expect(expectation);
    await server.write(bytes);
    const answered = () => expectations.every((expectation) => !book.waiting(expectation));
    probeAnswered = await book.waitUntil(answered, idleMs, () => server.alive);
  }
  for (const missing of book.takeUnanswered()) {
    const kind = !server.alive ? "lost" : probeAnswered || answeredAll ? "lost" : "hang";
    tally.fail(kind, where(missing.input, { expected: missing.classes, note: missing.note }));
  }

  // The end: stdin closed (exit 0), or a frame past maxFrameBytes (exit 3).
  const designedEnd = crossed || ending !== undefined;
  if (ending !== undefined && server.alive && !crossed) {
    tally.add("kinds", `end: ${ending.kind}`);
    await server.write(ending.bytes);
  }
  const exit = designedEnd ? await server.waitExit(idleMs) : await server.end(idleMs);
  const expectedCode = designedEnd ? 3 : 0;
  if (exit.hung)
    tally.fail("hang", where(lastIndex, { note: "the server did not exit", stderr: server.stderrTail }));
  else if (exit.code !== expectedCode) {
    tally.fail("crash", where(lastIndex, { exit, expectedCode, stderr: server.stderrTail }));
  } else
    tally.add(
      "noAnswer",
      designedEnd ? "process ended at the oversize frame (exit 3)" : "process ended (exit 0)",
    );
  if (designedEnd && exit.code === 3 && !/MESSAGE_TOO_LARGE/.test(server.endReason ?? "")) {
    tally.fail("mismatch", where(lastIndex, { note: `ended with ${server.endReason}` }));
  }
  for (const [kind, n] of Object.entries(oracle.lineKinds)) {
    if (kind !== "request" && kind !== "invalid message" && kind !== "not JSON or not UTF-8") {
      tally.add("noAnswer", kind, n);
    }
  }
  tally.mergeLogs(server.logCounts);
}

/** Splits bytes into 1 to 4 writes at random points: frames must not depend on how the pipe cuts them. */
function cut(rng, bytes) {
  const points = new Set();
  for (let i = 0, n = rng.int(4); i < n; i++) points.add(rng.int(bytes.length));
  const sorted = [...points].sort((a, b) => a - b);
  const chunks = [];
  let start = 0;
  for (const point of [...sorted, bytes.length]) {
    if (point > start) chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return chunks;
}

/** Calls `onLine` with every `\n`-terminated line of a stream, as bytes. */
function readLines(stream, onLine) {
  let pending = [];
  stream.on("data", (chunk) => {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0) break;
      const piece = chunk.subarray(start, newline);
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      if (line.length > 0) onLine(line);
      start = newline + 1;
    }
    if (start < chunk.length) pending.push(Buffer.from(chunk.subarray(start)));
  });
}
