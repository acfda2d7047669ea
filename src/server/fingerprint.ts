const MAX_DEPTH = 32;
const encoder = new TextEncoder();

/** The fingerprint of "no identity": every anonymous request shares it. */
export const ANONYMOUS_FINGERPRINT = "anonymous";

/**
 * A stable text form of a JSON-like value: object keys sorted, `undefined`, functions and symbols left out,
 * bigints as `"<n>n"`. Throws on a cycle or nesting deeper than 32 levels (such a value has no canonical form).
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, new Set(), 0);
}

/** SHA-256 of `text` (UTF-8), as 64 lowercase hex characters. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Fingerprints an identity, so it can be compared and remembered without being kept: `undefined` and `null`
 * are {@link ANONYMOUS_FINGERPRINT}; anything else is the SHA-256 of its canonical JSON. Throws when the identity
 * has no canonical form (a cycle, too deep).
 */
export async function identityFingerprint(identity: unknown): Promise<string> {
  if (identity === undefined || identity === null) return ANONYMOUS_FINGERPRINT;
  return sha256Hex(canonicalJson(identity));
}

function canonical(value: unknown, ancestors: Set<object>, depth: number): string {
  if (depth > MAX_DEPTH) throw new Error("value nests too deep");
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      return JSON.stringify(`${value}n`);
    case "object": {
      if (value === null) return "null";
      if (ancestors.has(value)) throw new Error("value has a cycle");
      ancestors.add(value);
      const out = Array.isArray(value)
        ? `[${value.map((item) => canonical(item, ancestors, depth + 1) || "null").join(",")}]`
        : `{${Object.keys(value)
            .sort()
            .flatMap((key) => {
              const item = canonical((value as { [key: string]: unknown })[key], ancestors, depth + 1);
              return item === "" ? [] : [`${JSON.stringify(key)}:${item}`];
            })
            .join(",")}}`;
      ancestors.delete(value);
      return out;
    }
    default:
      // undefined, functions, symbols: no JSON form.
      return "";
  }
}
