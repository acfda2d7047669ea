import type { Clock } from "../jsonrpc/clock.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { Deadline } from "./deadline.js";
import { checkTimeout } from "./options.js";
import type { RequestOptions } from "./types.js";
/** An `onProgress` that does nothing: it asks for a progress token when only the reset needs one. */
export function ignore(): void {}

/** A deadline whose `progressed` restarts its silence timer. */
export type ProgressDeadline = Deadline & { progressed?: () => void };

/**
 * The deadline of a call with `resetTimeoutOnProgress`: `maxTotalTimeoutMs` in all (if set), and `timeoutMs`
 * since the last progress notification (when reset is on), on the client's clock.
 */
export function progressDeadline(
  method: string,
  timeoutMs: number,
  options: RequestOptions,
  clock: Clock,
): ProgressDeadline {
  const maxTotalMs = checkTimeout("maxTotalTimeoutMs", options.maxTotalTimeoutMs, Number.POSITIVE_INFINITY);
  const resets = options.resetTimeoutOnProgress === true;
  const deadline: ProgressDeadline = new Deadline({
    timeoutMs: resets ? maxTotalMs : Math.min(timeoutMs, maxTotalMs),
    signal: options.signal,
    what: method,
  });
  if (!resets || !Number.isFinite(timeoutMs) || deadline.aborted) return deadline;
  let timer: unknown;
  const arm = () => {
    timer = clock.setTimeout(() => {
      deadline.end(
        new McpkitError("TIMEOUT", `${method} timed out after ${timeoutMs} ms without progress`, {
          details: { timeoutMs, resetTimeoutOnProgress: true },
        }),
      );
    }, timeoutMs);
  };
  deadline.progressed = () => {
    if (deadline.aborted) return;
    clock.clearTimeout(timer);
    arm();
  };
  deadline.onDispose(() => clock.clearTimeout(timer));
  arm();
  return deadline;
}
