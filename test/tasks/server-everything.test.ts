/**
 * mcpkit's client completes `simulate-research-query` against `@modelcontextprotocol/server-everything` over
 * stdio: a tool that refuses to run without task augmentation (2025-11-25), whose ambiguous query asks for a
 * clarification through an elicitation queued on `tasks/result`. About four seconds: the tool's own stages.
 */
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { type ClientTask, callToolToCompletion } from "../../src/client/tasks.js";
import { launchStdio } from "../../src/stdio/index.js";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const open: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
});

describe("mcpkit Client -> server-everything simulate-research-query (2025-11-25 tasks)", () => {
  it("runs the research as a task, streams its stages, answers its clarification, and gets the report", async () => {
    const asked: string[] = [];
    const client = new Client({
      transport: launchStdio({
        command: process.execPath,
        args: [EVERYTHING, "stdio"],
        policy: { stderr: "ignore", shutdownTimeoutMs: 2_000 },
      }),
      clientInfo: { name: "mcpkit-tasks", version: "0.1.0" },
      capabilities: { elicitation: { form: {} } },
      onElicitation: (params) => {
        asked.push(params.message);
        return { action: "accept", content: { interpretation: "ocean tides" } };
      },
    });
    open.push(client);
    await client.connect();
    const statuses: ClientTask[] = [];
    const result = await callToolToCompletion(
      client,
      "simulate-research-query",
      { topic: "tides", ambiguous: true },
      { onStatus: (task) => statuses.push(task), deadlineMs: 30_000 },
    );
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain("# Research Report: tides (ocean tides)");
    expect(asked).toHaveLength(1);
    expect(statuses[0]?.status).toBe("working");
    expect(statuses.some((task) => task.statusMessage?.includes("Gathering sources"))).toBe(true);
  }, 30_000);
});
