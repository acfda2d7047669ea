import { describe, expect, it } from "vitest";
import { McpkitError } from "../../jsonrpc/errors.js";
import { type SseEvent, SseParser } from "./sse-parser.js";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `text` split at every position in `cuts` and returns what came out. */
function parse(text: string, cuts: number[] = [], limit = 1_000) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const parser = new SseParser(limit, { event: (e) => events.push(e), retry: (ms) => retries.push(ms) });
  const all = bytes(text);
  let start = 0;
  for (const cut of [...cuts, all.length]) {
    parser.push(all.subarray(start, cut));
    start = cut;
  }
  parser.end();
  return { events, retries, lastEventId: parser.lastEventId };
}

describe("SseParser", () => {
  it("parses fields, comments, multi-line data and every line ending", () => {
    const text =
      ': keepalive\n\nevent: message\ndata: {"a":1}\n\nid: 7\r\ndata: one\r\ndata:two\r\rretry: 500\nevent: other\ndata: x\n\n';
    const { events, retries, lastEventId } = parse(text);
    expect(events).toEqual([
      { event: "message", data: '{"a":1}', id: undefined },
      { event: "message", data: "one\ntwo", id: "7" },
      { event: "other", data: "x", id: "7" },
    ]);
    expect(retries).toEqual([500]);
    expect(lastEventId).toBe("7");
  });

  it("gives the same events whatever the chunking (CRLF split across chunks, multi-byte characters split)", () => {
    const text = "data: caf\u00e9 \u4e16\u754c\r\n\r\ndata: b\r\n\r\n";
    const whole = parse(text).events;
    for (let cut = 1; cut < bytes(text).length; cut++) expect(parse(text, [cut]).events).toEqual(whole);
    expect(whole.map((e) => e.data)).toEqual(["caf\u00e9 \u4e16\u754c", "b"]);
  });

  it("drops an event without its closing blank line, and events without data", () => {
    expect(parse("id: 1\nretry: 20\ndata: \n\nid: 2\n\ndata: cut").events).toEqual([
      { event: "message", data: "", id: "1" },
    ]);
  });

  it("strips one leading BOM and ignores unknown fields and bad retry values", () => {
    const { events, retries } = parse("\ufeffdata: x\nfoo: bar\nretry: 5s\n\n");
    expect(events).toEqual([{ event: "message", data: "x", id: undefined }]);
    expect(retries).toEqual([]);
  });

  it("strips only the stream's first BOM: one at the start of a later line, or a second one, is part of the field name", () => {
    // Found by the SSE property test: the per-line decoder dropped a BOM at the start of every line.
    const { events, retries } = parse("\ufeff\ufeffdata: a\n\ndata: b\n\n\ufeffdata: c\n\ufeffretry: 9\n\n");
    expect(events).toEqual([{ event: "message", data: "b", id: undefined }]);
    expect(retries).toEqual([]);
  });

  it("counts an event's bytes before decoding and refuses one over the limit, even without a line end", () => {
    const over = () => parse(`data: ${"x".repeat(200)}`, [10, 50, 120], 100);
    expect(over).toThrow(McpkitError);
    expect(over).toThrow(
      expect.objectContaining({
        code: "MESSAGE_TOO_LARGE",
        message: expect.stringMatching(/^an SSE event: at least \d+ bytes, over maxSseEventBytes \(100\)$/),
        details: {
          option: "maxSseEventBytes",
          limit: 100,
          size: expect.any(Number),
          reason: "sse_event_too_large",
        },
      }),
    );
    // Many small events never add up: the count starts over at each blank line.
    expect(parse(`${"data: 0123456789\n\n".repeat(50)}`, [], 100).events).toHaveLength(50);
  });
});
