import { isObject } from "../../jsonrpc/message.js";
import { type Cluster, clusterUnavailable, type ServerLogger } from "../../server/port.js";
import type { Principal } from "./identity.js";

/** Where a 2025-11-25 session lives: its owner, its principal's digests, when it ends at the latest. */
export interface DirectoryEntry {
  /** The id of the handler (instance) holding the session. */
  readonly owner: string;
  readonly principal: Principal;
  /** Milliseconds since the epoch: the session's absolute lifetime ends then. */
  readonly expiresAt: number;
  /** The `initialize` params, to serve a request statelessly where the operator chose so. */
  readonly init: { readonly [key: string]: unknown } | undefined;
}

/**
 * The cluster-wide directory of 2025-11-25 sessions, in the shared store: one key per session id
 * (`mcp:session:<id>`), written when `initialize` succeeded, removed when the owner closes the session, and
 * expiring with the session's absolute lifetime (an owner that died leaves entries behind; the first request
 * that finds the owner gone removes its entry).
 */
export class SessionDirectory {
  constructor(
    private readonly cluster: Cluster,
    private readonly logger: ServerLogger,
  ) {}

  /** Records a session; rejects with `McpkitError` `UNAVAILABLE` when the store cannot be reached. */
  async register(id: string, entry: DirectoryEntry, ttlMs: number): Promise<void> {
    try {
      await this.cluster.store.set(key(id), JSON.stringify(entry), ttlMs);
    } catch (error) {
      throw clusterUnavailable("recording a session", error);
    }
  }

  /** The entry of a session id; `undefined` for none. Rejects like {@link register}. */
  async lookup(id: string): Promise<DirectoryEntry | undefined> {
    let raw: string | undefined;
    try {
      raw = await this.cluster.store.get(key(id));
    } catch (error) {
      throw clusterUnavailable("looking a session up", error);
    }
    if (raw === undefined) return undefined;
    const entry: unknown = JSON.parse(raw);
    if (!isObject(entry) || typeof entry.owner !== "string" || !isObject(entry.principal)) return undefined;
    return entry as unknown as DirectoryEntry;
  }

  /** Removes a session's entry, in the background (a failure is logged; the entry then expires on its own). */
  forget(id: string): void {
    this.cluster.store.delete(key(id)).catch((error: unknown) => {
      this.logger.debug?.("could not remove a session from the cluster directory", { error: String(error) });
    });
  }
}

function key(id: string): string {
  return `mcp:session:${id}`;
}
