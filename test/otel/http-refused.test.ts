/**
 * A 2026 request the Streamable HTTP pipeline refuses before dispatch (a routing header that does not match the
 * body, an unsupported version) is visible: a SERVER span with its error and the refused count by code.
 */
import { SpanKind } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { otelServerPlugin } from "../../src/otel/index.js";
import { MODERN_VERSION } from "../../src/protocol/versions.js";
import { HttpPeer, useServe } from "../support/http-peer.js";
import { MODERN, useCleanups } from "../support/interop-helpers.js";
import { otelHarness } from "./harness.js";
import { tracedBuilder } from "./traced-server.js";

const cleanup = useCleanups();
const serve = useServe();

describe("otelServerPlugin over Streamable HTTP", () => {
  it("records a 2026 request refused for a header mismatch: a span and the refused count", async () => {
    const otel = otelHarness();
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    const handler = createHttpHandler(tracedBuilder(plugin).build());
    const running = await serve(handler);
    cleanup(() => handler.close());
    const peer = new HttpPeer(running.url, MODERN);
    const reply = await peer.send(peer.request("tools/list"), { headers: { "mcp-method": "tools/call" } });
    expect(reply.status).toBe(400);
    expect(reply.messages[0]).toMatchObject({ error: { code: -32020 } });
    const [span] = otel.named("tools/list");
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.attributes).toMatchObject({
      "mcp.method.name": "tools/list",
      "mcp.protocol.version": MODERN_VERSION,
      "error.type": "-32020",
    });
    const refused = (await otel.metrics()).get("mcpkit.server.request.refused");
    expect(refused?.dataPoints).toEqual([
      expect.objectContaining({
        value: 1,
        attributes: {
          "mcpkit.refusal.reason": "-32020",
          "mcp.method.name": "tools/list",
          "error.type": "-32020",
        },
      }),
    ]);
  });
});
