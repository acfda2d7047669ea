import type { CryptoKeyPair } from "oauth4webapi";
import type { FetchLike } from "../../http/index.js";
import { isLoopbackHost } from "../../http/index.js";
import { checkKeys, nonNegativeInteger, optionError, positiveInteger } from "../../jsonrpc/config-check.js";
import type { McpkitError } from "../../jsonrpc/errors.js";
import type { MachineGrant } from "./grants.js";
import type { PreRegisteredClient } from "./registration.js";
import type { CredentialStore } from "./store.js";

/** What the redirect hook is told besides the URL. */
export interface AuthorizationUrlContext {
  /** The MCP server's resource identifier and the authorization server's issuer. */
  readonly resource: string;
  readonly issuer: string;
  /** The scope asked for (empty: none). */
  readonly scopes: readonly string[];
}

/**
 * Sends a person to the authorization URL (opens a browser, prints it, ...). Resolve with the redirect it came
 * back to (the callback URL, or its query) to finish at once; resolve with undefined to finish later through
 * `finishAuthorization()` (the request then fails with `UNAUTHORIZED` `interaction_required`).
 */
export type AuthorizationUrlHook = (
  url: URL,
  context: AuthorizationUrlContext,
) => Promise<string | URL | URLSearchParams | undefined> | string | URL | URLSearchParams | undefined;

/** Where the OAuth client reports automatic recoveries (never a token, code or secret). */
export interface OAuthClientLogger {
  /** A recovery that went as planned (a refresh, a step-up). */
  debug?(message: string, details?: { [key: string]: unknown }): void;
  /** A recovery that needs attention (a refused refresh token, a server that moved). */
  warn(message: string, details?: { [key: string]: unknown }): void;
}

/** Options of {@link OAuthClient}; unknown keys are rejected with `INVALID_CONFIG`. */
export interface OAuthClientOptions {
  /** The redirect URI (loopback `http` or `https`); required for the authorization code flow. */
  redirectUri?: string;
  /** The redirect hook; without it, a login needs `authorize()` / `finishAuthorization()`. */
  onAuthorizationUrl?: AuthorizationUrlHook;
  /** `client_name` at registration. Default `"mcpkit"`. */
  clientName?: string;
  /** `application_type` at registration. Default: `native` for a loopback or custom-scheme redirect, else `web`. */
  applicationType?: "native" | "web";
  /** A Client ID Metadata Document URL (https, with a path), used where the server supports them. */
  clientIdMetadataUrl?: string;
  /** Pre-registered clients, preferred over CIMD and DCR. */
  clients?: PreRegisteredClient[];
  /** A grant without a person instead of the authorization code flow. */
  grant?: MachineGrant;
  /**
   * The scopes of a first login or machine grant, instead of MCP's selection (the challenge's `scope`, else the
   * resource metadata's `scopes_supported`). A step-up still adds what a 403 asks for.
   */
  scopes?: string[];
  /** Where registrations and tokens live. Default: a new `MemoryCredentialStore`. */
  store?: CredentialStore;
  /** The `fetch` for metadata, registration and token requests. Default: the platform's. */
  fetch?: FetchLike;
  /** Plain `http` to non-loopback authorization servers. Default `false`. */
  allowHttp?: boolean;
  /** Each metadata, registration or token request must answer within this. Default 30,000 ms. */
  timeoutMs?: number;
  /**
   * How long discovered metadata is reused. Default 300,000 ms (resource metadata is fetched again after a 401);
   * 0: never reused.
   */
  metadataTtlMs?: number;
  /** Ask for `offline_access` when the authorization server lists it. Default `true`. */
  offlineAccess?: boolean;
  /** Authorizations (logins and step-ups) one operation may start. Default 3. */
  maxAuthorizationsPerOperation?: number;
  /** DPoP (RFC 9449): `true` makes an ES256 key pair, or pass one. Used when the server supports DPoP. Default off. */
  dpop?: boolean | CryptoKeyPair;
  logger?: OAuthClientLogger;
  /** The clock, in milliseconds since the epoch (tests). Default `Date.now`. */
  now?: () => number;
}

/** The options with every default applied. */
export interface ResolvedOAuthOptions {
  readonly redirectUri: string | undefined;
  readonly onAuthorizationUrl: AuthorizationUrlHook | undefined;
  readonly clientName: string;
  readonly applicationType: "native" | "web";
  readonly clientIdMetadataUrl: string | undefined;
  readonly clients: readonly PreRegisteredClient[];
  readonly grant: MachineGrant | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly fetch: FetchLike;
  readonly allowHttp: boolean;
  readonly timeoutMs: number;
  readonly metadataTtlMs: number;
  readonly offlineAccess: boolean;
  readonly maxAuthorizationsPerOperation: number;
  readonly dpop: boolean | CryptoKeyPair;
  readonly logger: OAuthClientLogger | undefined;
  readonly now: () => number;
}

/** The prefix of every option error of the OAuth client. */
const PREFIX = "OAuthClient ";

const KNOWN = new Set([
  "redirectUri",
  "onAuthorizationUrl",
  "clientName",
  "applicationType",
  "clientIdMetadataUrl",
  "clients",
  "grant",
  "scopes",
  "store",
  "fetch",
  "allowHttp",
  "timeoutMs",
  "metadataTtlMs",
  "offlineAccess",
  "maxAuthorizationsPerOperation",
  "dpop",
  "logger",
  "now",
]);

/** Checks the options (unknown keys, types, a redirect URI that is loopback http or https) and applies defaults. */
export function resolveOAuthOptions(options: OAuthClientOptions): ResolvedOAuthOptions {
  if (typeof options !== "object" || options === null) throw invalid("options", "must be an object");
  checkKeys(options, KNOWN, PREFIX);
  const redirectUri = options.redirectUri;
  if (redirectUri !== undefined) checkRedirectUri(redirectUri);
  if (redirectUri === undefined && options.grant === undefined) {
    throw invalid("redirectUri", "is required unless a machine grant is configured");
  }
  for (const key of ["onAuthorizationUrl", "fetch", "now"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function")
      throw invalid(key, "must be a function");
  }
  if (options.clients !== undefined && !Array.isArray(options.clients))
    throw invalid("clients", "must be an array");
  for (const client of options.clients ?? []) {
    if (typeof client?.clientId !== "string" || client.clientId === "")
      throw invalid("clients", "need a clientId");
  }
  if (options.scopes !== undefined) {
    if (!Array.isArray(options.scopes)) throw invalid("scopes", "must be an array of scope tokens");
    for (const scope of options.scopes) {
      if (typeof scope !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) {
        throw invalid("scopes", "must be scope tokens (printable ASCII, no space, quote or backslash)");
      }
    }
  }
  if (options.clientIdMetadataUrl !== undefined) {
    const url = safeUrl(options.clientIdMetadataUrl);
    if (url?.protocol !== "https:" || url.pathname === "/") {
      throw invalid("clientIdMetadataUrl", "must be an https URL with a path");
    }
  }
  if (options.applicationType !== undefined && !["native", "web"].includes(options.applicationType)) {
    throw invalid("applicationType", 'must be "native" or "web"');
  }
  return {
    redirectUri,
    onAuthorizationUrl: options.onAuthorizationUrl,
    clientName: options.clientName ?? "mcpkit",
    applicationType: options.applicationType ?? applicationTypeOf(redirectUri),
    clientIdMetadataUrl: options.clientIdMetadataUrl,
    clients: options.clients ?? [],
    grant: options.grant,
    scopes: options.scopes === undefined ? undefined : [...options.scopes],
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    allowHttp: options.allowHttp ?? false,
    timeoutMs: positiveInteger(options.timeoutMs, 30_000, "timeoutMs", PREFIX),
    metadataTtlMs: nonNegativeInteger(options.metadataTtlMs, 300_000, "metadataTtlMs", PREFIX),
    offlineAccess: options.offlineAccess ?? true,
    maxAuthorizationsPerOperation: positiveInteger(
      options.maxAuthorizationsPerOperation,
      3,
      "maxAuthorizationsPerOperation",
      PREFIX,
    ),
    dpop: options.dpop ?? false,
    logger: options.logger,
    now: options.now ?? Date.now,
  };
}

/** `native` for a loopback `http` or a custom-scheme redirect (desktop, CLI), `web` for an https one. */
export function applicationTypeOf(redirectUri: string | undefined): "native" | "web" {
  const url = redirectUri === undefined ? undefined : safeUrl(redirectUri);
  if (url === undefined) return "native";
  if (url.protocol === "https:") return isLoopbackHost(url.hostname) ? "native" : "web";
  return "native";
}

function checkRedirectUri(value: unknown): void {
  const url = typeof value === "string" ? safeUrl(value) : undefined;
  if (url === undefined || url.hash !== "")
    throw invalid("redirectUri", "must be an absolute URL without a fragment");
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw invalid("redirectUri", "must be https, or http to a loopback host");
  }
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem, PREFIX);
}
