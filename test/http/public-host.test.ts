/**
 * A public deployment as docs/deployment.md shows it ("Serving on a public address"): the handler built with
 * `allowedHosts` naming the public host, served by `serve`. The test binds 127.0.0.1 (network tests stay on
 * loopback) and sends the Host header a public client sends. A Host outside the list gets a 403 whose body names
 * it and the option, one rate-limited warning in the server's log, and mcpkit's client and CLI show that body.
 */
import { describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { runCli } from "../../src/cli/run.js";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { fakeIo } from "../cli/fake-io.js";
import { HttpPeer, useServe } from "../support/http-peer.js";

const serve = useServe();
const PUBLIC_HOST = "mcp.example.com";

function recordingLogger() {
  const warnings: { message: string; details: unknown }[] = [];
  return {
    warnings,
    warn: (message: string, details?: unknown) => warnings.push({ message, details }),
    error: () => {},
  };
}

/** The doc's server, with a logger that records. */
async function publicServer() {
  const logger = recordingLogger();
  const server = new ServerBuilder({ serverInfo: { name: "notes", version: "1.0.0" }, logger })
    .tool({ name: "ping", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "pong" }],
    }))
    .build();
  // As in the doc, `PUBLIC_HOST` there read from the environment; the doc binds 0.0.0.0, this test 127.0.0.1.
  const handler = createHttpHandler(server, { allowedHosts: [PUBLIC_HOST] });
  const { url } = await serve(handler, { port: 0 });
  return { url, logger };
}

describe.each(["2026-07-28", "2025-11-25"] as const)("a public deployment, %s", (era) => {
  it("accepts the public host name, with or without a port", async () => {
    const { url } = await publicServer();
    const peer = new HttpPeer(url, era);
    if (era === "2025-11-25") await peer.open({ headers: { host: PUBLIC_HOST } });
    for (const host of [PUBLIC_HOST, `${PUBLIC_HOST}:443`, "MCP.example.com"]) {
      const reply = await peer.send(peer.request("tools/call", { name: "ping", arguments: {} }), {
        headers: { host },
      });
      expect(reply.status, host).toBe(200);
      expect(reply.messages.at(-1)).toMatchObject({ result: { content: [{ text: "pong" }] } });
    }
  });

  it("refuses another Host with a body naming it and allowedHosts, and logs it once per interval", async () => {
    const { url, logger } = await publicServer();
    const peer = new HttpPeer(url, era);
    const reply = await peer.send(peer.request("tools/list"), { headers: { host: "203.0.113.7:8080" } });
    expect(reply.status).toBe(403);
    expect(reply.text).toContain('host "203.0.113.7:8080" is not allowed');
    expect(reply.text).toContain("allowedHosts");
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]?.message).toContain("allowedHosts");
    expect(logger.warnings[0]?.details).toMatchObject({ host: "203.0.113.7:8080" });
    // The log line's kind is fixed: a peer sending many Hosts gets them counted, not logged one by one.
    for (const host of ["a.example", "b.example", "c.example"]) {
      expect((await peer.send(peer.request("tools/list"), { headers: { host } })).status).toBe(403);
    }
    expect(logger.warnings).toHaveLength(1);
  });
});

describe("the 403 body reaches mcpkit's client and CLI", () => {
  it("a client connecting by its loopback address is told which Host was refused and why", async () => {
    const { url } = await publicServer();
    const client = new Client({
      clientInfo: { name: "t", version: "1" },
      transport: new StreamableHttpClientTransport({ url }),
    });
    const error = await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close().catch(() => {});
    expect(error).toBeInstanceOf(McpkitError);
    const message = (error as McpkitError).message;
    expect(message).toContain("HTTP 403");
    expect(message).toContain(`host "${new URL(url).host}" is not allowed`);
    expect(message).toContain("allowedHosts");
  });

  it("the CLI prints the body", async () => {
    const { url } = await publicServer();
    const fake = fakeIo();
    expect(await runCli([url, "tools"], fake.io)).not.toBe(ExitCode.OK);
    expect(fake.stderr.text).toContain("HTTP 403");
    expect(fake.stderr.text).toContain("allowedHosts");
  });

  it("a huge or control-laden body is cut and neutralized in the error", async () => {
    const big = `Forbidden\u001b[31m ${"x".repeat(100_000)}`;
    const { url } = await serve(async () => new Response(big, { status: 403 }), { port: 0 });
    const client = new Client({
      clientInfo: { name: "t", version: "1" },
      transport: new StreamableHttpClientTransport({ url }),
    });
    const error = (await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    )) as McpkitError;
    await client.close().catch(() => {});
    expect(error).toBeInstanceOf(McpkitError);
    expect(error.message).toContain("Forbidden");
    expect(error.message).not.toContain("\u001b");
    expect(error.message.length).toBeLessThan(1_000);
  });
});
