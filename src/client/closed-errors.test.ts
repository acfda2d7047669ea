/**
 * A transport that ends underneath the client: the `CLOSED` errors of pending and later operations, and of
 * connect(), name the cause in their message and keep it as `cause`.
 */
import { describe, expect, it } from "vitest";
import { connectFake, fakePair, TEST_CLIENT_INFO } from "../../test/support/fake-server.js";
import { McpkitError } from "../jsonrpc/errors.js";
import type { Transport, TransportCloseReason, TransportHandlers } from "../transports/transport.js";
import { transportClosedError } from "./channel.js";
import { Client } from "./client.js";

/** Wraps a transport so that the test can end it with any reason, as a real transport would. */
function endable(inner: Transport): { transport: Transport; end(reason: TransportCloseReason): void } {
  let handlers: TransportHandlers | undefined;
  const transport: Transport = {
    start: (h) => {
      handlers = h;
      return inner.start(h);
    },
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
  };
  return { transport, end: (reason) => handlers?.close(reason) };
}

/** The rejection of `promise` (which must reject). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const exited = () => new McpkitError("CLOSED", "the stdio server process exited with code 1");

describe("the transport closing underneath a connected client", () => {
  it("fails a pending call with the cause in its message, and later calls with the same", async () => {
    const pair = await fakePair({ validate: false });
    pair.server.modern().on("tools/call", () => undefined);
    const { transport, end } = endable(pair.clientTransport);
    const client = new Client({ transport, clientInfo: TEST_CLIENT_INFO, logger: { warn: () => {} } });
    await client.connect();
    const pending = rejectionOf(client.callTool("slow", {}));
    await pair.server.waitForRequest("tools/call");
    const cause = exited();
    end({ kind: "remote", error: cause });
    const error = (await pending) as McpkitError;
    expect(error).toMatchObject({
      code: "CLOSED",
      message: "the transport closed: the stdio server process exited with code 1",
      details: { kind: "remote" },
    });
    expect(error.cause).toBe(cause);
    const later = (await rejectionOf(client.listTools())) as McpkitError;
    expect(later).toMatchObject({
      code: "CLOSED",
      message: "the client is closed: the transport closed: the stdio server process exited with code 1",
      details: { state: "closed" },
    });
    expect(later.cause).toBe(error);
  });

  it("a server that ends the connection without an error says so", async () => {
    const { client, server } = await connectFake({ validate: false });
    await server.close();
    await expect(client.listTools()).rejects.toMatchObject({
      code: "CLOSED",
      message: "the client is closed: the transport closed: the server ended the connection",
    });
  });

  it("closing the client ourselves reads as that, with no transport cause", async () => {
    const { client } = await connectFake({ validate: false });
    await client.close();
    const error = (await rejectionOf(client.listTools())) as McpkitError;
    expect(error.message).toBe("the client is closed");
    expect(error.cause).toBeUndefined();
  });
});

describe("the transport closing during connect()", () => {
  it("connect() rejects with the cause in its message", async () => {
    const pair = await fakePair({ validate: false });
    pair.server.on("server/discover", () => undefined);
    const { transport, end } = endable(pair.clientTransport);
    const client = new Client({ transport, clientInfo: TEST_CLIENT_INFO, logger: { warn: () => {} } });
    const connecting = rejectionOf(client.connect());
    await pair.server.waitForRequest("server/discover");
    const cause = exited();
    end({ kind: "remote", error: cause });
    const error = (await connecting) as McpkitError;
    expect(error).toMatchObject({
      code: "CLOSED",
      message: "the transport closed: the stdio server process exited with code 1",
    });
    expect(error.cause).toBe(cause);
  });
});

describe("transportClosedError", () => {
  it.each([
    [{ kind: "local" }, "the transport closed: the transport was closed on this side"],
    [{ kind: "remote" }, "the transport closed: the server ended the connection"],
    [{ kind: "error" }, "the transport closed: a transport error"],
    [{ kind: "error", error: new Error("socket hang up") }, "the transport closed: socket hang up"],
    [{ kind: "error", error: new TypeError("") }, "the transport closed: TypeError"],
  ] as [TransportCloseReason, string][])("%o", (reason, message) => {
    const error = transportClosedError(reason);
    expect(error).toMatchObject({ code: "CLOSED", message, details: { kind: reason.kind } });
    expect(error.cause).toBe(reason.error);
  });
});
