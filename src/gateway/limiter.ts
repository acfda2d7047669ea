import { JsonRpcError } from "../jsonrpc/errors.js";

/**
 * Calls running at once against one upstream, and how many may wait: a hung upstream fills its own slots and
 * queue, never another upstream's. A call past the queue is refused at once with `-32603` naming the upstream.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly upstream: string,
    private readonly maxRunning: number,
    private readonly maxQueued: number,
  ) {}

  /** Calls now running. */
  get active(): number {
    return this.running;
  }

  /** Calls now waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `work` in a slot; a wait ends early (rejecting with the signal's reason) when `signal` aborts. */
  async run<T>(work: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    // A finishing call hands its slot to the first waiter, so no newcomer slips in between.
    if (this.running >= this.maxRunning) await this.wait(signal);
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }

  private wait(signal: AbortSignal | undefined): Promise<void> {
    if (this.waiting.length >= this.maxQueued) {
      return Promise.reject(
        new JsonRpcError(-32603, `upstream "${this.upstream}" is at capacity`, {
          upstream: this.upstream,
          reason: "upstream_capacity",
        }),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener("abort", abort);
        resolve();
      };
      const abort = () => {
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener("abort", abort, { once: true });
      this.waiting.push(go);
    });
  }
}
