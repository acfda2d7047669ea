import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";

/** Message of the error sent when a handler call outlives its deadline. */
export const HANDLER_TIMEOUT_MESSAGE = "handler callback timed out";
/** Message of the error sent when every handler slot is taken. */
export const HANDLER_CAPACITY_MESSAGE = "handler capacity reached";

/** Limits of a {@link CallbackExecutor}. */
export interface ExecutorLimits {
  /** Deadline of one handler call, in ms. */
  timeoutMs: number;
  /** Handler calls that may run at once across every connection of a server. */
  maxConcurrent: number;
}

/**
 * Runs handler callbacks under a deadline and a shared admission limit. A call that finds every slot taken is
 * refused at once (`-32603` "handler capacity reached"); a call past its deadline has its AbortSignal fired,
 * then its slot released, and its caller gets `-32603` "handler callback timed out". JavaScript cannot kill a
 * running function, so a handler that ignores its signal keeps running, but it no longer holds a slot and its
 * late result is dropped.
 */
export class CallbackExecutor {
  private active = 0;

  constructor(readonly limits: ExecutorLimits) {}

  /** Handler calls running now. */
  get running(): number {
    return this.active;
  }

  /**
   * Runs `callback` with a signal that fires on the deadline or when `cancel` fires. Rejects with the
   * callback's own error, or the timeout/capacity `JsonRpcError`.
   */
  run<T>(callback: (signal: AbortSignal) => Promise<T> | T, cancel?: AbortSignal): Promise<T> {
    if (this.active >= this.limits.maxConcurrent) {
      return Promise.reject(new JsonRpcError(ErrorCode.InternalError, HANDLER_CAPACITY_MESSAGE));
    }
    this.active++;
    const controller = new AbortController();
    const onCancel = () => controller.abort(cancel?.reason);
    if (cancel) {
      if (cancel.aborted) controller.abort(cancel.reason);
      else cancel.addEventListener("abort", onCancel, { once: true });
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.active--;
      cancel?.removeEventListener("abort", onCancel);
    };
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new JsonRpcError(ErrorCode.InternalError, HANDLER_TIMEOUT_MESSAGE);
        // The signal fires first, then the slot is released: the handler learns it is done before anyone
        // else can take its place.
        controller.abort(error);
        release();
        reject(error);
      }, this.limits.timeoutMs);
      const settle = (ok: boolean, value: unknown) => {
        clearTimeout(timer);
        if (released) return;
        release();
        if (ok) resolve(value as T);
        else reject(value);
      };
      try {
        Promise.resolve(callback(controller.signal)).then(
          (value) => settle(true, value),
          (error: unknown) => settle(false, error),
        );
      } catch (error) {
        settle(false, error);
      }
    });
  }
}
