import { describe, expect, it } from "vitest";
import { AbortLinks } from "./abort-links.js";
import { LazyAbort } from "./lazy-abort.js";

class Target {
  reasons: unknown[] = [];
  abortedBy(reason: unknown): void {
    this.reasons.push(reason);
  }
}

describe("AbortLinks", () => {
  it("ends a linked target with its source's reason, once", () => {
    const links = new AbortLinks<Target>();
    const source = new LazyAbort();
    const target = new Target();
    links.link(target, source);
    source.abort("stop");
    source.abort("again");
    expect(target.reasons).toEqual(["stop"]);
  });

  it("forgets an unlinked target and stops listening to its source", () => {
    const links = new AbortLinks<Target>();
    const controller = new AbortController();
    const targets = Array.from({ length: 3 }, () => new Target());
    const ids = targets.map((target) => links.link(target, controller.signal));
    expect(links.size).toBe(3);
    for (const id of ids.slice(0, 2)) links.unlink(id);
    links.unlink(ids[0] as number);
    links.unlink(0);
    expect(links.size).toBe(1);
    controller.abort("gone");
    expect(targets.map((target) => target.reasons)).toEqual([[], [], ["gone"]]);
  });

  it("leaves no listener on a source once every link to it is gone", () => {
    const links = new AbortLinks<Target>();
    const listening = new Set<() => void>();
    const source = {
      aborted: false,
      reason: undefined,
      addEventListener: (_type: "abort", listener: () => void) => listening.add(listener),
      removeEventListener: (_type: "abort", listener: () => void) => listening.delete(listener),
    };
    for (let i = 0; i < 1000; i++) links.unlink(links.link(new Target(), source));
    expect(links.size).toBe(0);
    expect(listening.size).toBe(0);
  });
});
