import { JsonRpcError, McpkitError } from "./errors.js";
import type { JsonRpcResponse } from "./message.js";

/** The default bound of a {@link PendingTable}. */
export const DEFAULT_MAX_PENDING = 1024;

/** A JSON-RPC result object, as received. */
export type ResultObject = { [key: string]: unknown };

/** Options for {@link PendingTable}. */
export interface PendingTableOptions {
  /** How many requests may await a response at once (default 1,024). */
  capacity?: number;
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

interface Entry {
  resolve(result: ResultObject): void;
  reject(error: unknown): void;
}

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
  private readonly entries = new Map<number, Entry>();
  private readonly onUnknownResponse: ((response: JsonRpcResponse) => void) | undefined;
  private nextId = 1;

  constructor(options: PendingTableOptions = {}) {
    const capacity = options.capacity ?? DEFAULT_MAX_PENDING;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new McpkitError("INVALID_CONFIG", "capacity must be a positive integer", {
        details: { key: "capacity", value: capacity },
      });
    }
    this.capacity = capacity;
    this.onUnknownResponse = options.onUnknownResponse;
  }

  /** How many requests are pending. */
  get size(): number {
    return this.entries.size;
  }

  /** True while `id` awaits its response. */
  has(id: unknown): boolean {
    return typeof id === "number" && this.entries.has(id);
  }

  /** Allocates an id and registers the entry. Throws `McpkitError` `CAPACITY` when the table is full. */
  open(): PendingRequest {
    if (this.entries.size >= this.capacity) {
      throw new McpkitError("CAPACITY", `too many pending requests (limit ${this.capacity})`, {
        details: { limit: "maxPendingRequests", value: this.capacity },
      });
    }
    const id = this.allocateId();
    let entry: Entry | undefined;
    const promise = new Promise<ResultObject>((resolve, reject) => {
      entry = { resolve, reject };
    });
    // The owner may still be awaiting its send when the entry is rejected; this keeps that from being reported
    // as an unhandled rejection. Awaiting `promise` still observes the rejection.
    promise.catch(() => {});
    this.entries.set(id, entry as Entry);
    return { id, promise };
  }

  /**
   * Settles the entry a response belongs to: `result` resolves it, `error` rejects it with a `JsonRpcError`.
   * Returns false (and reports the response) when no entry has that id.
   */
  settle(response: JsonRpcResponse): boolean {
    const id = response.id;
    const entry = typeof id === "number" ? this.entries.get(id) : undefined;
    if (entry === undefined || typeof id !== "number") {
      this.onUnknownResponse?.(response);
      return false;
    }
    this.entries.delete(id);
    if ("error" in response) entry.reject(JsonRpcError.fromWire(response.error));
    else entry.resolve(response.result);
    return true;
  }

  /** Rejects and removes one entry. A later response for its id is then reported as unknown. */
  reject(id: number, error: unknown): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.entries.delete(id);
    entry.reject(error);
    return true;
  }

  /** Rejects and removes every entry (on close). Returns how many there were. */
  rejectAll(error: unknown): number {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) entry.reject(error);
    return entries.length;
  }

  private allocateId(): number {
    let id = this.nextId;
    while (this.entries.has(id)) id = id >= Number.MAX_SAFE_INTEGER ? 1 : id + 1;
    this.nextId = id >= Number.MAX_SAFE_INTEGER ? 1 : id + 1;
    return id;
  }
}
