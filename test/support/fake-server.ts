import { Client } from "../../src/client/client.js";
import type { ClientOptions } from "../../src/client/types.js";
import type {
  JsonRpcErrorObject,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from "../../src/jsonrpc/message.js";
import { MetaKey } from "../../src/protocol/meta.js";
import { projectResult } from "../../src/protocol/projection.js";
import type { Implementation } from "../../src/protocol/types/common.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import type { Transport } from "../../src/transports/transport.js";
import { type ValidatingPair, validatingPair } from "./validating-transport.js";

/** How the fake answers one request: a result, an error, or `undefined` to hold it (answer later, or never). */
export type Reply = { result: { [key: string]: unknown } } | { error: JsonRpcErrorObject } | undefined;

/** Answers one request by method. */
export type Handler = (request: JsonRpcRequest, server: FakeServer) => Reply | Promise<Reply>;

export const ok = (result: { [key: string]: unknown } = {}): NonNullable<Reply> => ({ result });
export const fail = (code: number, message: string, ...data: [] | [unknown]): NonNullable<Reply> => ({
  error: data.length > 0 ? { code, message, data: data[0] } : { code, message },
});

/** Valid results of each method, for tests that only need an answer. */
export const SAMPLE: { readonly [method: string]: { [key: string]: unknown } } = {
  "tools/list": { tools: [{ name: "echo", inputSchema: { type: "object" } }] },
  "tools/call": { content: [{ type: "text", text: "hi" }] },
  "resources/list": { resources: [{ uri: "file:///a.txt", name: "a" }] },
  "resources/templates/list": { resourceTemplates: [{ uriTemplate: "file:///{name}", name: "files" }] },
  "resources/read": { contents: [{ uri: "file:///a.txt", text: "A" }] },
  "prompts/list": { prompts: [{ name: "review" }] },
  "prompts/get": { messages: [{ role: "user", content: { type: "text", text: "review it" } }] },
  "completion/complete": { completion: { values: ["a", "b"] } },
  "logging/setLevel": {},
  ping: {},
};

export const FAKE_SERVER_INFO: Implementation = { name: "fake", version: "0.0.1" };

/** Options of {@link FakeServer}. */
export interface FakeServerOptions {
  /**
   * Shape results of requests that carry 2026 `_meta` as a 2026-07-28 server would (`resultType`, `ttlMs`,
   * `cacheScope`, server info in `_meta`; values the handler set win). Default true; false sends them as given.
   */
  project?: boolean;
}

/**
 * A scripted MCP server for client tests: answers each request with the handler registered for its method
 * (unregistered methods get -32601, as from a real server), records every message it receives, and can send
 * notifications, requests and late or raw answers.
 */
export class FakeServer {
  readonly received: JsonRpcMessage[] = [];
  /** Requests whose handler returned `undefined`, by id. */
  readonly held = new Map<RequestId, JsonRpcRequest>();
  closed = false;
  private readonly handlers = new Map<string, Handler>();
  private readonly waiters: { method: string; resolve: (request: JsonRpcRequest) => void }[] = [];
  private readonly answers = new Map<RequestId, (response: JsonRpcResponse) => void>();
  private nextId = 1;

  constructor(
    readonly transport: Transport,
    private readonly options: FakeServerOptions = {},
  ) {}

  async start(): Promise<this> {
    await this.transport.start({
      message: (message) => this.receive(message),
      close: () => {
        this.closed = true;
      },
    });
    return this;
  }

  /** Answers `method` with `handler` (replacing an earlier one). */
  on(method: string, handler: Handler): this {
    this.handlers.set(method, handler);
    return this;
  }

  /** Answers `server/discover` like a 2026-07-28 server (`extra` merged into the result). */
  modern(extra: { [key: string]: unknown } = {}): this {
    return this.on("server/discover", () =>
      ok({ supportedVersions: [MODERN_VERSION, LEGACY_VERSION], capabilities: { tools: {} }, ...extra }),
    );
  }

  /** Answers `initialize` like a 2025 server speaking `version` (`extra` merged into the result). */
  legacy(version: string = LEGACY_VERSION, extra: { [key: string]: unknown } = {}): this {
    this.on("server/discover", () => fail(-32601, "Method not found"));
    return this.on("initialize", () =>
      ok({ protocolVersion: version, capabilities: { tools: {} }, serverInfo: FAKE_SERVER_INFO, ...extra }),
    );
  }

  /** Answers every list, read, call, get and complete method with the {@link SAMPLE} results. */
  primitives(): this {
    for (const [method, result] of Object.entries(SAMPLE)) this.on(method, () => ok(structuredClone(result)));
    return this;
  }

  /** Requests received, optionally of one method. */
  requests(method?: string): JsonRpcRequest[] {
    return this.received.filter(
      (m): m is JsonRpcRequest => "method" in m && "id" in m && (method === undefined || m.method === method),
    );
  }

  /** Notifications received, optionally of one method. */
  notifications(method?: string): JsonRpcNotification[] {
    return this.received.filter(
      (m): m is JsonRpcNotification =>
        "method" in m && !("id" in m) && (method === undefined || m.method === method),
    );
  }

  /** Resolves with the first request of `method` (already received, or the next one to arrive). */
  waitForRequest(method: string): Promise<JsonRpcRequest> {
    const seen = this.requests(method)[0];
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }

  /**
   * Answers a request now: a received one (held, or answered already: a duplicate), or any id (an unsolicited
   * answer). Results of 2026 requests are shaped as {@link FakeServerOptions.project} says.
   */
  respond(id: RequestId, reply: NonNullable<Reply>): Promise<void> {
    this.held.delete(id);
    if ("error" in reply) return this.send({ jsonrpc: "2.0", id, error: reply.error });
    const request = this.requests().find((r) => r.id === id);
    const result =
      request && this.options.project !== false && isModernRequest(request)
        ? projectResult(
            MODERN_VERSION,
            request.method,
            reply.result,
            { ttlMs: 0, cacheScope: "public" },
            FAKE_SERVER_INFO,
          )
        : reply.result;
    return this.send({ jsonrpc: "2.0", id, result });
  }

  notify(method: string, params?: { [key: string]: unknown }): Promise<void> {
    return this.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  /** Sends a server-to-client request and resolves with the client's response. */
  request(method: string, params?: { [key: string]: unknown }): Promise<JsonRpcResponse> {
    const id = `s-${this.nextId++}`;
    const answered = new Promise<JsonRpcResponse>((resolve) => this.answers.set(id, resolve));
    const message: JsonRpcRequest =
      params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    return this.send(message).then(() => answered);
  }

  /** Sends any message, as is. */
  send(message: JsonRpcMessage): Promise<void> {
    return this.transport.send(message);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private receive(message: JsonRpcMessage): void {
    this.received.push(message);
    if (!("method" in message)) {
      if (message.id !== undefined) this.answers.get(message.id)?.(message);
      return;
    }
    if (!("id" in message)) return;
    const request = message as JsonRpcRequest;
    for (const [i, waiter] of this.waiters.entries()) {
      if (waiter.method !== request.method) continue;
      this.waiters.splice(i, 1);
      waiter.resolve(request);
      break;
    }
    void this.answer(request);
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    const handler = this.handlers.get(request.method);
    const reply = handler
      ? await handler(request, this)
      : fail(-32601, `Method not found: ${request.method}`);
    if (reply === undefined) {
      this.held.set(request.id, request);
      return;
    }
    await this.respond(request.id, reply).catch(() => {});
  }
}

/** The `_meta.progressToken` a request carries, if any. */
export function progressTokenOf(request: JsonRpcRequest | undefined): string | number | undefined {
  const meta = request?.params?._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const token = (meta as { progressToken?: unknown }).progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** True when a request carries 2026-07-28 `_meta`. */
export function isModernRequest(request: JsonRpcRequest): boolean {
  const meta = request.params?._meta;
  return typeof meta === "object" && meta !== null && MetaKey.protocolVersion in meta;
}

/** A fake server and the client-side transport linked to it. */
export interface FakePair {
  server: FakeServer;
  clientTransport: Transport;
  /** Present when the pair validates every message against the official schema. */
  wire: ValidatingPair | undefined;
}

/**
 * A started {@link FakeServer} on an in-process pair. By default every message is checked against the official
 * MCP schema of its era (use `useWireValidation()` in the test file); `validate: false` gives a raw pair, for
 * tests that send malformed messages on purpose.
 */
export async function fakePair(options: FakeServerOptions & { validate?: boolean } = {}): Promise<FakePair> {
  const { validate = true, ...serverOptions } = options;
  if (!validate) {
    const [clientTransport, serverTransport] = createInProcessPair();
    const server = await new FakeServer(serverTransport, serverOptions).start();
    return { server, clientTransport, wire: undefined };
  }
  const wire = validatingPair();
  const server = await new FakeServer(wire.server, serverOptions).start();
  return { server, clientTransport: wire.client, wire };
}

/** Options of {@link connectFake}. */
export interface ConnectFakeOptions extends FakeServerOptions {
  /** Which kind of server the fake plays (default `"modern"`). */
  era?: "modern" | "legacy";
  validate?: boolean;
  /** Client options other than transport and clientInfo. */
  client?: Omit<ClientOptions, "transport" | "clientInfo">;
  /** Handlers to register before connecting. */
  setup?: (server: FakeServer) => void;
}

export const TEST_CLIENT_INFO: Implementation = { name: "client-test", version: "1.0.0" };

/** A client connected to a fake server of the given era. */
export async function connectFake(options: ConnectFakeOptions = {}): Promise<FakePair & { client: Client }> {
  const { era = "modern", client: clientOptions, setup, ...pairOptions } = options;
  const pair = await fakePair(pairOptions);
  if (era === "modern") pair.server.modern();
  else pair.server.legacy();
  pair.server.primitives();
  setup?.(pair.server);
  const client = new Client({
    transport: pair.clientTransport,
    clientInfo: TEST_CLIENT_INFO,
    logger: { warn: () => {} },
    ...clientOptions,
  });
  await client.connect();
  return { ...pair, client };
}
