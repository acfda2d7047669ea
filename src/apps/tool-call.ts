import type { CallToolResult } from "../protocol/types/tools.js";
import { BRIDGE_METHODS as M } from "./constants.js";
import type { BridgeLifecycle } from "./lifecycle.js";
import type { BridgeProblem } from "./peer.js";

/** What a {@link ToolCallCycle} needs of its host (`AppHost.toolCall()` provides it). */
export interface ToolCallSender {
  /** The host's lifecycle: its phase, the current call and its number. */
  readonly lifecycle: BridgeLifecycle;
  /** Sends a notification to the view under the lifecycle (throws `PROTOCOL` where it forbids it). */
  send(method: string, params: { [key: string]: unknown }): void;
  /** Reports a dropped send. */
  problem(problem: BridgeProblem): void;
}

/**
 * One tool call as the view sees it (`AppHost.toolCall()`): partial input, input, then a result or a
 * cancellation. Once it ended (result or cancelled), was superseded by a newer call, or the view was torn down,
 * its sends are dropped (they return `false` and are reported to `onProblem`), so a late result of a cancelled
 * call never reaches the view, not even as the next call's result.
 *
 * @example
 * const call = host.toolCall();
 * call.input(args);
 * const result = await client.callTool("weather", args); // meanwhile the user may cancel: call.cancel()
 * call.result(result); // false, and nothing sent, if the call was cancelled
 */
export class ToolCallCycle {
  private endedValue = false;
  private sent = false;

  constructor(
    private readonly host: ToolCallSender,
    private readonly cycle: number,
  ) {}

  /** True once this call got its result or was cancelled. */
  get ended(): boolean {
    return this.endedValue;
  }

  /** Sends best-effort partial arguments (`ui/notifications/tool-input-partial`). */
  inputPartial(args: { [key: string]: unknown }): boolean {
    return this.deliver(M.toolInputPartial, { arguments: args });
  }

  /** Sends the call's arguments (`ui/notifications/tool-input`), once. */
  input(args: { [key: string]: unknown }): boolean {
    return this.deliver(M.toolInput, { arguments: args });
  }

  /** Sends the call's result (`ui/notifications/tool-result`); ends the call. */
  result(result: CallToolResult): boolean {
    return this.deliver(M.toolResult, { ...result });
  }

  /**
   * Ends the call: nothing of it reaches the view afterwards. Sends `ui/notifications/tool-cancelled`, except when
   * nothing of this call reached a view whose earlier call already ended (it has nothing to cancel, and would
   * take the notice as the end of that earlier call).
   */
  cancel(reason?: string): boolean {
    if (!this.sent && this.live() === undefined && this.host.lifecycle.call === "ended") {
      this.endedValue = true;
      return true;
    }
    return this.deliver(M.toolCancelled, reason === undefined ? {} : { reason });
  }

  /** Why this call can send nothing more, or `undefined` while it can. */
  private live(): string | undefined {
    const { lifecycle } = this.host;
    return this.endedValue
      ? "its call has ended"
      : lifecycle.phase === "torn-down"
        ? "the view was torn down"
        : lifecycle.cycle !== this.cycle
          ? "a newer call superseded it"
          : undefined;
  }

  private deliver(method: string, params: { [key: string]: unknown }): boolean {
    const why = this.live();
    if (why !== undefined) {
      this.host.problem({ kind: "lifecycle", message: `${method} was not sent: ${why}`, method });
      return false;
    }
    this.host.send(method, params);
    this.sent = true;
    if (method === M.toolResult || method === M.toolCancelled) this.endedValue = true;
    return true;
  }
}
