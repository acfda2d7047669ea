/**
 * Small pieces every interop test (test/interop) uses: the two eras, reading the recorded wire traffic, waiting
 * for a rejection, the text of a tool result, listening on loopback, and closing what a test opened.
 *
 * @example
 * const cleanup = useCleanups();
 * const log = wireLog(pair.messages);
 * expect(log.answer(log.sent("tools/list")[0])).toMatchObject({ result: {} });
 */
import type { Server as HttpServer } from "node:http";
import type { Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from "../../src/jsonrpc/message.js";
import type { WireRecord } from "./validating-transport.js";

export const MODERN = "2026-07-28" as const;
export const LEGACY = "2025-11-25" as const;

/** Queries over the messages a validating transport recorded, in order. */
export interface WireLog {
  /** Every message: its method, or `"response"` for a response. */
  sequence(): string[];
  /** The methods the client sent (requests and notifications). */
  methods(): string[];
  /** The requests the client sent with this method. */
  sent(method: string): JsonRpcRequest[];
  /** The response the server sent to a request, if any. */
  answer(request: JsonRpcRequest | undefined): JsonRpcMessage | undefined;
  /** The notifications either side sent with this method. */
  notified(method: string): JsonRpcNotification[];
}

export function wireLog(messages: readonly WireRecord[]): WireLog {
  return {
    sequence: () => messages.map((r) => ("method" in r.message ? r.message.method : "response")),
    methods: () =>
      messages.flatMap((r) => (r.from === "client" && "method" in r.message ? [r.message.method] : [])),
    sent: (method) =>
      messages.flatMap((r) =>
        r.from === "client" && "method" in r.message && "id" in r.message && r.message.method === method
          ? [r.message]
          : [],
      ),
    answer: (request) =>
      request === undefined
        ? undefined
        : messages.find((r) => r.from === "server" && !("method" in r.message) && r.message.id === request.id)
            ?.message,
    notified: (method) =>
      messages.flatMap((r) =>
        "method" in r.message && !("id" in r.message) && r.message.method === method ? [r.message] : [],
      ),
  };
}

/** The error a promise rejects with; fails if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** The text of a result's first content block, if it is a text block. */
export function textOf(result: unknown): string | undefined {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content;
  const first = content?.[0];
  return first?.type === "text" ? first.text : undefined;
}

/**
 * Registers an `afterEach` that runs, and forgets, every cleanup added during the test (all of them, even when
 * some fail). Call once at the top of a test file; pass the returned function what a test opens.
 */
export function useCleanups(): (...cleanups: Array<() => Promise<unknown>>) => void {
  const pending: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    await Promise.allSettled(pending.splice(0).map((cleanup) => cleanup()));
  });
  return (...cleanups) => {
    pending.push(...cleanups);
  };
}

/**
 * Listens with `server` on 127.0.0.1 (a free port) and registers its close, open connections included, with
 * `cleanup`. Resolves with the port.
 */
export async function listenOnLoopback(
  server: HttpServer | HttpsServer,
  cleanup: (...cleanups: Array<() => Promise<unknown>>) => void,
): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}
