import { BRIDGE_METHODS as M } from "./constants.js";

/** Where a bridge is: before the handshake ends, ready (after `initialized`), or torn down. */
export type BridgePhase = "handshake" | "ready" | "torn-down";

/** Where the current tool call's data is: nothing sent yet, partial input, input, or ended (result / cancelled). */
export type CallPhase = "idle" | "partial" | "input" | "ended";

/**
 * The lifecycle of 1.7, checked on what the host sends to a view (the host enforces it; the view drops what
 * breaks it): nothing before `ui/notifications/initialized`; per call, `tool-input-partial`* then one
 * `tool-input`, then `tool-result` or `tool-cancelled`; after a result a new input→result cycle may start (the
 * spec's interactive phase does that); `tool-cancelled` ends its call too (nothing of it may follow, a new call
 * may); `ui/resource-teardown` at any time after the handshake, and nothing after it.
 *
 * @example
 * const lifecycle = new BridgeLifecycle();
 * lifecycle.check("ui/notifications/tool-input"); // "nothing may be sent before ui/notifications/initialized"
 */
export class BridgeLifecycle {
  private phaseValue: BridgePhase = "handshake";
  private callValue: CallPhase = "idle";
  private cycleValue = 0;
  private begun = false;

  /** The bridge's phase. */
  get phase(): BridgePhase {
    return this.phaseValue;
  }

  /** The current call's phase. */
  get call(): CallPhase {
    return this.callValue;
  }

  /** The current call's number: it grows when a call begins ({@link begin}, or an input after an ended call). */
  get cycle(): number {
    return this.cycleValue;
  }

  /** A new call begins (nothing of it sent yet): its first input or partial input starts no further call. */
  begin(): number {
    this.begun = true;
    return ++this.cycleValue;
  }

  /** The view sent `initialized` (after the `ui/initialize` answer): the host may now send. */
  ready(): void {
    if (this.phaseValue === "handshake") this.phaseValue = "ready";
  }

  /** Why the host may not send `method` now, or `undefined` when it may. */
  check(method: string): string | undefined {
    if (this.phaseValue === "torn-down") return `the view was torn down; ${method} cannot follow`;
    if (this.phaseValue === "handshake") return `nothing may be sent before ${M.initialized}`;
    const call = this.callValue;
    switch (method) {
      case M.toolInputPartial:
        return call === "input" ? `${method} cannot follow ${M.toolInput}` : undefined;
      case M.toolInput:
        return call === "input" ? `${M.toolInput} is sent at most once per call` : undefined;
      case M.toolResult:
        return call === "input" ? undefined : `${M.toolResult} needs a ${M.toolInput} first`;
      case M.toolCancelled:
        return call === "ended" ? `${method} cannot follow the end of the call` : undefined;
      default:
        return undefined;
    }
  }

  /** Records that `method` was sent (after {@link check} allowed it). */
  advance(method: string): void {
    switch (method) {
      case M.toolInputPartial:
      case M.toolInput:
        if (this.callValue === "ended" && !this.begun) this.cycleValue++;
        this.begun = false;
        this.callValue = method === M.toolInput ? "input" : "partial";
        break;
      case M.toolResult:
      case M.toolCancelled:
        this.begun = false;
        this.callValue = "ended";
        break;
      case M.resourceTeardown:
        this.phaseValue = "torn-down";
        break;
    }
  }
}
