/**
 * A transport's identity (in-process `serverIdentity`, stdio's launch identity) binds sealed `requestState` by
 * its principal, as over HTTP: an identity that names no principal fails the call with `-32603` at once (no
 * hang, no state sealed to a principal every such identity shares); one that names it works.
 */
import { afterEach, describe, expect, it } from "vitest";
import { inputServer } from "../../../test/support/input-server.js";
import { connectRaw, errorOf, resultOf } from "../../../test/support/raw-peer.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import type { Server } from "../server.js";

useWireValidation();

const caps = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };

class Account {
  readonly #sub: string;
  constructor(sub: string) {
    this.#sub = sub;
  }
  get sub(): string {
    return this.#sub;
  }
}

let server: Server;
afterEach(async () => {
  await server?.close();
});

async function survey(identity: unknown) {
  const errors: unknown[] = [];
  server = inputServer({ logger: { warn: () => {}, error: (...args) => errors.push(args) } }).server;
  const { peer } = await connectRaw(server, { identity });
  return peer.modern("tools/call", { name: "survey", arguments: {} }, caps);
}

describe("the principal of a transport's identity", () => {
  it("fails a call that would seal state for an identity naming no principal with -32603", async () => {
    expect(errorOf(await survey(new Account("ada")))).toMatchObject({ code: -32603 });
  });

  it("seals state for an identity that names its principal", async () => {
    const answer = resultOf(await survey({ principal: "ada", account: new Account("ada") }));
    expect(typeof answer.requestState).toBe("string");
  });
});
