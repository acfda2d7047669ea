const MAX_DEPTH = 32;
const encoder = new TextEncoder();

/** The fingerprint of "no identity": every anonymous request shares it. */
export const ANONYMOUS_FINGERPRINT = "anonymous";

/**
 * A stable text form of a JSON-like value: object keys sorted, `undefined`, functions and symbols left out,
 * bigints as `"<n>n"`. Throws on a cycle or on objects and arrays nested more than `maxDepth` levels (32 by
 * default; `{}` is one): such a value has no canonical form. Callers that take the value from a peer check its
 * depth first, to answer with a typed error.
 */
export function canonicalJson(value: unknown, maxDepth = MAX_DEPTH): string {
  return canonical(value, new Set(), 0, maxDepth);
}

/** SHA-256 of `text` (UTF-8), as 64 lowercase hex characters. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** Thrown by {@link principalText} for an identity that tells no principal: the request must be refused. */
export class NoPrincipalError extends Error {
  override readonly name = "NoPrincipalError";
}

/**
 * The principal an identity names, as text: a string identity is its own principal; an object with a
 * `principal` string (own field or getter, any class) names it; otherwise a plain JSON object or array is its
 * own principal through its canonical JSON. Anything else (a class instance, a `Map`, a getter or symbol key,
 * a function, `undefined` inside, an empty object) has no JSON form that tells users apart: throws
 * {@link NoPrincipalError}.
 */
export function principalText(identity: unknown): string {
  if (typeof identity === "string") return named(identity);
  if (typeof identity === "object" && identity !== null && "principal" in identity) {
    const principal = (identity as { principal: unknown }).principal;
    if (typeof principal !== "string") throw new NoPrincipalError("the identity's principal is not a string");
    return named(principal);
  }
  const problem = plainJsonProblem(identity, 0);
  if (problem !== undefined) throw new NoPrincipalError(`the identity has no principal: ${problem}`);
  if (typeof identity === "object" && identity !== null && Object.keys(identity).length === 0) {
    throw new NoPrincipalError("the identity has no principal: it is empty");
  }
  return `j:${canonicalJson(identity)}`;
}

/**
 * The authorization context an identity carries, as text: the canonical JSON of its `authorizationContext`
 * member (token scopes, tenant, ...), or `undefined` when it has none (not an object, or the member is absent
 * or `undefined`). The context must be plain JSON, as a principal without `principal` must: anything else
 * throws {@link NoPrincipalError}, since its JSON form would not tell one context from another.
 */
export function authorizationText(identity: unknown): string | undefined {
  if (typeof identity !== "object" || identity === null || !("authorizationContext" in identity)) {
    return undefined;
  }
  const context = (identity as { authorizationContext: unknown }).authorizationContext;
  if (context === undefined) return undefined;
  const problem = plainJsonProblem(context, 0);
  if (problem !== undefined) {
    throw new NoPrincipalError(`the identity's authorizationContext is not plain JSON: ${problem}`);
  }
  return canonicalJson(context);
}

function named(principal: string): string {
  if (principal === "") throw new NoPrincipalError("the identity's principal is empty");
  return `p:${principal}`;
}

/** Why `value` is not plain JSON (whose canonical form loses nothing), or `undefined` when it is. */
function plainJsonProblem(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : "a number is not finite";
  if (typeof value !== "object") return `it holds a ${typeof value}`;
  if (depth >= MAX_DEPTH) return "it nests too deep";
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    return "it holds a class instance, a Map or another non-plain object";
  }
  if (Object.getOwnPropertySymbols(value).length > 0) return "it has symbol keys";
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
    if (Array.isArray(value) && key === "length") continue;
    if (!("value" in descriptor) || !descriptor.enumerable) return "it has a getter or a hidden property";
    const problem = plainJsonProblem(descriptor.value, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * Fingerprints an identity, so it can be compared and remembered without being kept: `undefined` and `null`
 * are {@link ANONYMOUS_FINGERPRINT}; anything else is the SHA-256 of its {@link principalText}. Throws
 * {@link NoPrincipalError} when the identity names no principal.
 */
export async function identityFingerprint(identity: unknown): Promise<string> {
  if (identity === undefined || identity === null) return ANONYMOUS_FINGERPRINT;
  return sha256Hex(principalText(identity));
}

function canonical(value: unknown, ancestors: Set<object>, depth: number, maxDepth: number): string {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      return JSON.stringify(`${value}n`);
    case "object": {
      if (value === null) return "null";
      if (depth >= maxDepth) throw new Error("value nests too deep");
      if (ancestors.has(value)) throw new Error("value has a cycle");
      ancestors.add(value);
      const out = Array.isArray(value)
        ? `[${value.map((item) => canonical(item, ancestors, depth + 1, maxDepth) || "null").join(",")}]`
        : `{${Object.keys(value)
            .sort()
            .flatMap((key) => {
              const item = canonical(
                (value as { [key: string]: unknown })[key],
                ancestors,
                depth + 1,
                maxDepth,
              );
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
