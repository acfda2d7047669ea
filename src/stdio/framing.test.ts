import { describe, expect, it } from "vitest";
import { decodeRequestFrame, FrameDecoder, InvalidUtf8Frame } from "./framing.js";

const limits = { maxFrameBytes: 64, maxPendingBytes: 64 };

function makeDecoder() {
  const frames: (string | InvalidUtf8Frame)[] = [];
  return { frames, decoder: new FrameDecoder(limits, (frame) => frames.push(frame)) };
}

describe("FrameDecoder", () => {
  it("splits several frames of one chunk in place: CR dropped, blank lines skipped, UTF-8 kept", () => {
    const { frames, decoder } = makeDecoder();
    decoder.push(Buffer.from('{"a":"é"}\r\n \t\n\n{"b":"✓"}\n{"c":'));
    expect(frames).toEqual(['{"a":"é"}', '{"b":"✓"}']);
    expect(decoder.buffered).toBe(5);
    decoder.push(Buffer.from("1}\n"));
    expect(frames).toEqual(['{"a":"é"}', '{"b":"✓"}', '{"c":1}']);
    expect(decoder.buffered).toBe(0);
  });

  it("joins a character split across chunks, and frames the chunk's own rest after it", () => {
    const { frames, decoder } = makeDecoder();
    const bytes = Buffer.from('"✓"\n"x"\n');
    decoder.push(bytes.subarray(0, 2));
    decoder.push(bytes.subarray(2));
    expect(frames).toEqual(['"✓"', '"x"']);
  });

  it("refuses a frame over the limit, whole or pending", () => {
    const whole = makeDecoder();
    expect(() => whole.decoder.push(Buffer.from(`${"x".repeat(65)}\n`))).toThrow(/maxFrameBytes/);
    const pending = makeDecoder();
    expect(() => pending.decoder.push(Buffer.from("x".repeat(65)))).toThrow(/maxFrameBytes/);
  });

  it("hands over a frame that is not valid UTF-8 as such, never repaired, and goes on", () => {
    const { frames, decoder } = makeDecoder();
    const ping = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"?"}}\n');
    // A lone continuation byte, a truncated sequence, an overlong encoding and a UTF-16 surrogate, each in an
    // otherwise valid request that a lossy decoder would run with U+FFFD in place.
    for (const bad of [[0x80], [0xe2, 0x9c], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const question = ping.indexOf("?");
      const frame = Buffer.concat([
        ping.subarray(0, question),
        Buffer.from(bad),
        ping.subarray(question + 1),
      ]);
      decoder.push(frame);
    }
    decoder.push(ping);
    expect(frames).toHaveLength(5);
    for (const frame of frames.slice(0, 4)) {
      expect(frame).toBeInstanceOf(InvalidUtf8Frame);
      expect((frame as InvalidUtf8Frame).lossy).toContain("\uFFFD");
    }
    expect(frames[4]).toBe(ping.toString("utf8").trimEnd());
  });
});

describe("decodeRequestFrame", () => {
  it("keeps the id of a malformed request whose id is readable, never that of a malformed response", () => {
    const cases: [string, number, string | number | undefined][] = [
      ["{not json", -32700, undefined],
      ['{"jsonrpc":"1.0","id":1,"method":"ping"}', -32600, 1],
      ['{"jsonrpc":"2.0","id":"a","method":7}', -32600, "a"],
      ['{"jsonrpc":"2.0","id":3,"method":"x","params":[1]}', -32600, 3],
      ['{"id":4,"method":"ping"}', -32600, 4],
      ['{"jsonrpc":"2.0","id":5}', -32600, 5],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping","params":1}', -32600, undefined],
      ['{"jsonrpc":"2.0","id":null,"method":"ping","params":1}', -32600, undefined],
      ['{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}', -32600, undefined],
      ['{"jsonrpc":"2.0","id":6,"result":1}', -32600, undefined],
      ['{"jsonrpc":"2.0","id":7,"error":{}}', -32600, undefined],
      ['{"jsonrpc":"2.0","id":8,"method":"x","result":{}}', -32600, undefined],
      ["[1]", -32600, undefined],
    ];
    for (const [frame, code, id] of cases) {
      const decoded = decodeRequestFrame(frame);
      expect(decoded.ok, frame).toBe(false);
      if (decoded.ok) continue;
      expect([decoded.error.code, decoded.id], frame).toEqual([code, id]);
    }
    expect(decodeRequestFrame('{"jsonrpc":"2.0","id":9,"method":"ping"}')).toEqual({
      ok: true,
      message: { jsonrpc: "2.0", id: 9, method: "ping" },
    });
  });
});
