import type { Authenticate, AuthenticateInfo } from "../../http/index.js";
import { challengeResponse } from "./challenge.js";
import { InvalidTokenError, type InvalidTokenReason } from "./errors.js";
import { checkKeys, checkResource, checkScopes, invalid, metadataUrls } from "./resource.js";
import type { TokenVerifier, VerifiedToken } from "./token.js";

/** Scopes a tool needs: a map by tool name, or a function (`undefined`: none beyond `requiredScopes`). */
export type ToolScopes =
  | { readonly [toolName: string]: readonly string[] }
  | ((toolName: string) => readonly string[] | undefined);

/** Why `requireBearer` refused a request, for audit logs. Never carries the token. */
export interface BearerRefusal {
  readonly status: 400 | 401 | 403;
  readonly reason: "missing" | "malformed_header" | InvalidTokenReason | "insufficient_scope";
  readonly method: string | undefined;
  readonly tool: string | undefined;
  /** The scopes the operation needs (all of them, not only the missing ones). */
  readonly scopes: readonly string[];
}

/** Options of {@link requireBearer}. Unknown keys are rejected. */
export interface RequireBearerOptions {
  /** Checks a token: {@link jwtVerifier}, {@link introspectionVerifier}, or your own. */
  verify: TokenVerifier;
  /** The canonical resource (the MCP endpoint URL, as in the metadata); tokens must name it in `aud`. */
  resource: string;
  /** The metadata URL put in challenges (default: the path-form well-known URL of `resource`). */
  resourceMetadataUrl?: string;
  /** Scopes every request needs (default none). */
  requiredScopes?: readonly string[];
  /** Scopes a `tools/call` of a tool needs, on top of `requiredScopes`. */
  toolScopes?: ToolScopes;
  /** Whether the granted scopes satisfy one required scope (default: it is granted). A hierarchy hook. */
  scopeSatisfied?: (granted: ReadonlySet<string>, required: string) => boolean;
  /** The identity's principal (default: issuer and subject, or issuer and client id without a subject). */
  principal?: (token: VerifiedToken) => string;
  /**
   * What a 2025-11-25 session stays bound to besides the principal (plain JSON; default
   * `{ issuer, clientId }`). Scopes are left out by default so that refresh and step-up keep the session.
   */
  sessionBinding?: (token: VerifiedToken) => unknown;
  /** Called once per refused request (audit); never given the token. */
  onRefusal?: (refusal: BearerRefusal) => void;
  /** Seconds since the epoch, for the expiry check (default the system clock). */
  now?: () => number;
}

/** The identity `requireBearer` gives handlers (`RequestContext.identity`). */
export interface BearerIdentity {
  readonly principal: string;
  readonly authorizationContext: unknown;
  /** What the verifier learned; the raw token never reaches handlers (MCP forbids passing it on). */
  readonly token: VerifiedToken;
}

/** Longest token accepted (characters); longer is refused before the verifier runs. */
export const MAX_TOKEN_LENGTH = 16_384;

const KEYS = [
  "verify",
  "resource",
  "resourceMetadataUrl",
  "requiredScopes",
  "toolScopes",
  "scopeSatisfied",
  "principal",
  "sessionBinding",
  "onRefusal",
  "now",
] as const;

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

const DESCRIPTIONS: { readonly [reason in InvalidTokenReason]: string } = {
  malformed: "The access token is malformed",
  expired: "The access token expired",
  not_yet_valid: "The access token is not valid yet",
  audience: "The access token was not issued for this resource",
  issuer: "The access token was issued by an untrusted issuer",
  type: "The token is not an access token",
  algorithm: "The access token's signing algorithm is not accepted",
  signature: "The access token's signature is invalid",
  inactive: "The access token is not active",
  claims: "The access token lacks required claims",
};

/**
 * An `authenticate` hook for `createHttpHandler` that requires an OAuth bearer token (RFC 6750) on every
 * request. No token: 401 `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`. A token the verifier
 * refuses, expired, or not issued for `resource`: 401 `error="invalid_token"`. A valid token without every scope
 * the operation needs (`requiredScopes`, plus the tool's for `tools/call`): 403 `error="insufficient_scope"`,
 * `scope` naming the operation's full scope set. Otherwise the identity is a {@link BearerIdentity}; read it
 * in handlers with {@link bearerToken}. Throws `INVALID_CONFIG` for bad options.
 *
 * @example
 * const authenticate = requireBearer({
 *   resource: "https://mcp.example.com/mcp",
 *   verify: jwtVerifier({ issuer: "https://auth.example.com" }),
 *   requiredScopes: ["mcp:read"],
 *   toolScopes: { delete_note: ["mcp:write"] },
 * });
 * const handler = createHttpHandler(server, { authenticate, allowedHosts: ["mcp.example.com"] });
 */
export function requireBearer(options: RequireBearerOptions): Authenticate {
  checkKeys("options", options, KEYS);
  if (typeof options.verify !== "function") throw invalid("verify", "must be a function");
  const { resource } = checkResource("resource", options.resource);
  const metadataUrl =
    options.resourceMetadataUrl ?? metadataUrls(checkResource("resource", resource)).pathForm;
  checkResource("resourceMetadataUrl", metadataUrl);
  const required = checkScopes("requiredScopes", options.requiredScopes);
  const toolScopes = checkToolScopes(options.toolScopes);
  for (const key of ["scopeSatisfied", "principal", "sessionBinding", "onRefusal", "now"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function")
      throw invalid(key, "must be a function");
  }
  const satisfied = options.scopeSatisfied ?? ((granted, scope) => granted.has(scope));
  const principalOf = options.principal ?? defaultPrincipal;
  const bindingOf = options.sessionBinding ?? defaultBinding;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const { verify, onRefusal } = options;

  return async (request: Request, info?: AuthenticateInfo) => {
    const { method, tool } = operationOf(info);
    const scopes = tool === undefined ? required : union(required, toolScopes(tool));
    const refuse = (refusal: Omit<BearerRefusal, "method" | "tool" | "scopes">, response: Response) => {
      onRefusal?.({ ...refusal, method, tool, scopes });
      return response;
    };
    const invalidToken = (reason: InvalidTokenReason) =>
      refuse(
        { status: 401, reason },
        challengeResponse({
          error: "invalid_token",
          errorDescription: DESCRIPTIONS[reason],
          resourceMetadata: metadataUrl,
          scopes,
        }),
      );
    const header = request.headers.get("authorization");
    if (header === null || !/^bearer(?: |$)/i.test(header.trimStart())) {
      return refuse(
        { status: 401, reason: "missing" },
        challengeResponse({ resourceMetadata: metadataUrl, scopes }),
      );
    }
    const match = BEARER.exec(header.trim());
    if (!match) {
      return refuse(
        { status: 400, reason: "malformed_header" },
        challengeResponse({
          error: "invalid_request",
          errorDescription: "The Authorization header is not a single Bearer token",
          resourceMetadata: metadataUrl,
        }),
      );
    }
    const raw = match[1] as string;
    if (raw.length > MAX_TOKEN_LENGTH) return invalidToken("malformed");
    let token: VerifiedToken;
    try {
      token = await verify(raw, { request, resource });
    } catch (error) {
      if (error instanceof InvalidTokenError) return invalidToken(error.reason);
      throw error;
    }
    if (!token.audience.includes(resource)) return invalidToken("audience");
    if (token.expiresAt !== undefined && token.expiresAt <= now()) return invalidToken("expired");
    const principal = principalOf(token);
    if (typeof principal !== "string" || principal === "") return invalidToken("claims");
    const granted = new Set(token.scopes);
    if (!scopes.every((scope) => satisfied(granted, scope))) {
      return refuse(
        { status: 403, reason: "insufficient_scope" },
        challengeResponse({
          error: "insufficient_scope",
          errorDescription: "The access token lacks a scope this operation needs",
          resourceMetadata: metadataUrl,
          scopes,
        }),
      );
    }
    const identity: BearerIdentity = Object.freeze({
      principal,
      authorizationContext: bindingOf(token),
      token,
    });
    return identity;
  };
}

/**
 * The verified token of a request served behind {@link requireBearer}, from `RequestContext.identity`;
 * `undefined` for any other identity.
 *
 * @example
 * .tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, ctx) => ({
 *   content: [{ type: "text", text: bearerToken(ctx.identity)?.subject ?? "nobody" }],
 * }))
 */
export function bearerToken(identity: unknown): VerifiedToken | undefined {
  if (typeof identity !== "object" || identity === null) return undefined;
  const token = (identity as { token?: unknown }).token;
  if (typeof token !== "object" || token === null) return undefined;
  const { scopes, audience, claims } = token as Partial<VerifiedToken>;
  return Array.isArray(scopes) && Array.isArray(audience) && typeof claims === "object"
    ? (token as VerifiedToken)
    : undefined;
}

function defaultPrincipal(token: VerifiedToken): string {
  const who = token.subject ?? (token.clientId === undefined ? undefined : `client:${token.clientId}`);
  return who === undefined ? "" : JSON.stringify([token.issuer ?? null, who]);
}

function defaultBinding(token: VerifiedToken): unknown {
  return { issuer: token.issuer ?? null, clientId: token.clientId ?? null };
}

function operationOf(info: AuthenticateInfo | undefined): {
  method: string | undefined;
  tool: string | undefined;
} {
  const message = info?.message as { method?: unknown; params?: { name?: unknown } } | undefined;
  const method = typeof message?.method === "string" ? message.method : undefined;
  const name = method === "tools/call" ? message?.params?.name : undefined;
  return { method, tool: typeof name === "string" ? name : undefined };
}

function union(a: readonly string[], b: readonly string[] | undefined): readonly string[] {
  return b === undefined || b.length === 0 ? a : [...new Set([...a, ...b])];
}

function checkToolScopes(scopes: ToolScopes | undefined): (tool: string) => readonly string[] | undefined {
  if (scopes === undefined) return () => undefined;
  if (typeof scopes === "function") {
    return (tool) => {
      const result = scopes(tool);
      return result === undefined ? undefined : checkScopes(`toolScopes("${tool}")`, result);
    };
  }
  if (typeof scopes !== "object" || scopes === null || Array.isArray(scopes)) {
    throw invalid("toolScopes", "must be a map of tool names to scopes, or a function");
  }
  const map = new Map<string, readonly string[]>();
  for (const [tool, list] of Object.entries(scopes))
    map.set(tool, checkScopes(`toolScopes["${tool}"]`, list));
  return (tool) => map.get(tool);
}
