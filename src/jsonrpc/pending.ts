import { positiveInteger } from "./config-check.js";
import { JsonRpcError } from "./errors.js";
import { limitError } from "./limit-error.js";
import type { JsonRpcResponse } from "./message.js";

/** The default bound of a {@link PendingTable}. */
export const DEFAULT_MAX_PENDING = 1024;

/** A JSON-RPC result object, as received. */
export type ResultObject = { [key: string]: unknown };

/** Options for {@link PendingTable}. */
export interface PendingTableOptions {
  /** How many requests may await a response at once (default 1,024). */
  capacity?: number;
  /** The option the owner's users set `capacity` with, named in the capacity error (default `"capacity"`). */
  capacityOption?: string;
  /** Called with a response whose id is not pending (a late or unsolicited answer); the response is dropped. */
  onUnknownResponse?: (response: JsonRpcResponse) => void;
}

/** One request awaiting its response. */
export interface PendingRequest {
  /** The allocated JSON-RPC id. */
  readonly id: number;
  /** Resolves with the response's `result`; rejects with `JsonRpcError` or whatever the entry was rejected with. */
  readonly promise: Promise<ResultObject>;
}

/** What a {@link PendingTable} settles: the owner's resolve and reject (see `add`). */
export interface PendingEntry {
  resolve(result: ResultObject): void;
  reject(error: unknown): void;
}
type Entry = PendingEntry;

/**
 * A bounded table of requests awaiting responses, keyed by integer ids it allocates itself. Opening one more
 * entry than the capacity fails at once with `McpkitError` `CAPACITY`; a response for an id that is not pending
 * is dropped and reported.
 *
 * @example
 * const table = new PendingTable({ capacity: 8 });
 * const { id, promise } = table.open();
 * await transport.send({ jsonrpc: "2.0", id, method: "tools/list", params: {} });
 * const result = await promise; // after table.settle(response) is called by the receive loop
 */
export class PendingTable {
  readonly capacity: number;
  private readonly option: string;
  /**
   * The oldest entry, kept out of the map while it is the only one: one request at a time then costs no map
   * insertion and deletion (a map that goes from one entry to none reallocates its table). Filled only while the
   * map is empty, so it is always older than every entry in the map.
   */
  private slotId = 0;
  private slot: Entry | undefined;
  private readonly entries = new Map<number, Entry>();
  private readonly onUnknownResponse: ((response: JsonRpcResponse) => void) | undefined;
  private nextId = 1;

  constructor(options: PendingTableOptions = {}) {
    this.capacity = positiveInteger(options.capacity, DEFAULT_MAX_PENDING, "capacity");
    this.option = options.capacityOption ?? "capacity";
    this.onUnknownResponse = options.onUnknownResponse;
  }

  /** How many requests are pending. */
  get size(): number {
    return this.entries.size + (this.slot === undefined ? 0 : 1);
  }

  /** True while `id` awaits its response. */
  has(id: unknown): boolean {
    return typeof id === "number" && this.holds(id);
  }

  /** Allocates an id and registers the entry. Throws `McpkitError` `CAPACITY` when the table is full. */
  open(): PendingRequest {
    let entry: Entry | undefined;
    const promise = new Promise<ResultObject>((resolve, reject) => {
      entry = { resolve, reject };
    });
    const id = this.add(entry as Entry);
    // The owner may still be awaiting its send when the entry is rejected; this keeps that from being reported
    // as an unhandled rejection. Awaiting `promise` still observes the rejection.
    promise.catch(() => {});
    return { id, promise };
  }

  /**
   * Allocates an id for `entry`, which the table settles (`resolve` with the result, `reject` with the error)
   * when its response arrives or it is rejected. `open` without a promise: the owner's entry may be the object
   * that holds the request's other state. Throws `McpkitError` `CAPACITY` when the table is full.
   */
  add(entry: PendingEntry): number {
    if (this.size >= this.capacity) {
      const facts = { option: this.option, limit: this.capacity, size: this.size + 1 };
      throw limitError("CAPACITY", "too many pending requests", facts, { unit: "requests" });
    }
    const id = this.allocateId();
    if (this.slot === undefined && this.entries.size === 0) {
      this.slotId = id;
      this.slot = entry;
    } else this.entries.set(id, entry);
    return id;
  }

  /**
   * Settles the entry a response belongs to: `result` resolves it, `error` rejects it with a `JsonRpcError`.
   * Returns false (and reports the response) when no entry has that id.
   */
  settle(response: JsonRpcResponse): boolean {
    const id = response.id;
    const entry = typeof id === "number" ? this.take(id) : undefined;
    if (entry === undefined) {
      this.onUnknownResponse?.(response);
      return false;
    }
    if ("error" in response) entry.reject(JsonRpcError.fromWire(response.error));
    else entry.resolve(response.result);
    return true;
  }

  /** Rejects and removes one entry. A later response for its id is then reported as unknown. */
  reject(id: number, error: unknown): boolean {
    const entry = this.take(id);
    if (entry === undefined) return false;
    entry.reject(error);
    return true;
  }

  /** Rejects and removes every entry (on close). Returns how many there were. */
  rejectAll(error: unknown): number {
    const entries = [...this.entries.values()];
    if (this.slot !== undefined) entries.unshift(this.slot);
    this.slot = undefined;
    this.entries.clear();
    for (const entry of entries) entry.reject(error);
    return entries.length;
  }

  private holds(id: number): boolean {
    return (this.slot !== undefined && this.slotId === id) || this.entries.has(id);
  }

  /** Removes and returns the entry of `id`, if pending. */
  private take(id: number): Entry | undefined {
    if (this.slot !== undefined && this.slotId === id) {
      const entry = this.slot;
      this.slot = undefined;
      return entry;
    }
    const entry = this.entries.get(id);
    if (entry !== undefined) this.entries.delete(id);
    return entry;
  }

  private allocateId(): number {
    let id = this.nextId;
    while (this.holds(id)) id = id >= Number.MAX_SAFE_INTEGER ? 1 : id + 1;
    this.nextId = id >= Number.MAX_SAFE_INTEGER ? 1 : id + 1;
    return id;
  }
}
