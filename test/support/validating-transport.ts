/**
 * Transports that run every message through a {@link WireValidator}, so a test fails on the first message that
 * does not match the official MCP schema of its era.
 *
 * @example
 * useWireValidation(); // once per test file: fails any test whose traffic broke the schema
 * const pair = validatingPair({ era: "2026-07-28" });
 * server.connect(pair.server);
 */
import { afterEach } from "vitest";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import type { Transport, TransportHandlers, TransportSendOptions } from "../../src/transports/transport.js";
import { type Era, type Side, WireSchemaError, WireValidator } from "./wire-schema.js";

export { type Era, type Side, WireSchemaError, WireValidator } from "./wire-schema.js";

/** One message that crossed the wire, in order. */
export interface WireRecord {
  from: Side;
  message: JsonRpcMessage;
}

/** Options for {@link wrapTransport}. */
export interface WrapTransportOptions {
  /** Which traffic to check: what this side sends, what it receives, or both (default). */
  validate?: "both" | "outbound" | "inbound";
  /** Receives every schema error found (besides the file-wide record that {@link useWireValidation} reads). */
  errors?: WireSchemaError[];
  /** Receives every checked message that crossed the wire. */
  messages?: WireRecord[];
}

/** Schema errors not yet reported by {@link useWireValidation} or taken by a test. */
const unreported = new Set<WireSchemaError>();

function report(error: WireSchemaError, errors: WireSchemaError[] | undefined): void {
  errors?.push(error);
  unreported.add(error);
}

/** The wire form of a message: what the peer would decode. */
function wireForm(message: JsonRpcMessage): JsonRpcMessage {
  return JSON.parse(JSON.stringify(message)) as JsonRpcMessage;
}

class ValidatingTransport implements Transport {
  private readonly outbound: boolean;
  private readonly inbound: boolean;

  constructor(
    private readonly inner: Transport,
    private readonly from: Side,
    private readonly validator: WireValidator,
    private readonly options: WrapTransportOptions,
  ) {
    const mode = options.validate ?? "both";
    this.outbound = mode !== "inbound";
    this.inbound = mode !== "outbound";
  }

  // What the inner transport says about itself passes through (Streamable HTTP cancels by stream).
  get cancelsByStream(): boolean {
    return this.inner.cancelsByStream === true;
  }

  get fallsBackOnProbeTimeout(): boolean {
    return this.inner.fallsBackOnProbeTimeout !== false;
  }

  get identity(): unknown {
    return this.inner.identity;
  }

  start(handlers: TransportHandlers): Promise<void> {
    if (!this.inbound) return this.inner.start(handlers);
    const peer: Side = this.from === "client" ? "server" : "client";
    return this.inner.start({
      message: (message, info) => {
        // An invalid inbound message is recorded (failing the test) and still delivered, so the test goes on
        // to a clear failure instead of a timeout.
        this.inspect(message, peer);
        handlers.message(message, info);
      },
      close: (reason) => handlers.close(reason),
      ...(handlers.error ? { error: (error: Error) => handlers.error?.(error) } : {}),
      ...(handlers.logger ? { logger: handlers.logger } : {}),
    });
  }

  async send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    if (this.outbound) {
      const error = this.inspect(wireForm(message), this.from);
      if (error) throw error;
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Checks and records one message; returns the schema error, if any. */
  private inspect(message: JsonRpcMessage, from: Side): WireSchemaError | undefined {
    try {
      this.validator.check(message, from);
    } catch (error) {
      if (!(error instanceof WireSchemaError)) throw error;
      report(error, this.options.errors);
      return error;
    } finally {
      this.options.messages?.push({ from, message });
    }
    return undefined;
  }
}

/**
 * Wraps a transport held by `from` so that what it sends (checked as from `from`) and what it receives
 * (checked as from the other side) goes through `validator`. A send of an invalid message rejects with the
 * {@link WireSchemaError} and is not passed on; an invalid inbound message is recorded and still delivered.
 * Every error also fails the current test when the file uses {@link useWireValidation}.
 */
export function wrapTransport(
  transport: Transport,
  from: Side,
  validator: WireValidator,
  options: WrapTransportOptions = {},
): Transport {
  return new ValidatingTransport(transport, from, validator, options);
}

/** A linked client/server pair whose traffic is checked against the MCP schema. */
export interface ValidatingPair {
  client: Transport;
  server: Transport;
  validator: WireValidator;
  /** Every message sent through the pair, in order (an invalid send is recorded too, though not delivered). */
  messages: WireRecord[];
  /** Schema errors found on this pair. */
  errors: WireSchemaError[];
  /** Throws the first schema error found on this pair, if any. */
  assertNoWireErrors(): void;
  /**
   * Returns this pair's schema errors and marks them as expected, so {@link useWireValidation} does not fail
   * the test for them (for tests that send invalid messages on purpose).
   */
  takeWireErrors(): WireSchemaError[];
}

/**
 * An in-process pair (see `createInProcessPair`) whose every message, in either direction, is checked by a
 * {@link WireValidator} before delivery. Without `era` the validator decides it from the client's first
 * message ({@link WireValidator.auto}).
 */
export function validatingPair(options: { era?: Era; serverIdentity?: unknown } = {}): ValidatingPair {
  const validator = options.era === undefined ? WireValidator.auto() : new WireValidator(options.era);
  const [client, server] = createInProcessPair({ serverIdentity: options.serverIdentity });
  const messages: WireRecord[] = [];
  const errors: WireSchemaError[] = [];
  // Each message is checked once, by its sender's wrapper, in send order.
  const wrap = { validate: "outbound", errors, messages } as const;
  return {
    client: wrapTransport(client, "client", validator, wrap),
    server: wrapTransport(server, "server", validator, wrap),
    validator,
    messages,
    errors,
    assertNoWireErrors() {
      const first = errors[0];
      if (first) throw first;
    },
    takeWireErrors() {
      const taken = errors.splice(0);
      for (const error of taken) unreported.delete(error);
      return taken;
    },
  };
}

/**
 * Registers an `afterEach` that fails the test if any validating transport recorded a schema error during it
 * (and not taken with `takeWireErrors()`). Call once at the top of a test file.
 */
export function useWireValidation(): void {
  afterEach(() => {
    if (unreported.size === 0) return;
    const errors = [...unreported];
    unreported.clear();
    const first = errors[0];
    if (errors.length === 1 && first) throw first;
    throw new Error(
      `${errors.length} MCP messages broke the schema; the first ones:\n\n${errors
        .slice(0, 3)
        .map((error) => error.message)
        .join("\n\n")}`,
      { cause: first },
    );
  });
}
