import { LEGACY_VERSION, MODERN_VERSION, OLDER_LEGACY_VERSIONS } from "./versions.js";

/**
 * What one protocol revision does differently on the wire, as far as a client must care. mcpkit speaks
 * 2026-07-28 and 2025-11-25, and accepts servers that answer `initialize` with 2025-06-18 or 2025-03-26 (servers
 * in the wild); these traits are the small differences between those rungs.
 */
export interface RevisionTraits {
  readonly version: string;
  /** 2026-07-28: no handshake, per-request `_meta`, no sessions. */
  readonly stateless: boolean;
  /**
   * Streamable HTTP: requests after `initialize` carry `MCP-Protocol-Version` (from 2025-06-18 on; always in
   * 2026-07-28). A 2025-03-26 server never saw the header, so it is not sent.
   */
  readonly versionHeader: boolean;
  /** Streamable HTTP: `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` (2026-07-28). */
  readonly routingHeaders: boolean;
  /** Streamable HTTP: `Mcp-Session-Id`, the GET stream, DELETE and `Last-Event-ID` resumption (2025 rungs). */
  readonly sessions: boolean;
  /** A server may send a JSON-RPC batch (an array) where one message is expected (2025-03-26 only). */
  readonly batches: boolean;
  /** `elicitation/create` exists (2025-06-18 on; in 2026-07-28 only inside input-required results). */
  readonly elicitation: boolean;
  /** Server-to-client JSON-RPC requests exist (every stateful rung). */
  readonly serverRequests: boolean;
}

const TRAITS: { readonly [version: string]: RevisionTraits } = Object.freeze({
  [MODERN_VERSION]: traits(MODERN_VERSION, {
    stateless: true,
    versionHeader: true,
    routingHeaders: true,
    sessions: false,
    batches: false,
    elicitation: true,
    serverRequests: false,
  }),
  [LEGACY_VERSION]: traits(LEGACY_VERSION, {}),
  "2025-06-18": traits("2025-06-18", {}),
  "2025-03-26": traits("2025-03-26", { versionHeader: false, batches: true, elicitation: false }),
});

/**
 * The traits of a revision mcpkit's client can talk in, or `undefined` for any other version string.
 *
 * @example
 * revisionTraits("2025-03-26")?.versionHeader; // false: no MCP-Protocol-Version header
 */
export function revisionTraits(version: string): RevisionTraits | undefined {
  return Object.hasOwn(TRAITS, version) ? TRAITS[version] : undefined;
}

/** Every revision a client can end up in, newest first. */
export const CLIENT_REVISIONS: readonly string[] = Object.freeze([
  MODERN_VERSION,
  LEGACY_VERSION,
  ...OLDER_LEGACY_VERSIONS,
]);

function traits(version: string, overrides: Partial<Omit<RevisionTraits, "version">>): RevisionTraits {
  return Object.freeze({
    version,
    stateless: false,
    versionHeader: true,
    routingHeaders: false,
    sessions: true,
    batches: false,
    elicitation: true,
    serverRequests: true,
    ...overrides,
  });
}
