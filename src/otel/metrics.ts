import type { Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";
import { DURATION_BUCKETS } from "./semconv.js";

function duration(meter: Meter, name: string, description: string): Histogram {
  return meter.createHistogram(name, {
    unit: "s",
    description,
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
}

/** The instruments of the server side: the two histograms of the conventions, and mcpkit's own. */
export interface ServerInstruments {
  readonly operation: Histogram;
  readonly session: Histogram;
  readonly sessions: UpDownCounter;
  readonly refused: Counter;
}

/** Creates the server's instruments on `meter`. */
export function serverInstruments(meter: Meter): ServerInstruments {
  return {
    operation: duration(
      meter,
      "mcp.server.operation.duration",
      "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
    ),
    session: duration(
      meter,
      "mcp.server.session.duration",
      "The duration of the MCP session as observed on the MCP server.",
    ),
    sessions: meter.createUpDownCounter("mcpkit.server.session.active", {
      unit: "{session}",
      description: "2025-11-25 sessions open on this server.",
    }),
    refused: meter.createCounter("mcpkit.server.request.refused", {
      unit: "{request}",
      description:
        "Requests refused before or instead of their handler (a limit, the admission queue, a plugin's admit), by reason.",
    }),
  };
}

/** The instruments of the client side: the two histograms of the conventions. */
export interface ClientInstruments {
  readonly operation: Histogram;
  readonly session: Histogram;
}

/** Creates the client's instruments on `meter`. */
export function clientInstruments(meter: Meter): ClientInstruments {
  return {
    operation: duration(
      meter,
      "mcp.client.operation.duration",
      "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
    ),
    session: duration(
      meter,
      "mcp.client.session.duration",
      "The duration of the MCP session as observed on the MCP client.",
    ),
  };
}
