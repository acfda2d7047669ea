import { describe, expect, it } from "vitest";
import { base64ByteLength, fromBase64, fromBase64url, toBase64, toBase64url } from "./base64.js";

const text = (value: string) => new TextEncoder().encode(value);
const sample = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 255);

describe("base64", () => {
  it("encodes megabytes as Node does, every tail length", () => {
    for (const length of [3 * 400_000, 3 * 400_000 + 1, 3 * 400_000 + 2]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + (i >> 8)) & 255);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
      expect(toBase64url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
    }
  });

  it("encodes as RFC 4648 padded base64 and round-trips every length", () => {
    for (let length = 0; length < 40; length++) {
      const bytes = sample(length);
      const encoded = toBase64(bytes);
      expect(encoded).toBe(Buffer.from(bytes).toString("base64"));
      expect(fromBase64(encoded)).toEqual(bytes);
      expect(base64ByteLength(encoded)).toBe(length);
    }
    expect(toBase64(text("café"))).toBe("Y2Fmw6k=");
  });

  it("refuses what is not strict padded base64", () => {
    for (const bad of ["Y2Fmw6k", "Y2Fm w6k=", "Y2=m", "a===", "====", "Y2Fmw6k_", "Y2Fmw-k=", "ü2Fm"]) {
      expect(fromBase64(bad)).toBeUndefined();
    }
    expect(fromBase64("")).toEqual(new Uint8Array(0));
    // Unused low bits are tolerated, as they always were.
    expect(fromBase64("aR==")).toEqual(text("i"));
  });
});

describe("base64url", () => {
  it("encodes without padding and round-trips every length", () => {
    for (let length = 0; length < 40; length++) {
      const bytes = sample(length);
      const encoded = toBase64url(bytes);
      expect(encoded).toBe(Buffer.from(bytes).toString("base64url"));
      expect(fromBase64url(encoded)).toEqual(bytes);
    }
    expect(toBase64url(text("hello?>"))).toBe("aGVsbG8_Pg");
  });

  it("refuses what is not strict base64url: the standard alphabet, padding, a bad length, unused bits set", () => {
    expect(fromBase64url("aGVsbG8/Pg")).toBeUndefined();
    expect(fromBase64url("aGVsbG8_Pg==")).toBeUndefined();
    expect(fromBase64url("a")).toBeUndefined();
    expect(fromBase64url("aGVsb\u00e9")).toBeUndefined();
    // "aR" has non-zero leftover bits: not the canonical encoding of "i".
    expect(fromBase64url("aR")).toBeUndefined();
    expect(fromBase64url("aQ")).toEqual(text("i"));
  });

  it("tolerates unused bits set with canonical: false, and nothing else more", () => {
    expect(fromBase64url("aR", { canonical: false })).toEqual(text("i"));
    expect(fromBase64url("aGVsbG8_Pg", { canonical: false })).toEqual(text("hello?>"));
    for (const bad of ["aGVsbG8/Pg", "aGVsbG8_Pg==", "a", "aGVsb\u00e9"]) {
      expect(fromBase64url(bad, { canonical: false })).toBeUndefined();
    }
  });
});
