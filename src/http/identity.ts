import { ErrorCode } from "../jsonrpc/codes.js";
import type { ServerLogger } from "../server/options.js";
import type { Authenticate } from "./options.js";
import { HttpRefusal, refusal } from "./responses.js";

/**
 * Runs the `authenticate` hook: its value is the request's identity (`undefined` without a hook). A `Response`
 * it returns is sent as the answer; a throw or rejection is a 500 `-32603` whose detail only the log sees.
 */
export async function resolveIdentity(
  authenticate: Authenticate | undefined,
  request: Request,
  logger: ServerLogger,
): Promise<unknown> {
  if (authenticate === undefined) return undefined;
  let identity: unknown;
  try {
    identity = await authenticate(request);
  } catch (error) {
    logger.error("the authenticate hook failed", error);
    throw refusal(500, ErrorCode.InternalError, "Internal error");
  }
  if (identity instanceof Response) {
    throw new HttpRefusal(
      { status: identity.status, code: ErrorCode.InternalError, message: "refused" },
      identity,
    );
  }
  return identity;
}

/** A principal, as a legacy session remembers it: a digest of the identity, never the identity itself. */
export interface Principal {
  /** SHA-256 (hex) of the identity's canonical JSON; `"anonymous"` for no identity. */
  readonly fingerprint: string;
  readonly anonymous: boolean;
}

const ANONYMOUS: Principal = Object.freeze({ fingerprint: "anonymous", anonymous: true });
const MAX_DEPTH = 32;

/**
 * Fingerprints an identity: `undefined` and `null` are anonymous; anything else is hashed from its canonical
 * JSON (object keys sorted, functions and symbols left out). An identity that cannot be serialized (a cycle,
 * deeper than 32 levels) is a 500, logged.
 */
export async function principalOf(identity: unknown, logger: ServerLogger): Promise<Principal> {
  if (identity === undefined || identity === null) return ANONYMOUS;
  let text: string;
  try {
    text = canonical(identity, new Set(), 0);
  } catch (error) {
    logger.error("the identity cannot be fingerprinted", error);
    throw refusal(500, ErrorCode.InternalError, "Internal error");
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return { fingerprint: hex, anonymous: false };
}

function canonical(value: unknown, ancestors: Set<object>, depth: number): string {
  if (depth > MAX_DEPTH) throw new Error("identity nests too deep");
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      return JSON.stringify(`${value}n`);
    case "object": {
      if (value === null) return "null";
      if (ancestors.has(value)) throw new Error("identity has a cycle");
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
      // undefined, functions, symbols: not part of who someone is.
      return "";
  }
}
