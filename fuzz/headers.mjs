/**
 * Routing-header values as the 2026-07-28 HTTP transport carries them, in the fuzz suite's own code: plain
 * printable ASCII as it is, anything else as `=?base64?{UTF-8 bytes}?=`; and the decoding a server must apply.
 */

const PREFIX = "=?base64?";
const SUFFIX = "?=";
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

const isSentinel = (value) =>
  value.length >= PREFIX.length + SUFFIX.length && value.startsWith(PREFIX) && value.endsWith(SUFFIX);

function plainSafe(value) {
  if (value === "" || value.startsWith(" ") || value.endsWith(" ")) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** Encodes a header value the way a correct client does. */
export function encodeValue(value) {
  if (plainSafe(value) && !isSentinel(value)) return value;
  return `${PREFIX}${Buffer.from(value, "utf8").toString("base64")}${SUFFIX}`;
}

/** Decodes a received value; `undefined` when it is a sentinel that is not strict base64 of UTF-8. */
export function decodeValue(raw) {
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, "");
  if (!isSentinel(value)) return value;
  const payload = value.slice(PREFIX.length, value.length - SUFFIX.length);
  if (!STRICT_BASE64.test(payload)) return undefined;
  try {
    return utf8.decode(Buffer.from(payload, "base64"));
  } catch {
    return undefined;
  }
}

/** How an argument is rendered in its `Mcp-Param-*` header, or `undefined` when it has no header form. */
export function renderParam(value) {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** True when a decoded header value stands for the argument: strings and booleans exactly, integers by value. */
export function paramMatches(decoded, value) {
  if (typeof value === "number") return /^[+-]?\d+$/.test(decoded) && Number(decoded) === value;
  return renderParam(value) === decoded;
}

/** Values that are not strict base64 inside a sentinel. */
export const UNDECODABLE = ["=?base64?SGVsbG8?=", "=?base64?S=GV?=", "=?base64?!!!!?=", "=?base64?/w==?="];
