import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { afterEach, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { otelClientTransport, otelServerPlugin } from "../../src/otel/index.js";
import { LEGACY_VERSION } from "../../src/protocol/versions.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import { tracedBuilder } from "./traced-server.js";

let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

it("serves the MCP duration histograms on a Prometheus endpoint (127.0.0.1), scraped over HTTP", async () => {
  // The exporter's own server is not started: its handler is mounted on one listening on a free loopback port.
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const scrape = createServer((request, response) => exporter.getMetricsRequestHandler(request, response));
  await new Promise<void>((resolve) => scrape.listen(0, "127.0.0.1", resolve));
  closers.push(
    () => new Promise((resolve) => scrape.close(resolve)),
    () => meterProvider.shutdown(),
  );

  const server = tracedBuilder(otelServerPlugin({ meterProvider, networkTransport: "pipe" })).build();
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const client = new Client({
    clientInfo: { name: "c", version: "1" },
    protocolVersion: LEGACY_VERSION,
    transport: otelClientTransport(clientSide, { meterProvider }),
  });
  await client.connect();
  await client.callTool("echo", {});
  await expect(client.callTool("boom", {})).rejects.toMatchObject({ code: -32602 });
  await client.close();
  await server.close();

  const { port } = scrape.address() as AddressInfo;
  const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  for (const name of [
    "mcp_server_operation_duration",
    "mcp_client_operation_duration",
    "mcp_server_session_duration",
    "mcp_client_session_duration",
  ]) {
    expect(body, name).toContain(`# TYPE ${name} histogram`);
  }
  const lines = body.split("\n");
  // The advised boundaries, and the attributes of the conventions as labels.
  expect(
    lines.some(
      (line) =>
        line.startsWith("mcp_server_operation_duration_bucket{") &&
        line.includes('mcp_method_name="tools/call"') &&
        line.includes('gen_ai_tool_name="echo"') &&
        line.includes('network_transport="pipe"') &&
        line.includes('le="0.01"'),
    ),
  ).toBe(true);
  expect(
    lines.some(
      (line) =>
        line.startsWith("mcp_client_operation_duration_count{") &&
        line.includes('error_type="-32602"') &&
        line.endsWith(" 1"),
    ),
  ).toBe(true);
  expect(body).toContain('le="300"');
});
