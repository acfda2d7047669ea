/**
 * The server of `npm run soak`, in its own process (forked with an IPC channel and `--expose-gc`): an mcpkit
 * `Server` with two validated tools behind `serve()` on 127.0.0.1. It reports `{ type: "ready", url }`, and
 * answers `{ type: "sample" }` with its memory after a forced full GC and the handler's open session and
 * subscription counts. It imports the BUILT package (`mcpkit/...` resolves to dist/).
 */
import { createHttpHandler } from "mcpkit/http";
import { serve } from "mcpkit/node";
import { ServerBuilder } from "mcpkit/server";

/**
 * Legacy sessions come from one address (127.0.0.1). The driver keeps at most a few open at a time, so the cap
 * is raised from 16 only to leave room for them: it stays finite on purpose, so that a session or address slot
 * that is never released shows up as 503 `address_limit` long before the end of the run.
 */
const MAX_SESSIONS_PER_ADDRESS = 64;

/** For the test that shows the drift check can fail: bytes the `add` tool keeps per call (default 0). */
const LEAK_BYTES = Number(process.env.SOAK_INJECT_LEAK_BYTES ?? 0);
const leaked = [];

const server = new ServerBuilder({ serverInfo: { name: "soak", version: "1.0.0" } })
  .tool(
    {
      name: "add",
      description: "Adds two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
        additionalProperties: false,
      },
    },
    ({ a, b }) => {
      // An array of numbers, not a typed array: its bytes are on the V8 heap, which is what the soak watches.
      if (LEAK_BYTES > 0) leaked.push(new Array(Math.ceil(LEAK_BYTES / 8)).fill(0));
      return { content: [{ type: "text", text: String(Number(a) + Number(b)) }] };
    },
  )
  .tool(
    {
      name: "echo",
      description: "Echoes a short text, structured",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string", maxLength: 64 } },
        required: ["text"],
      },
      outputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text } }),
  )
  .build();

const handler = createHttpHandler(server, {
  sessions: { maxSessionsPerAddress: MAX_SESSIONS_PER_ADDRESS },
});
const served = await serve(handler, { host: "127.0.0.1", port: 0 });

process.on("message", async (message) => {
  if (message?.type === "sample") {
    // Twice: the first full GC can leave garbage that only finalizers and weak callbacks released.
    globalThis.gc();
    globalThis.gc();
    const { heapUsed, rss, external } = process.memoryUsage();
    process.send({
      type: "sample",
      heapUsed,
      external,
      rss,
      sessions: handler.sessionCount,
      subscriptions: handler.subscriptionCount,
    });
  } else if (message?.type === "close") {
    await handler.close();
    await served.close();
    process.send({ type: "closed" });
    process.disconnect();
  }
});
process.on("disconnect", () => process.exit(0));
if (typeof globalThis.gc !== "function") throw new Error("soak-server needs --expose-gc");
process.send({ type: "ready", url: served.url });
