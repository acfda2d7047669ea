import { ErrorCode } from "../../jsonrpc/codes.js";
import type { JsonRpcMessage } from "../../jsonrpc/message.js";
import {
  ANONYMOUS_FINGERPRINT,
  authorizationText,
  identityFingerprint,
  NoPrincipalError,
  principalText,
  type ServerLogger,
  sha256Hex,
} from "../../server/port.js";
import type { Authenticate } from "./options.js";
import { HttpRefusal, refusal } from "./responses.js";
import type { RequestView } from "./view.js";

/** Loggers that were already told about an identity without a principal (logged once, not per request). */
const toldNoPrincipal = new WeakSet<ServerLogger>();

/**
 * Runs the `authenticate` hook (given the decoded message, if any): its value is the request's identity (`undefined` without a hook). A `Response`
 * it returns is sent as the answer; a throw or rejection is a 500 `-32603` whose detail only the log sees. An
 * identity that names no principal (see `principalText`), or whose `authorizationContext` is not plain JSON,
 * is a 500 too, logged once per logger.
 */
export async function resolveIdentity(
  authenticate: Authenticate | undefined,
  request: RequestView,
  logger: ServerLogger,
  message: JsonRpcMessage | undefined,
): Promise<unknown> {
  if (authenticate === undefined) return undefined;
  let identity: unknown;
  try {
    identity = await authenticate(request.request(), { message });
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
  if (identity !== undefined && identity !== null) checkPrincipal(identity, logger);
  return identity;
}

function checkPrincipal(identity: unknown, logger: ServerLogger): void {
  try {
    principalText(identity);
    authorizationText(identity);
  } catch (error) {
    if (!(error instanceof NoPrincipalError)) throw error;
    if (!toldNoPrincipal.has(logger)) {
      toldNoPrincipal.add(logger);
      logger.error(
        "refusing requests whose identity names no principal: return { principal: string, ... } or plain JSON from authenticate",
        error,
      );
    }
    throw refusal(500, ErrorCode.InternalError, "Internal error");
  }
}

/** A principal, as a legacy session remembers it: digests of the identity, never the identity itself. */
export interface Principal {
  /** SHA-256 (hex) of the identity's principal text; `"anonymous"` for no identity. */
  readonly fingerprint: string;
  /** SHA-256 (hex) of the canonical JSON of the identity's `authorizationContext`; undefined without one. */
  readonly authorization: string | undefined;
  readonly anonymous: boolean;
}

/** The principal of a request without identity. */
export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({
  fingerprint: ANONYMOUS_FINGERPRINT,
  authorization: undefined,
  anonymous: true,
});

/**
 * Fingerprints an identity: `undefined` and `null` are anonymous; anything else is hashed from the principal
 * it names (its `principal` string, or its canonical JSON when it is plain JSON), and from its
 * `authorizationContext` when it has one. An identity that names no principal is a 500, logged.
 */
export async function principalOf(identity: unknown, logger: ServerLogger): Promise<Principal> {
  if (identity === undefined || identity === null) return ANONYMOUS_PRINCIPAL;
  try {
    const fingerprint = await identityFingerprint(identity);
    const context = authorizationText(identity);
    const authorization = context === undefined ? undefined : await sha256Hex(context);
    return { fingerprint, authorization, anonymous: false };
  } catch (error) {
    logger.error("the identity cannot be fingerprinted", error);
    throw refusal(500, ErrorCode.InternalError, "Internal error");
  }
}

/** Whether a request's principal may use a session opened by `owner`: same principal, same authorization. */
export function samePrincipal(principal: Principal, owner: Principal): boolean {
  return principal.fingerprint === owner.fingerprint && principal.authorization === owner.authorization;
}
