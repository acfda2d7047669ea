/** The parameters of one `WWW-Authenticate: Bearer` challenge (RFC 6750 §3, RFC 9728 §5.1). */
export interface BearerChallenge {
  readonly error?: "invalid_request" | "invalid_token" | "insufficient_scope";
  readonly errorDescription?: string;
  /** Scopes the request needs, space-separated in the header; omitted when empty. */
  readonly scopes?: readonly string[];
  readonly resourceMetadata: string;
}

/** A quoted-string (RFC 9110 §5.6.4): `"` and `\` escaped; control characters dropped. */
function quoted(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
  return `"${value.replace(/[\x00-\x1f\x7f]/g, "").replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * The `WWW-Authenticate` value of a challenge, in a fixed order: `error`, `error_description`,
 * `resource_metadata`, `scope`.
 *
 * @example
 * bearerChallenge({ resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scopes: ["mcp:read"] });
 * // Bearer resource_metadata="https://...", scope="mcp:read"
 */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error !== undefined) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.errorDescription !== undefined) {
    params.push(`error_description=${quoted(challenge.errorDescription)}`);
  }
  params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  if (challenge.scopes !== undefined && challenge.scopes.length > 0) {
    params.push(`scope=${quoted(challenge.scopes.join(" "))}`);
  }
  return `Bearer ${params.join(", ")}`;
}

const STATUS = { invalid_request: 400, invalid_token: 401, insufficient_scope: 403 } as const;

/**
 * The refusal of a request as a `Response`: 401 (no token, or `invalid_token`), 400 (`invalid_request`) or 403
 * (`insufficient_scope`), the challenge in `WWW-Authenticate` (exposed to browsers), and a one-line text body
 * (`invalid_token: The access token expired`). Plain text, not JSON: on the MCP endpoint a JSON body would read
 * as a malformed JSON-RPC message; clients act on the status and the header. It never carries the token.
 */
export function challengeResponse(challenge: BearerChallenge): Response {
  const status = challenge.error === undefined ? 401 : STATUS[challenge.error];
  const body = `${challenge.error ?? "unauthorized"}: ${challenge.errorDescription ?? "Authorization required"}`;
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      "www-authenticate": bearerChallenge(challenge),
      "access-control-expose-headers": "WWW-Authenticate",
    },
  });
}
