import { describe, expect, it } from "vitest";
import { FrameDecoder } from "./framing.js";

const limits = { maxFrameBytes: 64, maxPendingBytes: 64 };

function makeDecoder() {
  const frames: string[] = [];
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
});
