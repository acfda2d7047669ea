import { ErrorCode } from "../../jsonrpc/codes.js";
import { checkKeys, optionError, positiveInteger } from "../../jsonrpc/config-check.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { limitDetails, limitMessage } from "../../jsonrpc/limit-error.js";
import { isObject } from "../../jsonrpc/message.js";
import { ExpiringEntries } from "./expiring-entries.js";

/**
 * Where a server in single-use mode (the `singleUseState` option) keeps the nonces of the `requestState` tokens
 * it sealed and that were not spent yet. A token opens once: its retry spends the nonce, and any later
 * presentation of it is refused. The store only ever removes permission: a nonce it lost, evicted or never
 * had makes the token fail, never succeed twice.
 *
 * Both methods must be atomic across every server instance that shares the store (one Redis `SET ... PXAT` and
 * one `DEL` answering `1` are enough). Values may be returned directly or as promises. A method that throws
 * fails the request with `-32603`.
 *
 * @example
 * const store: RequestStateStore = {
 *   issue: async (nonce, expiresAt) => (await redis.set(`mcp:rs:${nonce}`, "1", { NX: true, PXAT: expiresAt })) === "OK",
 *   consume: async (nonce) => (await redis.del(`mcp:rs:${nonce}`)) === 1,
 * };
 * createServer({ serverInfo, handler, singleUseState: store, stateKey: sharedKey });
 */
export interface RequestStateStore {
  /**
   * Remembers `nonce` as unspent until `expiresAt` (milliseconds since the epoch, the token's own expiry).
   * Return false when there is no room: the server then refuses to seal, and the call that asked for input gets
   * `-32603` "State capacity reached".
   */
  issue(nonce: string, expiresAt: number): boolean | Promise<boolean>;
  /**
   * Spends `nonce`: true for exactly one caller, while the nonce is issued, unspent and unexpired; false
   * otherwise (a replay, an unknown nonce, an expired one).
   */
  consume(nonce: string): boolean | Promise<boolean>;
}

/** Options of {@link MemoryRequestStateStore}. */
export interface MemoryRequestStateStoreOptions {
  /** Unspent, unexpired nonces held at most (default 10,000). */
  capacity?: number;
  /** The clock expiries are read against (default `Date.now`). */
  now?: () => number;
}

/**
 * Start of the message of the `-32603` a server answers when no single-use state or state handle can be made;
 * the rest names the option to raise (`State capacity reached: 10001 handles, over StateHandles.capacity (10000)`).
 */
export const STATE_CAPACITY_MESSAGE = "State capacity reached";

/**
 * The `-32603` of a full state store: its message and `data` name the option that bounds it (`data.reason`
 * `state_capacity`, `data.option`, and `data.limit` / `data.size` where the capacity is known).
 */
export function stateCapacityError(option: string, capacity: number | undefined, unit: string): JsonRpcError {
  const extra = { reason: "state_capacity" };
  if (capacity === undefined) {
    return new JsonRpcError(
      ErrorCode.InternalError,
      `${STATE_CAPACITY_MESSAGE}: the ${option} store has no room`,
      {
        ...extra,
        option,
      },
    );
  }
  const facts = { option, limit: capacity, size: capacity + 1 };
  return new JsonRpcError(
    ErrorCode.InternalError,
    limitMessage(STATE_CAPACITY_MESSAGE, facts, unit),
    limitDetails(facts, extra),
  );
}

/** Default {@link MemoryRequestStateStore} capacity. */
export const DEFAULT_STATE_CAPACITY = 10_000;

/**
 * The in-memory {@link RequestStateStore}, the default of `singleUseState: true`: at most `capacity` (10,000)
 * unspent nonces, each held until it is spent or its token expires. When full of unexpired nonces it refuses
 * to issue (the server answers `-32603` "State capacity reached") rather than evict one, so a replay can never
 * succeed because its nonce was forgotten. One process only: instances behind a load balancer need a shared
 * store (or sticky routing), or a retry that reaches another instance is refused.
 *
 * @example
 * createServer({ serverInfo, handler, singleUseState: new MemoryRequestStateStore({ capacity: 50_000 }) });
 */
export class MemoryRequestStateStore implements RequestStateStore {
  private readonly entries: ExpiringEntries<true>;

  constructor(options: MemoryRequestStateStoreOptions = {}) {
    const { capacity, now } = checkStoreOptions("MemoryRequestStateStore", options, ["capacity", "now"]);
    this.entries = new ExpiringEntries(capacity ?? DEFAULT_STATE_CAPACITY, now ?? Date.now);
  }

  /** The most unspent nonces held at once. */
  get capacity(): number {
    return this.entries.capacity;
  }

  /** Unspent nonces held now. */
  get size(): number {
    return this.entries.size;
  }

  issue(nonce: string, expiresAt: number): boolean {
    return this.entries.add(nonce, expiresAt, true);
  }

  consume(nonce: string): boolean {
    return this.entries.take(nonce) !== undefined;
  }
}

/**
 * Checks the options of a state store or of state handles: an object (or nothing) with only `keys`, a positive
 * integer `capacity` and `ttlMs`, a function `now`. Throws `INVALID_CONFIG` naming the fault.
 */
export function checkStoreOptions<T extends { capacity?: number; ttlMs?: number; now?: () => number }>(
  owner: string,
  options: T,
  keys: readonly string[],
): T {
  const prefix = `${owner} option `;
  if (!isObject(options)) throw optionError("options", "must be an object", prefix);
  checkKeys(options, keys, prefix);
  for (const key of ["capacity", "ttlMs"] as const) positiveInteger(options[key], undefined, key, prefix);
  if (options.now !== undefined && typeof options.now !== "function")
    throw optionError("now", "must be a function", prefix);
  return options;
}

/** True for an object with `issue` and `consume` methods. */
export function isRequestStateStore(value: unknown): value is RequestStateStore {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { issue?: unknown }).issue === "function" &&
    typeof (value as { consume?: unknown }).consume === "function"
  );
}
