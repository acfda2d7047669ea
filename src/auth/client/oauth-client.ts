import type { AuthorizationServer } from "oauth4webapi";
import type { AuthChallenge, AuthRequest, HeaderRecord, HttpAuthProvider } from "../../http/index.js";
import {
  callbackParams,
  type PendingAuthorization,
  startAuthorization,
  validateCallback,
} from "./authorization-code.js";
import { discoverAuthorizationServer, discoverResourceMetadata, type ResourceMetadata } from "./discovery.js";
import { DpopKeys } from "./dpop.js";
import { authError, isAuthFailure } from "./errors.js";
import { machineClient, machineTokens } from "./grants.js";
import type { AuthHttp } from "./http.js";
import { type OAuthClientOptions, type ResolvedOAuthOptions, resolveOAuthOptions } from "./options.js";
import { obtainClient } from "./registration.js";
import { initialScopes, splitScopes, unionScopes, withOfflineAccess } from "./scopes.js";
import {
  type ClientRegistration,
  type CredentialKey,
  type CredentialStore,
  MemoryCredentialStore,
  type StoredCredentials,
  type StoredTokens,
} from "./store.js";
import { exchangeCode, refreshTokens, type TokenContext } from "./tokens.js";
import { challengeOf, parseWwwAuthenticate } from "./www-authenticate.js";

/** What the client knows about one MCP server: its resource, its authorization server, and where a login is. */
interface Binding {
  readonly prm: ResourceMetadata | undefined;
  readonly key: CredentialKey;
  readonly as: AuthorizationServer;
}

class ServerState {
  binding: Binding | undefined;
  /** The one recovery (login, refresh, step-up) in progress; concurrent refusals wait for it. */
  flight: Promise<boolean> | undefined;
  refreshing: Promise<StoredTokens | undefined> | undefined;
  pending: PendingAuthorization | undefined;

  constructor(readonly url: URL) {}
}

/** The outcome of {@link OAuthClient.authorize}. */
export type AuthorizeResult =
  | { status: "authorized"; accessToken: string; expiresAt?: number; scope?: string }
  | { status: "interaction_required"; authorizationUrl: string };

/** Access tokens expiring within this are refreshed before use. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * An OAuth 2.1 client for MCP servers, plugged into `StreamableHttpClientTransport` as its `authProvider`.
 * On a 401 it discovers the server's Protected Resource Metadata and its authorization server, registers
 * (pre-registered, then Client ID Metadata Document, then Dynamic Client Registration), and logs in with the
 * authorization code flow and PKCE (or a machine grant); it refreshes on expiry and on a 401 (once, single
 * flight), and steps up on a 403 `insufficient_scope` with the union of the scopes. Credentials are kept per
 * (resource, issuer) in its store; tokens, codes and secrets are never logged nor put in errors.
 *
 * @example
 * const oauth = new OAuthClient({
 *   redirectUri: "http://127.0.0.1:8765/callback",
 *   onAuthorizationUrl: async (url) => { openBrowser(url); return await callback.next(); },
 * });
 * const transport = new StreamableHttpClientTransport({ url: "https://mcp.example.com/mcp", authProvider: oauth });
 */
export class OAuthClient implements HttpAuthProvider {
  /** Where registrations and tokens are kept. */
  readonly store: CredentialStore;
  private readonly options: ResolvedOAuthOptions;
  private readonly http: AuthHttp;
  private readonly servers = new Map<string, ServerState>();
  private readonly prmCache = new Map<string, { value: ResourceMetadata | undefined; at: number }>();
  private readonly asCache = new Map<string, { value: AuthorizationServer; at: number }>();
  private dpopKeys: Promise<DpopKeys> | undefined;

  constructor(options: OAuthClientOptions) {
    this.options = resolveOAuthOptions(options);
    this.store = options.store ?? new MemoryCredentialStore();
    this.http = {
      fetch: this.options.fetch,
      allowHttp: this.options.allowHttp,
      timeoutMs: this.options.timeoutMs,
    };
  }

  /** The transport asks for headers: the stored token of this server (refreshed first when it expired). */
  async headers(request: AuthRequest): Promise<HeaderRecord | undefined> {
    const state = this.servers.get(request.url);
    const binding = state?.binding;
    if (state === undefined || binding === undefined) return undefined;
    let tokens = (await this.store.get(binding.key))?.tokens;
    if (tokens === undefined) return undefined;
    if (tokens.expires_at !== undefined && tokens.expires_at - EXPIRY_MARGIN_MS <= this.options.now()) {
      if (tokens.refresh_token === undefined) return undefined;
      tokens = await this.refresh(state, binding).catch(() => undefined);
      if (tokens === undefined) return undefined;
    }
    return this.tokenHeaders(tokens, request);
  }

  /** The transport was refused (401 / 403): recover, once per refusal, one recovery per server at a time. */
  async onChallenge(challenge: AuthChallenge): Promise<boolean> {
    const state = this.stateOf(challenge.request.url);
    const challenges = parseWwwAuthenticate(challenge.header("www-authenticate"));
    const bearer = challengeOf(challenges, "bearer") ?? challengeOf(challenges, "dpop");
    const nonce = challenge.header("dpop-nonce");
    if (
      challenge.status === 401 &&
      challengeOf(challenges, "dpop")?.params.error === "use_dpop_nonce" &&
      nonce
    ) {
      if (this.dpopKeys === undefined) return false;
      await (await this.dpopKeys).rememberNonce(challenge.request.url, nonce);
      return true;
    }
    if (state.flight !== undefined) return state.flight;
    if (await this.replacedSince(state, challenge.sent)) return true;
    state.flight = (
      challenge.status === 403
        ? this.stepUp(state, challenge, bearer?.params)
        : this.recover(state, challenge, bearer?.params)
    ).finally(() => {
      state.flight = undefined;
    });
    return state.flight;
  }

  /**
   * Makes sure there is a usable token for `serverUrl` without any MCP request: the stored one, a refresh, or a
   * login. Headless-friendly: without a redirect hook (or when it returns nothing) it resolves with the URL a
   * person must open; `finishAuthorization()` completes it.
   */
  async authorize(serverUrl: string | URL): Promise<AuthorizeResult> {
    const state = this.stateOf(endpointOf(new URL(String(serverUrl))));
    const binding = await this.bind(state, undefined, false);
    try {
      const tokens = (await this.store.get(binding.key))?.tokens;
      const usable = tokens !== undefined && this.usable(tokens);
      if (!usable && tokens?.refresh_token !== undefined)
        await this.refresh(state, binding).catch(() => undefined);
      const now = (await this.store.get(binding.key))?.tokens;
      if (now === undefined || !this.usable(now)) {
        await this.login(state, binding, this.firstScopes(undefined, binding));
      }
    } catch (error) {
      if (isAuthFailure(error, "interaction_required")) {
        return { status: "interaction_required", authorizationUrl: String(error.details?.authorizationUrl) };
      }
      throw error;
    }
    const tokens = (await this.store.get(binding.key))?.tokens as StoredTokens;
    return {
      status: "authorized",
      accessToken: tokens.access_token,
      ...(tokens.expires_at === undefined ? {} : { expiresAt: tokens.expires_at }),
      ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
    };
  }

  /**
   * Completes a login that ended in `interaction_required`: validates the redirect (`state`, `iss`) and
   * exchanges its code. The transport needs no restart: its next request carries the token.
   */
  async finishAuthorization(callback: string | URL | URLSearchParams): Promise<void> {
    const params = callbackParams(callback);
    const state = [...this.servers.values()].find(
      (s) => s.pending !== undefined && s.pending.state === params.get("state"),
    );
    if (state?.pending === undefined) {
      throw authError("authorization_response", "no login is waiting for this redirect (unknown state)", {
        problem: "state_mismatch",
      });
    }
    await this.complete(state, state.pending, params);
  }

  /** Forgets the tokens of `serverUrl` (its registration stays). */
  async signOut(serverUrl: string | URL): Promise<void> {
    const binding = this.servers.get(endpointOf(new URL(String(serverUrl))))?.binding;
    if (binding === undefined) return;
    const { tokens: _, ...rest } = (await this.store.get(binding.key)) ?? {};
    await this.store.set(binding.key, rest);
  }

  private stateOf(url: string): ServerState {
    let state = this.servers.get(url);
    if (state === undefined) {
      state = new ServerState(new URL(url));
      this.servers.set(url, state);
    }
    return state;
  }

  /** True when the stored token is not the one the refused request carried (another recovery replaced it). */
  private async replacedSince(state: ServerState, sent: HeaderRecord | undefined): Promise<boolean> {
    if (state.binding === undefined) return false;
    // A request sent without a token is `recover`'s to judge: the stored one may have expired unrefreshed.
    const token = tokenOf(sent);
    if (token === undefined) return false;
    const current = (await this.store.get(state.binding.key))?.tokens?.access_token;
    return current !== undefined && current !== token;
  }

  /** A 401: rediscover (the server may have moved to another authorization server), refresh once, else log in. */
  private async recover(
    state: ServerState,
    challenge: AuthChallenge,
    params: ChallengeParams,
  ): Promise<boolean> {
    if (challenge.attempt >= Math.min(2, this.options.maxAuthorizationsPerOperation)) return false;
    const before = state.binding?.key.issuer;
    const binding = await this.bind(state, params?.resource_metadata, true);
    if (before !== undefined && before !== binding.key.issuer) {
      this.options.logger?.warn("the MCP server moved to another authorization server", {
        from: before,
        to: binding.key.issuer,
      });
    }
    const stored = await this.store.get(binding.key);
    const sent = tokenOf(challenge.sent);
    const tokens = stored?.tokens;
    // Nothing was sent although a token is stored: it was not bound yet (resend it), or it expired and could not
    // be refreshed before use (a machine grant has no refresh token: replace it).
    if (sent === undefined && tokens !== undefined && this.usable(tokens)) return true;
    if (tokens !== undefined && (sent === undefined || sent === tokens.access_token)) {
      if (tokens.refresh_token !== undefined && challenge.attempt === 0 && this.options.grant === undefined) {
        const fresh = await this.refresh(state, binding).catch(() => undefined);
        if (fresh !== undefined) return true;
      }
      await this.dropTokens(binding.key);
    }
    await this.login(state, binding, this.firstScopes(params?.scope, binding));
    return true;
  }

  /** The configured scopes, else MCP's selection (the challenge's, else the resource's `scopes_supported`). */
  private firstScopes(challengeScope: string | undefined, binding: Binding): readonly string[] {
    return this.options.scopes ?? initialScopes(challengeScope, binding.prm?.scopesSupported);
  }

  /** True when `tokens` does not expire within the margin. */
  private usable(tokens: StoredTokens): boolean {
    return (tokens.expires_at ?? Infinity) - EXPIRY_MARGIN_MS > this.options.now();
  }

  /** A 403 `insufficient_scope`: a new login asking for the union of what was asked before and the challenge. */
  private async stepUp(
    state: ServerState,
    challenge: AuthChallenge,
    params: ChallengeParams,
  ): Promise<boolean> {
    if (params?.error !== "insufficient_scope") return false;
    const binding = state.binding ?? (await this.bind(state, params.resource_metadata, true));
    const stored = await this.store.get(binding.key);
    const previous = stored?.requestedScopes ?? splitScopes(stored?.tokens?.scope);
    const wanted = unionScopes(previous, splitScopes(params.scope));
    if (wanted.length === previous.length) {
      // Asking again for what was granted cannot help: the refusal stands.
      this.options.logger?.warn(
        "refused for insufficient scope although every challenged scope was granted",
        {
          scope: params.scope,
        },
      );
      return false;
    }
    if (challenge.attempt >= this.options.maxAuthorizationsPerOperation) {
      throw authError("budget_exhausted", "the authorization attempts for this operation are used up", {
        attempts: challenge.attempt,
      });
    }
    this.options.logger?.debug?.("stepping up for more scope", { scope: wanted.join(" ") });
    await this.login(state, binding, wanted);
    return true;
  }

  /** Discovers (or reuses, within the TTL) the resource metadata and the authorization server metadata. */
  private async bind(state: ServerState, headerUrl: string | undefined, force: boolean): Promise<Binding> {
    const now = this.options.now();
    const ttl = this.options.metadataTtlMs;
    const cacheKey = `${state.url.href} ${headerUrl ?? ""}`;
    let cached = this.prmCache.get(cacheKey);
    if (force || cached === undefined || now - cached.at >= ttl) {
      cached = { value: await discoverResourceMetadata(this.http, state.url, headerUrl), at: now };
      this.prmCache.set(cacheKey, cached);
    }
    const prm = cached.value;
    // Without resource metadata (servers of 2025-03-26), the server's origin is its authorization server.
    const issuer = prm?.authorizationServers[0] ?? state.url.origin;
    const resource = prm?.resource ?? state.url.href;
    let as = this.asCache.get(issuer);
    if (as === undefined || now - as.at >= ttl) {
      as = { value: await discoverAuthorizationServer(this.http, issuer), at: now };
      this.asCache.set(issuer, as);
    }
    state.binding = { prm, key: { resource, issuer }, as: as.value };
    return state.binding;
  }

  /** Gets tokens for `scopes`: a machine grant, or the authorization code flow through the redirect hook. */
  private async login(state: ServerState, binding: Binding, scopes: readonly string[]): Promise<void> {
    const { as, key } = binding;
    const stored = (await this.store.get(key)) ?? {};
    const grant = this.options.grant;
    if (grant !== undefined) {
      const { client, auth } = await machineClient(grant, as);
      const tokens = await machineTokens(
        grant,
        await this.tokenContext(as, client, auth),
        key.resource,
        scopes,
      );
      await this.store.set(key, { ...stored, tokens, requestedScopes: [...scopes] });
      return;
    }
    const redirectUri = this.options.redirectUri as string;
    const client = await obtainClient(
      {
        http: this.http,
        redirectUri,
        clientName: this.options.clientName,
        applicationType: this.options.applicationType,
        preRegistered: this.options.clients,
        clientIdMetadataUrl: this.options.clientIdMetadataUrl,
        nowSeconds: Math.floor(this.options.now() / 1000),
      },
      as,
      stored.client,
    );
    if (client.source === "dcr" && client !== stored.client) await this.store.set(key, { ...stored, client });
    const asked = withOfflineAccess(scopes, as, this.options.offlineAccess);
    const pending = await startAuthorization(as, client, key, asked, redirectUri);
    state.pending = pending;
    const hook = this.options.onAuthorizationUrl;
    const callback =
      hook === undefined
        ? undefined
        : await hook(pending.url, { resource: key.resource, issuer: key.issuer, scopes: asked });
    if (callback === undefined) {
      throw authError("interaction_required", "a person must log in at the authorization URL", {
        authorizationUrl: pending.url.href,
        issuer: key.issuer,
      });
    }
    await this.complete(state, pending, callbackParams(callback));
  }

  /** Validates the redirect (before the code goes anywhere), then exchanges the code. One use per login. */
  private async complete(
    state: ServerState,
    pending: PendingAuthorization,
    params: URLSearchParams,
  ): Promise<void> {
    if (state.pending === pending) state.pending = undefined;
    const validated = validateCallback(pending, params);
    const context = await this.tokenContext(pending.as, pending.client);
    const scope = pending.scopes.length > 0 ? pending.scopes.join(" ") : undefined;
    const tokens = await exchangeCode(
      context,
      validated,
      pending.redirectUri,
      pending.verifier,
      pending.resource,
      scope,
    );
    const stored = (await this.store.get(pending.key)) ?? {};
    const client: Partial<StoredCredentials> =
      pending.client.source === "preregistered" ? {} : { client: pending.client };
    await this.store.set(pending.key, { ...stored, ...client, tokens, requestedScopes: [...pending.scopes] });
  }

  /** One refresh at a time per server; `invalid_grant` drops the tokens (the registration stays). */
  private refresh(state: ServerState, binding: Binding): Promise<StoredTokens | undefined> {
    state.refreshing ??= (async () => {
      const stored = await this.store.get(binding.key);
      const tokens = stored?.tokens;
      if (tokens?.refresh_token === undefined || stored?.client === undefined) return undefined;
      try {
        const context = await this.tokenContext(binding.as, stored.client);
        const fresh = await refreshTokens(context, tokens.refresh_token, binding.key.resource, tokens);
        await this.store.set(binding.key, { ...stored, tokens: fresh });
        this.options.logger?.debug?.("refreshed the access token", { issuer: binding.key.issuer });
        return fresh;
      } catch (error) {
        if (isAuthFailure(error, "token_request_failed") && error.details?.error === "invalid_grant") {
          this.options.logger?.warn("the refresh token was refused (invalid_grant); a new login is needed", {
            issuer: binding.key.issuer,
          });
          await this.dropTokens(binding.key);
        }
        throw error;
      }
    })().finally(() => {
      state.refreshing = undefined;
    });
    return state.refreshing;
  }

  private async dropTokens(key: CredentialKey): Promise<void> {
    const { tokens: _, ...rest } = (await this.store.get(key)) ?? {};
    await this.store.set(key, rest);
  }

  private async tokenContext(
    as: AuthorizationServer,
    client: ClientRegistration,
    auth?: TokenContext["auth"],
  ): Promise<TokenContext> {
    const base = {
      http: this.http,
      as,
      client,
      now: this.options.now(),
      ...(auth === undefined ? {} : { auth }),
    };
    const dpop = this.options.dpop;
    if (dpop === false || !Array.isArray(as.dpop_signing_alg_values_supported)) return base;
    this.dpopKeys ??= DpopKeys.create(dpop === true ? undefined : dpop);
    return { ...base, dpop: (await this.dpopKeys).handle };
  }

  private async tokenHeaders(tokens: StoredTokens, request: AuthRequest): Promise<HeaderRecord> {
    if (tokens.token_type === "dpop" && this.dpopKeys !== undefined) {
      return (await this.dpopKeys).headers(tokens.access_token, request.method, request.url);
    }
    return { authorization: `Bearer ${tokens.access_token}` };
  }
}

type ChallengeParams = { readonly [name: string]: string } | undefined;

/** The token of an `authorization: Bearer|DPoP <token>` header the provider supplied. */
function tokenOf(sent: HeaderRecord | undefined): string | undefined {
  const value = sent?.authorization;
  if (value === undefined) return undefined;
  const space = value.indexOf(" ");
  return space < 0 ? undefined : value.slice(space + 1);
}

/** The endpoint as the transport names it to the provider: scheme, host, port, path. */
function endpointOf(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
