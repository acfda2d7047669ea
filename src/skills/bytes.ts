const encoder = new TextEncoder();
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const INDEX = new Map([...ALPHABET].map((ch, i) => [ch, i]));

/** The UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD, as any UTF-8 encoder does). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** `bytes` as UTF-8 text, or `undefined` when they are not valid UTF-8. A leading BOM is kept. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Standard, padded base64. */
export function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = ((bytes[i] ?? 0) << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += ALPHABET[(n >> 18) & 63];
    out += ALPHABET[(n >> 12) & 63];
    out += b === undefined ? "=" : ALPHABET[(n >> 6) & 63];
    out += c === undefined ? "=" : ALPHABET[n & 63];
  }
  return out;
}

/** Strict standard base64 (padded, `=` only at the end); `undefined` for anything else. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const ch = text[i + j] ?? "";
      const value = ch === "=" && i + 4 === text.length && j >= 4 - padding ? 0 : INDEX.get(ch);
      if (value === undefined) return undefined;
      n = (n << 6) | value;
    }
    for (const shift of [16, 8, 0]) if (o < out.length) out[o++] = (n >> shift) & 255;
  }
  return out;
}

/**
 * The digest SEP-2640 publishes: `sha256:` and the lowercase hex SHA-256 of exactly these bytes (no newline or
 * BOM normalization). WebCrypto, so it runs wherever `crypto.subtle` does.
 *
 * @example
 * await skillDigest(new TextEncoder().encode("hello")); // "sha256:2cf24dba..."
 */
export async function skillDigest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "sha256:";
  for (const byte of hash) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** `^sha256:` and 64 lowercase hex digits. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
