import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../../../test/support/property.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { type SseEvent, SseParser } from "./sse-parser.js";

interface Outcome {
  events: SseEvent[];
  retries: number[];
  ids: string[];
  lastEventId: string | undefined;
  /** True when a push threw `MESSAGE_TOO_LARGE` (feeding stops there). */
  tooLarge?: boolean;
}

/** Feeds `bytes` cut at `cuts`, then ends the body. */
function feed(bytes: Uint8Array, cuts: readonly number[], limit = Number.POSITIVE_INFINITY): Outcome {
  const outcome: Outcome = { events: [], retries: [], ids: [], lastEventId: undefined };
  const parser = new SseParser(limit, {
    event: (event) => outcome.events.push(event),
    retry: (ms) => outcome.retries.push(ms),
    id: (id) => outcome.ids.push(id),
  });
  let start = 0;
  for (const cut of [...[...cuts].sort((a, b) => a - b), bytes.length]) {
    try {
      parser.push(bytes.subarray(start, cut));
    } catch (error) {
      expect(error).toBeInstanceOf(McpkitError);
      expect((error as McpkitError).details).toMatchObject({ reason: "sse_event_too_large" });
      outcome.tooLarge = true;
      break;
    }
    start = cut;
  }
  parser.end();
  outcome.lastEventId = parser.lastEventId;
  return outcome;
}

/**
 * The WHATWG event-stream interpretation, written from the specification over the decoded text: one leading BOM
 * is dropped, lines end at CRLF, LF or CR, an unterminated last line and an undispatched event are discarded.
 * `ids` are the `id` fields taken (none with NUL); `lastEventId` is the last of them, as the parser documents.
 */
function reference(bytes: Uint8Array): Outcome {
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  if (text.startsWith("\ufeff")) text = text.slice(1);
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop();
  const outcome: Outcome = { events: [], retries: [], ids: [], lastEventId: undefined };
  let data = "";
  let type = "";
  let idBuffer: string | undefined;
  for (const line of lines) {
    if (line === "") {
      if (data !== "") {
        if (data.endsWith("\n")) data = data.slice(0, -1);
        outcome.events.push({ event: type || "message", data, id: idBuffer });
      }
      data = "";
      type = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data += `${value}\n`;
    else if (field === "event") type = value;
    else if (field === "id" && !value.includes("\u0000")) {
      idBuffer = value;
      outcome.ids.push(value);
    } else if (field === "retry" && /^[0-9]+$/.test(value)) outcome.retries.push(Number(value));
  }
  outcome.lastEventId = idBuffer;
  return outcome;
}

const value = fc.string({
  unit: fc.oneof(
    fc.constantFrom(":", " ", "\u0000", "\ufeff", "é", "😀", "7", "{"),
    fc.string({ unit: "grapheme", maxLength: 1 }).map((c) => c.replace(/[\r\n]/g, "")),
  ),
  maxLength: 12,
});
const field = fc.oneof(
  fc.constantFrom("data", "event", "id", "retry", "dat", "Data", "", "\ufeffdata"),
  value.map((v) => v.replace(/:/g, "")),
);
/** One line: a field with or without a colon and a space, a comment, or a blank line. */
const line = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(field, fc.constantFrom(":", ": ", ":  ", ""), value).map(([f, c, v]) => f + c + v),
  },
  { weight: 1, arbitrary: value.map((v) => `:${v}`) },
  { weight: 1, arbitrary: fc.constantFrom("retry: 1000", "retry: 10x", "id", "data", "") },
  { weight: 2, arbitrary: fc.constant("") },
);
const ending = fc.constantFrom("\n", "\r", "\r\n");

/** A stream: maybe a BOM, lines with any line ends, maybe an unterminated last line. */
const stream = fc
  .tuple(
    fc.constantFrom("", "\ufeff", "\ufeff\ufeff"),
    fc.array(fc.tuple(line, ending), { maxLength: 14 }),
    fc.oneof(fc.constant(""), line),
  )
  .map(([bom, lines, tail]) => new TextEncoder().encode(bom + lines.map(([l, e]) => l + e).join("") + tail));

/** Random bytes rich in line ends, colons, spaces and partial UTF-8. */
const noise = fc
  .array(
    fc.oneof(
      fc.constantFrom(0x0a, 0x0d, 0x3a, 0x20, 0x64, 0x61, 0x74, 0xef, 0xbb, 0xbf, 0xc3, 0xa9, 0x80, 0xff),
      fc.integer({ min: 0, max: 255 }),
    ),
    { maxLength: 64 },
  )
  .map((bytes) => Uint8Array.from(bytes));

const withCuts = (bytes: fc.Arbitrary<Uint8Array>) =>
  bytes.chain((b) => fc.tuple(fc.constant(b), fc.array(fc.nat(b.length), { maxLength: 12 })));

describe("SseParser properties", () => {
  it("matches the WHATWG interpretation of the stream, however it is cut into chunks", () => {
    fc.assert(
      fc.property(
        withCuts(fc.oneof({ weight: 3, arbitrary: stream }, { weight: 1, arbitrary: noise })),
        ([bytes, cuts]) => {
          const expected = reference(bytes);
          expect(feed(bytes, [])).toEqual(expected);
          expect(feed(bytes, cuts)).toEqual(expected);
        },
      ),
      runs(0x55e00001, 300),
    );
  });

  it("a byte at a time gives the same events as the whole body", () => {
    fc.assert(
      fc.property(stream, (bytes) => {
        expect(feed(bytes, [...bytes.keys()])).toEqual(feed(bytes, []));
      }),
      runs(0x55e00002, 100),
    );
  });

  it("the event size limit trips at the same place however the stream is cut, and never below the event's size", () => {
    fc.assert(
      fc.property(withCuts(stream), fc.nat(48), ([bytes, cuts], limit) => {
        const whole = feed(bytes, [], limit);
        const split = feed(bytes, cuts, limit);
        expect(split).toEqual(whole);
        // Within the limit nothing trips: no event of the stream (with its line ends and a CRLF's LF) is larger.
        if (limit >= bytes.length) expect(whole.tooLarge).toBeUndefined();
        if (!whole.tooLarge) expect(whole).toEqual(reference(bytes));
      }),
      runs(0x55e00003, 250),
    );
  });
});
