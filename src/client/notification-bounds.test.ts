/**
 * The client's notification callbacks are bounded end to end: at most `maxConcurrentNotificationCallbacks` (32)
 * run at once, started in arrival order, the rest waiting in a queue of `maxQueuedNotifications` (1,024) and
 * dropped past it with one warning. Progress, log and other notifications share the bound.
 */
import { describe, expect, it } from "vitest";
import { connectFake, ok, progressTokenOf } from "../../test/support/fake-server.js";
import { until } from "../../test/support/until.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import type { ClientOptions } from "./types.js";

useWireValidation();

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Slow async callbacks: each runs until released; records start order and peak concurrency. */
function slow() {
  const started: unknown[] = [];
  const release: Array<() => void> = [];
  let active = 0;
  let peak = 0;
  const callback = (value: unknown) => {
    started.push(value);
    active++;
    peak = Math.max(peak, active);
    return new Promise<void>((resolve) => {
      release.push(() => {
        active--;
        resolve();
      });
    });
  };
  const drain = async () => {
    while (release.length > 0 || active > 0) {
      release.shift()?.();
      await settle();
      expect(active).toBeLessThanOrEqual(32);
    }
  };
  return { callback, started, release, drain, peak: () => peak };
}

function recorder() {
  const lines: { level: string; message: string; details: unknown }[] = [];
  return {
    lines,
    logger: {
      warn: (message: string, details?: unknown) => lines.push({ level: "warn", message, details }),
      debug: (message: string, details?: unknown) => lines.push({ level: "debug", message, details }),
    } as NonNullable<ClientOptions["logger"]>,
  };
}

describe.each(["modern", "legacy"] as const)("notification callbacks on the client (%s)", (era) => {
  it("runs 100 slow onNotification callbacks never more than 32 at once, all in arrival order", async () => {
    const callbacks = slow();
    const { server } = await connectFake({
      era,
      client: { onNotification: (n) => callbacks.callback(n.params?.n) },
    });
    for (let n = 0; n < 100; n++)
      await server.notify("notifications/resources/updated", { uri: "file:///a", n });
    await until(() => callbacks.started.length === 32);
    await settle();
    expect(callbacks.started).toHaveLength(32);
    await callbacks.drain();
    expect(callbacks.started).toEqual(Array.from({ length: 100 }, (_, n) => n));
    expect(callbacks.peak()).toBe(32);
  });

  it("bounds onLog and per-call onProgress together", async () => {
    const callbacks = slow();
    const { client } = await connectFake({
      era,
      client: {
        onLog: (m) => callbacks.callback(`log ${String(m.data)}`),
        maxConcurrentNotificationCallbacks: 3,
      },
      setup: (s) =>
        s.on("tools/list", async (request, fake) => {
          const token = progressTokenOf(request) ?? -1;
          for (let n = 0; n < 4; n++) {
            await fake.notify("notifications/message", { level: "info", data: n });
            await fake.notify("notifications/progress", { progressToken: token, progress: n });
          }
          return ok({ tools: [] });
        }),
    });
    await client.listTools(
      {},
      {
        onProgress: (p) => callbacks.callback(`progress ${p.progress}`),
      },
    );
    await settle();
    expect(callbacks.started).toEqual(["log 0", "progress 0", "log 1"]);
    await callbacks.drain();
    expect(callbacks.started).toEqual([0, 1, 2, 3].flatMap((n) => [`log ${n}`, `progress ${n}`]));
    expect(callbacks.peak()).toBe(3);
  });

  it("crosses the default queue of 1,024: the excess is dropped with one warning, the rest delivered in order", async () => {
    const callbacks = slow();
    const { lines, logger } = recorder();
    const { server } = await connectFake({
      era,
      client: { logger, onNotification: (n) => callbacks.callback(n.params?.n) },
    });
    const sent = 32 + 1024 + 50;
    for (let n = 0; n < sent; n++)
      await server.notify("notifications/resources/updated", { uri: "file:///a", n });
    await until(() => lines.some((line) => line.message.startsWith("dropped a server notification")));
    await settle();
    expect(callbacks.started).toHaveLength(32);
    const warnings = lines.filter((line) => line.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.details).toMatchObject({
      maxQueuedNotifications: 1024,
      maxConcurrentNotificationCallbacks: 32,
    });
    await callbacks.drain();
    expect(callbacks.started).toEqual(Array.from({ length: 32 + 1024 }, (_, n) => n));
    expect(lines.filter((line) => line.level === "debug")).toContainEqual({
      level: "debug",
      message: "the notification queue drained",
      details: { dropped: 50 },
    });
  });
});
