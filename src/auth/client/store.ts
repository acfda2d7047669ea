/** Which credentials: the MCP server (its `resource`) and the authorization server (its `issuer`). */
export interface CredentialKey {
  readonly resource: string;
  readonly issuer: string;
}

/** A client registration at one authorization server. */
export interface ClientRegistration {
  readonly client_id: string;
  readonly client_secret?: string;
  /** Seconds since the epoch; 0 or absent: never expires (RFC 7591). */
  readonly client_secret_expires_at?: number;
  readonly token_endpoint_auth_method?: string;
  /** How it was obtained. */
  readonly source: "preregistered" | "cimd" | "dcr";
}

/** Tokens for one (resource, issuer). */
export interface StoredTokens {
  readonly access_token: string;
  /** `bearer` or `dpop`, lowercase. */
  readonly token_type: string;
  readonly refresh_token?: string;
  /** Milliseconds since the epoch when the access token expires; absent: unknown. */
  readonly expires_at?: number;
  /** The scope granted (the token response's `scope`, else what was requested). */
  readonly scope?: string;
}

/** What the store keeps per (resource, issuer). */
export interface StoredCredentials {
  readonly client?: ClientRegistration;
  readonly tokens?: StoredTokens;
  /** Every scope requested so far for this resource (step-up requests their union). */
  readonly requestedScopes?: readonly string[];
}

/**
 * Where the OAuth client keeps registrations and tokens, keyed by (resource, issuer) so credentials of one
 * authorization server are never sent to another. `MemoryCredentialStore` is the default; `FileCredentialStore`
 * (`mcpkit/auth/node`) keeps them across runs of a CLI. Implementations must treat the values as secrets.
 *
 * @example
 * const store: CredentialStore = new MemoryCredentialStore();
 * await store.set({ resource: "https://mcp.example.com/mcp", issuer: "https://as.example.com" }, { tokens });
 */
export interface CredentialStore {
  /** What is kept for `key`, if anything. */
  /** What is kept for `key`, if anything. */
  get(key: CredentialKey): Promise<StoredCredentials | undefined> | StoredCredentials | undefined;
  /** Replaces what is kept for `key`. */
  set(key: CredentialKey, value: StoredCredentials): Promise<void> | void;
  /** Forgets `key`. */
  delete(key: CredentialKey): Promise<void> | void;
}

/** The key's string form, for maps and files. */
export function credentialKeyString(key: CredentialKey): string {
  return JSON.stringify([key.resource, key.issuer]);
}

/**
 * The default {@link CredentialStore}: a map in memory, gone with the process.
 *
 * @example
 * const oauth = new OAuthClient({ redirectUri, store: new MemoryCredentialStore() });
 */
export class MemoryCredentialStore implements CredentialStore {
  private readonly entries = new Map<string, StoredCredentials>();

  /** What is kept for `key`, if anything. */
  get(key: CredentialKey): StoredCredentials | undefined {
    return this.entries.get(credentialKeyString(key));
  }

  /** Replaces what is kept for `key`. */
  set(key: CredentialKey, value: StoredCredentials): void {
    this.entries.set(credentialKeyString(key), value);
  }

  /** Forgets `key`. */
  delete(key: CredentialKey): void {
    this.entries.delete(credentialKeyString(key));
  }
}
