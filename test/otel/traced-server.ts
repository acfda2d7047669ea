/**
 * The server of the mcpkit/otel tests, in process and on stdio (test/fixtures/stdio-server/otel-server.ts): the
 * plugin first, then `more`; tools that succeed (nesting a span of their own), fail both ways, wait for their
 * cancellation, and ask for input. Imported through the package names, so the stdio fixture runs the built package.
 */
import { trace } from "@opentelemetry/api";
import { JsonRpcError } from "mcpkit";
import { OTEL_PLUGIN } from "mcpkit/otel";
import {
  type BuilderOptions,
  inputRequired,
  type RequestContext,
  ServerBuilder,
  type ServerLogger,
  type ServerPlugin,
} from "mcpkit/server";

const OBJECT = { type: "object" } as const;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** The builder of the traced server (call `.build()`; add tools first if needed). */
export function tracedBuilder(
  plugin: ServerPlugin,
  more: ServerPlugin[] = [],
  logger: ServerLogger = { warn: () => {}, error: () => {} },
  options: Partial<BuilderOptions> = {},
): ServerBuilder {
  return (
    new ServerBuilder({
      serverInfo: { name: "traced", version: "1.0.0" },
      logger,
      plugins: [plugin, ...more],
      ...options,
    })
      // A tool's throw is its isError result; a resource's is a bug of the server, logged.
      .resource({ uri: "file:///crash", name: "crash" }, async () => {
        await Promise.resolve();
        throw new Error("kaput");
      })
      .tool({ name: "echo", inputSchema: OBJECT }, async (_args, ctx: RequestContext) => {
        await Promise.resolve();
        // A span the tool starts nests under the request's span: the handler runs in its context.
        trace.getTracer("tool").startSpan("inner work").end();
        const own = ctx.pluginData[OTEL_PLUGIN] as { spanContext(): { spanId: string } } | undefined;
        return text(own?.spanContext().spanId ?? "none");
      })
      .tool({ name: "boom", inputSchema: OBJECT }, () => {
        throw new JsonRpcError(-32602, "no such thing");
      })
      .tool({ name: "bad", inputSchema: OBJECT }, () => ({ ...text("it failed"), isError: true }))
      .tool(
        { name: "wait", inputSchema: OBJECT },
        (_args, ctx) =>
          new Promise((_resolve, reject) => {
            if (ctx.signal.aborted) reject(ctx.signal.reason);
            else ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
          }),
      )
      .tool({ name: "greet", inputSchema: OBJECT }, (_args, ctx) => {
        const answer = ctx.inputResponses?.name;
        if (answer?.action !== "accept") {
          return inputRequired(
            {
              name: {
                method: "elicitation/create",
                params: {
                  message: "Name?",
                  requestedSchema: {
                    type: "object",
                    properties: { name: { type: "string" } },
                    required: ["name"],
                  },
                },
              },
            },
            { step: 1 },
          );
        }
        return text(`Hello, ${(answer.content as { name: string }).name}`);
      })
  );
}
