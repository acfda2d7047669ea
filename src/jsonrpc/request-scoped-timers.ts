/**
 * True on Cloudflare Workers, where a timer belongs to the request that armed it: it never fires once that
 * request has ended, and clearing it from another request is I/O on that request's behalf. Code that shares one
 * timer across requests arms its own there instead of relying on (or clearing) another request's.
 */
export const REQUEST_SCOPED_TIMERS: boolean =
  (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === "Cloudflare-Workers";
