/**
 * Time as the HTTP handler and the log limiter see it: session expiry, SSE keepalives, log intervals. Tests
 * inject a manual clock; the default uses the runtime's timers and unrefs them where the runtime can (Node,
 * Bun), so a pending expiry, keepalive or log summary never keeps the process alive.
 */
export interface Clock {
  /** Milliseconds since some fixed point (only differences matter). */
  now(): number;
  /** Runs `callback` once after `ms`; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a callback scheduled by {@link Clock.setTimeout}. */
  clearTimeout(handle: unknown): void;
}

/** The runtime's clock: `Date.now()` and unref'd timers. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout(callback: () => void, ms: number): unknown {
    const handle = setTimeout(callback, ms);
    // Node and Bun timers have unref(); Web runtimes return a number and never hold the process open anyway.
    (handle as { unref?: () => void } | null)?.unref?.();
    return handle;
  },
  clearTimeout(handle: unknown): void {
    try {
      clearTimeout(handle as Parameters<typeof clearTimeout>[0]);
    } catch {
      // Workers: a timer of another request may not be touched; it lapses with that request.
    }
  },
});

/** True for an object with the three members of a {@link Clock}. */
export function isClock(value: unknown): value is Clock {
  if (typeof value !== "object" || value === null) return false;
  const clock = value as { [key: string]: unknown };
  return (
    typeof clock.now === "function" &&
    typeof clock.setTimeout === "function" &&
    typeof clock.clearTimeout === "function"
  );
}
