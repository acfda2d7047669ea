const encoder = new TextEncoder();

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

export { fromBase64, toBase64 } from "../jsonrpc/base64.js";

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
