/**
 * The client's task polling on a manual clock: the interval starts at the server's `pollIntervalMs`, grows by
 * half up to `maxPollMs`, and the deadline ends the wait with `TIMEOUT`; a 2026 task's input goes to the
 * client's callbacks and back through `tasks/update`.
 */
import { describe, expect, it } from "vitest";
import type { Client } from "../../src/client/client.js";
import { waitForTask } from "../../src/client/tasks.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { ManualClock } from "../support/manual-clock.js";

const RESULT = { content: [{ type: "text", text: "done" }] };

/** A 2026 client stand-in whose `tasks/get` answers `statuses` in turn (the last one for ever). */
function stubClient(clock: ManualClock, statuses: string[]) {
  const gets: number[] = [];
  const calls: string[] = [];
  const client = {
    era: "2026-07-28",
    ownCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
    async request(method: string, params: { [key: string]: unknown }) {
      calls.push(method);
      if (method === "tasks/update") return { resultType: "complete", seen: params.inputResponses };
      gets.push(clock.now());
      const status = statuses[Math.min(gets.length - 1, statuses.length - 1)];
      return {
        resultType: "complete",
        taskId: "t1",
        status,
        pollIntervalMs: 100,
        ...(status === "completed" ? { result: RESULT } : {}),
        ...(status === "input_required"
          ? { inputRequests: { ok: { method: "elicitation/create", params: {} } } }
          : {}),
      };
    },
    async answerTaskInput() {
      return { ok: { action: "accept", content: {} } };
    },
  };
  return { client: client as unknown as Client, gets, calls };
}

/** Runs the clock until `promise` settles. */
async function drive<T>(clock: ManualClock, promise: Promise<T>): Promise<T> {
  let settled = false;
  const watched = promise.finally(() => {
    settled = true;
  });
  watched.catch(() => {});
  for (let i = 0; i < 200 && !settled; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    clock.advance(10);
  }
  return watched;
}

describe("waitForTask", () => {
  it("polls from the server's interval, half again longer each time, capped at maxPollMs", async () => {
    const clock = new ManualClock();
    const { client, gets } = stubClient(clock, [
      "working",
      "working",
      "working",
      "working",
      "working",
      "completed",
    ]);
    const start = clock.now();
    const result = await drive(clock, waitForTask(client, "t1", { clock, minPollMs: 50, maxPollMs: 300 }));
    expect(result).toEqual(RESULT);
    const gaps = gets.slice(1).map((at, i) => at - (gets[i] as number));
    expect(gets[0]).toBe(start);
    // 100 from the server (above minPollMs), then 150, 225 (the clock moves 10 ms a step), 338 capped to 300.
    expect(gaps).toEqual([100, 150, 230, 300, 300]);
  });

  it("ends the wait with TIMEOUT when the deadline passes", async () => {
    const clock = new ManualClock();
    const { client, gets } = stubClient(clock, ["working"]);
    const error = await drive(clock, waitForTask(client, "t1", { clock, deadlineMs: 400 })).catch((e) => e);
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("TIMEOUT");
    expect(gets.length).toBeLessThanOrEqual(5);
  });

  it("answers a 2026 task's input through the client's callbacks and tasks/update", async () => {
    const clock = new ManualClock();
    const { client, calls } = stubClient(clock, ["input_required", "completed"]);
    const result = await drive(clock, waitForTask(client, "t1", { clock }));
    expect(result).toEqual(RESULT);
    expect(calls).toEqual(["tasks/get", "tasks/update", "tasks/get"]);
  });
});
