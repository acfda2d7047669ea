import { randomUUID } from "node:crypto";
import { McpkitError } from "../jsonrpc/errors.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import type { InputRequests, InputResponses } from "../protocol/types/input.js";
import type { RequestContext } from "../server/index.js";

/** What a downstream round waits for: the upstream's answer, its failure, or requests for input to pass on. */
export type ExchangeEvent =
  | { kind: "done"; value: unknown }
  | { kind: "failed"; error: unknown }
  | { kind: "ask"; requests: InputRequests };

interface Ask {
  readonly requests: InputRequests;
  readonly answers: InputResponses;
  resolve(responses: InputResponses): void;
  reject(reason: unknown): void;
}

/**
 * One downstream operation forwarded to an upstream, across the downstream's input rounds: the upstream call
 * runs once, from the first round on; each request for input the upstream makes is handed to the round that
 * waits (which asks the downstream client), and the next round's answers go back to the upstream. Answers the
 * client left out are asked for again; answers to keys not asked are ignored.
 */
export class Exchange {
  /** Aborts the upstream call (the downstream cancelled, a deadline passed, the round expired). */
  readonly controller = new AbortController();
  /** The downstream client's capabilities, as its latest round said. */
  capabilities: ClientCapabilities = {};
  /** The downstream principal that started it (as a comparable key): only its rounds may go on with it. */
  identity: unknown;
  /** Where the upstream's log messages go while it runs: the first round's `ctx.log`. */
  log: RequestContext["log"] | undefined;
  private readonly asks: Ask[] = [];
  private outcome: ExchangeEvent | undefined;
  private wake: (() => void) | undefined;
  private key: string | undefined;

  constructor(readonly upstream: string) {}

  /** Names it in a round's `requestState`; made only for an exchange that waits for a round (most never do). */
  get id(): string {
    this.key ??= randomUUID();
    return this.key;
  }

  /** True once the upstream answered or failed. */
  get settled(): boolean {
    return this.outcome !== undefined;
  }

  /** Starts the upstream call. */
  start(work: (signal: AbortSignal) => Promise<unknown>): void {
    work(this.controller.signal).then(
      (value) => this.finish({ kind: "done", value }),
      (error) => this.finish({ kind: "failed", error }),
    );
  }

  /** The upstream asks for input: resolves with the downstream client's answers, keyed as asked. */
  ask(requests: InputRequests, signal: AbortSignal | undefined): Promise<InputResponses> {
    if (this.controller.signal.aborted) return Promise.reject(this.controller.signal.reason);
    return new Promise<InputResponses>((resolve, reject) => {
      const ask: Ask = { requests, answers: {}, resolve, reject };
      const drop = () => {
        const at = this.asks.indexOf(ask);
        if (at >= 0) this.asks.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", drop, { once: true });
      this.asks.push(ask);
      this.wake?.();
    });
  }

  /** A round's answers to the asks handed out: the first ask resolves once every one of its keys is answered. */
  answer(responses: InputResponses | undefined): void {
    const ask = this.asks[0];
    if (ask === undefined || responses === undefined) return;
    for (const key of Object.keys(ask.requests)) {
      const response = responses[key];
      if (response !== undefined) ask.answers[key] = response;
    }
    if (Object.keys(ask.requests).every((key) => ask.answers[key] !== undefined)) {
      this.asks.shift();
      ask.resolve(ask.answers);
    }
  }

  /** Waits for what the round passes on: the outcome, or the requests of the first ask still unanswered. */
  async next(): Promise<ExchangeEvent> {
    for (;;) {
      if (this.outcome !== undefined) return this.outcome;
      const ask = this.asks[0];
      if (ask !== undefined) {
        const open: InputRequests = {};
        for (const [key, request] of Object.entries(ask.requests)) {
          if (ask.answers[key] === undefined) open[key] = request;
        }
        return { kind: "ask", requests: open };
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }

  /** Ends it: the upstream call is aborted and its pending asks rejected. */
  abort(reason: unknown): void {
    const error = reason ?? new McpkitError("ABORTED", "the downstream call ended");
    this.controller.abort(error);
    for (const ask of this.asks.splice(0)) ask.reject(error);
    this.wake?.();
  }

  private finish(event: ExchangeEvent): void {
    this.outcome = event;
    for (const ask of this.asks.splice(0)) ask.reject(new McpkitError("ABORTED", "the upstream call ended"));
    this.wake?.();
  }
}
