/**
 * Base64 (RFC 4648 §4, padded) and base64url (§5, unpadded), platform-neutral: no `Buffer`, `btoa` or `atob`.
 * Decoders are strict and answer `undefined` for anything that is not their form.
 */

const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE = `${STANDARD.slice(0, 62)}-_`;

/** Index of each character code below 128 in `alphabet`, -1 for the others. */
function lookup(alphabet: string): Int8Array {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
}

const STANDARD_LOOKUP = lookup(STANDARD);
const URL_SAFE_LOOKUP = lookup(URL_SAFE);

const ASCII = new TextDecoder();
const STANDARD_CODES = codes(STANDARD);
const URL_SAFE_CODES = codes(URL_SAFE);

function codes(alphabet: string): Uint8Array {
  return Uint8Array.from(alphabet, (digit) => digit.charCodeAt(0));
}

/**
 * The digits of `bytes` in `alphabet`, without padding. Written as bytes and decoded once: adding one character
 * at a time builds a rope that costs seconds of garbage collection for a few MB (a blob resource).
 */
function encode(bytes: Uint8Array, alphabet: Uint8Array): string {
  const whole = bytes.length - (bytes.length % 3);
  const rest = bytes.length - whole;
  const out = new Uint8Array((whole / 3) * 4 + (rest === 0 ? 0 : rest + 1));
  let o = 0;
  for (let i = 0; i < whole; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out[o++] = alphabet[n >> 18] as number;
    out[o++] = alphabet[(n >> 12) & 63] as number;
    out[o++] = alphabet[(n >> 6) & 63] as number;
    out[o++] = alphabet[n & 63] as number;
  }
  if (rest > 0) {
    const n = ((bytes[whole] as number) << 16) | ((bytes[whole + 1] ?? 0) << 8);
    out[o++] = alphabet[n >> 18] as number;
    out[o++] = alphabet[(n >> 12) & 63] as number;
    if (rest === 2) out[o] = alphabet[(n >> 6) & 63] as number;
  }
  return ASCII.decode(out);
}

/**
 * The bytes of unpadded `digits` in the alphabet of `table`; `undefined` for a stray character or a length that no
 * byte string has. With `canonical`, the unused low bits of the last digit must be zero (one encoding per bytes).
 */
function decode(digits: string, table: Int8Array, canonical: boolean): Uint8Array | undefined {
  if (digits.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((digits.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (let i = 0; i < digits.length; i++) {
    const code = digits.charCodeAt(i);
    const digit = code < 128 ? (table[code] ?? -1) : -1;
    if (digit < 0) return undefined;
    value = ((value << 6) | digit) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 255;
    }
  }
  if (canonical && (value & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

/** Standard, padded base64 of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  const digits = encode(bytes, STANDARD_CODES);
  return digits + "=".repeat((4 - (digits.length % 4)) % 4);
}

/** Strict standard base64 (padded to a multiple of 4, `=` only at the end); `undefined` for anything else. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return decode(text.slice(0, text.length - padding), STANDARD_LOOKUP, false);
}

/** Base64url of `bytes`, without padding. */
export function toBase64url(bytes: Uint8Array): string {
  return encode(bytes, URL_SAFE_CODES);
}

/**
 * Strict base64url without padding; `undefined` for anything else (a stray character, `=`, a bad length, unused
 * bits that are not zero), so each byte string has exactly one accepted encoding. `canonical: false` lets the
 * unused bits be anything (for tokens issued before they were checked).
 */
export function fromBase64url(
  text: string,
  { canonical = true }: { canonical?: boolean } = {},
): Uint8Array | undefined {
  return decode(text, URL_SAFE_LOOKUP, canonical);
}

/** How many bytes padded base64 `text` of valid length decodes to, counted without decoding it (never negative). */
export function base64ByteLength(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((text.length * 3) / 4) - padding);
}
