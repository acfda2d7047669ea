type Listener = () => void;

/**
 * An abort that makes its `AbortSignal` only when someone reads `signal`. `AbortController` and its signal are
 * costly to create and to listen to; most operations end without ever aborting, and most handlers never look
 * at their signal. It reads like an `AbortSignal` (`aborted`, `reason`, `addEventListener("abort", ...)`), so
 * code that only needs those can take either. Listeners run in the order they were added, after the signal
 * (if one was made) has fired.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private listeners: Listener[] | undefined;
  private isAborted = false;
  private abortReason: unknown;

  /** True once aborted. */
  get aborted(): boolean {
    return this.isAborted;
  }

  /** The abort reason; `undefined` before. */
  get reason(): unknown {
    return this.abortReason;
  }

  /** A real `AbortSignal` that fires with this abort, made on first use (already aborted if this is). */
  get signal(): AbortSignal {
    let controller = this.controller;
    if (controller === undefined) {
      controller = new AbortController();
      this.controller = controller;
      if (this.isAborted) controller.abort(this.abortReason);
    }
    return controller.signal;
  }

  /** Aborts with `reason` (no effect once aborted): the signal fires, then the listeners run once. */
  abort(reason: unknown): void {
    if (this.isAborted) return;
    this.isAborted = true;
    this.abortReason = reason;
    try {
      this.controller?.abort(reason);
    } catch (error) {
      // Workers refuse to fire a signal made by another request ("Cannot perform I/O on behalf of a different
      // request"): reported, and the listeners (and whoever aborts, e.g. a slot release) still run.
      queueMicrotask(() => {
        throw error;
      });
    }
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As an event listener's throw would be: reported, without keeping the others from running.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** Throws the reason once aborted. */
  throwIfAborted(): void {
    if (this.isAborted) throw this.abortReason;
  }

  /** Runs `listener` once on abort; nothing if already aborted or already added. */
  addEventListener(_type: "abort", listener: Listener, _options?: { once?: boolean }): void {
    if (this.isAborted) return;
    const listeners = this.listeners;
    if (listeners === undefined) this.listeners = [listener];
    else if (!listeners.includes(listener)) listeners.push(listener);
  }

  /** Removes a listener added with `addEventListener`. */
  removeEventListener(_type: "abort", listener: Listener): void {
    const listeners = this.listeners;
    if (listeners === undefined) return;
    const at = listeners.indexOf(listener);
    if (at === -1) return;
    if (listeners.length === 1) this.listeners = undefined;
    else listeners.splice(at, 1);
  }
}

/**
 * Where a sender's hints object may carry its abort as an {@link AbortLike}, so that a transport that only
 * listens to it does not make the `AbortSignal` (the client's per-request hints do).
 */
export const ABORT_LIKE: unique symbol = Symbol("mcpkit.abortLike");

/** The abort of a hints object: its {@link ABORT_LIKE} when it has one, else its `signal`. */
export function abortOf(hints: { readonly signal?: AbortSignal | undefined }): AbortLike | undefined {
  return (hints as { readonly [ABORT_LIKE]?: AbortLike })[ABORT_LIKE] ?? hints.signal;
}

/** What reads like an `AbortSignal` for abort state and `abort` listeners: an `AbortSignal` or a `LazyAbort`. */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** Calls `listener` on abort (at most once with `{ once: true }`). */
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  /** Removes a listener added with `addEventListener`. */
  removeEventListener(type: "abort", listener: () => void): void;
}
