// OpenTelemetry on both sides of one call (docs/observability.md): a traced client and a traced server, the
// trace carried in params._meta. Here the spans go to an in-memory exporter and come back as a tree; in an
// application the Node SDK (or any provider) takes their place and nothing else changes.

import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { createInProcessPair } from "mcpkit";
import { Client } from "mcpkit/client";
import { otelClientTransport, otelServerPlugin } from "mcpkit/otel";
import { ServerBuilder } from "mcpkit/server";

export async function main(): Promise<string[]> {
  // What the Node SDK sets up for you: a context manager, so that the active span survives `await`.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const options = { tracerProvider, propagator: new W3CTraceContextPropagator() };

  // The plugin first, so that it sees every request, even one a later plugin refuses.
  const server = new ServerBuilder({
    serverInfo: { name: "weather", version: "1.0.0" },
    plugins: [otelServerPlugin(options)],
  })
    .tool({ name: "forecast", inputSchema: { type: "object" } }, async () => ({
      content: [{ type: "text", text: "sunny" }],
    }))
    .build();
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const client = new Client({
    clientInfo: { name: "agent", version: "1.0.0" },
    transport: otelClientTransport(clientSide, options),
  });
  await client.connect();

  // The application's own span: the MCP call becomes its child, and the server's span the call's.
  const root = tracerProvider.getTracer("agent").startSpan("plan the trip");
  await context.with(trace.setSpan(context.active(), root), () => client.callTool("forecast", {}));
  root.end();
  await client.close();
  await server.close();
  return tree(exporter.getFinishedSpans(), root.spanContext().spanId);
}

/** The spans under `parent`, one line each, indented by depth: `KIND name`. */
function tree(spans: ReadableSpan[], parent: string, depth = 0): string[] {
  const kinds = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
  return spans
    .filter((span) => span.parentSpanContext?.spanId === parent)
    .flatMap((span) => [
      `${"  ".repeat(depth)}${kinds[span.kind]} ${span.name}`,
      ...tree(spans, span.spanContext().spanId, depth + 1),
    ]);
}
