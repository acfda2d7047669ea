import { type Clock, systemClock } from "./clock.js";

/** How long repeated log lines of one kind are counted instead of logged, unless configured (60 s). */
export const DEFAULT_LOG_INTERVAL_MS = 60_000;

/** Kinds counted at once; a new kind past this many is counted under one shared kind. */
const MAX_KINDS = 256;
const OVERFLOW_KIND = "(other log lines)";

/** The levels a limited logger passes on. */
export type LogLevel = "debug" | "warn" | "error";

/** A logger with `warn` and, optionally, `error` and `debug`: the server's, the client's, a transport's. */
export interface LeveledLogger {
  warn(message: string, details?: never): void;
  error?(message: string, details?: never): void;
  debug?(message: string, details?: never): void;
}

interface Window {
  readonly level: LogLevel;
  suppressed: number;
}

/**
 * Keeps what a remote peer can make a process log bounded: per kind of line, the first one is logged and opens
 * an interval; further lines of that kind within it are only counted, and when the interval ends one summary
 * line says how many there were (`<kind>: 9999 more in the last 60 s`). The next line of that kind logs again
 * and opens a new interval. So a peer that sends 10,000 unsolicited responses costs two lines a minute, not
 * 10,000. A kind is a fixed text chosen by the code (the line's message), never text from a peer, so the kinds
 * are few; past 256 at once, new kinds share one.
 *
 * @example
 * const limiter = new LogLimiter((level, message, details) => console.warn(message, details));
 * limiter.log("warn", "dropped a response to no request", { id: 7 }); // logged
 * limiter.log("warn", "dropped a response to no request", { id: 8 }); // counted; summarized in 60 s
 */
export class LogLimiter {
  private readonly windows = new Map<string, Window>();

  /**
   * @param write where lines go (a summary line gets `{ count, intervalMs }` as its details)
   * @param intervalMs the interval (0: every line is written, nothing is counted)
   * @param clock time and timers (a manual clock in tests); the default's timers never keep a process alive
   */
  constructor(
    private readonly write: (level: LogLevel, message: string, details?: unknown) => void,
    readonly intervalMs: number = DEFAULT_LOG_INTERVAL_MS,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Logs `message` (its own kind), or counts it when a line of that kind was logged within the interval. */
  log(level: LogLevel, message: string, details?: unknown): void {
    if (this.intervalMs === 0) {
      this.write(level, message, details);
      return;
    }
    const kind = this.windows.size >= MAX_KINDS && !this.windows.has(message) ? OVERFLOW_KIND : message;
    const open = this.windows.get(kind);
    if (open !== undefined) {
      open.suppressed++;
      return;
    }
    const window: Window = { level, suppressed: 0 };
    this.windows.set(kind, window);
    this.clock.setTimeout(() => this.close(kind, window), this.intervalMs);
    this.write(level, message, details);
  }

  private close(kind: string, window: Window): void {
    this.windows.delete(kind);
    if (window.suppressed === 0) return;
    const seconds = this.intervalMs / 1000;
    try {
      this.write(window.level, `${kind}: ${window.suppressed} more in the last ${seconds} s`, {
        count: window.suppressed,
        intervalMs: this.intervalMs,
      });
    } catch {
      // A logger that throws from a timer would end the process; it has nowhere left to report to.
    }
  }
}

/**
 * `logger` with every line passed through a {@link LogLimiter} of `intervalMs` (the line's message is its kind).
 * A level the logger lacks stays absent, so callers that write `logger.debug?.(...)` still skip it.
 */
export function limitLogger<L extends LeveledLogger>(
  logger: L,
  intervalMs: number = DEFAULT_LOG_INTERVAL_MS,
  clock: Clock = systemClock,
): L {
  const sink = logger as unknown as { [level in LogLevel]?: (message: string, details?: unknown) => void };
  const limiter = new LogLimiter(
    (level, message, details) => sink[level]?.call(logger, message, details),
    intervalMs,
    clock,
  );
  const limited: { [level in LogLevel]?: (message: string, details?: unknown) => void } = {
    warn: (message, details) => limiter.log("warn", message, details),
  };
  if (typeof sink.error === "function")
    limited.error = (message, details) => limiter.log("error", message, details);
  if (typeof sink.debug === "function")
    limited.debug = (message, details) => limiter.log("debug", message, details);
  return limited as unknown as L;
}
