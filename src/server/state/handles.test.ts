/**
 * State handles (SEP-2567): server-minted, principal-bound, expiring, bounded; `take` is atomic and `delete`
 * idempotent. The last test carries a handle across two stateless 2026-07-28 calls as an ordinary tool argument.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectRaw, errorOf, resultOf } from "../../../test/support/raw-peer.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";
import { ServerBuilder } from "../authoring/builder.js";
import { invalidParams } from "../core/errors.js";
import type { Server } from "../server.js";
import { StateHandles } from "./handles.js";

useWireValidation();

const alice = { identity: { principal: "alice" } };
const bob = { identity: { principal: "bob" } };
const anonymous = { identity: undefined };

function clock(start = 1_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("StateHandles", () => {
  it("makes unguessable handles holding a JSON copy of the value", async () => {
    const handles = new StateHandles<{ items: string[] }>();
    const value = { items: ["a"] };
    const handle = await handles.create(alice, value);
    expect(handle).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await handles.create(alice, value)).not.toBe(handle);
    value.items.push("changed later");
    const read = await handles.get(alice, handle);
    expect(read).toEqual({ items: ["a"] });
    read?.items.push("changed by a reader");
    expect(await handles.get(alice, handle)).toEqual({ items: ["a"] });
    await expect(handles.create(alice, undefined as never)).rejects.toThrow(TypeError);
  });

  it("binds each handle to its principal: another principal, or anonymous, sees nothing and cannot remove it", async () => {
    const handles = new StateHandles();
    const handle = await handles.create(alice, "secret");
    for (const other of [bob, anonymous]) {
      expect(await handles.get(other, handle)).toBeUndefined();
      expect(await handles.take(other, handle)).toBeUndefined();
      expect(await handles.delete(other, handle)).toBe(false);
    }
    expect(await handles.take(alice, handle)).toBe("secret");
  });

  it("takes a handle once: of racing takes exactly one gets the value", async () => {
    const handles = new StateHandles();
    const handle = await handles.create(alice, 42);
    const taken = await Promise.all(Array.from({ length: 8 }, () => handles.take(alice, handle)));
    expect(taken.filter((value) => value === 42)).toHaveLength(1);
    expect(taken.filter((value) => value === undefined)).toHaveLength(7);
    expect(await handles.get(alice, handle)).toBeUndefined();
  });

  it("deletes idempotently", async () => {
    const handles = new StateHandles();
    const handle = await handles.create(alice, 1);
    expect(await handles.delete(alice, handle)).toBe(true);
    expect(await handles.delete(alice, handle)).toBe(false);
    expect(await handles.delete(alice, "never-made")).toBe(false);
    expect(handles.size).toBe(0);
  });

  it("expires handles after ttlMs (600,000 by default) and frees their slots", async () => {
    const time = clock();
    const handles = new StateHandles({ capacity: 1, now: time.now });
    const handle = await handles.create(alice, "x");
    await expect(handles.create(alice, "y")).rejects.toThrow("State capacity reached");
    time.advance(599_999);
    expect(await handles.get(alice, handle)).toBe("x");
    time.advance(1);
    expect(await handles.get(alice, handle)).toBeUndefined();
    expect(await handles.create(alice, "y")).toEqual(expect.any(String));
    const short = new StateHandles({ ttlMs: 10, now: time.now });
    const brief = await short.create(alice, "z");
    time.advance(10);
    expect(await short.take(alice, brief)).toBeUndefined();
  });

  it("crosses its capacity (10,000 by default) with -32603, evicting nothing", async () => {
    const handles = new StateHandles();
    const made = [];
    for (let i = 0; i < 10_000; i++) made.push(await handles.create(anonymous, i));
    const error = await handles.create(anonymous, "over").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({
      code: -32603,
      message: "State capacity reached: 10001 handles, over StateHandles.capacity (10000)",
      data: { option: "StateHandles.capacity", limit: 10_000, size: 10_001, reason: "state_capacity" },
    });
    expect(await handles.get(anonymous, made[0] as string)).toBe(0);
    expect(await handles.delete(anonymous, made[0] as string)).toBe(true);
    expect(await handles.create(anonymous, "fits")).toEqual(expect.any(String));
  });

  it("rejects unknown options and bad values with INVALID_CONFIG", () => {
    for (const options of [{ capacity: -1 }, { ttlMs: 0 }, { ttlMs: "1" }, { now: "x" }, { maxHandles: 1 }]) {
      expect(() => new StateHandles(options as never)).toThrow(McpkitError);
    }
  });

  it("carries state across stateless 2026-07-28 calls as a tool argument, for its principal only", async () => {
    const carts = new StateHandles<{ items: string[] }>();
    const OBJECT = { type: "object" } as const;
    server = new ServerBuilder({ serverInfo: { name: "shop", version: "1.0.0" } })
      .tool({ name: "open_cart", inputSchema: OBJECT }, async (_args, ctx) => ({
        content: [{ type: "text", text: await carts.create(ctx, { items: ["tea"] }) }],
      }))
      .tool(
        { name: "checkout", inputSchema: { type: "object", properties: { cart: { type: "string" } } } },
        async ({ cart }, ctx) => {
          const held = await carts.take(ctx, String(cart));
          if (held === undefined) throw invalidParams("unknown or expired cart");
          return { content: [{ type: "text", text: `bought ${held.items.join(", ")}` }] };
        },
      )
      .build();
    const { peer: a } = await connectRaw(server, { identity: "alice" });
    const { peer: b } = await connectRaw(server, { identity: "bob" });
    const opened = resultOf(await a.modern("tools/call", { name: "open_cart", arguments: {} }));
    const cart = (opened.content as [{ text: string }])[0].text;
    const stolen = await b.modern("tools/call", { name: "checkout", arguments: { cart } });
    expect(errorOf(stolen)).toMatchObject({
      code: -32602,
      message: "Invalid params: unknown or expired cart",
    });
    const bought = resultOf(await a.modern("tools/call", { name: "checkout", arguments: { cart } }));
    expect(bought.content).toEqual([{ type: "text", text: "bought tea" }]);
    expect(errorOf(await a.modern("tools/call", { name: "checkout", arguments: { cart } })).code).toBe(
      -32602,
    );
  });
});
