import type { Clock } from "../../jsonrpc/clock.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import type { LimitFacts } from "../../jsonrpc/limit-error.js";
import type { JsonRpcMessage, JsonRpcNotification, RequestId } from "../../jsonrpc/message.js";
import type { LegacySession } from "../../server/port.js";
import type { Principal } from "./identity.js";
import type { SessionOptions } from "./options.js";
import type { SseStream } from "./sse.js";

/** Why a session could not be opened (the 503's `data.reason`). */
export type CapacityReason = "session_limit" | "identity_limit" | "address_limit";

/** A slot taken before `initialize` runs; published as a session or released. */
export interface Reservation {
  readonly principal: Principal;
  /** What the slot is counted under: the identity's fingerprint, an anonymous caller's address, or nothing. */
  readonly quotaKey: string | undefined;
  settled: boolean;
}

/** A request of a session in flight: its response stream, as the session's table holds it. */
export interface InFlightRequest {
  abort(reason?: unknown): void;
  notify(notification: JsonRpcNotification): Promise<void>;
  send(message: JsonRpcMessage): Promise<void>;
}

/** One legacy 2025-11-25 session over HTTP. */
export class HttpSession {
  /** Requests in flight, by JSON-RPC id (for `notifications/cancelled` and duplicate ids). */
  readonly inFlight = new Map<RequestId, InFlightRequest>();
  /** The GET stream of server-to-client messages, while open (at most one). */
  stream: SseStream | undefined;
  /** Open requests plus the GET stream: a busy session is never idle. */
  busy = 0;
  lastActive: number;
  timer: unknown;
  /** When `timer` fires (it may fire before the deadline: expiry checks again then). */
  timerAt = Number.POSITIVE_INFINITY;
  closed = false;

  constructor(
    readonly id: string,
    readonly principal: Principal,
    readonly quotaKey: string | undefined,
    readonly legacy: LegacySession,
    readonly createdAt: number,
  ) {
    this.lastActive = createdAt;
  }
}

/**
 * The legacy sessions of one handler: bounded per endpoint, per identity, and per remote address for anonymous
 * callers (an anonymous caller without a known address counts only against the endpoint), each closed when idle, past its absolute lifetime, or still not initialized after the
 * initialization timeout. Capacity is reserved before `initialize` runs (synchronously, so two concurrent
 * initializes cannot both take the last slot); a failed initialize releases it and publishes nothing. Expiry
 * runs on one timer per session, set to its nearest deadline, through the clock (unref'd by default), and on
 * arrival: a request for an expired session finds it closed, and {@link sweep} closes the rest.
 */
export class SessionManager {
  private readonly sessions = new Map<string, HttpSession>();
  /** Slots held per identity fingerprint (`id:`) or anonymous address (`ip:`). */
  private readonly perQuota = new Map<string, number>();
  private reserved = 0;
  /** When {@link sweep} next looks at every session (clock time). */
  private nextSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly limits: Readonly<Required<SessionOptions>>,
    private readonly clock: Clock,
    /** Called after a session closed. */
    private readonly onClose?: (session: HttpSession, count: number) => void,
  ) {}

  /** Sessions open now. */
  get size(): number {
    return this.sessions.size;
  }

  /** Every open session. */
  all(): IterableIterator<HttpSession> {
    return this.sessions.values();
  }

  /**
   * Takes a slot for `principal` (an anonymous one counted under `addressKey`, see `addressKey()`), or says
   * which bound is reached.
   */
  reserve(principal: Principal, addressKey?: string): Reservation | CapacityReason {
    if (this.sessions.size + this.reserved >= this.limits.maxSessions) this.sweep(true);
    if (this.sessions.size + this.reserved >= this.limits.maxSessions) return "session_limit";
    const quotaKey = principal.anonymous
      ? addressKey === undefined
        ? undefined
        : `ip:${addressKey}`
      : `id:${principal.fingerprint}`;
    if (quotaKey !== undefined) {
      const held = this.perQuota.get(quotaKey) ?? 0;
      const limit = principal.anonymous
        ? this.limits.maxSessionsPerAddress
        : this.limits.maxSessionsPerIdentity;
      if (held >= limit) this.sweep(true);
      if ((this.perQuota.get(quotaKey) ?? 0) >= limit) {
        return principal.anonymous ? "address_limit" : "identity_limit";
      }
      this.perQuota.set(quotaKey, (this.perQuota.get(quotaKey) ?? 0) + 1);
    }
    this.reserved++;
    return { principal, quotaKey, settled: false };
  }

  /** What a refusal for `reason` names: the option (`sessions.maxSessions`, ...), its value, one session over. */
  facts(reason: CapacityReason): LimitFacts {
    const key =
      reason === "session_limit"
        ? "maxSessions"
        : reason === "identity_limit"
          ? "maxSessionsPerIdentity"
          : "maxSessionsPerAddress";
    const limit = this.limits[key];
    return { option: `sessions.${key}`, limit, size: limit + 1 };
  }

  /** Gives a reservation back (initialize failed). Idempotent. */
  release(reservation: Reservation): void {
    if (reservation.settled) return;
    reservation.settled = true;
    this.reserved--;
    this.forget(reservation.quotaKey);
  }

  /** Turns a reservation into an open session with a fresh id. */
  publish(reservation: Reservation, legacy: LegacySession): HttpSession {
    if (reservation.settled) throw new McpkitError("PROTOCOL", "reservation already settled");
    reservation.settled = true;
    this.reserved--;
    // The engine's session was opened with a minted id (mintSessionId): plugins see the Mcp-Session-Id.
    const session = new HttpSession(
      legacy.id,
      reservation.principal,
      reservation.quotaKey,
      legacy,
      this.clock.now(),
    );
    this.sessions.set(session.id, session);
    this.schedule(session);
    return session;
  }

  /** The open session with this id; one past its deadline is closed now and not returned. */
  get(id: string): HttpSession | undefined {
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    const { at, reason } = this.deadline(session);
    if (this.clock.now() < at) return session;
    this.close(session, reason);
    return undefined;
  }

  /**
   * Closes every session past its deadline. Expiry timers do that where they fire; on Workers a timer armed by
   * a request that has ended never fires, so the handler also sweeps as requests arrive: at most once a second,
   * or at once (`force`) before refusing a session for capacity.
   */
  sweep(force = false): void {
    const now = this.clock.now();
    if (!force && now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_INTERVAL_MS;
    for (const session of [...this.sessions.values()]) {
      const { at, reason } = this.deadline(session);
      if (now >= at) this.close(session, reason);
    }
  }

  /** Marks the start of a request or stream on a session. */
  enter(session: HttpSession): void {
    session.busy++;
    session.lastActive = this.clock.now();
  }

  /** Marks its end; the idle clock starts again from now. */
  leave(session: HttpSession): void {
    session.busy = Math.max(0, session.busy - 1);
    session.lastActive = this.clock.now();
    if (session.busy === 0 && !session.closed) this.schedule(session);
  }

  /** Records `notifications/initialized`: the initialization deadline no longer applies. */
  initialized(session: HttpSession): void {
    session.legacy.markInitialized();
    if (!session.closed) this.schedule(session);
  }

  /**
   * Closes a session: aborts its requests, fails its pending server-to-client requests, ends its GET stream,
   * frees its slot. Idempotent.
   */
  close(session: HttpSession, reason: string): void {
    if (session.closed) return;
    session.closed = true;
    this.clock.clearTimeout(session.timer);
    this.sessions.delete(session.id);
    this.forget(session.quotaKey);
    const error = new McpkitError("CLOSED", `session closed: ${reason}`);
    // Each request leaves the table itself when its handler is done: until then its stream still carries what the
    // abort makes the handler send (the cancellation of its pending input request).
    for (const request of session.inFlight.values()) request.abort(error);
    session.stream?.close();
    session.stream = undefined;
    // After the aborts, which reach each request in its own context a microtask later: a handler learns it was
    // aborted (and cancels its input round) before the session's pending requests fail.
    queueMicrotask(() => session.legacy.close());
    this.onClose?.(session, this.sessions.size);
  }

  /** Closes every session. */
  closeAll(reason: string): void {
    for (const session of [...this.sessions.values()]) this.close(session, reason);
  }

  private forget(quotaKey: string | undefined): void {
    if (quotaKey === undefined) return;
    const held = (this.perQuota.get(quotaKey) ?? 1) - 1;
    if (held > 0) this.perQuota.set(quotaKey, held);
    else this.perQuota.delete(quotaKey);
  }

  /** The moment a session expires, given what it is doing now, and why. */
  private deadline(session: HttpSession): { at: number; reason: string } {
    let next = { at: session.createdAt + this.limits.absoluteTimeoutMs, reason: "absolute timeout" };
    const consider = (at: number, reason: string) => {
      if (at < next.at) next = { at, reason };
    };
    if (!session.legacy.ready) {
      consider(session.createdAt + this.limits.initializationTimeoutMs, "initialization timeout");
    }
    if (session.busy === 0) consider(session.lastActive + this.limits.idleTimeoutMs, "idle timeout");
    return next;
  }

  private schedule(session: HttpSession): void {
    const { at } = this.deadline(session);
    // A timer that fires no later than the deadline stays: expiry re-checks then (no timer churn per request).
    if (session.timer !== undefined && session.timerAt <= at) return;
    this.clock.clearTimeout(session.timer);
    session.timerAt = at;
    session.timer = this.clock.setTimeout(() => this.expire(session), Math.max(0, at - this.clock.now()));
  }

  private expire(session: HttpSession): void {
    session.timer = undefined;
    if (session.closed) return;
    const { at, reason } = this.deadline(session);
    if (this.clock.now() >= at) this.close(session, reason);
    else this.schedule(session);
  }
}

const SWEEP_INTERVAL_MS = 1_000;

/** A session id: 128 random bits from the runtime's CSPRNG, as 32 lowercase hex characters (visible ASCII). */
export function mintSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = "";
  for (const byte of bytes) id += byte.toString(16).padStart(2, "0");
  return id;
}
