import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import { createInProcessPair } from "./in-process.js";
import type { TransportCloseReason } from "./transport.js";

describe("createInProcessPair", () => {
  it("delivers asynchronously, in order, as copies", async () => {
    const [a, b] = createInProcessPair();
    const received: JsonRpcMessage[] = [];
    await b.start({ message: (m) => received.push(m), close: () => {} });
    await a.start({ message: () => {}, close: () => {} });
    const sent = { jsonrpc: "2.0" as const, method: "one", params: { n: 1 } };
    const first = a.send(sent);
    const second = a.send({ jsonrpc: "2.0", method: "two" });
    expect(received).toEqual([]);
    await Promise.all([first, second]);
    await new Promise((r) => setTimeout(r, 0));
    expect(received.map((m) => ("method" in m ? m.method : ""))).toEqual(["one", "two"]);
    expect(received[0]).not.toBe(sent);
  });

  it("holds messages until the receiver starts", async () => {
    const [a, b] = createInProcessPair();
    await a.send({ jsonrpc: "2.0", method: "early" });
    await new Promise((r) => setTimeout(r, 0));
    const received: JsonRpcMessage[] = [];
    await b.start({ message: (m) => received.push(m), close: () => {} });
    expect(received).toHaveLength(1);
  });

  it("closes both ends once, with local and remote reasons, and refuses sends after", async () => {
    const [a, b] = createInProcessPair();
    const reasons: { [side: string]: TransportCloseReason[] } = { a: [], b: [] };
    await a.start({ message: () => {}, close: (r) => reasons.a?.push(r) });
    await b.start({ message: () => {}, close: (r) => reasons.b?.push(r) });
    await a.close();
    await a.close();
    await b.close();
    expect(reasons).toEqual({ a: [{ kind: "local" }], b: [{ kind: "remote" }] });
    await expect(a.send({ jsonrpc: "2.0", method: "late" })).rejects.toMatchObject({ code: "CLOSED" });
    await expect(b.send({ jsonrpc: "2.0", method: "late" })).rejects.toMatchObject({ code: "CLOSED" });
  });

  it("attaches the server identity to what the server side receives", async () => {
    const [client, server] = createInProcessPair({ serverIdentity: { sub: "u1" } });
    const infos: unknown[] = [];
    await server.start({ message: (_m, info) => infos.push(info), close: () => {} });
    await client.send({ jsonrpc: "2.0", method: "x" });
    await new Promise((r) => setTimeout(r, 0));
    expect(infos).toEqual([{ identity: { sub: "u1" } }]);
  });

  it("delivers what was sent before close(), then ends the peer", async () => {
    const [a, b] = createInProcessPair();
    const events: string[] = [];
    await b.start({
      message: (m) => events.push("method" in m ? m.method : "response"),
      close: (r) => events.push(`close:${r.kind}`),
    });
    await a.start({ message: () => {}, close: () => {} });
    void a.send({ jsonrpc: "2.0", method: "last-words" });
    await a.close();
    await new Promise((r) => setTimeout(r, 0));
    expect(events).toEqual(["last-words", "close:remote"]);
  });

  it("answers a response JSON cannot carry with -32603 for its id, and rejects the send", async () => {
    const [client, server] = createInProcessPair();
    const received: JsonRpcMessage[] = [];
    await client.start({ message: (m) => received.push(m), close: () => {} });
    await server.start({ message: () => {}, close: () => {} });
    const cycle: { [key: string]: unknown } = {};
    cycle.self = cycle;
    await expect(server.send({ jsonrpc: "2.0", id: 5, result: { n: 1n } })).rejects.toThrow(TypeError);
    await expect(server.send({ jsonrpc: "2.0", id: "c", result: cycle })).rejects.toThrow(TypeError);
    // A notification has no one waiting for it: it is refused, and nothing is delivered.
    await expect(server.send({ jsonrpc: "2.0", method: "n", params: { n: 1n } })).rejects.toThrow(TypeError);
    await server.send({ jsonrpc: "2.0", id: 6, result: {} });
    await new Promise((r) => setTimeout(r, 0));
    const error = {
      code: -32603,
      message: "Response could not be encoded",
      data: { reason: "response_not_encodable" },
    };
    expect(received).toEqual([
      { jsonrpc: "2.0", id: 5, error },
      { jsonrpc: "2.0", id: "c", error },
      { jsonrpc: "2.0", id: 6, result: {} },
    ]);
  });
});
