import { toBase64url } from "../../jsonrpc/base64.js";
import type { JsonValue } from "../../jsonrpc/message.js";
import { ExpiringEntries } from "./expiring-entries.js";
import { identityFingerprint } from "./fingerprint.js";
import { checkStoreOptions, DEFAULT_STATE_CAPACITY, stateCapacityError } from "./store.js";

/** Options of {@link StateHandles}. */
export interface StateHandlesOptions {
  /** Live handles held at most (default 10,000). */
  capacity?: number;
  /** How long a handle lives (default 600,000 ms). */
  ttlMs?: number;
  /** The clock lifetimes are read against (default `Date.now`). */
  now?: () => number;
}

/** Who a handle belongs to: a handler's `RequestContext` (its `identity`, as the transport set it) fits. */
export interface HandleOwner {
  readonly identity: unknown;
}

interface Held {
  readonly owner: string;
  readonly json: string;
}

/**
 * Server-minted state handles (SEP-2567): in 2026-07-28 a server keeps nothing per connection, so state that
 * spans requests lives behind a handle that the client passes back as an ordinary tool argument. Each handle
 * is an unguessable id (128 random bits), lives `ttlMs` (10 minutes), is bound to the principal that made it
 * (another principal sees no handle), and holds a JSON copy of its value. At most `capacity` (10,000) live
 * handles: past that, `create` throws `-32603` "State capacity reached" and no live handle is evicted.
 * `take` reads and removes a handle atomically (exactly one of two racing callers gets the value); `delete` is
 * idempotent. In memory, one process: servers behind a load balancer need sticky routing for handles.
 *
 * @example
 * const carts = new StateHandles<{ items: string[] }>({ ttlMs: 3_600_000 });
 * builder
 *   .tool({ name: "open_cart", inputSchema: { type: "object" } }, async (_args, ctx) => ({
 *     content: [{ type: "text", text: await carts.create(ctx, { items: [] }) }],
 *   }))
 *   .tool({ name: "checkout", inputSchema: { type: "object", properties: { cart: { type: "string" } } } },
 *     async ({ cart }, ctx) => {
 *       const held = await carts.take(ctx, String(cart));
 *       if (held === undefined) throw invalidParams("unknown or expired cart");
 *       return { content: [{ type: "text", text: `bought ${held.items.length} items` }] };
 *     });
 */
export class StateHandles<T extends JsonValue = JsonValue> {
  private readonly entries: ExpiringEntries<Held>;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: StateHandlesOptions = {}) {
    const checked = checkStoreOptions("StateHandles", options, ["capacity", "ttlMs", "now"]);
    this.ttlMs = checked.ttlMs ?? 600_000;
    this.now = checked.now ?? Date.now;
    this.entries = new ExpiringEntries(checked.capacity ?? DEFAULT_STATE_CAPACITY, this.now);
  }

  /** Live handles held now (expired ones are dropped as they are found). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Makes a handle for a copy of `value`, bound to `owner`'s principal. Throws `TypeError` when `value` is not
   * JSON, and `-32603` "State capacity reached: ..." (`data.reason` `state_capacity`, `data.option`, `data.limit`)
   * when full.
   */
  async create(owner: HandleOwner, value: T): Promise<string> {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError("StateHandles: a handle's value must be JSON");
    const principal = await identityFingerprint(owner.identity);
    const handle = toBase64url(crypto.getRandomValues(new Uint8Array(16)));
    if (!this.entries.add(handle, this.now() + this.ttlMs, { owner: principal, json })) {
      throw stateCapacityError("StateHandles.capacity", this.entries.capacity, "handles");
    }
    return handle;
  }

  /** A copy of the value of `owner`'s live handle; `undefined` for an unknown, expired or foreign handle. */
  async get(owner: HandleOwner, handle: string): Promise<T | undefined> {
    const principal = await identityFingerprint(owner.identity);
    const held = this.entries.get(handle);
    return held?.owner === principal ? (JSON.parse(held.json) as T) : undefined;
  }

  /**
   * Removes `owner`'s live handle and returns its value, atomically: of two racing takes, one gets the value
   * and the other `undefined`. `undefined` too for an unknown, expired or foreign handle (which stays).
   */
  async take(owner: HandleOwner, handle: string): Promise<T | undefined> {
    const principal = await identityFingerprint(owner.identity);
    const held = this.entries.take(handle, (entry) => entry.owner === principal);
    return held === undefined ? undefined : (JSON.parse(held.json) as T);
  }

  /**
   * Deletes `owner`'s handle. Idempotent: deleting an unknown, expired, already deleted or foreign handle is
   * fine (a foreign one stays). Resolves to true when a live handle was removed by this call.
   */
  async delete(owner: HandleOwner, handle: string): Promise<boolean> {
    const principal = await identityFingerprint(owner.identity);
    return this.entries.take(handle, (entry) => entry.owner === principal) !== undefined;
  }
}
