/**
 * The mcpkit server the CLI tests talk to over HTTP (in the test process): tools that exercise argument
 * conversion, tool errors, progress, logging, elicitation and list changes; a resource, a template and a prompt
 * with completions.
 */
import { serve } from "../../src/node/serve.js";
import { inputRequired, runAsTask, ServerBuilder } from "../../src/server/index.js";
import type { Server } from "../../src/server/server.js";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** The signals of the `long-task` tool's tasks, newest last: the CLI tests see them cancelled. */
export const longTaskSignals: AbortSignal[] = [];

export function cliServer(): Server {
  return new ServerBuilder({
    serverInfo: { name: "cli-fixture", version: "3.2.1" },
    instructions: "A server for the CLI tests.\nSecond line.",
    logger: { warn: () => {}, error: () => {} },
    listChanged: { tools: true },
    subscribe: true,
    tasks: { pollIntervalMs: 20 },
  })
    .tool(
      {
        name: "add",
        description: "Adds two numbers",
        inputSchema: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
        },
      },
      ({ a, b }) => text(String(Number(a) + Number(b))),
    )
    .tool(
      {
        name: "types",
        description: "Echoes its arguments as JSON",
        inputSchema: {
          type: "object",
          properties: {
            n: { type: "integer" },
            on: { type: "boolean" },
            tags: { type: "array", items: { type: "string" } },
            opts: { type: "object" },
            mode: { type: "string", enum: ["fast", "slow"] },
            note: { type: ["string", "null"] },
          },
        },
      },
      (args) => text(JSON.stringify(args)),
    )
    .tool({ name: "fail", description: "Always fails", inputSchema: { type: "object" } }, () => {
      throw new Error("the tool failed on purpose");
    })
    .tool(
      {
        name: "steps",
        description: "Reports progress n times",
        inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      },
      async ({ n }, context) => {
        for (let i = 1; i <= Number(n); i++) await context.progress(i, Number(n), `step ${i}`);
        await context.log("info", "steps done", "steps");
        return text(`did ${n} steps`);
      },
    )
    .tool(
      {
        name: "sleep",
        description: "Waits ms milliseconds, or until cancelled",
        inputSchema: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] },
      },
      ({ ms }, context) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve(text(`slept ${ms}`)), Number(ms));
          context.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(context.signal.reason);
          });
        }),
    )
    .tool(
      { name: "ask", description: "Asks for a name", inputSchema: { type: "object" } },
      (_args, context) => {
        const answer = context.inputResponses?.who;
        if (answer === undefined) {
          return inputRequired({
            who: {
              method: "elicitation/create",
              params: {
                message: "Who are you?",
                requestedSchema: {
                  type: "object",
                  properties: {
                    name: { type: "string", title: "Name" },
                    age: { type: "integer", default: 30 },
                  },
                  required: ["name"],
                },
              },
            },
          });
        }
        if (!("action" in answer) || answer.action !== "accept")
          return text(`no answer (${"action" in answer ? answer.action : "?"})`);
        return text(`hello ${JSON.stringify(answer.content)}`);
      },
    )
    .tool(
      { name: "ask-two", description: "Asks two questions at once", inputSchema: { type: "object" } },
      (_args, context) => {
        const responses = context.inputResponses;
        const field = (key: string) => {
          const answer = responses?.[key];
          return answer !== undefined && "action" in answer && answer.action === "accept"
            ? String((answer.content as { [key: string]: unknown } | undefined)?.[key])
            : undefined;
        };
        const [city, color] = [field("city"), field("color")];
        if (city !== undefined && color !== undefined) return text(`${city} in ${color}`);
        const ask = (key: string) => ({
          method: "elicitation/create" as const,
          params: {
            message: `Your ${key}?`,
            requestedSchema: {
              type: "object" as const,
              properties: { [key]: { type: "string" as const } },
              required: [key],
            },
          },
        });
        return inputRequired({ city: ask("city"), color: ask("color") });
      },
    )
    .resource({ uri: "test://note", name: "note", mimeType: "text/plain", description: "A note" }, (uri) => ({
      contents: [{ uri, mimeType: "text/plain", text: "a note\nwith two lines" }],
    }))
    .resourceTemplate(
      { uriTemplate: "test://items/{id}", name: "item" },
      (uri, { id }) => ({ contents: [{ uri, text: `item ${id}` }] }),
      { complete: { id: (value) => ["alpha", "beta", "gamma"].filter((v) => v.startsWith(value)) } },
    )
    .prompt(
      {
        name: "greet",
        description: "Greets someone",
        arguments: [
          { name: "name", required: true },
          { name: "tone", required: false },
        ],
      },
      ({ name, tone }) => ({
        messages: [{ role: "user", content: { type: "text", text: `Greet ${name} ${tone ?? "warmly"}` } }],
      }),
      { complete: { tone: (value) => ["warmly", "formally", "wryly"].filter((v) => v.startsWith(value)) } },
    )
    .tool(
      {
        name: "task-job",
        description: "Runs as a task",
        inputSchema: { type: "object" },
        execution: { taskSupport: "optional" },
      },
      () =>
        runAsTask(async (task) => {
          await task.status("crunching");
          return text("task done");
        }),
    )
    .tool(
      {
        name: "long-task",
        description: "A task that runs until cancelled",
        inputSchema: { type: "object" },
        execution: { taskSupport: "optional" },
      },
      () =>
        runAsTask(async (task) => {
          longTaskSignals.push(task.signal);
          await task.status("waiting for ever");
          return new Promise((_resolve, reject) =>
            task.signal.addEventListener("abort", () => reject(task.signal.reason)),
          );
        }),
    )
    .build();
}

/** Serves {@link cliServer} on 127.0.0.1 (a free port); resolves with the URL, the server and `close`. */
export async function serveCliServer() {
  const server = cliServer();
  const handle = await serve(server);
  return { url: handle.url, server, close: () => handle.close() };
}
