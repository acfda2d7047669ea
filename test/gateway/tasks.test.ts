import { afterEach, describe, expect, it } from "vitest";
import { callToolAsTask, callToolToCompletion } from "../../src/client/index.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const POLL = { minPollMs: 10, maxPollMs: 50 };
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

const TURNED_ON = [
  ["the tasks option", { tasks: true }],
  ['the config\'s "gateway": {"tasks": true}', { gateway: { tasks: true } }],
] as const;

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("tasks through the gateway (%s client)", (era) => {
  it.each(TURNED_ON)(
    "runs a call the client makes as a task as the gateway's task, the upstream's input requests becoming the task's (%s)",
    async (_how, options) => {
      const { client } = await gatewayWithClient(
        { up: fixtureUpstream("up", { start: "boot" }) },
        {
          protocolVersion: era,
          capabilities: { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } },
          onElicitation: () => ({ action: "accept", content: { name: "Tasker" } }),
        },
        closers,
        options,
      );
      const started = await callToolAsTask(client, "up__echo", { text: "as a task" });
      expect(started.task).toBeDefined();
      expect(text(await callToolToCompletion(client, "up__echo", { text: "done" }, POLL))).toBe("up: done");
      expect(text(await callToolToCompletion(client, "up__elicit", {}, POLL))).toBe("hello Tasker");
    },
  );
});
