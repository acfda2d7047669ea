import { describe, expect, it } from "vitest";
import { fakeIo } from "../../test/cli/fake-io.js";
import { parseCommandLine } from "./args.js";
import { Output } from "./io.js";
import { listen } from "./listen.js";
import type { Session } from "./session.js";

describe("listen", () => {
  it("ends a 2026 subscription that fell behind with an error naming subscriptionQueueSize", async () => {
    const parsed = parseCommandLine(["http://127.0.0.1:9/mcp", "listen"]);
    if (parsed.kind !== "run") throw new Error("expected a run");
    const session = {
      info: { era: "2026-07-28" },
      client: {
        listenSubscriptions: async () => ({
          next: async () => ({ type: "end", end: { reason: "queue_overflow", queueSize: 3 } }),
        }),
      },
    } as unknown as Session;
    const out = new Output(fakeIo().io, false);
    const error = await listen(session, parsed.args, out).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "CAPACITY",
      message:
        "the subscription fell behind (the output was not read): 4 events, over subscriptionQueueSize (3)",
      details: { option: "subscriptionQueueSize", limit: 3, size: 4 },
    });
  });
});
