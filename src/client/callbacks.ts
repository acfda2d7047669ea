import type { McpkitError } from "../jsonrpc/errors.js";
import { limitError } from "../jsonrpc/limit-error.js";
import { Deadline } from "./deadline.js";

export const DEFAULT_CALLBACK_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CONCURRENT_CALLBACKS = 32;

/** How one callback call is bounded besides the runner's own timeout. */
export interface CallbackBounds {
  /** The enclosing operation's deadline: when it ends first, the call ends with its reason. */
  parent?: Deadline | undefined;
  /** Ends the call with `ABORTED` (a server cancelling its request). */
  signal?: AbortSignal | undefined;
}

/**
 * Runs user callbacks (input resolvers, server-request handlers) so that none can hurt the client: each call
 * takes one of `limit` slots (none free: `McpkitError` `CAPACITY` at once, nothing waits), gets an
 * `AbortSignal`, and ends after `timeoutMs` (`TIMEOUT`), when its parent deadline ends, or when the runner is
 * closed (`CLOSED`). A throw or rejection is returned to the caller, never thrown into the client. JavaScript
 * cannot stop a running function: a call past its end keeps running, but it has released its slot and its
 * late answer is dropped.
 */
export class CallbackRunner {
  private readonly live = new Set<Deadline>();
  private closedReason: McpkitError | undefined;

  constructor(
    readonly limit: number,
    readonly timeoutMs: number,
  ) {}

  /** Calls in progress. */
  get active(): number {
    return this.live.size;
  }

  /** Runs `callback` (named `name` in errors) under the runner's bounds and `bounds`. */
  async run<T>(
    name: string,
    callback: (signal: AbortSignal) => T | Promise<T>,
    bounds: CallbackBounds = {},
  ): Promise<T> {
    if (this.closedReason) throw this.closedReason;
    if (this.live.size >= this.limit) {
      const facts = { option: "maxConcurrentCallbacks", limit: this.limit, size: this.live.size + 1 };
      throw limitError("CAPACITY", "client callback capacity reached", facts, {
        unit: "callbacks",
        extra: { callback: name },
      });
    }
    const own = new Deadline({ timeoutMs: this.timeoutMs, parent: bounds.parent, what: name });
    this.live.add(own);
    const detach = follow(bounds.signal, own);
    try {
      let work: Promise<T>;
      try {
        work = Promise.resolve(callback(own.signal));
      } catch (error) {
        work = Promise.reject(error);
      }
      return await own.race(work);
    } finally {
      detach();
      own.dispose();
      this.live.delete(own);
    }
  }

  /** Ends every call in progress with `reason` and refuses new ones. Idempotent. */
  close(reason: McpkitError): void {
    this.closedReason ??= reason;
    for (const deadline of this.live) deadline.end(reason);
  }
}

/** Ends `deadline` with `signal`'s own reason when it aborts; returns the detach function. */
function follow(signal: AbortSignal | undefined, deadline: Deadline): () => void {
  if (signal === undefined) return () => {};
  const abort = () => deadline.end(signal.reason);
  if (signal.aborted) {
    abort();
    return () => {};
  }
  signal.addEventListener("abort", abort, { once: true });
  return () => signal.removeEventListener("abort", abort);
}
