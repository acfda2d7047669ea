import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { GatewayConfig, UpstreamConfig, UpstreamOAuth } from "../gateway/index.js";
import type { HttpAuthProvider } from "../http/index.js";
import { optionError } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { mcpkitConfigHome } from "./login.js";

type AuthModules = readonly [typeof import("../auth/index.js"), typeof import("../auth-node/index.js")];

/** The OAuth of one HTTP upstream, with where it is and where its tokens are kept. */
export interface OAuthUpstream {
  readonly name: string;
  readonly url: string;
  readonly oauth: UpstreamOAuth;
  /** Its token file: one per upstream, named by its name and a digest of its URL. */
  readonly tokenFile: string;
}

/** `client_name` when the gateway registers itself (Dynamic Client Registration). */
const CLIENT_NAME = "mcpkit-gateway";

/**
 * The credentials of `mcpkit gateway`'s HTTP upstreams that have `oauth`: one `OAuthClient` of mcpkit/auth per
 * upstream, each with its own `FileCredentialStore` in the token directory, so no two upstreams share tokens and a
 * changed URL starts from none. mcpkit/auth is loaded only when a config has such an upstream.
 */
export class GatewayCredentials {
  private modules: AuthModules | undefined;

  constructor(
    /** The config file as the command was given it (token paths are relative to its folder; errors name it). */
    private readonly configFile: string,
    private readonly env: { readonly [name: string]: string | undefined },
  ) {}

  /** Loads mcpkit/auth when `config` has an OAuth upstream, before `provider()` is asked for one. */
  async prepare(config: GatewayConfig): Promise<void> {
    if (this.modules === undefined && oauthUpstreams(config, this.configFile).length > 0) {
      this.modules = await Promise.all([import("../auth/index.js"), import("../auth-node/index.js")]);
    }
  }

  /**
   * The auth provider of one upstream (`createGateway`'s `authProviders`): a machine grant, or the tokens a
   * `mcpkit gateway login` stored, refreshed as they expire. With no login stored (or one no longer accepted),
   * starting or calling it fails with `UNAUTHORIZED` naming the login command, and no login is tried here.
   */
  provider(upstream: UpstreamConfig, config: GatewayConfig): HttpAuthProvider | undefined {
    const entry = oauthUpstreamOf(upstream, config, this.configFile);
    if (entry === undefined) return undefined;
    const [{ OAuthClient, isAuthFailure }, { FileCredentialStore }] = this.loaded();
    const { oauth } = entry;
    const secret = secretOf(entry, this.env);
    const scopes = oauth.scopes === undefined ? {} : { scopes: [...oauth.scopes] };
    const store = new FileCredentialStore(entry.tokenFile);
    if (oauth.grant === "client_credentials") {
      const grant = {
        type: "client_credentials" as const,
        clientId: oauth.clientId ?? "",
        ...(secret === undefined ? {} : { clientSecret: secret }),
      };
      return new OAuthClient({ grant, store, clientName: CLIENT_NAME, ...scopes });
    }
    const client = new OAuthClient({
      // Only `mcpkit gateway login` sends a person anywhere; the gateway refreshes what it stored.
      redirectUri: `http://127.0.0.1${oauth.redirectPort === 0 ? "" : `:${oauth.redirectPort}`}/callback`,
      clients: preRegistered(oauth, secret),
      clientName: CLIENT_NAME,
      store,
      ...scopes,
    });
    const loginNeeded = () =>
      new McpkitError(
        "UNAUTHORIZED",
        `it needs a login: run mcpkit gateway login --config ${this.configFile} ${upstream.name}`,
        { details: { reason: "interaction_required", upstream: upstream.name } },
      );
    return {
      headers: (request) => client.headers(request),
      async onChallenge(challenge) {
        // Without a stored login there is nothing to refresh: say so before any discovery or registration.
        if (!(await holdsTokens(entry.tokenFile))) throw loginNeeded();
        try {
          return await client.onChallenge(challenge);
        } catch (error) {
          throw isAuthFailure(error, "interaction_required") ? loginNeeded() : error;
        }
      },
    };
  }

  private loaded(): AuthModules {
    if (this.modules === undefined) throw new Error("GatewayCredentials.prepare() was not awaited");
    return this.modules;
  }
}

/** The HTTP upstreams of `config` that have `oauth`, with their token files. */
export function oauthUpstreams(config: GatewayConfig, configFile: string): OAuthUpstream[] {
  return config.upstreams.flatMap((upstream) => {
    const entry = oauthUpstreamOf(upstream, config, configFile);
    return entry === undefined ? [] : [entry];
  });
}

function oauthUpstreamOf(
  upstream: UpstreamConfig,
  config: GatewayConfig,
  configFile: string,
): OAuthUpstream | undefined {
  const { target } = upstream;
  if (target.kind !== "http" || target.oauth === undefined) return undefined;
  return {
    name: upstream.name,
    url: target.url,
    oauth: target.oauth,
    tokenFile: tokenFileOf(tokenDirOf(config, configFile), upstream.name, target.url),
  };
}

/**
 * The token directory: `gateway.tokenStore.dir` (`~/` is the home folder; a relative one is relative to the
 * config file's folder), else `gateway-tokens` in mcpkit's config folder (`$XDG_CONFIG_HOME/mcpkit` or
 * `~/.config/mcpkit`).
 */
export function tokenDirOf(config: GatewayConfig, configFile: string): string {
  const dir = config.tokenDir;
  if (dir === undefined) return join(mcpkitConfigHome(), "gateway-tokens");
  if (dir === "~" || dir.startsWith("~/")) return join(homedir(), dir.slice(1));
  return resolve(dirname(resolve(configFile)), dir);
}

/** One upstream's token file: `<name>-<16 hex of SHA-256 of its URL>.json`, so a new URL never finds old tokens. */
export function tokenFileOf(dir: string, name: string, url: string): string {
  const digest = createHash("sha256").update(url).digest("hex").slice(0, 16);
  return join(dir, `${name}-${digest}.json`);
}

/** The client secret from the environment; a variable that is not set is a config error naming it. */
export function secretOf(
  entry: OAuthUpstream,
  env: { readonly [name: string]: string | undefined },
): string | undefined {
  const variable = entry.oauth.clientSecretEnv;
  if (variable === undefined) return undefined;
  const value = env[variable];
  if (value === undefined || value === "") {
    throw optionError(
      `mcpServers.${entry.name}.oauth.clientSecretEnv`,
      `names ${variable}, which is not set in the gateway's environment`,
    );
  }
  return value;
}

/** The configured client of a login, if the config names one (else Dynamic Client Registration). */
export function preRegistered(
  oauth: UpstreamOAuth,
  secret: string | undefined,
): { clientId: string; clientSecret?: string }[] {
  if (oauth.clientId === undefined) return [];
  return [{ clientId: oauth.clientId, ...(secret === undefined ? {} : { clientSecret: secret }) }];
}

/** True when the token file holds tokens for some (resource, issuer): a login happened and was not dropped. */
async function holdsTokens(file: string): Promise<boolean> {
  try {
    const entries: unknown = JSON.parse(await readFile(file, "utf8"));
    return (
      typeof entries === "object" &&
      entries !== null &&
      Object.values(entries).some((entry) => typeof entry === "object" && entry?.tokens !== undefined)
    );
  } catch {
    return false;
  }
}
