import type { InputResolver } from "../client/index.js";
import type { Clock } from "../jsonrpc/clock.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import type { InputRequests, InputResponses } from "../protocol/types/input.js";
import type { LoggingMessageParams } from "../protocol/types/lifecycle.js";
import type { CallToolResult } from "../protocol/types/tools.js";
import { MODERN_VERSION } from "../protocol/versions.js";
import {
  type InputRequired,
  inputRequired,
  type RequestContext,
  runAsTask,
  type TaskContext,
  type TaskRun,
} from "../server/index.js";
import { Exchange } from "./exchange.js";

/** The bounds of the bridge. */
export interface BridgeLimits {
  /** Operations waiting for a downstream client's answers at once (past it: refused). */
  maxParked: number;
  /** How long one waits for the client's next round before its upstream call is abandoned. */
  roundTimeoutMs: number;
}

const CAPABILITY: { readonly [method: string]: keyof ClientCapabilities } = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/**
 * The upstream operation of one downstream call: its abort signal, the resolver of its 2026 input rounds, and
 * the gateway's task when the client made the call as a task.
 */
export type BridgedWork = (
  signal: AbortSignal,
  onInputRequired: InputResolver,
  task?: TaskContext,
) => Promise<unknown>;

/**
 * The era bridge: an upstream's requests for input (a 2025-11-25 server request, or a 2026-07-28
 * `input_required` round) become `inputRequired()` rounds of the downstream call that caused them, which the
 * server carries in the downstream client's own era (2025: requests to it; 2026: an `input_required` result and
 * its retry). A 2026 upstream's round is tied to its call exactly (the call's own `onInputRequired`); a 2025
 * upstream's requests carry no call, so they go to the oldest call in flight on that upstream.
 */
export class Bridge {
  private readonly inflight = new Map<string, Set<Exchange>>();
  private readonly parked = new Map<string, { exchange: Exchange; timer: unknown }>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: BridgeLimits,
  ) {}

  /** Operations waiting for a client's next round now. */
  get parkedCount(): number {
    return this.parked.size;
  }

  /**
   * The resolver of an upstream's client: its 2025 server requests go to the oldest call in flight on it. A 2026
   * round is answered by its call's own resolver; one that reaches this (an operation outside any call) is refused.
   */
  resolver(upstream: string): InputResolver {
    return (requests, context) => {
      const exchange =
        context.era === MODERN_VERSION ? undefined : this.inflight.get(upstream)?.values().next().value;
      if (exchange === undefined) {
        throw new JsonRpcError(-32603, "no call through the gateway is waiting for this input");
      }
      return answer(exchange, requests, context.signal);
    };
  }

  /**
   * Runs one round of a downstream operation on `upstream`: the first round starts `work`, a later one (its
   * `requestState` names the exchange) answers the upstream's requests. Resolves with the upstream's answer, or
   * `inputRequired()` passing its next requests to the client.
   */
  async round(upstream: string, ctx: RequestContext, work: BridgedWork): Promise<unknown | InputRequired> {
    const exchange = this.resume(ctx) ?? this.begin(upstream, ctx, work);
    exchange.capabilities = ctx.clientCapabilities;
    const abort = () => exchange.abort(ctx.signal.reason);
    ctx.signal.addEventListener("abort", abort, { once: true });
    let event: Awaited<ReturnType<Exchange["next"]>>;
    try {
      event = await exchange.next();
    } finally {
      ctx.signal.removeEventListener("abort", abort);
    }
    if (event.kind === "done") return event.value;
    if (event.kind === "failed") throw ctx.signal.aborted ? ctx.signal.reason : event.error;
    if (this.parked.size >= this.limits.maxParked) {
      exchange.abort(undefined);
      throw new JsonRpcError(-32603, "the gateway has too many calls waiting for input", {
        reason: "input_capacity",
        limit: this.limits.maxParked,
      });
    }
    const timer = this.clock.setTimeout(() => {
      this.parked.delete(exchange.id);
      exchange.abort(new JsonRpcError(-32603, "the client did not answer in time"));
    }, this.limits.roundTimeoutMs);
    this.parked.set(exchange.id, { exchange, timer });
    return inputRequired(event.requests as InputRequests, { gatewayExchange: exchange.id });
  }

  /**
   * An upstream's log message: to the oldest call in flight on it (a log message names no call), its logger
   * prefixed with the upstream's name; dropped when none is.
   */
  log(upstream: string, message: LoggingMessageParams): void {
    const exchange = this.inflight.get(upstream)?.values().next().value;
    const logger = message.logger === undefined ? upstream : `${upstream}/${message.logger}`;
    exchange?.log?.(message.level, message.data, logger).catch(() => {});
  }

  /**
   * Runs a `tools/call` the client made as a task (the gateway's `tasks` option on): `work` calls the upstream
   * (as its own task where it takes one, its status told to `task`), and its requests for input become the task's (`input_required`, answered with `tasks/update` in
   * 2026-07-28, or as requests on `tasks/result` in 2025-11-25); cancelling the task cancels the upstream call.
   */
  task(upstream: string, ctx: RequestContext, work: BridgedWork): TaskRun {
    return runAsTask(async (task) => {
      const exchange = this.begin(upstream, ctx, (signal, resolver) => work(signal, resolver, task));
      exchange.capabilities = ctx.clientCapabilities;
      const abort = () => exchange.abort(task.signal.reason);
      task.signal.addEventListener("abort", abort, { once: true });
      try {
        for (;;) {
          const event = await exchange.next();
          if (event.kind === "done") return event.value as CallToolResult;
          if (event.kind === "failed") throw event.error;
          exchange.answer(await task.input(event.requests));
        }
      } finally {
        task.signal.removeEventListener("abort", abort);
      }
    });
  }

  /** Abandons every operation in flight. */
  close(): void {
    for (const { exchange, timer } of this.parked.values()) {
      this.clock.clearTimeout(timer);
      exchange.abort(undefined);
    }
    this.parked.clear();
    for (const set of this.inflight.values()) for (const exchange of set) exchange.abort(undefined);
  }

  private resume(ctx: RequestContext): Exchange | undefined {
    const state = ctx.requestState;
    if (!isObject(state) || typeof state.gatewayExchange !== "string") return undefined;
    const entry = this.parked.get(state.gatewayExchange);
    if (entry === undefined || entry.exchange.identity !== principalOf(ctx.identity)) {
      throw new JsonRpcError(-32602, "this input round is unknown or expired; call again", {
        reason: "round_expired",
      });
    }
    this.parked.delete(state.gatewayExchange);
    this.clock.clearTimeout(entry.timer);
    entry.exchange.answer(ctx.inputResponses);
    return entry.exchange;
  }

  private begin(upstream: string, ctx: RequestContext, work: BridgedWork): Exchange {
    const exchange = new Exchange(upstream);
    exchange.identity = principalOf(ctx.identity);
    exchange.log = ctx.log;
    let set = this.inflight.get(upstream);
    if (set === undefined) {
      set = new Set();
      this.inflight.set(upstream, set);
    }
    const calls = set;
    calls.add(exchange);
    const own: InputResolver = (requests, context) => answer(exchange, requests, context.signal);
    exchange.start(async (signal) => {
      try {
        return await work(signal, own);
      } finally {
        calls.delete(exchange);
      }
    });
    return exchange;
  }
}

/**
 * Who a request comes from, comparable across requests: transports make a new identity object per request
 * (mcpkit/auth's `requireBearer` does), so the principal is compared, or the identity as JSON.
 */
function principalOf(identity: unknown): unknown {
  if (identity === undefined) return "";
  if (typeof identity === "string") return `s:${identity}`;
  if (isObject(identity) && typeof identity.principal === "string") return `p:${identity.principal}`;
  try {
    return `j:${JSON.stringify(identity)}`;
  } catch {
    // Not JSON (a cycle, a BigInt): only that very object goes on.
    return identity;
  }
}

/** Hands an upstream's requests to the downstream call, unless its client cannot answer them. */
function answer(
  exchange: Exchange,
  requests: InputRequests,
  signal: AbortSignal | undefined,
): Promise<InputResponses> {
  refuseUnsupported(requests, exchange.capabilities);
  return exchange.ask(requests, signal);
}

function refuseUnsupported(requests: InputRequests, capabilities: ClientCapabilities): void {
  for (const request of Object.values(requests)) {
    const capability = CAPABILITY[request.method];
    if (capability !== undefined && capabilities[capability] === undefined) {
      throw new JsonRpcError(-32601, `the client behind the gateway does not support ${request.method}`, {
        reason: "client_capability",
        capability,
      });
    }
  }
}
