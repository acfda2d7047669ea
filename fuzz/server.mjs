#!/usr/bin/env node
/**
 * The fuzz target: one mcpkit server, from the BUILT package (`npm run build` first), built from catalog.mjs.
 *
 *   node fuzz/server.mjs stdio   serves on stdin/stdout (mcpkit's default stdio policy)
 *   node fuzz/server.mjs http    serves Streamable HTTP on 127.0.0.1 through mcpkit/node `serve`, prints
 *                                {"url": ...} on stdout, and closes when stdin ends
 *
 * Exit status: 0 after a clean end; 3 when the stdio transport failed as designed (an inbound frame past
 * maxFrameBytes: the error's code is on stderr); anything else is a crash.
 *
 * The server's logger counts what it is told and prints the counts on stderr as one line at exit
 * (`FUZZ-LOG {...}`), so the runner can report what the server logged without reading megabytes of warnings.
 * FUZZ_SERVER_DEBUG=1 prints every log call on stderr as well.
 *
 * FUZZ_SABOTAGE=<what>:<n> breaks this server on purpose, so that a test can show the fuzz catches it:
 * `drop:<n>` drops the n-th answer, `extra:<n>` sends it twice, `crash:<n>` exits at the n-th answer.
 */
import { Writable } from "node:stream";
import { createHttpHandler } from "../dist/http/index.js";
import { serve } from "../dist/node/index.js";
import { ServerBuilder } from "../dist/server/index.js";
import { serveStdio } from "../dist/stdio/index.js";
import { LIMITS, NAMES, PROMPTS, RESOURCES, TEMPLATE, TOOLS } from "./catalog.mjs";

const mode = process.argv[2];
const [sabotage, sabotageAt] = (process.env.FUZZ_SABOTAGE ?? "").split(":");
const logCounts = {};
const count = (level) => (message, details) => {
  const key = `${level}: ${message}`;
  logCounts[key] = (logCounts[key] ?? 0) + 1;
  if (process.env.FUZZ_SERVER_DEBUG) console.error(key, details);
};
const logger = { warn: count("warn"), error: count("error") };
process.on("exit", () => process.stderr.write(`FUZZ-LOG ${JSON.stringify(logCounts)}\n`));

const text = (value) => ({ content: [{ type: "text", text: String(value) }] });

function buildServer() {
  const builder = new ServerBuilder({
    serverInfo: { name: "mcpkit-fuzz", version: "1.0.0" },
    logger,
    subscribe: true,
  });
  const behaviour = {
    echo: ({ text: value }) => text(value),
    add: ({ a, b }) => text(a + b),
    fail: () => {
      throw new Error("the fail tool fails");
    },
    sleep: ({ ms }, context) =>
      new Promise((resolve, reject) => {
        // Cancelled before it ran (its arguments were still being checked): it does not sleep at all.
        if (context.signal.aborted) return reject(context.signal.reason);
        const timer = setTimeout(() => resolve(text(`slept ${ms}`)), ms);
        context.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(context.signal.reason);
        });
      }),
    big: ({ bytes }) => text("x".repeat(bytes)),
    region: ({ region }) => text(`region ${region}`),
  };
  for (const [name, tool] of Object.entries(TOOLS)) {
    builder.tool({ name, inputSchema: tool.inputSchema }, behaviour[name]);
  }
  for (const [name, prompt] of Object.entries(PROMPTS)) {
    builder.prompt(
      { name, arguments: prompt.arguments },
      (args) => ({ messages: [{ role: "user", content: { type: "text", text: JSON.stringify(args) } }] }),
      name === "greet" ? { complete: { name: (value) => NAMES.filter((n) => n.startsWith(value)) } } : {},
    );
  }
  for (const uri of RESOURCES) {
    builder.resource({ uri, name: uri.slice(7) }, (read) => ({ contents: [{ uri: read, text: "static" }] }));
  }
  builder.resourceTemplate({ uriTemplate: TEMPLATE, name: "item" }, (uri, { id }) => ({
    contents: [{ uri, text: `item ${id}` }],
  }));
  return builder.build();
}

/** Counts answers; returns what the sabotage wants done with this one. */
let answers = 0;
function sabotaged() {
  if (!sabotage) return undefined;
  answers++;
  return answers === Number(sabotageAt) ? sabotage : undefined;
}

/** stdout, through a wrapper that can drop, repeat or crash on the n-th frame. */
function sabotagedStdout() {
  return new Writable({
    write(chunk, encoding, callback) {
      const what = sabotaged();
      if (what === "crash") process.exit(99);
      if (what === "drop") return callback();
      if (what === "extra") process.stdout.write(chunk, encoding);
      if (process.stdout.write(chunk, encoding)) callback();
      else process.stdout.once("drain", () => callback());
    },
  });
}

async function serveOnStdio() {
  const options = sabotage ? { output: sabotagedStdout() } : {};
  try {
    await serveStdio(buildServer(), options);
    if (process.env.FUZZ_SERVER_DEBUG)
      console.error(
        "serveStdio resolved",
        process._getActiveHandles().map((h) => h.constructor.name),
      );
  } catch (error) {
    process.stderr.write(`FUZZ-END ${error.code ?? error.name}: ${error.message}\n`);
    process.exitCode = 3;
  }
}

async function serveOnHttp() {
  const handler = createHttpHandler(buildServer(), {
    maxBodyBytes: LIMITS.httpMaxBodyBytes,
    maxResponseBytes: LIMITS.httpMaxResponseBytes,
    toolSchemas: { region: TOOLS.region.inputSchema },
    sessions: {
      maxSessions: 1_000_000,
      maxSessionsPerAddress: 1_000_000,
      idleTimeoutMs: 3_600_000,
      initializationTimeoutMs: 3_600_000,
    },
  });
  const target = sabotage
    ? async (request, context) => {
        const what = sabotaged();
        if (what === "crash") process.exit(99);
        if (what === "drop") return new Promise(() => {});
        const response = await handler(request, context);
        if (what !== "extra" || response.body === null) return response;
        const body = await response.text();
        return new Response(body + body, { status: response.status, headers: response.headers });
      }
    : handler;
  const handle = await serve(target);
  process.stdout.write(`${JSON.stringify({ url: handle.url })}\n`);
  process.stdin.resume();
  process.stdin.on("end", async () => {
    await handle.close();
    if (!sabotage) await handler.close();
  });
}

if (mode === "stdio") await serveOnStdio();
else if (mode === "http") await serveOnHttp();
else {
  process.stderr.write("usage: node fuzz/server.mjs stdio|http\n");
  process.exitCode = 2;
}
