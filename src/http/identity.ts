import { ErrorCode } from "../jsonrpc/codes.js";
import { ANONYMOUS_FINGERPRINT, identityFingerprint } from "../server/fingerprint.js";
import type { ServerLogger } from "../server/options.js";
import type { Authenticate } from "./options.js";
import { HttpRefusal, refusal } from "./responses.js";
import type { RequestView } from "./view.js";

/**
 * Runs the `authenticate` hook: its value is the request's identity (`undefined` without a hook). A `Response`
 * it returns is sent as the answer; a throw or rejection is a 500 `-32603` whose detail only the log sees.
 */
export async function resolveIdentity(
  authenticate: Authenticate | undefined,
  request: RequestView,
  logger: ServerLogger,
): Promise<unknown> {
  if (authenticate === undefined) return undefined;
  let identity: unknown;
  try {
    identity = await authenticate(request.request());
  } catch (error) {
    logger.error("the authenticate hook failed", error);
    throw refusal(500, ErrorCode.InternalError, "Internal error");
  }
  if (identity instanceof Response) {
    throw new HttpRefusal(
      { status: identity.status, code: ErrorCode.InternalError, message: "refused" },
      { response: identity },
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

/** The principal of a request without identity. */
export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({
  fingerprint: ANONYMOUS_FINGERPRINT,
  anonymous: true,
});

/**
 * Fingerprints an identity: `undefined` and `null` are anonymous; anything else is hashed from its canonical
 * JSON (object keys sorted, functions and symbols left out). An identity that cannot be serialized (a cycle,
 * deeper than 32 levels) is a 500, logged.
 */
export async function principalOf(identity: unknown, logger: ServerLogger): Promise<Principal> {
  if (identity === undefined || identity === null) return ANONYMOUS_PRINCIPAL;
  try {
    return { fingerprint: await identityFingerprint(identity), anonymous: false };
  } catch (error) {
    logger.error("the identity cannot be fingerprinted", error);
    throw refusal(500, ErrorCode.InternalError, "Internal error");
  }
}
