import { describe, expect, it } from "vitest";
import { StderrCapture } from "./stderr.js";

describe("StderrCapture", () => {
  it("delivers text in order until the limit, then only counts what it drops", () => {
    const seen: string[] = [];
    const capture = new StderrCapture(10, (text) => seen.push(text));
    capture.push(Buffer.from("abcd"));
    capture.push(Buffer.from("efghijkl"));
    capture.push(Buffer.from("mnop"));
    capture.end();
    expect(seen.join("")).toBe("abcdefghij");
    expect(capture.dropped).toBe(6);
  });

  it("keeps a UTF-8 character split across chunks whole", () => {
    const seen: string[] = [];
    const capture = new StderrCapture(100, (text) => seen.push(text));
    const bytes = Buffer.from("né✓", "utf8");
    capture.push(bytes.subarray(0, 2));
    capture.push(bytes.subarray(2));
    capture.end();
    expect(seen.join("")).toBe("né✓");
  });

  it("does not emit half a character when the limit cuts through one", () => {
    const seen: string[] = [];
    const capture = new StderrCapture(2, (text) => seen.push(text));
    capture.push(Buffer.from("a✓", "utf8"));
    capture.end();
    expect(seen.join("")).toBe("a");
    expect(capture.dropped).toBe(2);
  });

  it("survives a handler that throws", () => {
    let calls = 0;
    const capture = new StderrCapture(100, () => {
      calls++;
      throw new Error("handler bug");
    });
    capture.push(Buffer.from("one"));
    capture.push(Buffer.from("two"));
    expect(calls).toBe(2);
  });
});
