/**
 * The official clients complete tasks against mcpkit's server: v1 (`@modelcontextprotocol/sdk` 1.32.2, which
 * has 2025-11-25 tasks) through its `experimental.tasks.callToolStream`, input answered by its elicitation
 * handler on `tasks/result`; v2 (`@modelcontextprotocol/client` 2.4.0, tasks types only) with its raw
 * `request()` in 2025-11-25 (in 2026-07-28 its `request()` refuses a `tools/call` answered with
 * `resultType: "task"`, so it cannot take a task there). Every message is checked against the official schema.
 */
import { Client as V2Client } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { LEGACY, textOf, useCleanups } from "../support/interop-helpers.js";
import { toOfficialTransport } from "../support/official-bridge.js";
import { taskServer } from "../support/task-server.js";
import { validatingPair } from "../support/validating-transport.js";

const cleanup = useCleanups();
const ANY = z.looseObject({});

describe("official v1 Client -> mcpkit server with tasks (2025-11-25)", () => {
  it("streams a task to its result, answering the task's elicitation on tasks/result", async () => {
    const server = taskServer();
    const pair = validatingPair({ era: LEGACY });
    await server.connect(pair.server);
    const client = new V1Client({ name: "v1", version: "1.32.2" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { ok: true } }));
    cleanup(
      () => client.close(),
      () => server.close(),
    );
    await client.connect(toOfficialTransport(pair.client));
    await client.listTools();
    const kinds: string[] = [];
    let last: unknown;
    const stream = client.experimental.tasks.callToolStream({ name: "research", arguments: {} }, undefined, {
      task: { ttl: 60_000 },
    });
    for await (const message of stream) {
      kinds.push(message.type);
      last = message;
    }
    expect(kinds[0]).toBe("taskCreated");
    expect(kinds.at(-1)).toBe("result");
    expect(textOf((last as { result: unknown }).result)).toBe("report (approved)");
    expect(pair.errors).toEqual([]);
  });
});

describe("official v2 Client -> mcpkit server with tasks", () => {
  it("2025-11-25: a task-augmented tools/call, tasks/get, then tasks/result", async () => {
    const server = taskServer();
    const pair = validatingPair({ era: LEGACY });
    await server.connect(pair.server);
    const client = new V2Client({ name: "v2", version: "2.4.0" });
    cleanup(
      () => client.close(),
      () => server.close(),
    );
    await client.connect(toOfficialTransport(pair.client));
    const created = await client.request(
      { method: "tools/call", params: { name: "quick", arguments: {}, task: { ttl: 60_000 } } },
      ANY,
    );
    const taskId = (created.task as { taskId: string }).taskId;
    const status = await client.request({ method: "tasks/get", params: { taskId } }, ANY);
    expect(status.taskId).toBe(taskId);
    const result = await client.request({ method: "tasks/result", params: { taskId } }, ANY);
    expect(textOf(result)).toBe("quick answer");
    expect(pair.errors).toEqual([]);
  });
});
