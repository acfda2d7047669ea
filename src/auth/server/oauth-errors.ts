import { OperationProcessingError, UnsupportedOperationError } from "oauth4webapi";
import { InvalidTokenError, type InvalidTokenReason, VerifierUnavailableError } from "./errors.js";

/**
 * Sorts an error of oauth4webapi into a token refusal or an outage. Its errors carry the request headers and
 * the token's claims as `cause`: those never leave this function; only a reason or an endpoint's status does.
 */
export function sortError(error: unknown, what: string): InvalidTokenError | VerifierUnavailableError {
  if (error instanceof InvalidTokenError || error instanceof VerifierUnavailableError) return error;
  if (error instanceof OperationProcessingError) {
    const cause: unknown = error.cause;
    if (cause instanceof Response) {
      return new VerifierUnavailableError(`${what} answered HTTP ${cause.status} (${error.code})`);
    }
    return new InvalidTokenError(reasonOf(error.message, error.code ?? ""));
  }
  if (error instanceof UnsupportedOperationError) {
    return new InvalidTokenError(/alg/i.test(error.message) ? "algorithm" : "malformed");
  }
  const name = error instanceof Error ? error.name : "error";
  return new VerifierUnavailableError(`${what} failed (${name})`);
}

function reasonOf(message: string, code: string): InvalidTokenReason {
  if (code === "OAUTH_JWT_TIMESTAMP_CHECK_FAILED") return /"exp"/.test(message) ? "expired" : "not_yet_valid";
  if (/claim missing/.test(message)) return "claims";
  if (/"aud"/.test(message)) return "audience";
  if (/"iss"/.test(message)) return "issuer";
  if (/"typ"/.test(message)) return "type";
  if (/"alg"/.test(message)) return "algorithm";
  if (/signature/.test(message) || code === "OAUTH_KEY_SELECTION_FAILED") return "signature";
  if (/claim/.test(message)) return "claims";
  return "malformed";
}
