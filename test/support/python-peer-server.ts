/**
 * The mcpkit server the official Python SDK's client (test/python/peer_client.py) talks to, in process over
 * Streamable HTTP and (test/fixtures/stdio-server/python-peer-server.ts, compiled by fixture-build.ts) as a
 * stdio subprocess: one source for both. Tools, structured output, a resource and a template, a prompt,
 * progress, elicitation and sampling by `inputRequired()` (real server requests in 2025-11-25), and a `slow`
 * tool whose cancellation the `cancelled` tool reports.
 *
 * @example
 * const server = pythonPeerServer();
 * await serve(createHttpHandler(server), { host: "127.0.0.1" });
 */
// Through the package name: the sources in the tests, the built package in the stdio fixture.
import { inputRequired, type Server, ServerBuilder, type ToolResult } from "mcpkit/server";
import { accepted, askFor, sampled, sampleOf } from "./input-server.js";

const text = (value: string): ToolResult => ({ content: [{ type: "text", text: value }] });

/** The server; every call of it makes a fresh one (its own `slow` cancellation record). */
export function pythonPeerServer(): Server {
  let markCancelled: (reason: string) => void = () => {};
  const slowCancelled = new Promise<string>((resolve) => {
    markCancelled = resolve;
  });
  return new ServerBuilder({
    serverInfo: { name: "mcpkit-python-peer", version: "1.0.0" },
    logger: { warn: () => {}, error: () => {} },
  })
    .tool(
      {
        name: "add",
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
        name: "weather",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        outputSchema: {
          type: "object",
          properties: { city: { type: "string" }, celsius: { type: "number" } },
          required: ["city", "celsius"],
        },
      },
      ({ city }) => {
        const report = { city: String(city), celsius: 21.5 };
        return { ...text(JSON.stringify(report)), structuredContent: report };
      },
    )
    .tool(
      { name: "count", inputSchema: { type: "object", properties: { to: { type: "integer" } } } },
      async ({ to }, context) => {
        const total = Number(to);
        for (let step = 1; step <= total; step++) await context.progress(step, total, `step ${step}`);
        return text(`counted to ${total}`);
      },
    )
    .tool({ name: "greet", inputSchema: { type: "object" } }, (_args, context) => {
      const name = accepted(context, "name", "name");
      return name === undefined ? inputRequired({ name: askFor("name") }) : text(`Hello, ${name}!`);
    })
    .tool({ name: "ask_llm", inputSchema: { type: "object" } }, (args, context) => {
      const answer = sampled(context, "answer");
      return answer === undefined
        ? inputRequired({ answer: sampleOf(String(args.question ?? "Why?")) })
        : text(`The model says: ${answer}`);
    })
    .tool({ name: "slow", inputSchema: { type: "object" } }, async (_args, context) => {
      await context.progress(0, 1, "started");
      return new Promise<ToolResult>((_resolve, reject) => {
        const { signal } = context;
        const stop = () => {
          markCancelled(String(signal.reason instanceof Error ? signal.reason.message : signal.reason));
          reject(signal.reason);
        };
        if (signal.aborted) stop();
        else signal.addEventListener("abort", stop, { once: true });
      });
    })
    .tool({ name: "cancelled", inputSchema: { type: "object" } }, async () =>
      text(`slow was cancelled (${await slowCancelled})`),
    )
    .resource({ uri: "test://motd", name: "motd", mimeType: "text/plain" }, (uri) => ({
      contents: [{ uri, mimeType: "text/plain", text: "hello from mcpkit" }],
    }))
    .resourceTemplate({ uriTemplate: "test://items/{id}", name: "item" }, (uri, { id }) => ({
      contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id }) }],
    }))
    .prompt({ name: "review", arguments: [{ name: "code", required: true }] }, ({ code }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Please review: ${code}` } }],
    }))
    .build();
}
