import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/index.js";
import { eventually, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

function upstreamServer() {
  return new ServerBuilder({ serverInfo: { name: "remote", version: "1" } })
    .tool({ name: "ping", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "pong" }],
    }))
    .build();
}

/**
 * A resolver that answers every name with `address()` (as `dns.lookup` would, one address or all of them), and
 * counts its lookups. Nothing here touches real DNS, and nothing connects but to loopback.
 */
function fakeLookup(address: () => string): { lookup: LookupFunction; asked: string[] } {
  const asked: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    asked.push(hostname);
    const ip = address();
    const family = ip.includes(":") ? 6 : 4;
    const all: LookupAddress[] = [{ address: ip, family }];
    setImmediate(() => (options.all ? callback(null, all) : callback(null, ip, family)));
  }) as unknown as LookupFunction;
  return { lookup, asked };
}

/** A server logger that keeps what the gateway logged. */
function keptLogs() {
  const logs: { message: string; details: unknown }[] = [];
  const keep = (message: string, details?: unknown) => void logs.push({ message, details });
  return { logs, logger: { debug: keep, info: keep, warn: keep, error: keep } };
}

describe("an HTTP upstream named by a host name", () => {
  it("is refused when the name resolves to a private address, before any connection, naming the upstream, the address and the key", async () => {
    const { lookup, asked } = fakeLookup(() => "10.0.0.1");
    const { logs, logger } = keptLogs();
    const { client } = await gatewayWithClient({ corp: { url: "https://corp.test:9443/mcp" } }, {}, closers, {
      lookup,
      logger,
    });
    const error = await client.callTool("corp__ping", {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32603, message: expect.stringContaining('upstream "corp"') });
    expect(asked).toContain("corp.test");
    const logged = JSON.stringify(logs);
    expect(logged).toContain("10.0.0.1");
    expect(logged).toContain("corp.test");
    expect(logged).toContain("mcpServers.corp.allowPrivateAddress");
  });

  it.each(["169.254.169.254", "fd00::1", "::ffff:192.168.1.1", "100.64.0.1"])(
    "is refused when the name resolves to %s",
    async (address) => {
      const { lookup } = fakeLookup(() => address);
      const { logs, logger } = keptLogs();
      const { client } = await gatewayWithClient(
        { corp: { url: "https://corp.test:9443/mcp" } },
        {},
        closers,
        { lookup, logger },
      );
      await expect(client.callTool("corp__ping", {})).rejects.toMatchObject({ code: -32603 });
      expect(JSON.stringify(logs)).toContain(address);
    },
  );

  it("works over real HTTP when the name resolves to loopback", async () => {
    const handle = await serve(upstreamServer());
    closers.push(() => handle.close());
    const { lookup, asked } = fakeLookup(() => "127.0.0.1");
    const url = handle.url.replace("127.0.0.1", "localhost");
    const { client } = await gatewayWithClient({ remote: { url } }, {}, closers, { lookup });
    expect(text(await client.callTool("remote__ping", {}))).toBe("pong");
    expect(asked).toContain("localhost");
  });

  it("takes a private address when the upstream's allowPrivateAddress says so", async () => {
    const handle = await serve(upstreamServer());
    closers.push(() => handle.close());
    // 0.0.0.0 is in 0/8 (private by the rule) and, on connect, reaches this machine: no other host is touched.
    const { lookup } = fakeLookup(() => "0.0.0.0");
    const url = handle.url.replace("127.0.0.1", "localhost");
    const refused = await gatewayWithClient({ remote: { url } }, {}, closers, { lookup });
    await expect(refused.client.callTool("remote__ping", {})).rejects.toMatchObject({ code: -32603 });
    const allowed = await gatewayWithClient({ remote: { url, allowPrivateAddress: true } }, {}, closers, {
      lookup,
    });
    expect(text(await allowed.client.callTool("remote__ping", {}))).toBe("pong");
  });

  it("refuses at connect a name that resolved to loopback first and to a private address later (DNS rebinding)", async () => {
    const handle = await serve(upstreamServer());
    closers.push(() => handle.close());
    let rebound = false;
    const { lookup, asked } = fakeLookup(() => (rebound ? "10.0.0.1" : "127.0.0.1"));
    const { logs, logger } = keptLogs();
    const url = handle.url.replace("127.0.0.1", "localhost");
    const { client } = await gatewayWithClient({ remote: { url, start: "boot" } }, {}, closers, {
      lookup,
      logger,
    });
    expect(text(await client.callTool("remote__ping", {}))).toBe("pong");
    rebound = true;
    const before = asked.length;
    // The next call needs a new connection, and so a new lookup (a call that raced the socket's close fails as
    // a connection that ended; the one after it opens anew).
    handle.server.closeIdleConnections();
    let error: unknown;
    await eventually(async () => {
      error = await client.callTool("remote__ping", {}).catch((e: unknown) => e);
      return asked.length > before;
    });
    expect(error).toMatchObject({
      code: -32603,
      message: 'upstream "remote" is unavailable: its host name resolved to a private address',
    });
    const logged = JSON.stringify(logs);
    expect(logged).toContain("10.0.0.1");
    expect(logged).toContain("mcpServers.remote.allowPrivateAddress");
  });
});
