import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../test/support/manual-clock.js";
import type { LegacySession } from "../../server/eras/legacy.js";
import type { Principal } from "./identity.js";
import { mintSessionId, type Reservation, SessionManager } from "./sessions.js";

const LIMITS = {
  maxSessions: 3,
  maxSessionsPerIdentity: 2,
  maxSessionsPerAddress: 2,
  idleTimeoutMs: 1_000,
  absoluteTimeoutMs: 10_000,
  initializationTimeoutMs: 500,
};
const alice: Principal = { fingerprint: "alice", authorization: undefined, anonymous: false };
const bob: Principal = { fingerprint: "bob", authorization: undefined, anonymous: false };
const anonymous: Principal = { fingerprint: "anonymous", authorization: undefined, anonymous: true };

/** A stand-in LegacySession: its id (the HTTP session takes it) and readiness matter to the manager. */
function fakeLegacy(ready = true): LegacySession {
  const state = { ready };
  return {
    id: mintSessionId(),
    get ready() {
      return state.ready;
    },
    markInitialized() {
      state.ready = true;
    },
    close() {},
  } as unknown as LegacySession;
}

function setup() {
  const clock = new ManualClock();
  const closed: string[] = [];
  const manager = new SessionManager(LIMITS, clock, (session) => closed.push(session.id));
  const open = (principal: Principal, ready = true) => {
    const reservation = manager.reserve(principal);
    if (typeof reservation === "string") throw new Error(reservation);
    return manager.publish(reservation, fakeLegacy(ready));
  };
  return { clock, closed, manager, open };
}

describe("SessionManager", () => {
  it("mints 128-bit hex ids, all different", () => {
    const ids = new Set(Array.from({ length: 200 }, mintSessionId));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("bounds sessions per identity and per endpoint; anonymous sessions count only per endpoint", () => {
    const { manager, open } = setup();
    open(alice);
    open(alice);
    expect(manager.reserve(alice)).toBe("identity_limit");
    open(bob);
    expect(manager.reserve(bob)).toBe("session_limit");
    expect(manager.reserve(anonymous)).toBe("session_limit");
    expect(manager.size).toBe(3);
  });

  it("counts reservations in flight, and a released one frees its slot", () => {
    const { manager, open } = setup();
    const first = manager.reserve(alice) as Reservation;
    const second = manager.reserve(alice) as Reservation;
    expect(manager.reserve(alice)).toBe("identity_limit");
    manager.release(first);
    manager.release(first);
    expect(manager.size).toBe(0);
    open(alice);
    manager.release(second);
    open(anonymous);
    open(anonymous);
    expect(manager.reserve(anonymous)).toBe("session_limit");
  });

  it("closes a session idle past the idle timeout, not one that is busy", () => {
    const { clock, closed, manager, open } = setup();
    const idle = open(alice);
    const busy = open(bob);
    manager.enter(busy);
    clock.advance(999);
    expect(closed).toEqual([]);
    clock.advance(1);
    expect(closed).toEqual([idle.id]);
    expect(manager.get(idle.id)).toBeUndefined();
    clock.advance(5_000);
    expect(manager.get(busy.id)).toBe(busy);
    manager.leave(busy);
    clock.advance(999);
    expect(manager.get(busy.id)).toBe(busy);
    clock.advance(1);
    expect(closed).toEqual([idle.id, busy.id]);
  });

  it("closes any session at its absolute timeout", () => {
    const { clock, closed, manager, open } = setup();
    const session = open(alice);
    manager.enter(session);
    clock.advance(9_999);
    expect(closed).toEqual([]);
    clock.advance(1);
    expect(closed).toEqual([session.id]);
    expect(session.closed).toBe(true);
  });

  it("closes a session that never sends notifications/initialized", () => {
    const { clock, closed, manager, open } = setup();
    const late = open(alice, false);
    const prompt = open(bob, false);
    manager.enter(late);
    manager.initialized(prompt);
    clock.advance(500);
    expect(closed).toEqual([late.id]);
    expect(manager.get(prompt.id)).toBe(prompt);
  });

  it("closing aborts the session's requests, frees its identity slot and leaves no timer behind", () => {
    const { clock, manager, open } = setup();
    const session = open(alice);
    open(alice);
    const request = new AbortController();
    const idle = async () => {};
    session.inFlight.set(1, { abort: (reason) => request.abort(reason), notify: idle, send: idle });
    manager.close(session, "test");
    manager.close(session, "again");
    expect(request.signal.aborted).toBe(true);
    expect(manager.reserve(alice)).not.toBe("identity_limit");
    manager.closeAll("end");
    expect(manager.size).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

describe("anonymous quota per address", () => {
  it("counts anonymous slots per address key, frees them on close, leaves no-address callers to the endpoint bound", () => {
    const manager = new SessionManager({ ...LIMITS, maxSessions: 10 }, new ManualClock());
    const take = (key?: string) => {
      const reservation = manager.reserve(anonymous, key);
      return typeof reservation === "string" ? reservation : manager.publish(reservation, fakeLegacy());
    };
    const first = take("192.0.2.1");
    take("192.0.2.1");
    expect(take("192.0.2.1")).toBe("address_limit");
    expect(take("192.0.2.2")).not.toBe("address_limit");
    for (let i = 0; i < 3; i++) expect(take()).not.toBe("address_limit");
    if (typeof first === "string") throw new Error(first);
    manager.close(first, "test");
    expect(take("192.0.2.1")).not.toBe("address_limit");
  });
});

describe("SessionManager where timers die with their request (Workers)", () => {
  function lossy(idleTimeoutMs = LIMITS.idleTimeoutMs) {
    const manual = new ManualClock();
    // Timers are accepted and never fire: each was armed by a request that has ended.
    const clock = { now: () => manual.now(), setTimeout: () => ({}), clearTimeout: () => {} };
    const manager = new SessionManager({ ...LIMITS, idleTimeoutMs }, clock);
    const open = (principal: Principal) => {
      const reservation = manager.reserve(principal);
      if (typeof reservation === "string") throw new Error(reservation);
      return manager.publish(reservation, fakeLegacy());
    };
    return { manual, manager, open };
  }

  it("frees the slots of idle sessions when a new session asks, and a full endpoint takes it", () => {
    const { manual, manager, open } = lossy();
    open(alice);
    open(alice);
    open(bob);
    manual.advance(LIMITS.idleTimeoutMs);
    expect(manager.size).toBe(3);
    const reservation = manager.reserve(alice);
    expect(typeof reservation).toBe("object");
    expect(manager.size).toBe(0);
  });

  it("answers an expired session as gone, and sweeps the rest at most once a second", () => {
    const { manual, manager, open } = lossy();
    const first = open(alice);
    open(bob);
    manual.advance(LIMITS.idleTimeoutMs);
    expect(manager.get(first.id)).toBeUndefined();
    expect(manager.size).toBe(1);
    manager.sweep();
    expect(manager.size).toBe(0);
  });

  it("sweeps at most once a second", () => {
    const { manual, manager, open } = lossy(400);
    manager.sweep();
    open(bob);
    manual.advance(500);
    manager.sweep();
    expect(manager.size).toBe(1);
    manual.advance(500);
    manager.sweep();
    expect(manager.size).toBe(0);
  });
});
