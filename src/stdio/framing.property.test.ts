import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../../test/support/property.js";
import { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import { decodeFrame, encodeFrame, FrameDecoder, type FrameLimits, InvalidUtf8Frame } from "./framing.js";

type Frame = string | { invalid: string };

interface Outcome {
  frames: Frame[];
  /** The limit a push crossed (`details.option`), if one did. */
  error?: string;
  buffered: number;
}

/** Feeds `bytes` cut at `cuts`, stopping at the first throw, as the transports do. */
function feed(
  bytes: Buffer,
  cuts: readonly number[],
  limits: FrameLimits,
  watch?: (d: FrameDecoder) => void,
) {
  const frames: Frame[] = [];
  const decoder = new FrameDecoder(limits, (frame) =>
    frames.push(frame instanceof InvalidUtf8Frame ? { invalid: frame.lossy } : frame),
  );
  const outcome: Outcome = { frames, buffered: 0 };
  let start = 0;
  for (const cut of [...[...cuts].sort((a, b) => a - b), bytes.length]) {
    try {
      decoder.push(bytes.subarray(start, cut));
    } catch (error) {
      expect(error).toBeInstanceOf(McpkitError);
      expect((error as McpkitError).code).toBe("MESSAGE_TOO_LARGE");
      outcome.error = String((error as McpkitError).details?.option);
      break;
    }
    watch?.(decoder);
    start = cut;
  }
  outcome.buffered = decoder.buffered;
  return outcome;
}

/**
 * What the documentation says the decoder does with the whole stream: lines end at `\n`; a line over
 * `maxFrameBytes` (its `\r` counted) ends the stream with nothing after it; a trailing `\r` is dropped; empty and
 * space/tab-only lines are skipped; a leading BOM is ignored (RFC 8259 allows it); invalid UTF-8 is handed over
 * as such, with a lossy preview.
 */
function model(bytes: Buffer, limits: FrameLimits): Outcome {
  const frames: Frame[] = [];
  let start = 0;
  for (;;) {
    const newline = bytes.indexOf(0x0a, start);
    const line = bytes.subarray(start, newline < 0 ? bytes.length : newline);
    if (line.length > limits.maxFrameBytes) return { frames, error: "maxFrameBytes", buffered: 0 };
    if (newline < 0) {
      if (line.length > limits.maxPendingBytes)
        return { frames, error: "maxPendingStdoutBytes", buffered: 0 };
      return { frames, buffered: line.length };
    }
    const body = line.at(-1) === 0x0d ? line.subarray(0, -1) : line;
    if (!body.every((byte) => byte === 0x20 || byte === 0x09)) {
      const text = body.toString("utf8");
      if (!isUtf8(body)) frames.push({ invalid: text });
      else frames.push(text.startsWith("\ufeff") ? text.slice(1) : text);
    }
    start = newline + 1;
  }
}

/** Byte sequences that are never valid UTF-8: a stray continuation, truncations, overlongs, surrogates, >U+10FFFF. */
const invalidSequence = fc.constantFrom(
  [0x80],
  [0xbf],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xfe],
  [0xff],
);

const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom("{", "}", '"', ":", " ", "\t", "\r", "é", "€", "😀", "\ufeff", "\u2028"),
    fc.string({ unit: "grapheme", maxLength: 1 }),
  ),
  maxLength: 40,
});

/** One line's bytes (no `\n`): text, blank, `\r`-ended, random bytes, or text with a bad sequence inside. */
const line = fc.oneof(
  text.map((t) => Buffer.from(t.replaceAll("\n", ""), "utf8")),
  fc.constantFrom("", " ", "\t \t", "\r", " \r", "\r\r").map((t) => Buffer.from(t)),
  text.map((t) => Buffer.from(`${t.replaceAll("\n", "")}\r`, "utf8")),
  fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b.map((x) => (x === 0x0a ? 0x0b : x)))),
  fc
    .tuple(text, invalidSequence, text)
    .map(([a, bad, b]) =>
      Buffer.concat([
        Buffer.from(a.replaceAll("\n", "")),
        Buffer.from(bad),
        Buffer.from(b.replaceAll("\n", "")),
      ]),
    ),
);

/** A stream: lines joined by `\n`, maybe ending in an unterminated line. */
const stream = fc
  .tuple(fc.array(line, { maxLength: 12 }), fc.boolean())
  .map(([lines, terminated]) =>
    Buffer.concat(
      lines.flatMap((l, i) => (i < lines.length - 1 || terminated ? [l, Buffer.from("\n")] : [l])),
    ),
  );

const cutsOf = (bytes: Buffer) => fc.array(fc.nat(bytes.length), { maxLength: 16 });

/** Frame limits where the pending bound never binds before the frame bound (the shipped defaults: 1 MB and 4 MB). */
const limits = fc
  .tuple(fc.integer({ min: 1, max: 48 }), fc.nat(64))
  .map(([frame, extra]) => ({ maxFrameBytes: frame, maxPendingBytes: frame + extra }));

describe("FrameDecoder properties", () => {
  it("any split of a stream into chunks yields the frames, limit errors and rest of the whole stream", () => {
    fc.assert(
      fc.property(
        stream.chain((bytes) => fc.tuple(fc.constant(bytes), cutsOf(bytes), limits)),
        ([bytes, cuts, limit]) => {
          const whole = feed(bytes, [], limit);
          expect(whole).toEqual(model(bytes, limit));
          const split = feed(bytes, cuts, limit);
          expect(split.frames).toEqual(whole.frames);
          expect(split.error).toBe(whole.error);
          if (whole.error === undefined) expect(split.buffered).toBe(whole.buffered);
        },
      ),
      runs(0x5f4a0001, 300),
    );
  });

  it("a frame over maxFrameBytes ends the stream: every frame before it is delivered, nothing after it", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 5 }),
        fc.array(line, { maxLength: 5 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 32 }),
        (before, after, over, max) => {
          const head = Buffer.concat(
            before.map((l) => Buffer.concat([l.subarray(0, max), Buffer.from("\n")])),
          );
          const big = Buffer.alloc(max + over, "x");
          const tail = Buffer.concat(after.map((l) => Buffer.concat([l, Buffer.from("\n")])));
          const bytes = Buffer.concat([head, big, Buffer.from("\n"), tail]);
          const limit = { maxFrameBytes: max, maxPendingBytes: max };
          const expected = feed(head, [], limit).frames;
          for (const cuts of [[], [head.length + 1], [...Array(bytes.length).keys()]]) {
            const outcome = feed(bytes, cuts, limit);
            expect(outcome.error).toBe("maxFrameBytes");
            expect(outcome.frames).toEqual(expected);
          }
        },
      ),
      runs(0x5f4a0002, 150),
    );
  });

  it("the bytes held waiting for a newline never exceed either limit, however the stream is cut", () => {
    fc.assert(
      fc.property(
        stream.chain((bytes) => fc.tuple(fc.constant(bytes), cutsOf(bytes))),
        fc.integer({ min: 1, max: 48 }),
        fc.integer({ min: 1, max: 48 }),
        ([bytes, cuts], maxFrameBytes, maxPendingBytes) => {
          const limit = { maxFrameBytes, maxPendingBytes };
          const outcome = feed(bytes, cuts, limit, (decoder) => {
            expect(decoder.buffered).toBeLessThanOrEqual(Math.min(maxFrameBytes, maxPendingBytes));
          });
          // Whatever was delivered is what the whole stream, with no pending bound, delivers first.
          const unbounded = model(bytes, { maxFrameBytes, maxPendingBytes: Number.POSITIVE_INFINITY });
          expect(unbounded.frames.slice(0, outcome.frames.length)).toEqual(outcome.frames);
        },
      ),
      runs(0x5f4a0003, 200),
    );
  });

  it("a line with an invalid UTF-8 sequence is always handed over as invalid, and the next frame still arrives", () => {
    const oneLine = (t: string) => Buffer.from(t.replaceAll("\n", ""), "utf8");
    fc.assert(
      fc.property(text, invalidSequence, text, fc.nat(64), (a, bad, b, cut) => {
        const frame = Buffer.concat([oneLine(a), Buffer.from(bad), oneLine(b)]);
        const bytes = Buffer.concat([frame, Buffer.from('\n{"ok":1}\n')]);
        const outcome = feed(bytes, [cut % (bytes.length + 1)], { maxFrameBytes: 512, maxPendingBytes: 512 });
        expect(outcome.frames).toEqual([{ invalid: expect.stringContaining("\ufffd") }, '{"ok":1}']);
      }),
      runs(0x5f4a0004, 200),
    );
  });

  it("a message encoded as a frame comes back whole from the decoder, however the bytes are cut", () => {
    const json = fc
      .jsonValue({ maxDepth: 3, stringUnit: "binary" })
      .map((v) => JSON.parse(JSON.stringify(v)));
    const message: fc.Arbitrary<JsonRpcMessage> = fc.record({
      jsonrpc: fc.constant("2.0" as const),
      id: fc.oneof(fc.string({ unit: "binary" }), fc.integer()),
      method: fc.string({ unit: "binary", minLength: 1 }),
      params: fc.dictionary(fc.string({ unit: "binary" }), json, { maxKeys: 4 }),
    });
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 4 }).chain((messages) => {
          const bytes = Buffer.from(messages.map((m) => encodeFrame(m, 1_000_000)).join(""), "utf8");
          return fc.tuple(fc.constant(messages), fc.constant(bytes), cutsOf(bytes));
        }),
        ([messages, bytes, cuts]) => {
          const outcome = feed(bytes, cuts, { maxFrameBytes: bytes.length, maxPendingBytes: bytes.length });
          expect(outcome.frames.map((frame) => decodeFrame(frame as string))).toEqual(messages);
          expect(outcome.buffered).toBe(0);
        },
      ),
      runs(0x5f4a0005, 100),
    );
  });
});
