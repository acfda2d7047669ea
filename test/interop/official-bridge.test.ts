/**
 * The bridge itself: `toOfficialTransport` and `fromOfficialTransport` keep each side's transport contract
 * (late-bound callbacks, one close with the right reason, no synchronous re-entry, CLOSED after the end), and
 * the two compose: official client and server halves over mcpkit transports and back.
 */
import { Client as V2Client, InMemoryTransport as V2InMemory } from "@modelcontextprotocol/client";
import { InMemoryTransport as V1InMemory } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import type { MessageInfo, TransportCloseReason } from "../../src/transports/transport.js";
import { fixtureServer } from "../support/fixture-server.js";
import { rejection } from "../support/interop-helpers.js";
import {
  fromOfficialTransport,
  type OfficialTransportLike,
  toOfficialTransport,
} from "../support/official-bridge.js";
import { until } from "../support/until.js";
import { useWireValidation, WireValidator, wrapTransport } from "../support/validating-transport.js";

useWireValidation();

const PING: JsonRpcMessage = { jsonrpc: "2.0", id: 1, method: "ping" };
const note = (n: number): JsonRpcMessage => ({ jsonrpc: "2.0", method: "notifications/x", params: { n } });

describe("toOfficialTransport", () => {
  it("has the official shape: no sessionId, no stderr/pid, writable callbacks", () => {
    const [ours] = createInProcessPair();
    const theirs = toOfficialTransport(ours);
    expect("sessionId" in theirs).toBe(false);
    expect("stderr" in theirs || "pid" in theirs).toBe(false);
    for (const key of ["onmessage", "onclose", "onerror"] as const) {
      expect(Object.getOwnPropertyDescriptor(theirs, key)?.writable).toBe(true);
    }
  });

  it("reads onmessage at delivery time, so a handler swapped after start() receives", async () => {
    const [ours, peer] = createInProcessPair();
    await peer.start({ message: () => {}, close: () => {} });
    const theirs = toOfficialTransport(ours);
    const before: unknown[] = [];
    const after: unknown[] = [];
    theirs.onmessage = (m) => before.push(m);
    await theirs.start();
    // What v2's probe window does: replace the handlers (and start) on the instance.
    theirs.onmessage = (m) => after.push(m);
    theirs.start = async () => {};
    await peer.send(PING);
    await until(() => after.length === 1);
    expect(before).toEqual([]);
    expect(after).toEqual([PING]);
  });

  it("fires onclose once for a local close, once for a remote one; an error end goes through onerror", async () => {
    const [a, b] = createInProcessPair();
    const local = toOfficialTransport(a);
    const remote = toOfficialTransport(b);
    const events: string[] = [];
    local.onclose = () => events.push("local closed");
    remote.onclose = () => events.push("remote closed");
    await local.start();
    await remote.start();
    await local.close();
    await local.close();
    expect(events).toEqual(["local closed", "remote closed"]);
    expect(local.closeReason).toEqual({ kind: "local" });
    expect(remote.closeReason).toEqual({ kind: "remote" });

    const failing = toOfficialTransport({
      start: async (handlers) => {
        queueMicrotask(() => handlers.close({ kind: "error", error: new Error("pipe broke") }));
      },
      send: async () => {},
      close: async () => {},
    });
    const seen: string[] = [];
    failing.onerror = (e) => seen.push(`error: ${e.message}`);
    failing.onclose = () => seen.push("closed");
    await failing.start();
    await until(() => seen.length === 2);
    expect(seen).toEqual(["error: pipe broke", "closed"]);
  });

  it("passes an mcpkit identity on as extra.authInfo, and records setProtocolVersion", async () => {
    const [client, server] = createInProcessPair({ serverIdentity: { user: "ada" } });
    await client.start({ message: () => {}, close: () => {} });
    const theirs = toOfficialTransport(server);
    const extras: unknown[] = [];
    theirs.onmessage = (_m, extra) => extras.push(extra);
    await theirs.start();
    await client.send(PING);
    await until(() => extras.length === 1);
    expect(extras).toEqual([{ authInfo: { user: "ada" } }]);
    theirs.setProtocolVersion("2025-11-25");
    expect(theirs.protocolVersion).toBe("2025-11-25");
    await expect(theirs.start()).rejects.toThrow(/twice/);
  });
});

/** The official half of a linked pair as its peer sees it: it can also pass `extra` (v1 and v2 both do). */
interface OfficialPeer {
  start(): Promise<void>;
  send(message: JsonRpcMessage, options?: { authInfo?: unknown }): Promise<void>;
  close(): Promise<void>;
}

describe.each<{ sdk: string; pair: () => [OfficialTransportLike, OfficialPeer] }>([
  { sdk: "v1", pair: () => V1InMemory.createLinkedPair() },
  { sdk: "v2", pair: () => V2InMemory.createLinkedPair() },
])("fromOfficialTransport over the official $sdk in-memory pair", ({ pair }) => {
  /** Our transport over one half of a fresh pair, both started; records what it delivers and how it ends. */
  async function bridged() {
    const [theirs, peer] = pair();
    const ours = fromOfficialTransport(theirs);
    const seen: Array<{ message: unknown; info: MessageInfo | undefined }> = [];
    const reasons: TransportCloseReason[] = [];
    await ours.start({
      message: (message, info) => seen.push({ message, info }),
      close: (r) => reasons.push(r),
    });
    await peer.start();
    return { ours, peer, seen, reasons, received: () => seen.map((s) => s.message) };
  }

  it("delivers asynchronously and in order, never inside the peer's send()", async () => {
    const { peer, received } = await bridged();
    const sending = peer.send(note(1));
    void peer.send(note(2));
    // The official pair called our onmessage synchronously; the adapter has not delivered yet.
    expect(received()).toEqual([]);
    await sending;
    await until(() => received().length === 2);
    expect(received()).toEqual([note(1), note(2)]);
  });

  it("maps close: local for ours (once, though the official close fires both sides), remote for the peer's", async () => {
    const local = await bridged();
    await local.ours.close();
    await local.ours.close();
    expect(local.reasons).toEqual([{ kind: "local" }]);
    const error = await rejection(local.ours.send(PING));
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("CLOSED");

    const remote = await bridged();
    await remote.peer.close();
    // Even before the queued end reaches the handlers, a send is refused as CLOSED.
    const early = await rejection(remote.ours.send(PING));
    expect((early as McpkitError).code).toBe("CLOSED");
    await until(() => remote.reasons.length === 1);
    expect(remote.reasons).toEqual([{ kind: "remote" }]);
  });

  it("delivers no message after the close, and maps extra.authInfo to info.identity", async () => {
    const { peer, seen, reasons } = await bridged();
    const authInfo = { token: "t", clientId: "c", scopes: [] };
    await peer.send(note(1), { authInfo });
    await peer.close();
    await until(() => reasons.length === 1);
    expect(seen).toEqual([{ message: note(1), info: { identity: authInfo } }]);
  });
});

describe("adapters composed", () => {
  it("official v2 client (pinned 2026-07-28) over its own in-memory pair to an mcpkit server via fromOfficialTransport", async () => {
    const [clientSide, serverSide] = V2InMemory.createLinkedPair();
    const validator = new WireValidator("2026-07-28");
    const connection = await fixtureServer().connect(
      wrapTransport(fromOfficialTransport(serverSide), "server", validator),
    );
    const client = new V2Client(
      { name: "official-v2-client", version: "2.4.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(clientSide);
    expect(client.getProtocolEra()).toBe("modern");
    const result = await client.callTool({ name: "add", arguments: { a: 3, b: 4 } });
    expect(result.content).toEqual([{ type: "text", text: "7" }]);
    expect(validator.count).toBeGreaterThanOrEqual(4);
    await client.close();
    await expect(connection.closed).resolves.toEqual({ kind: "remote" });
  });
});
