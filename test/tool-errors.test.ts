/**
 * What a client gets, and what the server logs, when a tool throws, per security preset (`policy.preset`) and
 * era: under `default` a builder tool's thrown message is the `isError` text; under `gateway` the text is generic
 * and names no detail; a `JsonRpcError` thrown on purpose keeps its code and message under both; a raw handler's
 * throw is `-32603` "Internal error". Every thrown error other than a `JsonRpcError` is logged with its stack. The
 * work of a `runAsTask` answer follows the same rules, inline and as a task.
 */
import { afterEach, describe, expect, it } from "vitest";
import { callToolToCompletion } from "../src/client/index.js";
import { ErrorCode } from "../src/jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../src/jsonrpc/errors.js";
import { TASKS_EXTENSION } from "../src/protocol/types/tasks.js";
import { ServerBuilder } from "../src/server/authoring/builder.js";
import { createServer, type Server } from "../src/server/server.js";
import { runAsTask } from "../src/server/tasks/run.js";
import { connectInProcess, type InProcessClientOptions } from "./support/in-process-client.js";

const SECRET = "connect ECONNREFUSED db.internal:5432 (password=hunter2)";
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

function recordingLogger() {
  const errors: { message: string; details: unknown }[] = [];
  return {
    errors,
    warn: () => {},
    error: (message: string, details?: unknown) => errors.push({ message, details }),
  };
}

type Preset = "default" | "gateway";

function builder(preset: Preset | undefined, logger: ReturnType<typeof recordingLogger>) {
  return new ServerBuilder({
    serverInfo: { name: "errors", version: "1.0.0" },
    logger,
    ...(preset === undefined ? {} : { policy: { preset } }),
  })
    .tool({ name: "sync-throw", inputSchema: { type: "object" } }, () => {
      throw new Error(SECRET);
    })
    .tool({ name: "async-throw", inputSchema: { type: "object" } }, async () => {
      await Promise.resolve();
      throw new Error(SECRET);
    })
    .tool({ name: "throws-string", inputSchema: { type: "object" } }, () => {
      throw SECRET;
    })
    .tool({ name: "on-purpose", inputSchema: { type: "object" } }, () => {
      throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: the city is unknown", { city: "x" });
    });
}

async function client(
  server: Server,
  era: string,
  options: Omit<InProcessClientOptions, "protocolVersion"> = {},
) {
  return connectInProcess(server, { ...options, protocolVersion: era as "2026-07-28" }, (...c) =>
    closers.push(...c),
  );
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe.each(["2026-07-28", "2025-11-25"])("a tool that throws, %s", (era) => {
  for (const preset of [undefined, "default", "gateway"] as const) {
    const name = preset ?? "no policy (default)";
    const generic = preset === "gateway";

    it(`${name}: ${generic ? "a generic isError text" : "the message as isError text"}, logged with its stack`, async () => {
      const logger = recordingLogger();
      const mcp = await client(builder(preset, logger).build(), era);
      for (const tool of ["sync-throw", "async-throw", "throws-string"]) {
        const result = await mcp.callTool(tool, {});
        expect(result.isError, tool).toBe(true);
        if (generic) {
          expect(textOf(result), tool).toBe(`Tool "${tool}" failed with an internal error`);
          expect(JSON.stringify(result), tool).not.toContain("hunter2");
        } else {
          expect(textOf(result), tool).toBe(SECRET);
        }
      }
      expect(logger.errors.map((line) => line.message)).toEqual([
        'tool "sync-throw" threw',
        'tool "async-throw" threw',
        'tool "throws-string" threw',
      ]);
      for (const { details } of logger.errors) {
        expect(details).toBeInstanceOf(Error);
        expect((details as Error).message).toBe(SECRET);
        expect((details as Error).stack).toContain(SECRET);
      }
      // The stack of a thrown Error points into the tool.
      expect((logger.errors[0]?.details as Error | undefined)?.stack).toContain("tool-errors.test.ts");
    });

    it(`${name}: a JsonRpcError thrown on purpose keeps its code, message and data, unlogged`, async () => {
      const logger = recordingLogger();
      const mcp = await client(builder(preset, logger).build(), era);
      const error = await mcp.callTool("on-purpose", {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toMatchObject({
        code: ErrorCode.InvalidParams,
        message: "Invalid params: the city is unknown",
        data: { city: "x" },
      });
      expect(logger.errors).toEqual([]);
    });

    it(`${name}: a raw handler's throw is -32603 "Internal error", its detail logged with its stack`, async () => {
      const logger = recordingLogger();
      const server = createServer({
        serverInfo: { name: "raw", version: "1.0.0" },
        logger,
        ...(preset === undefined ? {} : { policy: { preset } }),
        handler: {
          listTools: () => ({ tools: [{ name: "boom", inputSchema: { type: "object" } }] }),
          callTool: () => {
            throw new Error(SECRET);
          },
        },
      });
      const mcp = await client(server, era);
      const error = await mcp.callTool("boom", {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error).toMatchObject({ code: ErrorCode.InternalError, message: "Internal error" });
      expect(JSON.stringify(error)).not.toContain("hunter2");
      expect(logger.errors).toHaveLength(1);
      expect((logger.errors[0]?.details as Error | undefined)?.stack).toContain(SECRET);
    });
  }

  for (const asTask of [false, true]) {
    for (const preset of ["default", "gateway"] as const) {
      const how = asTask ? "as a task" : "inline";
      it(`${preset}: a runAsTask work that throws, ${how}, answers as a builder tool does, logged`, async () => {
        const logger = recordingLogger();
        const server = new ServerBuilder({
          serverInfo: { name: "errors", version: "1.0.0" },
          logger,
          policy: { preset },
          tasks: { pollIntervalMs: 10 },
        })
          .tool(
            { name: "task-throw", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } },
            () =>
              runAsTask(async () => {
                await Promise.resolve();
                throw new Error(SECRET);
              }),
          )
          .tool(
            {
              name: "task-on-purpose",
              inputSchema: { type: "object" },
              execution: { taskSupport: "optional" },
            },
            () =>
              runAsTask(() => {
                throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: the city is unknown");
              }),
          )
          .build();
        const extensions = asTask && era === "2026-07-28" ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
        const mcp = await client(server, era, { capabilities: extensions });
        const call = (name: string) =>
          asTask
            ? callToolToCompletion(mcp, name, {}, { minPollMs: 1, maxPollMs: 10 })
            : mcp.callTool(name, {});
        const result = await call("task-throw");
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe(
          preset === "gateway" ? 'Tool "task-throw" failed with an internal error' : SECRET,
        );
        expect(logger.errors.map((line) => line.message)).toEqual(['tool "task-throw" threw']);
        expect((logger.errors[0]?.details as Error | undefined)?.stack).toContain(SECRET);
        const error = await call("task-on-purpose").catch((e: unknown) => e);
        expect(error).toMatchObject({
          code: ErrorCode.InvalidParams,
          message: "Invalid params: the city is unknown",
        });
        expect(logger.errors).toHaveLength(1);
      });
    }
  }

  it("a dynamic server follows its preset too", async () => {
    const logger = recordingLogger();
    const server = builder("gateway", logger).buildDynamic();
    const mcp = await client(server, era);
    const result = await mcp.callTool("sync-throw", {});
    expect(textOf(result)).toBe('Tool "sync-throw" failed with an internal error');
    expect(logger.errors).toHaveLength(1);
  });
});

describe("the server's policy option", () => {
  it("refuses an unknown preset, an unknown key and a bad toolErrors, naming them", () => {
    const base = { serverInfo: { name: "s", version: "1" }, handler: {} };
    const attempts: Array<[unknown, string]> = [
      [{ preset: "paranoid" }, "preset"],
      [{ exposeStacks: true }, "exposeStacks"],
      [{ toolErrors: "verbose" }, "toolErrors"],
      ["gateway", "policy"],
    ];
    for (const [policy, key] of attempts) {
      let thrown: unknown;
      try {
        createServer({ ...base, policy: policy as never });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, key).toBeInstanceOf(McpkitError);
      expect((thrown as McpkitError).code).toBe("INVALID_CONFIG");
      expect((thrown as McpkitError).message, key).toContain(key);
    }
  });

  it("an override wins over the preset", async () => {
    const logger = recordingLogger();
    const server = new ServerBuilder({
      serverInfo: { name: "s", version: "1" },
      logger,
      policy: { preset: "gateway", toolErrors: "message" },
    })
      .tool({ name: "t", inputSchema: { type: "object" } }, () => {
        throw new Error("shown");
      })
      .build();
    const mcp = await client(server, "2026-07-28");
    expect(textOf(await mcp.callTool("t", {}))).toBe("shown");
  });
});
