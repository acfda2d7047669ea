/**
 * The GET stream of a 2025-11-25 session giving up for good is reported to the owner, against a real mcpkit
 * HTTP server on 127.0.0.1 whose GET answers fail permanently: the client gets a typed `McpkitError`
 * (`TRANSPORT`, `details.reason` `"listener_failed"`) through the transport's `error` handler, at its
 * `onTransportError` (else on its logger), once. A 405 (no GET stream offered) is not a failure; calls go on.
 */
import { describe, expect, it } from "vitest";
import { MAX_LISTENER_RECONNECTS } from "../../src/http/client/session.js";
import { createHttpHandler, type HttpHandler } from "../../src/http/server/handler.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { serve } from "../../src/node/serve.js";
import { fixtureServer } from "../support/fixture-server.js";
import { textOf } from "../support/interop-helpers.js";
import { until } from "../support/until.js";
import { useWireValidation } from "../support/validating-transport.js";
import { httpClient, LEGACY, useHttpCleanups } from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

/** A real mcpkit endpoint whose GETs are answered by `get` instead (when given); counts the GETs. */
async function start(get?: () => Response) {
  const handler = createHttpHandler(fixtureServer());
  let gets = 0;
  const fetchHandler = (request: Request) => {
    if (request.method === "GET") {
      gets++;
      if (get) return Promise.resolve(get());
    }
    return handler(request);
  };
  const running = await serve(fetchHandler, { host: "127.0.0.1" });
  cleanup(
    () => running.close(),
    () => handler.close(),
  );
  return { url: running.url, handler: handler as HttpHandler, gets: () => gets };
}

function connectLegacy(url: string, withCallback = true) {
  const errors: McpkitError[] = [];
  const kit = httpClient(url, {
    era: LEGACY,
    pin: LEGACY,
    cleanup,
    client: withCallback ? { onTransportError: (error) => errors.push(error) } : {},
  });
  return { ...kit, errors };
}

describe("the session's GET stream failing for good", () => {
  for (const status of [403, 404, 500, 503]) {
    it(`HTTP ${status} on every GET: onTransportError gets one listener_failed error; calls go on`, async () => {
      const { url, gets } = await start(() => new Response("no", { status }));
      const { client, errors } = connectLegacy(url);
      await client.connect();
      await until(() => errors.length === 1);
      const [error] = errors;
      expect(error).toBeInstanceOf(McpkitError);
      expect(error).toMatchObject({ code: "TRANSPORT", details: { reason: "listener_failed", status } });
      expect(gets()).toBe(1);
      expect(textOf(await client.callTool("add", { a: 1, b: 2 }))).toBe("3");
      expect(errors).toHaveLength(1);
    });
  }

  it(`reports the reconnections exhausted after ${MAX_LISTENER_RECONNECTS} streams that end empty`, async () => {
    const { url, gets } = await start(
      () => new Response("retry: 0\n\n", { status: 200, headers: { "content-type": "text/event-stream" } }),
    );
    const { client, errors } = connectLegacy(url);
    await client.connect();
    await until(() => errors.length === 1);
    expect(errors[0]).toMatchObject({
      code: "TRANSPORT",
      details: { reason: "listener_failed", reconnects: MAX_LISTENER_RECONNECTS },
    });
    expect(gets()).toBe(MAX_LISTENER_RECONNECTS);
  });

  it("reports the session gone: the stream ends with the session and its reopening gets 404", async () => {
    const { url, handler, gets } = await start();
    const { client, errors, transport } = connectLegacy(url);
    await client.connect();
    await until(() => gets() === 1 && handler.sessionCount === 1);
    await handler.close();
    await until(() => errors.length === 1);
    expect(errors[0]).toMatchObject({ details: { reason: "listener_failed", status: 404 } });
    // The next call finds the session gone, initializes a new one, and listens again.
    const before = transport.sessionId;
    expect(textOf(await client.callTool("add", { a: 2, b: 2 }))).toBe("4");
    expect(transport.sessionId).not.toBe(before);
    await until(() => gets() === 3);
    expect(errors).toHaveLength(1);
  });

  it("without onTransportError, the client's logger gets it once", async () => {
    const { url } = await start(() => new Response("no", { status: 500 }));
    const { client, logger } = connectLegacy(url, false);
    await client.connect();
    const reported = () => logger.lines.filter((line) => line.message.includes("GET stream"));
    await until(() => reported().length === 1);
    expect(reported()[0]).toMatchObject({
      level: "warn",
      details: { code: "TRANSPORT", reason: "listener_failed", status: 500 },
    });
  });

  it("a 405 (no GET stream offered) is no failure", async () => {
    const { url, gets } = await start(() => new Response(null, { status: 405, headers: { allow: "POST" } }));
    const { client, errors, logger } = connectLegacy(url);
    await client.connect();
    await until(() => gets() === 1);
    expect(textOf(await client.callTool("add", { a: 1, b: 1 }))).toBe("2");
    expect(errors).toEqual([]);
    expect(logger.lines.filter((line) => line.level === "warn")).toEqual([]);
  });

  it("stopping the stream on close() is no failure", async () => {
    const { url, gets } = await start();
    const { client, errors } = connectLegacy(url);
    await client.connect();
    await until(() => gets() === 1);
    await client.close();
    expect(errors).toEqual([]);
  });
});
